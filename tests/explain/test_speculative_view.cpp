// The Decoding panel's speculative view (explain/speculative_view.h): on the everyday model its
// output is the model's greedy output and its numbers add up; the default draft is one layer
// fewer; a model without a shorter draft, or under switches the KV cache cannot follow, gives a
// message, not an exception. The Workbench keys it on the run, the sentence and the settings.
#include <gtest/gtest.h>

#include <string>

#include "speculative_view.h"
#include "support/fixtures.h"
#include "support/small_models.h"
#include "tx/checkpoint.h"
#include "tx/tokenizer.h"
#include "workbench.h"

namespace tx::speculative_view_test {
namespace {

TEST(SpeculativeView, EverydayModelGivesItsGreedyOutput) {
    const Checkpoint checkpoint = load_checkpoint(test::ASSETS + "/models/everyday.safetensors");
    auto backend = make_cpu_backend();
    Transformer model(checkpoint.config, *backend);
    model.set_parameters(checkpoint.parameters);
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    std::vector<int> src = tokenizer.encode("We will visit Madrid next summer.");
    src.push_back(checkpoint.config.special.eos);
    const explain::SpeculativeView view = explain::speculative_view(model, src, {}, 30, {3, 0});
    ASSERT_EQ(view.error, "");
    EXPECT_EQ(view.draft_layers, checkpoint.config.decoder_layers - 1);
    EXPECT_EQ(view.model_layers, checkpoint.config.decoder_layers);
    EXPECT_EQ(view.result.tokens, view.greedy);
    EXPECT_TRUE(view.greedy_finished);
    EXPECT_FALSE(view.result.tokens.empty());
    // passes: one per round; steps: one per greedy token and EOS; the kept tokens are both
    int kept = 0;
    for (const SpeculativeRound& r : view.result.rounds) kept += r.accepted + (r.target_token >= 0 ? 1 : 0);
    EXPECT_EQ(kept, view.greedy_steps());
    EXPECT_LE(view.result.target_passes(), view.greedy_steps());
}

TEST(SpeculativeView, SaysWhyItCannotRun) {
    auto backend = make_cpu_backend();
    ModelConfig c = test::small_config(23, 7);
    c.decoder_layers = 1;
    Transformer one_layer(c, *backend);
    one_layer.set_parameters(test::random_parameters(c, 5u, 0.4f));
    EXPECT_NE(explain::speculative_view(one_layer, {4, 5, 2}, {}, 8, {}).error.find("one decoder layer"),
              std::string::npos);
    c.decoder_layers = 2;
    Transformer model(c, *backend);
    model.set_parameters(test::random_parameters(c, 5u, 0.4f));
    model.options().causal_mask = false;
    EXPECT_NE(explain::speculative_view(model, {4, 5, 2}, {}, 8, {}).error.find("causal mask"), std::string::npos);
}

// The Workbench: the section's rounds are of the selected sentence under the settings shown, are
// made again when the settings change, and bad settings are refused without losing the old ones.
TEST(SpeculativeView, WorkbenchKeysTheRoundsOnTheSettingsAndTheSentence) {
    app::Workbench wb(test::ASSETS, true);
    wb.print_errors(false);
    wb.open_first_model(test::ASSETS + "/models/grammar.safetensors", {"The red car is big.", "I see the dog."});
    EXPECT_EQ(wb.view().speculative, nullptr);   // nothing made until the section asks
    wb.apply(app::SetSpeculative{2, 1, true});
    ASSERT_NE(wb.view().speculative, nullptr);
    EXPECT_EQ(wb.view().speculative->settings, (explain::SpeculativeSettings{2, 1}));
    EXPECT_EQ(wb.view().speculative->draft_layers, 1);
    EXPECT_EQ(wb.view().speculative->result.tokens, wb.view().greedy[0].ids);
    const int errors = wb.error_count();
    wb.apply(app::SetSpeculative{0, 1, true});    // k out of range
    wb.apply(app::SetSpeculative{2, 99, true});   // more layers than the model has
    EXPECT_EQ(wb.error_count(), errors + 2);
    EXPECT_EQ(wb.view().speculative_k, 2);
    wb.selection().batch_row = 1;
    wb.tick();
    wb.apply(app::UpdateSpeculative{});
    ASSERT_NE(wb.view().speculative, nullptr);
    EXPECT_EQ(wb.view().speculative->result.tokens, wb.view().greedy[1].ids);
    wb.apply(app::SetInput{{"Will your bird sing behind the castle?"}, std::nullopt});   // another input: the rounds are of the old one
    EXPECT_EQ(wb.view().speculative, nullptr);
}

}  // namespace
}  // namespace tx::speculative_view_test
