// The Generate panel's numbers (explain/generation_trace.h) against an independent recompute
// (tests/support/trace_recompute.h): the cached log-probabilities equal one full forward pass of a
// fresh CPU copy of the checkpoint, every cached attention row sums to 1, and the bars are the
// sampling transform of those log-probabilities. On the grammar model, greedy and
// sampled, as the app runs it (compute_generation on the session's model, the first sentence + EOS).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generation_trace.h"
#include "support/trace_recompute.h"
#include "tx/checkpoint.h"
#include "tx/session.h"

namespace tx::explain {
namespace {

const std::string MODEL = std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors";

std::vector<int> first_sentence(const Session& session) {
    std::vector<int> src;
    for (const Token& t : session.source_tokens().front()) src.push_back(t.id);
    src.push_back(session.config().special.eos);
    return src;
}

std::vector<int> chosen(const GenerationTrace& g) {
    std::vector<int> ids;
    for (const GeneratedToken& t : g.tokens) ids.push_back(t.chosen);
    return ids;
}

class GenerationTraceTest : public ::testing::Test {
protected:
    void SetUp() override {
        session.set_input({"The small white dogs will not sleep in the old house."});
        src = first_sentence(session);
    }
    Checkpoint checkpoint = load_checkpoint(MODEL);
    Session session{load_checkpoint(MODEL)};
    std::vector<int> src;
};

TEST_F(GenerationTraceTest, GreedyMatchesAFullPassRecompute) {
    GenerationSettings settings;   // greedy, compared with the full pass
    const GenerationTrace g = compute_generation(session.model(), src, settings, 1);
    ASSERT_TRUE(g.error.empty()) << g.error;
    for (const std::string& m : test::generation_mismatches(checkpoint, src, g)) ADD_FAILURE() << "greedy: " << m;
}

TEST_F(GenerationTraceTest, SamplingMatchesAFullPassRecomputeAndItsSeed) {
    GenerationSettings settings;
    settings.sample = true;
    settings.sampling = {0.8, 10, 0.9, 3};   // temperature, top-k, top-p, seed
    const GenerationTrace g = compute_generation(session.model(), src, settings, 1);
    ASSERT_TRUE(g.error.empty()) << g.error;
    for (const std::string& m : test::generation_mismatches(checkpoint, src, g)) ADD_FAILURE() << "sampling: " << m;
    EXPECT_EQ(chosen(compute_generation(session.model(), src, settings, 1)), chosen(g)) << "the same seed samples the same output";
}

}  // namespace
}  // namespace tx::explain
