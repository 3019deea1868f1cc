// Speculative greedy decoding (tx/speculative_decoding.h) against the target's own greedy
// decoding: the same ids for every draft (the target's first layers, an unrelated random model,
// the target itself) and every k, on the shipped translation models, a random model and a
// decoder-only model with a prompt; the rounds add up; bad drafts and settings are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "support/small_models.h"
#include "tx/checkpoint.h"
#include "tx/decoding.h"
#include "tx/speculative_decoding.h"
#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx::speculative_test {
namespace {

const std::string MODELS = std::string(TX_SOURCE_DIR) + "/assets/models";

std::unique_ptr<Transformer> load(Backend& backend, const Checkpoint& checkpoint) {
    auto model = std::make_unique<Transformer>(checkpoint.config, backend);
    model->set_parameters(checkpoint.parameters);
    return model;
}

std::unique_ptr<Transformer> random_model(Backend& backend, const ModelConfig& c, uint32_t seed) {
    auto model = std::make_unique<Transformer>(c, backend);
    model->set_parameters(test::random_parameters(c, seed, 0.4f));
    return model;
}

// The rounds account for every token: each keeps its accepted proposals and then the target's
// token (none after an accepted EOS), and those are greedy's tokens and its EOS; a rejected proposal is one the
// target chose otherwise.
void expect_rounds_add_up(const SpeculativeResult& r, const std::vector<int>& greedy, int eos, int k) {
    std::vector<int> kept;
    for (const SpeculativeRound& round : r.rounds) {
        EXPECT_LE(static_cast<int>(round.proposed.size()), k);
        EXPECT_LE(round.accepted, static_cast<int>(round.proposed.size()));
        if (round.accepted < static_cast<int>(round.proposed.size())) {
            EXPECT_NE(round.target_token, round.proposed[static_cast<size_t>(round.accepted)]);
        }
        kept.insert(kept.end(), round.proposed.begin(), round.proposed.begin() + round.accepted);
        // after an accepted EOS the model adds nothing
        const bool ended = round.accepted > 0 && round.proposed[static_cast<size_t>(round.accepted - 1)] == eos;
        EXPECT_EQ(round.target_token == -1, ended);
        if (!ended) kept.push_back(round.target_token);
    }
    const auto end = std::find(kept.begin(), kept.end(), eos);
    EXPECT_EQ(std::vector<int>(kept.begin(), end), greedy);
    if (end != kept.end()) {
        EXPECT_EQ(end + 1, kept.end()) << "ids after EOS";
    }
}

void expect_speculative_equals_greedy(Transformer& target, Transformer& draft, const std::vector<int>& src,
                                      int max_new, const std::vector<int>& prompt = {}) {
    const std::vector<int> greedy = greedy_decode(target, {src}, max_new, nullptr,
                                                  prompt.empty() ? std::vector<std::vector<int>>{}
                                                                 : std::vector<std::vector<int>>{prompt})[0];
    for (int k : {1, 2, 4, 8}) {
        SCOPED_TRACE("k = " + std::to_string(k));
        const SpeculativeResult r = speculative_greedy_decode(target, draft, src, max_new, k, prompt);
        EXPECT_EQ(r.tokens, greedy);
        expect_rounds_add_up(r, greedy, target.config().special.eos, k);
    }
}

TEST(SpeculativeDecoding, EverydayModelWithEarlyExitDraftsDecodesAsGreedy) {
    const Checkpoint checkpoint = load_checkpoint(MODELS + "/everyday.safetensors");
    auto backend = make_cpu_backend();
    auto target = load(*backend, checkpoint);
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    // the cheapest draft and the largest, each on its own sentence
    const std::pair<int, const char*> cases[] = {
        {1, "The animal didn't cross the street because it was too wide."},
        {checkpoint.config.decoder_layers - 1, "My sister reads the newspaper every morning before work."}};
    for (const auto& [layers, text] : cases) {
        auto draft = early_exit_draft(*target, layers);
        {
            SCOPED_TRACE(std::string(text) + ", draft of " + std::to_string(layers) + " layers");
            std::vector<int> src = tokenizer.encode(text);
            src.push_back(checkpoint.config.special.eos);
            expect_speculative_equals_greedy(*target, *draft, src, 40);
        }
    }
}

TEST(SpeculativeDecoding, TheTargetAsItsOwnDraftAcceptsEverything) {
    const Checkpoint checkpoint = load_checkpoint(MODELS + "/grammar.safetensors");
    auto backend = make_cpu_backend();
    auto target = load(*backend, checkpoint);
    auto draft = load(*backend, checkpoint);
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    std::vector<int> src = tokenizer.encode("The small white dogs will not sleep in the old house.");
    src.push_back(checkpoint.config.special.eos);
    const std::vector<int> greedy = greedy_decode(*target, {src}, 40)[0];
    for (int k : {1, 3, 5}) {
        const SpeculativeResult r = speculative_greedy_decode(*target, *draft, src, 40, k);
        EXPECT_EQ(r.tokens, greedy);
        EXPECT_DOUBLE_EQ(r.acceptance_rate(), 1.0);
        // each pass keeps k + 1 tokens (the last one fewer): |Y| + EOS tokens in ⌈(|Y| + 1)/(k + 1)⌉ passes
        const int tokens = static_cast<int>(greedy.size()) + 1;
        EXPECT_EQ(r.target_passes(), (tokens + k) / (k + 1)) << "k = " << k;
    }
}

TEST(SpeculativeDecoding, AnUnrelatedDraftStillGivesTheTargetsOutput) {
    auto backend = make_cpu_backend();
    ModelConfig c = test::small_config(23, 7);
    c.max_len = 16;
    auto target = random_model(*backend, c, 12345u);
    ModelConfig small = c;
    small.decoder_layers = 1;
    small.d_model = 8;
    small.d_ff = 16;
    auto draft = random_model(*backend, small, 777u);
    for (const std::vector<int>& src : {std::vector<int>{4, 5, 6, 2}, std::vector<int>{9, 10, 11, 4, 5, 6, 8, 2}}) {
        expect_speculative_equals_greedy(*target, *draft, src, 15);
        expect_speculative_equals_greedy(*target, *draft, src, 3);   // the length limit mid-round
    }
}

TEST(SpeculativeDecoding, DecoderOnlyWithAPromptDecodesAsGreedy) {
    const Checkpoint checkpoint = load_checkpoint(MODELS + "/lm.safetensors");
    auto backend = make_cpu_backend();
    auto target = load(*backend, checkpoint);
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    const std::vector<int> prompt = tokenizer.encode("The cat is sleeping on the");
    if (checkpoint.config.decoder_layers < 2) GTEST_SKIP() << "the language model has one layer";
    auto draft = early_exit_draft(*target, 1);
    expect_speculative_equals_greedy(*target, *draft, {}, 12, prompt);
}

TEST(SpeculativeDecoding, RefusesWhatItCannotDo) {
    auto backend = make_cpu_backend();
    const ModelConfig c = test::small_config(23, 7);
    auto target = random_model(*backend, c, 1u);
    ModelConfig other = c;
    other.tgt_vocab = 30;
    auto wrong_vocabulary = random_model(*backend, other, 2u);
    const std::vector<int> src{4, 5, 2};
    try {
        speculative_greedy_decode(*target, *wrong_vocabulary, src, 5, 2);
        ADD_FAILURE() << "a draft of another vocabulary was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("target vocabulary is 30"), std::string::npos) << what;
        EXPECT_NE(what.find("target model's is 23"), std::string::npos) << what;
    }
    EXPECT_THROW(speculative_greedy_decode(*target, *target, src, 5, 0), std::invalid_argument);
    EXPECT_THROW(early_exit_draft(*target, 0), std::invalid_argument);
    EXPECT_THROW(early_exit_draft(*target, c.decoder_layers), std::invalid_argument);
    EXPECT_NO_THROW(early_exit_draft(*target, 1));
    target->options().causal_mask = false;
    EXPECT_THROW(speculative_greedy_decode(*target, *target, src, 5, 2), std::invalid_argument);
    EXPECT_EQ(draft_mismatch(c, c), "");
}

}  // namespace
}  // namespace tx::speculative_test
