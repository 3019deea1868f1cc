// compute_look_inside (explain/look_inside.h), the Look inside panel's computation: on a golden
// model its views are the library's own for the same text, the corrupted input keeps the clean
// decoder input, and bad input (empty text, another length, an unknown metric token, no corrupted
// sentence) becomes an error of the whole or of one view, never an exception; on a decoder-only
// model the views that apply are there and patching compares prompts.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "look_inside.h"
#include "tx/checkpoint.h"
#include "tx/session.h"
#include "support/small_models.h"
#include "support/fixtures.h"

namespace tx::explain {
namespace {

bool same_grids(const std::vector<PatchGrid>& a, const std::vector<PatchGrid>& b) {
    if (a.size() != b.size()) return false;
    for (size_t g = 0; g < a.size(); ++g) {
        if (a[g].name != b[g].name || a[g].normalised.size() != b[g].normalised.size()) return false;
        for (size_t i = 0; i < a[g].normalised.size(); ++i) {
            const double x = a[g].normalised[i], y = b[g].normalised[i];
            if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
        }
    }
    return true;
}

TEST(LookInside, ViewsAreTheLibrarysForTheSameText) {
    LookInsideRequest request;
    request.source = "the cat sat on a mat";
    request.corrupted = "the dog sat on a mat";
    const LookInside r = compute_look_inside(test::golden_checkpoint(), request);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.request == request);
    EXPECT_FALSE(r.decoder_only);

    InspectModel model(test::golden_checkpoint());
    const InspectInput in = model.input(request.source);
    InspectInput corrupted = model.input(request.corrupted, std::string());
    corrupted.tgt = in.tgt;
    EXPECT_EQ(r.source_tokens, model.token_texts(in.src));
    EXPECT_EQ(r.target_tokens, model.token_texts(in.tgt));
    EXPECT_EQ(r.lens.log_probs, logit_lens(model, in, 5).log_probs);
    const ActivationPatching patch = activation_patching(model, in, corrupted);
    ASSERT_TRUE(r.patching.error.empty()) << r.patching.error;
    EXPECT_EQ(r.patching.metric_text, patch.metric_text);
    EXPECT_TRUE(same_grids(r.patching.grids, patch.grids));
    const HeadImportance heads = head_importance(model, in);
    ASSERT_EQ(r.heads.grids.size(), heads.grids.size());
    for (size_t g = 0; g < heads.grids.size(); ++g) EXPECT_EQ(r.heads.grids[g].delta, heads.grids[g].delta);
    EXPECT_EQ(r.rollout.per_layer, attention_rollout(model, in).per_layer);
    ASSERT_EQ(r.attribution.size(), in.tgt.size());
    for (int t = 0; t < static_cast<int>(in.tgt.size()); ++t) {
        const LogitAttribution a = logit_attribution(model, in, t);
        EXPECT_EQ(r.attribution[static_cast<size_t>(t)].logit, a.logit) << "position " << t;
        EXPECT_EQ(r.attribution[static_cast<size_t>(t)].remainder, a.remainder) << "position " << t;
    }
    // Every token the lens names has its text.
    for (const LensCell& c : r.lens.cells)
        for (int id : c.top) EXPECT_EQ(r.lens_token(id), model.token_text(id));
    EXPECT_EQ(r.lens_token(-7), "#-7");
}

TEST(LookInside, BadInputBecomesAnErrorNotAnException) {
    LookInsideRequest request;
    request.source = "";
    EXPECT_NE(compute_look_inside(test::golden_checkpoint(), request).error.find("empty"), std::string::npos);

    request.source = "the cat sat on a mat";
    LookInside r = compute_look_inside(test::golden_checkpoint(), request);   // no corrupted sentence
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_NE(r.patching.error.find("corrupted"), std::string::npos) << r.patching.error;
    EXPECT_TRUE(r.lens.error.empty() && r.heads.error.empty() && r.rollout.error.empty() && r.entropy.error.empty());

    request.corrupted = "the big dog sat on a mat";   // one piece more
    r = compute_look_inside(test::golden_checkpoint(), request);
    EXPECT_NE(r.patching.error.find("7 pieces"), std::string::npos) << r.patching.error;
    EXPECT_NE(r.patching.error.find("8"), std::string::npos) << r.patching.error;
    EXPECT_EQ(r.patching.clean_tokens.size(), 7u);   // both sequences, to be shown aligned
    EXPECT_EQ(r.patching.corrupted_tokens.size(), 8u);
    EXPECT_TRUE(r.lens.error.empty());

    request.corrupted = "the dog sat on a mat";
    request.metric_token = "zebra";   // not in the vocabulary
    r = compute_look_inside(test::golden_checkpoint(), request);
    EXPECT_NE(r.patching.error.find("zebra"), std::string::npos) << r.patching.error;
    request.metric_token = "cat";
    request.metric_position = 99;     // outside the decoder input
    r = compute_look_inside(test::golden_checkpoint(), request);
    EXPECT_FALSE(r.patching.error.empty());
    EXPECT_TRUE(r.heads.error.empty());
}

TEST(LookInside, DecoderOnlyHasTheViewsThatApply) {
    const ModelConfig c = test::small_decoder_only_config(32);
    const Vocabulary vocab = load_vocabulary(std::string(TX_SOURCE_DIR) + "/assets/vocab/words.txt");
    LookInsideRequest request;
    request.source = "the cat sat";
    request.target = "on the mat";
    request.corrupted = "the dog sat";
    const LookInside r = compute_look_inside(Session::fresh(c, vocab.tokens()), request);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.decoder_only);
    EXPECT_TRUE(r.source_tokens.empty());
    ASSERT_TRUE(r.patching.error.empty()) << r.patching.error;
    for (const PatchGrid& g : r.patching.grids) EXPECT_EQ(g.stack, Stack::Decoder) << g.name;
    // The corrupted prompt is followed by the clean run's continuation: same decoder length.
    EXPECT_EQ(r.patching.clean_tokens.size(), r.patching.corrupted_tokens.size());
    EXPECT_TRUE(r.rollout.error.empty() && r.rollout.cross.empty());
    EXPECT_EQ(r.attribution.size(), r.target_tokens.size());
}

}  // namespace
}  // namespace tx::explain
