// The look-inside views' exact properties and refusals, on the golden models and a fresh
// decoder-only model: the logit lens's last row is the model's output bit for bit; patching every
// position of a layer's output with the clean run's gives the clean run, patching nothing the
// corrupted run, bit for bit, in any order; the logit attribution adds up to the logit; and bad
// input (different lengths, empty text, the wrong kind of model) is refused with a message.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "activation_patching.h"
#include "attention_rollout.h"
#include "head_importance.h"
#include "inspect_model.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "tx/checkpoint.h"
#include "tx/session.h"
#include "support/small_models.h"
#include "support/fixtures.h"

namespace tx::explain {
namespace {

using test::fixture;

// "the cat sat on a mat" / "the dog sat on a mat" in the golden vocabulary, decoder input fixed.
const InspectInput CLEAN{{4, 5, 6, 7, 8, 9, 2}, {1, 4, 5, 6, 7, 8}};
const InspectInput CORRUPTED{{4, 10, 6, 7, 8, 9, 2}, {1, 4, 5, 6, 7, 8}};

std::vector<int> all_positions(int n) {
    std::vector<int> p(static_cast<size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    return p;
}

class InspectViews : public ::testing::TestWithParam<const char*> {
protected:
    Checkpoint checkpoint() const { return load_checkpoint(fixture(std::string("golden_") + GetParam() + ".ckpt.safetensors")); }
};

TEST_P(InspectViews, LensLastRowIsTheModelOutputBitForBit) {
    // The reference: a Transformer of its own, run once.
    const Checkpoint c = checkpoint();
    auto backend = make_cpu_backend();
    Transformer reference(c.config, *backend);
    reference.set_parameters(c.parameters);
    reference.set_batch({CLEAN.src}, {CLEAN.tgt});
    reference.forward();
    const std::vector<float> expected = reference.step_output(reference.step_count() - 1);

    InspectModel model(c);
    const LogitLens lens = logit_lens(model, CLEAN);
    ASSERT_TRUE(lens.error.empty()) << lens.error;
    const size_t TV = expected.size();
    ASSERT_EQ(lens.log_probs.size(), lens.layers * TV);
    const std::vector<float> last(lens.log_probs.end() - static_cast<std::ptrdiff_t>(TV), lens.log_probs.end());
    EXPECT_EQ(last, expected);
    // The lens leaves the model as the real run left it.
    EXPECT_EQ(model.output(model.model().step_count() - 1), expected);
    // Earlier rows differ (else the test would not tell the layers apart).
    EXPECT_NE(std::vector<float>(lens.log_probs.begin(), lens.log_probs.begin() + static_cast<std::ptrdiff_t>(TV)), expected);
    ASSERT_EQ(lens.cells.size(), static_cast<size_t>(lens.layers * lens.positions));
    for (int t = 0; t < lens.positions; ++t)
        EXPECT_EQ(lens.cells[(lens.layers - 1) * lens.positions + t].top.front(), lens.chosen[t]);
}

TEST_P(InspectViews, PatchingEverythingGivesCleanAndNothingGivesCorruptedBitForBit) {
    InspectModel model(checkpoint());
    Patcher patcher(model, CLEAN, CORRUPTED);
    const std::vector<float> clean = patcher.clean_log_probs(), corrupted = patcher.corrupted_log_probs();
    ASSERT_NE(clean, corrupted);
    const int S = static_cast<int>(CLEAN.src.size()), T = static_cast<int>(CLEAN.tgt.size());
    const int L = model.config().encoder_layers;
    // Decreasing and increasing step order both work (patches undo each other).
    for (int l = L - 1; l >= 0; --l)
        EXPECT_EQ(patcher.patch_rows(model.layer_output(Stack::Encoder, l), all_positions(S)), clean) << "encoder layer " << l;
    for (int l = 0; l < L; ++l)
        EXPECT_EQ(patcher.patch_rows(model.layer_output(Stack::Encoder, l), all_positions(S)), clean) << "encoder layer " << l;
    // The decoder's last layer output holds everything the generator reads.
    const size_t last = model.layer_output(Stack::Decoder, model.config().decoder_layers - 1);
    EXPECT_EQ(patcher.patch_rows(last, all_positions(T)), clean);
    // Nothing patched, after patches at later and earlier steps: the corrupted run.
    EXPECT_EQ(patcher.patch_rows(model.layer_output(Stack::Encoder, 0), {}), corrupted);
    EXPECT_EQ(patcher.patch_rows(last, {}), corrupted);
    EXPECT_EQ(patcher.patch_rows(model.step("encoder.layers.1.ffn.out"), {}), corrupted);
    // A single patch gives the same bits whatever was patched before it, at an earlier step (whose
    // effect on the steps in between must be undone) or a later one.
    const size_t site = model.step("encoder.layers.0.self_attn.out");
    // (The decoder's layer 0 output: the layers after it also read the encoder's output.)
    const size_t decoder0 = model.layer_output(Stack::Decoder, 0);
    const std::vector<float> late = patcher.patch_rows(decoder0, {2});
    patcher.patch_rows(site, {1});
    EXPECT_EQ(patcher.patch_rows(decoder0, {2}), late);
    patcher.patch_head(model.step("encoder.layers.1.self_attn.context"), 0);
    EXPECT_EQ(patcher.patch_rows(decoder0, {2}), late);
    const std::vector<float> once = patcher.patch_rows(site, {1});
    patcher.patch_rows(last, {2});
    patcher.patch_head(model.step("decoder.layers.0.cross_attn.context"), 1);
    EXPECT_EQ(patcher.patch_rows(site, {1}), once);
    EXPECT_NE(once, corrupted);
}

TEST_P(InspectViews, AttributionAddsUpToTheLogit) {
    InspectModel model(checkpoint());
    for (int t = 0; t < static_cast<int>(CLEAN.tgt.size()); ++t)
        for (int token : {-1, 5, 12}) {
            const LogitAttribution r = logit_attribution(model, CLEAN, t, token);
            ASSERT_TRUE(r.error.empty()) << r.error;
            double sum = r.remainder;
            for (const Contribution& p : r.parts) sum += p.value;
            EXPECT_NEAR(sum, r.logit, 1e-4 * (1.0 + std::fabs(r.logit))) << "position " << t << " token " << r.token;
            EXPECT_FALSE(r.method.empty());
        }
}

TEST_P(InspectViews, BadInputIsRefusedWithAMessage) {
    InspectModel model(checkpoint());
    InspectInput shorter = CORRUPTED;
    shorter.src.erase(shorter.src.begin());
    const ActivationPatching r = activation_patching(model, CLEAN, shorter);
    EXPECT_NE(r.error.find("7 pieces"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(" 6 "), std::string::npos) << r.error;
    EXPECT_THROW(Patcher(model, CLEAN, shorter), std::invalid_argument);
    EXPECT_THROW(model.input(""), std::invalid_argument);
    EXPECT_THROW(model.input("   "), std::invalid_argument);
    const InspectInput empty;
    EXPECT_FALSE(logit_lens(model, empty).error.empty());
    EXPECT_FALSE(head_importance(model, empty).error.empty());
    EXPECT_FALSE(attention_rollout(model, empty).error.empty());
    EXPECT_FALSE(attention_entropy(model, empty).error.empty());
    EXPECT_FALSE(logit_attribution(model, empty).error.empty());
    EXPECT_FALSE(activation_patching(model, empty, empty).error.empty());
    EXPECT_FALSE(head_importance(model, CLEAN, 99).error.empty());
    EXPECT_FALSE(logit_attribution(model, CLEAN, 99).error.empty());
    EXPECT_FALSE(activation_patching(model, CLEAN, CORRUPTED, {99, -1, -1}).error.empty());
    EXPECT_FALSE(logit_lens(model, InspectInput{{4, 99, 2}, {1}}).error.empty());   // id outside the vocabulary
    EXPECT_THROW(model.token_id("zebra"), std::invalid_argument);
    EXPECT_EQ(model.token_id("cat"), 5);
    EXPECT_EQ(model.token_id("#5"), 5);
    // The same input twice: the normalised effect is undefined, said in a note, never a division by 0.
    const ActivationPatching same = activation_patching(model, CLEAN, CLEAN);
    ASSERT_TRUE(same.error.empty()) << same.error;
    EXPECT_FALSE(same.note.empty());
    EXPECT_TRUE(std::isnan(same.grids.front().normalised.front()));
}

INSTANTIATE_TEST_SUITE_P(Inspect, InspectViews, ::testing::Values("post", "pre"));

// A decoder-only model: the views that apply work on the decoder alone; patching compares two
// prompts of the same length.
TEST(InspectDecoderOnly, ViewsThatApplyWorkAndPatchingIsExact) {
    const ModelConfig c = test::small_decoder_only_config(32);
    const Vocabulary vocab = load_vocabulary(std::string(TX_SOURCE_DIR) + "/assets/vocab/words.txt");
    InspectModel model(Session::fresh(c, vocab.tokens()));
    const InspectInput clean = model.input("the cat sat", std::string("on the mat"));
    const InspectInput corrupted = model.input("the dog sat", std::string("on the mat"));
    ASSERT_TRUE(clean.src.empty());

    const LogitLens lens = logit_lens(model, clean);
    ASSERT_TRUE(lens.error.empty()) << lens.error;
    EXPECT_EQ(lens.layers, 2);

    Patcher patcher(model, clean, corrupted);
    const int T = static_cast<int>(clean.tgt.size());
    EXPECT_EQ(patcher.patch_rows(model.layer_output(Stack::Decoder, 0), all_positions(T)), patcher.clean_log_probs());
    EXPECT_EQ(patcher.patch_rows(model.layer_output(Stack::Decoder, 1), {}), patcher.corrupted_log_probs());
    const ActivationPatching r = activation_patching(model, clean, corrupted);
    ASSERT_TRUE(r.error.empty()) << r.error;
    for (const PatchGrid& g : r.grids) EXPECT_EQ(g.stack, Stack::Decoder) << g.name;
    const ActivationPatching longer = activation_patching(model, clean, model.input("the big dog sat", std::string("on the mat")));
    EXPECT_NE(longer.error.find("prompt"), std::string::npos) << longer.error;

    const HeadImportance heads = head_importance(model, clean);
    ASSERT_TRUE(heads.error.empty()) << heads.error;
    ASSERT_EQ(heads.grids.size(), 1u);
    EXPECT_EQ(heads.grids[0].name, "decoder.self_attn");

    const AttentionRollout roll = attention_rollout(model, clean);
    ASSERT_TRUE(roll.error.empty()) << roll.error;
    EXPECT_EQ(roll.stack, "decoder self-attention");
    EXPECT_TRUE(roll.cross.empty());
    const int N = roll.positions;
    for (int i = 0; i < N; ++i) {
        double sum = 0.0;
        for (int j = 0; j < N; ++j) {
            const double v = roll.per_layer[static_cast<size_t>(roll.layers - 1) * N * N + i * N + j];
            if (j > i) {
                EXPECT_EQ(v, 0.0) << "causal: row " << i << " reaches a later position " << j;
            }
            sum += v;
        }
        EXPECT_NEAR(sum, 1.0, 1e-12);
    }
    const AttentionEntropy entropy = attention_entropy(model, clean);
    ASSERT_TRUE(entropy.error.empty()) << entropy.error;
    ASSERT_EQ(entropy.grids.size(), 1u);
    for (double e : entropy.grids[0].entropy) EXPECT_LE(e, entropy.grids[0].max_entropy + 1e-9);

    const LogitAttribution a = logit_attribution(model, clean);
    ASSERT_TRUE(a.error.empty()) << a.error;
    double sum = a.remainder;
    for (const Contribution& p : a.parts) sum += p.value;
    EXPECT_NEAR(sum, a.logit, 1e-4 * (1.0 + std::fabs(a.logit)));
}

}  // namespace
}  // namespace tx::explain
