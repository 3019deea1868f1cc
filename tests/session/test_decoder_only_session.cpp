// A decoder-only (GPT) model in a Session: the typed sentence is a prompt, decoding continues it,
// and the shown pass runs on BOS + prompt + continuation, right-padded. References are written
// here from the model's full forward pass alone: a plain greedy loop per prompt (B = 1, no cache).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "support/plain_greedy.h"
#include "tx/beam_search.h"
#include "tx/decoding.h"
#include "tx/sampling.h"
#include "tx/session.h"
#include "support/small_models.h"

namespace tx {
namespace {

Session make_session(const ModelConfig& c) {
    const Vocabulary vocab = load_vocabulary(std::string(TX_SOURCE_DIR) + "/assets/vocab/words.txt");
    return Session(Session::fresh(c, vocab.tokens()));
}

// The variants the prompt path must follow: positions added, rotated or as a score bias, Pre-LN,
// and a sliding window (the cache's mask must match the full pass's).
std::vector<std::pair<std::string, std::function<void(ModelConfig&)>>> variants() {
    return {
        {"sinusoidal post-LN", [](ModelConfig&) {}},
        {"llama-like", [](ModelConfig& c) {
             c.positional = PositionalKind::Rope;
             c.ffn = FfnKind::SwiGlu;
             c.norm_kind = NormKind::RmsNorm;
             c.norm = NormPlacement::Pre;
         }},
        {"alibi window 4", [](ModelConfig& c) {
             c.positional = PositionalKind::Alibi;
             c.window = 4;
         }},
        {"learned gelu", [](ModelConfig& c) {
             c.positional = PositionalKind::Learned;
             c.ffn = FfnKind::Gelu;
         }},
    };
}

std::vector<int> ids_of(const Session& s, const std::string& text) { return s.tokenizer().encode(text); }

using test::plain_greedy;

const std::vector<std::string> PROMPTS = {"The animal didn't cross the street because it was", "The cat sat.",
                                          "I see"};

TEST(DecoderOnlySession, ContinuationEqualsAPlainGreedyLoopOverTheFullModel) {
    // max_len 24 cuts the longest prompt's continuation at max_len; 64 leaves every prompt the
    // full CONTINUATION_TOKENS.
    for (int max_len : {24, 64}) {
        for (const auto& [name, change] : variants()) {
            for (bool kv_cache : {true, false}) {
                SCOPED_TRACE(name + ", max_len " + std::to_string(max_len) + (kv_cache ? ", KV cache" : ", full passes"));
                ModelConfig c = test::small_decoder_only_config(max_len);
                change(c);
                Session s = make_session(c);
                ASSERT_TRUE(s.decoder_only());
                s.model().options().kv_cache = kv_cache;
                s.set_input(PROMPTS);
                ASSERT_EQ(s.decoded_ids().size(), PROMPTS.size());
                std::vector<std::vector<int>> want;
                for (size_t b = 0; b < PROMPTS.size(); ++b) {
                    const std::vector<int> prompt = ids_of(s, PROMPTS[b]);
                    const int limit = std::min(CONTINUATION_TOKENS, max_len - 1 - static_cast<int>(prompt.size()));
                    EXPECT_EQ(s.output_limit(b), limit);
                    want.push_back(plain_greedy(s.model(), prompt, limit));
                }
                for (size_t b = 0; b < PROMPTS.size(); ++b) {
                    EXPECT_EQ(s.decoded_ids()[b], want[b]) << "prompt " << b + 1;
                    // Beam size 1 finds greedy's continuation, with the same score.
                    EXPECT_EQ(s.beam_results()[b].best, want[b]) << "prompt " << b + 1;
                    EXPECT_EQ(s.greedy_results()[b].ids, want[b]);
                }
                // The untrained model rarely says EOS: the limits are what end these continuations.
                EXPECT_EQ(static_cast<int>(want[0].size()), s.output_limit(0));
            }
        }
    }
}

TEST(DecoderOnlySession, ShownPassIsBosPromptContinuationRightPaddedWithTrueMasks) {
    for (const auto& [name, change] : variants()) {
        SCOPED_TRACE(name);
        ModelConfig c = test::small_decoder_only_config(40);
        change(c);
        Session s = make_session(c);
        s.set_input(PROMPTS);
        const Transformer& m = s.model();
        const int B = m.batch_size(), T = m.tgt_len(), V = s.config().tgt_vocab;   // the vocabulary's size, set by fresh()
        ASSERT_EQ(B, 3);
        std::vector<std::vector<int>> rows;
        for (int b = 0; b < B; ++b) {
            std::vector<int> row{c.special.bos};
            for (int id : ids_of(s, PROMPTS[b])) row.push_back(id);
            for (int id : s.decoded_ids()[b]) row.push_back(id);
            rows.push_back(row);
        }
        const std::vector<float> batch_lp = m.step_output(m.step_count() - 1);   // [B,T,V]
        const std::vector<float> mask = m.tgt_mask();                          // [B,1,T,T]
        for (int b = 0; b < B; ++b) {
            const int len = static_cast<int>(rows[b].size());
            for (int t = 0; t < T; ++t)
                EXPECT_EQ(m.tgt_ids()[b * T + t], t < len ? rows[b][t] : c.special.pad) << "row " << b << " position " << t;
            // Causal, the window where set, and PAD keys closed: the mask each query row sees.
            for (int i = 0; i < T; ++i)
                for (int j = 0; j < T; ++j) {
                    const bool open = j <= i && j < len && (c.window == 0 || j > i - c.window);
                    EXPECT_EQ(mask[(static_cast<size_t>(b) * T + i) * T + j], open ? 1.0f : 0.0f)
                        << "row " << b << " query " << i << " key " << j;
                }
        }
        // Right padding is invisible to the real positions: each row alone gives the same
        // log-probabilities there.
        for (int b = 0; b < B; ++b) {
            Session alone = make_session(c);
            alone.set_input({PROMPTS[b]});
            const Transformer& a = alone.model();
            ASSERT_EQ(a.tgt_len(), static_cast<int>(rows[b].size()));
            const std::vector<float> lp = a.step_output(a.step_count() - 1);
            double worst = 0.0;
            for (size_t i = 0; i < lp.size(); ++i)
                worst = std::max(worst, std::abs(static_cast<double>(lp[i]) - batch_lp[static_cast<size_t>(b) * T * V + i]));
            EXPECT_LT(worst, 1e-4) << "row " << b;
        }
    }
}

TEST(DecoderOnlySession, TargetTextIsWhatFollowsThePrompt) {
    Session s = make_session(test::small_decoder_only_config(32));
    s.set_input({"The cat", "I"}, std::string("sat on the mat."));
    const std::vector<int> follow = ids_of(s, "sat on the mat.");
    for (int b = 0; b < 2; ++b) {
        std::vector<int> want{s.config().special.bos};
        for (int id : ids_of(s, b == 0 ? "The cat" : "I")) want.push_back(id);
        want.insert(want.end(), follow.begin(), follow.end());
        const int T = s.model().tgt_len();
        std::vector<int> got(s.model().tgt_ids().begin() + b * T, s.model().tgt_ids().begin() + b * T + want.size());
        EXPECT_EQ(got, want);
        for (int t = static_cast<int>(want.size()); t < T; ++t) EXPECT_EQ(s.model().tgt_ids()[b * T + t], s.config().special.pad);
    }
}

TEST(DecoderOnlySession, BeamSearchAndSamplingContinueThePrompt) {
    Session s = make_session(test::small_decoder_only_config(40));
    const ModelConfig& c = s.config();   // with the vocabulary's size
    s.set_decoding({3, 0.6});
    s.set_input({PROMPTS[1]});
    const std::vector<int> prompt = ids_of(s, PROMPTS[1]);
    // The cached search and the search by full passes agree hypothesis for hypothesis.
    Transformer& m = s.model();
    const BeamResult cached = s.beam_results()[0];
    m.options().kv_cache = false;
    const BeamResult full = beam_search(m, {c.special.eos}, CONTINUATION_TOKENS, {3, 0.6}, prompt);
    m.options().kv_cache = true;
    ASSERT_EQ(cached.hypotheses.size(), full.hypotheses.size());
    for (size_t i = 0; i < full.hypotheses.size(); ++i) {
        EXPECT_EQ(cached.hypotheses[i].ids, full.hypotheses[i].ids);
        EXPECT_NEAR(cached.hypotheses[i].log_prob, full.hypotheses[i].log_prob, 1e-4);
    }
    EXPECT_EQ(s.decoded_ids()[0], cached.best);
    // Its best hypothesis's log-probability is the full model's over BOS + prompt + continuation.
    std::vector<int> seq{c.special.bos};
    seq.insert(seq.end(), prompt.begin(), prompt.end());
    seq.insert(seq.end(), cached.best.begin(), cached.best.end());
    m.set_batch({{c.special.eos}}, {seq});
    m.forward();
    const std::vector<float> lp = m.step_output(m.step_count() - 1);
    double sum = 0.0;
    for (size_t i = prompt.size(); i + 1 < seq.size(); ++i) sum += lp[i * c.tgt_vocab + seq[i + 1]];
    if (cached.hypotheses.front().finished) sum += lp[(seq.size() - 1) * c.tgt_vocab + c.special.eos];
    EXPECT_NEAR(cached.log_prob, sum, 1e-3);
    // Sampling with top-k 1 is greedy decoding, prompts and all.
    SamplingOptions one;
    one.top_k = 1;
    std::vector<std::vector<int>> prompts;
    std::vector<std::vector<int>> src;
    for (const auto& p : PROMPTS) {
        prompts.push_back(ids_of(s, p));
        src.push_back({c.special.eos});
    }
    const auto sampled = sample_decode(m, src, CONTINUATION_TOKENS, one, prompts);
    for (size_t b = 0; b < PROMPTS.size(); ++b)
        EXPECT_EQ(sampled[b], plain_greedy(m, prompts[b], std::min(CONTINUATION_TOKENS, c.max_len - 1 - static_cast<int>(prompts[b].size()))));
}

TEST(DecoderOnlySession, APromptThatDoesNotFitIsRefusedAndThePreviousInputStays) {
    Session s = make_session(test::small_decoder_only_config(8));
    s.set_input({"The cat sat."});
    const std::vector<std::vector<int>> before = s.decoded_ids();
    try {
        s.set_input({"I see", "The animal didn't cross the street because it was too tired."});
        FAIL() << "a prompt longer than max_len was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("prompt 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("max_len 8"), std::string::npos) << e.what();
    }
    EXPECT_EQ(s.sentences(), std::vector<std::string>{"The cat sat."});
    EXPECT_EQ(s.decoded_ids(), before);
    // A prompt that fills max_len with BOS leaves no room: nothing is generated.
    s.set_input({"a b c d e f g"});
    EXPECT_EQ(s.output_limit(0), 0);
    EXPECT_TRUE(s.decoded_ids()[0].empty());
    EXPECT_EQ(s.model().tgt_len(), 8);
}

}  // namespace
}  // namespace tx
