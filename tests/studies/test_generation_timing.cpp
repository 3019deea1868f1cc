// Generation timed with and without the KV cache (core/include/tx/generation_timing.h): both ways make exactly
// N tokens (EOS skipped), the same ones, in positive time, on encoder-decoder and decoder-only models,
// and leave the model's options as they were. Also the cache under the Post-LN final norm
// (ModelConfig::final_norm, imported torch.nn.Transformer models): its log-probabilities equal a full
// pass's, to the 1e-5 of test_incremental_decoding.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "support/small_models.h"
#include "tx/backend.h"
#include "tx/generation_timing.h"
#include "tx/incremental_decoder.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace tx {
namespace {

ModelConfig small_config(Arch arch) {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = 19;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 24;
    c.arch = arch;
    c.encoder_layers = arch == Arch::DecoderOnly ? 0 : 2;
    c.decoder_layers = 2;
    c.max_len = 20;
    c.seed = 5;
    return c;
}

// Xavier weights, norms and biases moved off 1 and 0; eos_bias makes EOS the most probable token
// almost everywhere, so that a run that stopped at EOS would be short.
void randomise(Transformer& model, float eos_bias) {
    model.set_parameters(test::random_parameters(model.config(), 777u, 0.4f, eos_bias));
}

void check_timing(Arch arch) {
    auto backend = make_cpu_backend();
    Transformer model(small_config(arch), *backend);
    randomise(model, 6.0f);
    model.options().kv_cache = false;   // must come back as it was
    const std::vector<int> lengths = generation_timing_lengths(model.config().max_len);
    ASSERT_EQ(lengths, (std::vector<int>{8, 16}));
    const GenerationTiming t = time_generation(model, {4, 5, 6, 2}, lengths, 2);
    EXPECT_FALSE(model.options().kv_cache);
    ASSERT_EQ(t.cached_ms.size(), 2u);
    ASSERT_EQ(t.full_ms.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_GT(t.cached_ms[i], 0.0);
        EXPECT_GT(t.full_ms[i], 0.0);
    }
    EXPECT_TRUE(t.same_tokens);
    EXPECT_EQ(t.cached_tokens, t.full_tokens);
    EXPECT_EQ(t.cached_tokens.size(), 16u);
    EXPECT_EQ(std::count(t.cached_tokens.begin(), t.cached_tokens.end(), model.config().special.eos), 0);
}

TEST(GenerationTiming, EncoderDecoderMakesTheSameNTokensBothWays) { check_timing(Arch::EncoderDecoder); }
TEST(GenerationTiming, DecoderOnlyMakesTheSameNTokensBothWays) { check_timing(Arch::DecoderOnly); }

TEST(GenerationTiming, LengthsStayBelowMaxLen) {
    EXPECT_EQ(generation_timing_lengths(128), (std::vector<int>{8, 16, 32, 64}));
    EXPECT_EQ(generation_timing_lengths(64), (std::vector<int>{8, 16, 32}));
    EXPECT_EQ(generation_timing_lengths(9), (std::vector<int>{8}));
    EXPECT_EQ(generation_timing_lengths(5), (std::vector<int>{4}));
    EXPECT_EQ(generation_timing_lengths(2), (std::vector<int>{1}));
}

TEST(GenerationTiming, RefusesOptionsTheCacheCannotFollow) {
    auto backend = make_cpu_backend();
    Transformer model(small_config(Arch::EncoderDecoder), *backend);
    randomise(model, 0.0f);
    model.options().causal_mask = false;
    EXPECT_THROW(time_generation(model, {4, 2}, {3}, 1), std::invalid_argument);
    EXPECT_FALSE(model.options().causal_mask);
}

// Post-LN with a final norm: the cached decoder applies decoder.norm before the generator as the full pass does.
TEST(GenerationTiming, CacheFollowsThePostLnFinalNorm) {
    auto backend = make_cpu_backend();
    for (Arch arch : {Arch::EncoderDecoder, Arch::DecoderOnly}) {
        ModelConfig c = small_config(arch);
        c.final_norm = true;
        Transformer model(c, *backend);
        randomise(model, 0.0f);
        const std::vector<int> prefix = {1, 7, 9, 4, 12, 5};
        const int T = static_cast<int>(prefix.size());
        model.set_batch({{4, 5, 6, 2}}, {prefix});
        model.forward();
        const std::vector<float> full = model.step_output(model.step_count() - 1);   // [1,T,V]
        model.encode();
        IncrementalDecoder cache(model, T);
        const int V = c.tgt_vocab;
        double worst = 0.0;
        for (int t = 0; t < T; ++t) {
            const std::vector<float> lp = cache.step({prefix[static_cast<size_t>(t)]});
            for (int v = 0; v < V; ++v)
                worst = std::max(worst, std::fabs(static_cast<double>(lp[v]) - full[static_cast<size_t>(t * V + v)]));
        }
        EXPECT_LE(worst, 1e-5) << (arch == Arch::DecoderOnly ? "decoder-only" : "encoder-decoder");
    }
}

}  // namespace
}  // namespace tx
