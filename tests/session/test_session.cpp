// Session: inputs, stepping, masks and head ablation, on a small random model over the shipped
// word vocabulary. (Whether the numbers are right is test_golden's job; this is the driving.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "tx/decoding.h"
#include "tx/session.h"
#include "support/temp_path.h"

namespace tx {
namespace {

Session make_session(NormPlacement norm = NormPlacement::Post) {
    ModelConfig c;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 32;
    c.encoder_layers = c.decoder_layers = 2;
    c.max_len = 32;
    c.norm = norm;
    const Vocabulary vocab = load_vocabulary(std::string(TX_SOURCE_DIR) + "/assets/vocab/words.txt");
    return Session(Session::fresh(c, vocab.tokens()));
}

const char* SENTENCE = "The animal didn't cross the street because it was too tired.";

TEST(Session, SetInputRunsEveryStepAndDecodes) {
    Session s = make_session();
    s.set_input({SENTENCE});
    EXPECT_EQ(s.cursor(), s.step_count());
    ASSERT_EQ(s.source_tokens().size(), 1u);
    EXPECT_EQ(s.source_tokens()[0].size(), 12u);   // 11 words + "."
    EXPECT_EQ(s.model().src_len(), 13);            // + EOS
    ASSERT_EQ(s.decoded_ids().size(), 1u);
    // The decoder input is BOS + the greedy output.
    EXPECT_EQ(s.model().tgt_ids()[0], s.config().special.bos);
    EXPECT_EQ(s.model().tgt_len(), static_cast<int>(s.decoded_ids()[0].size()) + 1);
}

TEST(Session, SteppingOneByOneEqualsTheFullRunBitForBit) {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        Session s = make_session(norm);
        s.set_input({SENTENCE, "It was too big."});
        std::vector<std::vector<float>> full;
        for (size_t i = 0; i < s.step_count(); ++i) full.push_back(s.model().step_output(i));
        s.restart();
        EXPECT_EQ(s.cursor(), 0u);
        while (s.cursor() < s.step_count()) {
            const size_t i = s.cursor();
            s.step_forward();
            const auto out = s.model().step_output(i);
            ASSERT_EQ(out.size(), full[i].size());
            EXPECT_EQ(std::memcmp(out.data(), full[i].data(), out.size() * sizeof(float)), 0) << s.model().steps()[i].name;
        }
    }
}

TEST(Session, CursorMovesByStepAndLayer) {
    Session s = make_session();
    s.set_input({SENTENCE});
    s.restart();
    s.run_to(s.model().find_step("encoder.layers.0.self_attn.probs"));
    EXPECT_EQ(s.cursor(), s.model().find_step("encoder.layers.0.self_attn.probs") + 1);
    s.step_back();
    EXPECT_EQ(s.cursor(), s.model().find_step("encoder.layers.0.self_attn.probs"));
    // Next layer: the first step of encoder layer 1.
    s.run_to(s.next_layer_boundary() - 1);
    EXPECT_EQ(s.model().steps()[s.cursor()].name, "encoder.layers.1.self_attn.q");
    // Previous layer from a layer's start goes to the previous layer's start.
    const size_t layer0 = s.previous_layer_boundary();
    EXPECT_EQ(s.model().steps()[layer0].name, "encoder.layers.0.self_attn.q");
    s.run_to_end();
    EXPECT_EQ(s.cursor(), s.step_count());
    s.step_forward();   // at the end: nothing happens
    EXPECT_EQ(s.cursor(), s.step_count());
}

TEST(Session, BatchIsPaddedAndPadKeysGetNoAttention) {
    Session s = make_session();
    s.set_input({SENTENCE, "Hello ."});
    const Transformer& m = s.model();
    ASSERT_EQ(m.batch_size(), 2);
    const int S = m.src_len(), H = s.config().heads;
    EXPECT_EQ(m.src_ids()[S + 3], s.config().special.pad);   // row 2: "Hello . <eos>" then PAD
    const auto probs = m.step_output(m.find_step("encoder.layers.0.self_attn.probs"));
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < S; ++i)
            for (int j = 3; j < S; ++j) EXPECT_EQ(probs[((1 * H + h) * S + i) * S + j], 0.0f);
}

TEST(Session, BadInputIsRefusedAndThePreviousInputStays) {
    Session s = make_session();
    s.set_input({SENTENCE});
    EXPECT_THROW(s.set_input({}), std::invalid_argument);
    EXPECT_THROW(s.set_input({"a", "b", "c", "d", "e"}), std::invalid_argument);
    try {
        s.set_input({std::string(10000, 'x') + " " + std::string(5000, 'a') + std::string(200, '.')});
        FAIL() << "a 10,000-character input longer than max_len was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("max_len"), std::string::npos) << e.what();
    }
    EXPECT_EQ(s.sentences().front(), SENTENCE);
    EXPECT_EQ(s.source_tokens()[0].size(), 12u);
}

TEST(Session, EdgeInputsRun) {
    Session s = make_session();
    for (const std::string& text : {std::string(""), std::string("   \t "), std::string("naïve café — 東京"),
                                   std::string("ctrl\x01\x02 chars\x7f"), std::string("\xff\xfe broken utf8")}) {
        s.set_input({text});
        EXPECT_EQ(s.cursor(), s.step_count()) << text;
        EXPECT_GE(s.model().src_len(), 1);   // at least EOS
    }
    s.set_input({"zyzzyva qwxv"});
    ASSERT_EQ(s.source_tokens()[0].size(), 2u);
    EXPECT_TRUE(s.source_tokens()[0][0].unknown);
    EXPECT_EQ(s.source_tokens()[0][0].id, s.config().special.unk);
}

TEST(Session, CausalMaskToggleChangesDecoderAttention) {
    Session s = make_session();
    s.set_input({SENTENCE}, std::string("The animal didn't cross"));
    const size_t probs = s.model().find_step("decoder.layers.0.self_attn.probs");
    const int T = s.model().tgt_len();
    auto above_diagonal = [&] {
        const auto p = s.model().step_output(probs);
        double sum = 0;
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j) sum += p[i * T + j];
        return sum;
    };
    EXPECT_EQ(above_diagonal(), 0.0);
    s.set_causal_mask(false);
    EXPECT_GT(above_diagonal(), 0.0);
    EXPECT_EQ(s.model().tgt_mask()[1], 1.0f);   // row 0 may now see key 1
    s.set_causal_mask(true);
    EXPECT_EQ(above_diagonal(), 0.0);
}

// Without positional encoding attention sees its keys as a set: two sentences with the same words
// in another order give the same decoder log-probabilities (up to the summation order), with it
// they do not (a fresh model: the property is the architecture's, not learned).
TEST(Session, WithoutPositionalEncodingWordOrderIsInvisible) {
    const std::string a = "the cat saw the dog .", b = "the dog saw the cat .";
    const auto log_probs = [](Session& s, const std::string& sentence) {
        s.set_input({sentence}, std::string("the cat"));
        return s.model().step_output(s.model().step_count() - 1);
    };
    Session s = make_session();
    const auto max_diff = [](const std::vector<float>& x, const std::vector<float>& y) {
        double d = 0;
        for (size_t i = 0; i < x.size(); ++i) d = std::max(d, static_cast<double>(std::abs(x[i] - y[i])));
        return d;
    };
    EXPECT_GT(max_diff(log_probs(s, a), log_probs(s, b)), 1e-3);
    s.set_positional_encoding(false);
    EXPECT_FALSE(s.options().positional_encoding);
    EXPECT_LT(max_diff(log_probs(s, a), log_probs(s, b)), 1e-5);
}

TEST(Session, PaddingMaskToggle) {
    Session s = make_session();
    s.set_input({SENTENCE, "Hello ."});
    EXPECT_EQ(s.model().src_mask()[s.model().src_len() + 3], 0.0f);
    s.set_padding_mask(false);
    EXPECT_EQ(s.model().src_mask()[s.model().src_len() + 3], 1.0f);
    const auto probs = s.model().step_output(s.model().find_step("encoder.layers.0.self_attn.probs"));
    const int S = s.model().src_len(), H = s.config().heads;
    EXPECT_GT(probs[((1 * H + 0) * S + 0) * S + S - 1], 0.0f);   // row 2 attends to a PAD key
}

TEST(Session, HeadAblationZeroesThatHeadsContext) {
    Session s = make_session();
    s.set_input({SENTENCE});
    const std::string prefix = "decoder.layers.1.cross_attn";
    s.set_head_enabled(prefix, 1, false);
    EXPECT_FALSE(s.head_enabled(prefix, 1));
    EXPECT_TRUE(s.head_enabled(prefix, 0));
    const size_t ctx = s.model().find_step(prefix + ".context");
    const auto out = s.model().step_output(ctx);
    const int T = s.model().tgt_len(), dk = s.config().d_k();
    for (int i = 0; i < T * dk; ++i) {
        EXPECT_EQ(out[T * dk + i], 0.0f);   // head 1 of batch row 0
    }
    double head0 = 0;
    for (int i = 0; i < T * dk; ++i) head0 += std::fabs(out[i]);
    EXPECT_GT(head0, 0.0);
    s.set_head_enabled(prefix, 1, true);
    EXPECT_TRUE(s.head_enabled(prefix, 1));
    EXPECT_TRUE(s.options().disabled_heads.empty());
}

// Switching the 1/√dk scaling off keeps the weights and multiplies every raw score by √dk (the
// Q and K projections are unchanged); switching it back gives the first run's outputs exactly.
TEST(Session, AttentionScalingToggleKeepsTheWeights) {
    Session s = make_session();
    s.set_head_enabled("encoder.layers.0.self_attn", 1, false);
    s.set_input({SENTENCE});
    const size_t scores = s.model().find_step("encoder.layers.0.self_attn.scores");
    const size_t last = s.step_count() - 1;
    const auto scaled = s.model().step_output(scores);
    const auto out = s.model().step_output(last);
    const auto parameters = s.model().download_parameters();
    s.set_attention_scaling(false);
    EXPECT_FALSE(s.config().scale_attention);
    EXPECT_FALSE(s.model().config().scale_attention);
    EXPECT_FALSE(s.head_enabled("encoder.layers.0.self_attn", 1));   // options survive the rebuild
    EXPECT_EQ(s.cursor(), s.step_count());
    EXPECT_EQ(s.model().download_parameters(), parameters);
    const auto unscaled = s.model().step_output(scores);
    ASSERT_EQ(unscaled.size(), scaled.size());
    const float root_dk = std::sqrt(static_cast<float>(s.config().d_k()));
    for (size_t i = 0; i < scaled.size(); ++i) EXPECT_NEAR(unscaled[i], scaled[i] * root_dk, 1e-4f * (1 + std::fabs(unscaled[i])));
    s.set_attention_scaling(true);
    EXPECT_TRUE(s.config().scale_attention);
    EXPECT_EQ(s.model().step_output(last), out);
}

TEST(Session, SaveAndReloadGiveTheSameOutputs) {
    Session s = make_session();
    s.set_input({SENTENCE});
    const std::string path = tx::test::unique_temp_path("session-test.safetensors");
    s.save(path);
    Session loaded = Session::load(path);
    loaded.set_input({SENTENCE});
    EXPECT_EQ(loaded.decoded_ids(), s.decoded_ids());
    const size_t last = s.step_count() - 1;
    EXPECT_EQ(loaded.model().step_output(last), s.model().step_output(last));
    std::filesystem::remove(path);
}

// The session keeps both decodings of every sentence whichever is chosen: greedy's equals
// greedy_decode's (its log P summed from the shown pass when that pass is greedy's output), beam
// search's equals beam_search's, trace included; and the shown pass is the chosen decoding's
// output although both searches moved the model's batch before it.
TEST(Session, KeepsGreedyAndBeamSearchOfEverySentence) {
    Session s(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    const std::vector<std::string> sentences = {"Seven quiet foxes jumped over two lazy dogs.", "I see the dog."};
    s.set_input(sentences);
    const ModelConfig& c = s.config();
    int differing = 0;
    for (const Session::Decoding d : {Session::Decoding{4, 0.6}, Session::Decoding{1, 0.6}, Session::Decoding{3, 0.0}}) {
        s.set_decoding(d);
        const auto& greedy = s.greedy_results();
        const auto& beams = s.beam_results();
        ASSERT_EQ(greedy.size(), sentences.size());
        ASSERT_EQ(beams.size(), sentences.size());
        // The shown pass: BOS + the chosen output, every step run.
        const Transformer& m = s.model();
        ASSERT_EQ(m.batch_size(), 2);
        EXPECT_EQ(s.cursor(), s.step_count());
        for (size_t b = 0; b < sentences.size(); ++b) {
            const std::vector<int>& chosen = d.beam_size > 1 ? beams[b].best : greedy[b].ids;
            EXPECT_EQ(s.decoded_ids()[b], chosen);
            for (size_t t = 0; t < chosen.size(); ++t) EXPECT_EQ(m.tgt_ids()[b * m.tgt_len() + t + 1], chosen[t]);
        }
        if (d.beam_size == 1) {
            // Greedy's log P from the shown pass (teacher forcing on BOS + greedy's output).
            const auto lp = m.step_output(m.find_step("generator.log_probs"));   // [B,T,V]
            const int T = m.tgt_len(), V = c.tgt_vocab;
            for (size_t b = 0; b < sentences.size(); ++b) {
                std::vector<int> next = greedy[b].ids;
                if (greedy[b].finished) next.push_back(c.special.eos);
                double sum = 0.0;
                for (size_t t = 0; t < next.size(); ++t) sum += lp[(b * T + t) * V + next[t]];
                EXPECT_NEAR(greedy[b].log_prob, sum, 1e-4);
            }
        }
        // Independent runs of both decoders on the same model (they move its batch; the session's
        // results are copies).
        std::vector<std::vector<int>> src;
        size_t longest = 0;
        for (const auto& tokens : s.source_tokens()) {
            src.emplace_back();
            for (const Token& t : tokens) src.back().push_back(t.id);
            src.back().push_back(c.special.eos);
            longest = std::max(longest, src.back().size());
        }
        const int limit = std::min(c.max_len - 1, 2 * static_cast<int>(longest) + 10);
        std::vector<GreedyScore> scores;
        const auto ref_greedy = greedy_decode(s.model(), src, limit, &scores);
        for (size_t b = 0; b < sentences.size(); ++b) {
            EXPECT_EQ(greedy[b].ids, ref_greedy[b]);
            EXPECT_EQ(greedy[b].log_prob, scores[b].log_prob);
            EXPECT_EQ(greedy[b].finished, scores[b].finished);
            EXPECT_EQ(greedy[b].length, static_cast<int>(ref_greedy[b].size()) + (scores[b].finished ? 1 : 0));
            EXPECT_DOUBLE_EQ(greedy[b].score, greedy[b].log_prob / length_penalty(greedy[b].length, d.length_penalty));
            const BeamResult ref = beam_search(s.model(), src[b], limit, {d.beam_size, d.length_penalty});
            EXPECT_EQ(beams[b].best, ref.best);
            EXPECT_EQ(beams[b].score, ref.score);
            ASSERT_EQ(beams[b].hypotheses.size(), ref.hypotheses.size());
            for (size_t h = 0; h < ref.hypotheses.size(); ++h) EXPECT_EQ(beams[b].hypotheses[h].ids, ref.hypotheses[h].ids);
            ASSERT_EQ(beams[b].trace.size(), ref.trace.size());
            for (size_t t = 0; t < ref.trace.size(); ++t) {
                ASSERT_EQ(beams[b].trace[t].candidates.size(), ref.trace[t].candidates.size());
                EXPECT_EQ(beams[b].trace[t].prefixes, ref.trace[t].prefixes);
                for (size_t k = 0; k < ref.trace[t].candidates.size(); ++k) {
                    EXPECT_EQ(beams[b].trace[t].candidates[k].token, ref.trace[t].candidates[k].token);
                    EXPECT_EQ(beams[b].trace[t].candidates[k].fate, ref.trace[t].candidates[k].fate);
                }
            }
            if (d.beam_size == 1) {
                EXPECT_EQ(beams[b].best, greedy[b].ids);
            }
            differing += beams[b].best != greedy[b].ids;
        }
    }
    // The first sentence's unseen words make beam search (K = 4, alpha 0.6) leave greedy's path.
    EXPECT_GE(differing, 1);
}

}  // namespace
}  // namespace tx

namespace tx {
namespace {

// Without positional encoding (and without padding), self-attention and the FFN treat positions
// alike: permuting the source permutes the encoder's output rows and nothing else.
TEST(Session, EncoderWithoutPositionalEncodingIsPermutationEquivariant) {
    Session s = make_session();
    s.set_positional_encoding(false);
    s.set_input({"the cat sat on the mat"});
    const size_t memory = s.model().first_decoder_step() - 1;
    const auto a = s.model().step_output(memory);
    s.set_input({"mat the on sat cat the"});   // positions reversed (EOS stays last)
    const auto b = s.model().step_output(memory);
    const int S = s.model().src_len(), D = s.config().d_model;
    ASSERT_EQ(S, 7);
    for (int i = 0; i < S - 1; ++i)
        for (int d = 0; d < D; ++d) EXPECT_NEAR(a[i * D + d], b[(S - 2 - i) * D + d], 1e-5f) << i;
    for (int d = 0; d < D; ++d) EXPECT_NEAR(a[(S - 1) * D + d], b[(S - 1) * D + d], 1e-5f);
    // With PE the same permutation changes the outputs.
    s.set_positional_encoding(true);
    const auto c = s.model().step_output(memory);
    double diff = 0;
    for (int d = 0; d < D; ++d) diff += std::fabs(c[d] - b[d]);
    EXPECT_GT(diff, 1e-3);
}

}  // namespace
}  // namespace tx
