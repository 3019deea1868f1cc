// Models imported from PyTorch by tools/import_torch.py (nn.Transformer Post-LN ReLU and Pre-LN GELU,
// a GPT-style causal nn.TransformerEncoder) against PyTorch's own outputs on the same batch, from
// tests/gen_import_fixtures.py: every layer's output, each stack's output and the log-probs [B,T,V].
// Both sides are float32: |ours − torch| ≤ 1e-4·max(1, |torch|). The fixtures are read from
// $TX_IMPORT_FIXTURES when set (the end-to-end ctest regenerates them there), else tests/fixtures/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/safetensors.h"
#include "tx/transformer.h"
#include "support/fixtures.h"

namespace tx {
namespace {

using test::fixture;
using test::rows_of;

// Returns how many reference outputs were compared.
size_t check_import(const std::string& name, Arch arch, NormPlacement norm, bool final_norm, FfnKind ffn) {
    SCOPED_TRACE(name);
    const Checkpoint checkpoint = load_checkpoint(fixture("import_" + name + ".safetensors"));
    const ModelConfig& c = checkpoint.config;
    EXPECT_EQ(c.arch, arch);
    EXPECT_EQ(c.norm, norm);
    EXPECT_EQ(c.has_final_norm(), final_norm);
    EXPECT_EQ(c.ffn, ffn);
    EXPECT_EQ(checkpoint.vocabulary.at(4), "the");   // the vocabulary file's order is the ids' order

    const SafetensorsFile expect = read_safetensors(fixture("import_" + name + ".expect.safetensors"));
    auto backend = make_cpu_backend();
    Transformer model(c, *backend);
    model.set_parameters(checkpoint.parameters);
    model.set_batch(rows_of(*expect.find("src_ids"), c.special.pad), rows_of(*expect.find("tgt_ids"), c.special.pad));
    model.forward();

    size_t compared = 0;
    for (const NamedTensor& ref : expect.tensors) {
        if (ref.name.rfind("trace.", 0) != 0) continue;
        const std::string step = ref.name.substr(6);
        const size_t index = model.find_step(step);
        EXPECT_LT(index, model.step_count()) << "our model has no step " << step;
        if (index >= model.step_count()) continue;
        const std::vector<float> got = model.step_output(index);
        EXPECT_EQ(got.size(), ref.data.size()) << step;
        if (got.size() != ref.data.size()) continue;
        double worst = 0.0;
        size_t at = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            const double err = std::fabs(static_cast<double>(got[i]) - ref.data[i]) /
                               std::max(1.0, std::fabs(static_cast<double>(ref.data[i])));
            if (std::isnan(err)) {   // a NaN fails whatever the other values
                worst = std::numeric_limits<double>::infinity();
                at = i;
                break;
            }
            if (err > worst) {
                worst = err;
                at = i;
            }
        }
        EXPECT_LE(worst, 1e-4) << step << "[" << at << "]: ours " << got[at] << ", PyTorch " << ref.data[at];
        ++compared;
    }
    return compared;
}

TEST(TorchImport, TransformerPostLnReluEqualsPyTorch) {
    // 2 encoder + 2 decoder layer outputs, both stacks' final norms, the log-probs
    EXPECT_EQ(check_import("transformer_post_relu", Arch::EncoderDecoder, NormPlacement::Post, true, FfnKind::Relu), 7u);
}

TEST(TorchImport, TransformerPreLnGeluUnscaledEmbeddingsEqualsPyTorch) {
    EXPECT_EQ(check_import("transformer_pre_gelu", Arch::EncoderDecoder, NormPlacement::Pre, true, FfnKind::Gelu), 7u);
}

TEST(TorchImport, CausalEncoderIsDecoderOnlyAndEqualsPyTorch) {
    EXPECT_EQ(check_import("encoder_causal_gpt", Arch::DecoderOnly, NormPlacement::Pre, true, FfnKind::Gelu), 4u);
}

// The Post-LN final norm is a config field of its own: absent in every other checkpoint, it adds
// exactly the two norms to the parameter table, and changes nothing under Pre-LN (which has them).
TEST(TorchImport, FinalNormFieldRoundTripsAndIsValidated) {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = 9;
    EXPECT_EQ(to_json(c).find("final_norm"), std::string::npos);
    c.final_norm = true;
    EXPECT_TRUE(config_from_json(to_json(c)).final_norm);
    auto backend = make_cpu_backend();
    Transformer with(c, *backend);
    EXPECT_LT(with.find_step("encoder.norm.out"), with.step_count());
    EXPECT_LT(with.find_step("decoder.norm.out"), with.step_count());
    c.final_norm = false;
    Transformer without(c, *backend);
    EXPECT_EQ(with.table().total() - without.table().total(), 4 * c.d_model);
    c.norm = NormPlacement::Pre;
    Transformer pre(c, *backend);
    c.final_norm = true;
    Transformer pre_with(c, *backend);
    EXPECT_EQ(pre_with.table().total(), pre.table().total());
    EXPECT_EQ(pre_with.step_count(), pre.step_count());
}

}  // namespace
}  // namespace tx
