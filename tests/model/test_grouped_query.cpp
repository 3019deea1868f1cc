// Grouped-query attention (ModelConfig::kv_heads): checked against an independent reference, the
// 2017 model with one key/value head per query head whose K and V weights are the shared ones
// repeated for each query head of a group. Forward: the same outputs. Backward: each shared
// row's gradient is the sum of its copies' gradients. The KV cache, which holds only the G shared
// heads, decodes as the full recompute does. Finite differences: test_model_gradient's variants.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/plain_greedy.h"
#include "support/small_models.h"
#include "support/temp_path.h"
#include "support/variant_reference.h"
#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/config.h"
#include "tx/beam_search.h"
#include "tx/decoding.h"
#include "tx/model_on_backend.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace tx {
namespace {

ModelConfig grouped_config(int heads, int kv_heads, Arch arch, PositionalKind positional) {
    ModelConfig c = test::small_config(23, 5);
    c.d_model = 24;
    c.heads = heads;
    c.kv_heads = kv_heads;
    c.arch = arch;
    if (arch == Arch::DecoderOnly) c.encoder_layers = 0;
    c.positional = positional;
    c.dropout = 0.0f;
    return c;
}

// The reference's parameters: every k_proj / v_proj [G·dk, D] (and bias) of `grouped` spread to
// [H·dk, D], query head h's rows being shared head h / (H/G)'s; everything else as it is.
std::vector<float> repeated_parameters(const ModelConfig& grouped, const std::vector<float>& p, const ModelConfig& full) {
    const ParameterTable from(grouped), to(full);
    std::vector<float> out(static_cast<size_t>(to.total()));
    const int H = grouped.heads, G = grouped.kv_head_count(), dk = grouped.d_k(), group = H / G;
    for (const auto& e : to.entries()) {
        const ParameterInfo& src = from.at(e.name);
        const bool kv = e.name.find(".k_proj.") != std::string::npos || e.name.find(".v_proj.") != std::string::npos;
        if (!kv) {
            std::copy_n(p.begin() + src.offset, e.numel(), out.begin() + e.offset);
            continue;
        }
        const int64_t row = e.shape.size() == 2 ? e.shape[1] : 1;   // a weight row has D floats, a bias "row" one
        for (int h = 0; h < H; ++h)
            std::copy_n(p.begin() + src.offset + static_cast<int64_t>(h / group) * dk * row, dk * row,
                        out.begin() + e.offset + static_cast<int64_t>(h) * dk * row);
    }
    return out;
}

test::VariantPair make_pair(int heads, int kv_heads, Arch arch, PositionalKind positional) {
    const ModelConfig grouped = grouped_config(heads, kv_heads, arch, positional);
    ModelConfig full = grouped;
    full.kv_heads = 0;
    return test::variant_pair(grouped, full, [&](const std::vector<float>& p) { return repeated_parameters(grouped, p, full); });
}

using test::largest_difference;
const std::vector<std::vector<int>>& SRC = test::VARIANT_SRC;
const std::vector<std::vector<int>>& TGT = test::VARIANT_TGT;

struct Case {
    const char* name;
    int heads, kv_heads;
    Arch arch;
    PositionalKind positional;
};
const Case CASES[] = {
    {"GQA 4 heads, 2 shared", 4, 2, Arch::EncoderDecoder, PositionalKind::Sinusoidal},
    {"MQA 4 heads, 1 shared", 4, 1, Arch::EncoderDecoder, PositionalKind::Sinusoidal},
    {"GQA with RoPE", 4, 2, Arch::EncoderDecoder, PositionalKind::Rope},
    {"MQA with ALiBi", 4, 1, Arch::EncoderDecoder, PositionalKind::Alibi},
    {"decoder-only GQA 6 heads, 3 shared", 6, 3, Arch::DecoderOnly, PositionalKind::Rope},
};

TEST(GroupedQuery, ForwardEqualsMultiHeadAttentionWithRepeatedKeyValueWeights) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.heads, k.kv_heads, k.arch, k.positional);
        for (Transformer* m : {p.v.model.get(), p.r.model.get()}) {
            m->set_batch(SRC, TGT);
            m->forward();
        }
        const size_t logits_g = p.v->find_step("generator.logits"), logits_f = p.r->find_step("generator.logits");
        EXPECT_LT(largest_difference(p.v->step_output(logits_g), p.r->step_output(logits_f)), 1e-5);
        // Every H-head step of the grouped model is the reference's step of the same name.
        for (const AttentionBlock& a : p.v->attention_blocks()) {
            const std::string k_name = p.v->steps()[a.k].name, v_name = p.v->steps()[a.v].name;
            EXPECT_EQ(k_name, a.prefix + ".k_repeat");
            EXPECT_EQ(p.v->steps()[a.k_shared].name, a.prefix + ".k");
            EXPECT_EQ(p.v->steps()[a.k_shared].shape.dims[1], k.kv_heads);
            EXPECT_LT(largest_difference(p.v->step_output(a.k), p.r->step_output(p.r->find_step(a.prefix + ".k"))), 1e-6);
            EXPECT_LT(largest_difference(p.v->step_output(a.v), p.r->step_output(p.r->find_step(a.prefix + ".v"))), 1e-6);
            EXPECT_LT(largest_difference(p.v->step_output(a.probs), p.r->step_output(p.r->find_step(a.prefix + ".probs"))), 1e-6);
        }
    }
}

TEST(GroupedQuery, ASharedHeadsGradientIsTheSumOverItsGroup) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.heads, k.kv_heads, k.arch, k.positional);
        const std::vector<float> gg = test::batch_gradients(*p.v), gf = test::batch_gradients(*p.r);
        const ParameterTable tg(p.variant), tf(p.reference);
        const int H = k.heads, G = k.kv_heads, dk = p.variant.d_k(), group = H / G;
        double worst = 0.0, largest = 0.0;
        for (const auto& e : tg.entries()) {
            const ParameterInfo& f = tf.at(e.name);
            const bool kv = e.name.find(".k_proj.") != std::string::npos || e.name.find(".v_proj.") != std::string::npos;
            const int64_t row = e.shape.size() == 2 ? e.shape[1] : 1;
            for (int64_t i = 0; i < e.numel(); ++i) {
                double expected = gf[static_cast<size_t>(f.offset + i)];
                if (kv) {   // shared head s, offset r within it: the sum over its group's copies
                    const int64_t s = i / (dk * row), r = i % (dk * row);
                    expected = 0.0;
                    for (int h = static_cast<int>(s) * group; h < (static_cast<int>(s) + 1) * group; ++h)
                        expected += gf[static_cast<size_t>(f.offset + static_cast<int64_t>(h) * dk * row + r)];
                }
                worst = std::max(worst, std::fabs(gg[static_cast<size_t>(e.offset + i)] - expected));
                largest = std::max(largest, std::fabs(expected));
            }
        }
        EXPECT_GT(largest, 1e-3) << "no gradient to compare";
        EXPECT_LT(worst, 1e-5 * std::max(1.0, largest));
    }
}

TEST(GroupedQuery, TheKeyValueCacheDecodesAsTheFullRecompute) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.heads, k.kv_heads, k.arch, k.positional);
        if (k.arch == Arch::DecoderOnly) {
            const std::vector<int> prompt = {7, 8, 9};
            const std::vector<int> plain = test::plain_greedy(*p.v, prompt, 8);
            const std::vector<std::vector<int>> cached = greedy_decode(*p.v, {{2}}, 8, nullptr, {prompt});
            EXPECT_EQ(cached.front(), plain);
            continue;
        }
        // Against the reference model's cached decoding, which keeps one head per query head; with
        // the attention steps and with fused attention (each takes its own path through the cache).
        for (bool fused : {false, true}) {
            p.v->options().fused_attention = p.r->options().fused_attention = fused;
            EXPECT_EQ(greedy_decode(*p.v, SRC, 9), greedy_decode(*p.r, SRC, 9)) << "fused " << fused;
            BeamOptions beam;
            beam.beam_size = 3;
            EXPECT_EQ(beam_search(*p.v, SRC[0], 9, beam).best, beam_search(*p.r, SRC[0], 9, beam).best) << "fused " << fused;
        }
    }
}

TEST(GroupedQuery, TheConfigNamesBothHeadCountsWhenTheyDoNotDivide) {
    ModelConfig c = grouped_config(4, 3, Arch::EncoderDecoder, PositionalKind::Sinusoidal);
    const auto why = validate(c);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("kv_heads (3)"), std::string::npos) << *why;
    EXPECT_NE(why->find("heads (4)"), std::string::npos) << *why;
    c.kv_heads = 5;
    ASSERT_TRUE(validate(c).has_value());
    EXPECT_NE(validate(c)->find("kv_heads (5)"), std::string::npos);
    c.kv_heads = -1;
    EXPECT_TRUE(validate(c).has_value());
    c.kv_heads = 4;   // as many as heads: the 2017 model
    EXPECT_FALSE(validate(c).has_value());
    EXPECT_EQ(ParameterTable(c).total(), ParameterTable(grouped_config(4, 0, Arch::EncoderDecoder, PositionalKind::Sinusoidal)).total());
}

TEST(GroupedQuery, FewerKeyValueHeadsMeanSmallerProjectionsAndTheCheckpointRoundTrips) {
    const ModelConfig c = grouped_config(4, 2, Arch::EncoderDecoder, PositionalKind::Sinusoidal);
    const ParameterTable table(c);
    EXPECT_EQ(table.at("encoder.layers.0.self_attn.k_proj.weight").shape, (std::vector<int64_t>{12, 24}));
    EXPECT_EQ(table.at("decoder.layers.1.cross_attn.v_proj.bias").shape, (std::vector<int64_t>{12}));
    EXPECT_EQ(table.at("decoder.layers.1.cross_attn.q_proj.weight").shape, (std::vector<int64_t>{24, 24}));
    EXPECT_EQ(config_from_json(to_json(c)).kv_heads, 2);
    EXPECT_EQ(to_json(grouped_config(4, 0, Arch::EncoderDecoder, PositionalKind::Sinusoidal)).find("kv_heads"), std::string::npos)
        << "a config without grouping writes no kv_heads (older checkpoints stay byte for byte)";

    Checkpoint ck;
    ck.config = c;
    ck.config.src_vocab = ck.config.tgt_vocab = 23;
    const char* const specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int i = 0; i < 23; ++i) ck.vocabulary.push_back(i < 4 ? std::string(specials[i]) : std::string("w").append(std::to_string(i)));
    ck.parameters = test::random_parameters(ck.config, 1u, 0.4f);
    const std::string path = test::unique_temp_path("gqa.safetensors");
    save_checkpoint(path, ck);
    const Checkpoint back = load_checkpoint(path);
    std::filesystem::remove(path);
    EXPECT_EQ(back.config.kv_heads, 2);
    EXPECT_EQ(back.parameters, ck.parameters);
}

}  // namespace
}  // namespace tx
