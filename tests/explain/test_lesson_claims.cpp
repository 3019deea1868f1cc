// What the lessons (assets/lessons/*.json) tell a learner the screen will show, checked on the
// shipped translation model with the settings each lesson's steps make: the translations with and
// without positions, the effect of the 1/√dk switch, the masks, the heads, the alignment, and
// greedy against beam search. Each question's stated answer is tied to the computed fact, so an
// edited lesson or a retrained model that makes a question false fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lessons.h"
#include "session_view.h"
#include "tx/checkpoint.h"
#include "tx/session.h"

namespace tx::app {
namespace {

const std::vector<std::string> PANELS = {"input",  "steps",   "attention", "masks",    "positional", "shapes",
                                         "model",  "backend", "training",  "decoding", "neuron",     "lessons",
                                         "generate"};

Lesson lesson(const std::string& file) {
    return read_lesson(std::string(TX_SOURCE_DIR) + "/assets/lessons/" + file, PANELS);
}
const std::string& answer(const Lesson& l) { return l.question.choices[static_cast<size_t>(l.question.answer)]; }

Session translation_model() {
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    session.set_fused_attention(false);   // every attention step materialised, as the explorer shows them
    return session;
}

SessionView view_of(Session& session) {
    session.run_to_end();
    SessionView view;
    refresh_view(view, session, "test", true);
    return view;
}

size_t step_index(const SessionView& v, const std::string& name) {
    for (size_t i = 0; i < v.steps.size(); ++i)
        if (v.steps[i].name == name) return i;
    ADD_FAILURE() << "no step " << name;
    return 0;
}

// probs/scores [B,H,R,C] at (b, h, i, j).
float at(const SessionView& v, const std::string& step, int b, int h, int i, int j, int R, int C) {
    const std::vector<float>& out = *v.output(step_index(v, step));
    return out[((static_cast<size_t>(b) * v.config.heads + h) * R + i) * C + j];
}

// The key column with the largest weight in row i of head h of an attention step (batch row 0).
int brightest_column(const SessionView& v, const std::string& step, int h, int i, int R, int C) {
    int best = 0;
    for (int j = 1; j < C; ++j)
        if (at(v, step, 0, h, i, j, R, C) > at(v, step, 0, h, i, best, R, C)) best = j;
    return best;
}

int position_of(const std::vector<std::string>& labels, const std::string& token) {
    const auto it = std::find(labels.begin(), labels.end(), token);
    return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
}

struct Stats {
    double mean = 0, std = 0;
};
Stats stats(const std::vector<float>& x) {
    double s = 0, q = 0;
    for (float f : x) s += f, q += static_cast<double>(f) * f;
    Stats r;
    r.mean = s / x.size();
    r.std = std::sqrt(std::max(0.0, q / x.size() - r.mean * r.mean));
    return r;
}

TEST(LessonClaims, TheWholePass) {
    const Lesson l = lesson("00-whole-pass.json");
    Session session = translation_model();
    session.set_input({"The red car is big."});
    const SessionView v = view_of(session);
    EXPECT_EQ(v.config.encoder_layers, 3);
    EXPECT_EQ(v.config.decoder_layers, 3);
    const std::string shape = v.steps[step_index(v, "generator.log_probs")].shape.str();
    EXPECT_NE(shape.find(", V=2000]"), std::string::npos) << shape;
    EXPECT_EQ(v.config.tgt_vocab, 2000);
    EXPECT_NE(answer(l).find("2000"), std::string::npos) << answer(l);
}

TEST(LessonClaims, Tokens) {
    const Lesson l = lesson("01-tokens.json");
    Session session = translation_model();
    session.set_input({"The unbelievable dogs sleep."});
    std::string pieces;
    for (const Token& t : session.source_tokens()[0]) pieces += t.text + " ";
    EXPECT_NE(pieces.find("\xE2\x96\x81un b e l ie v ab le "), std::string::npos) << pieces;
    EXPECT_EQ(session.config().d_model, 128);
    EXPECT_EQ(session.source_tokens()[0].size() + 1, 13u);   // S, EOS included: a distractor
    EXPECT_EQ(session.config().src_vocab, 2000);              // the other distractor
    EXPECT_EQ(answer(l).rfind(std::to_string(session.config().d_model), 0), 0u) << answer(l);
}

TEST(LessonClaims, PositionsOffMakeTheSwappedSentencesTranslateAlike) {
    const Lesson l = lesson("02-positional.json");
    Session session = translation_model();
    session.set_positional_encoding(false);
    session.set_input({"The dog sees the cat."});
    const std::string a = session.decoded_text()[0];
    session.set_input({"The cat sees the dog."});
    const std::string b = session.decoded_text()[0];
    EXPECT_EQ(a, b);
    EXPECT_NE(answer(l).find("same translation"), std::string::npos) << answer(l);
    session.set_positional_encoding(true);
    const std::string c = session.decoded_text()[0];
    session.set_input({"The dog sees the cat."});
    EXPECT_NE(c, session.decoded_text()[0]);
}

TEST(LessonClaims, ScalingOffMultipliesTheFirstLayersScoresAndPeaksLaterRows) {
    const Lesson l = lesson("03-attention-score.json");
    Session session = translation_model();
    session.set_input({"The red car is big."});
    const SessionView on = view_of(session);
    session.set_attention_scaling(false);
    const SessionView off = view_of(session);
    const int S = on.S, H = on.config.heads;
    // Step 2's Neuron view: query 2 is ▁car, key 1 is ▁red.
    EXPECT_EQ(on.src_labels(0)[2], "\xE2\x96\x81" "car");
    EXPECT_EQ(on.src_labels(0)[1], "\xE2\x96\x81" "red");
    // encoder.layers.0: the same q and k, no division: exactly √dk times larger.
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j) {
                const float a = at(on, "encoder.layers.0.self_attn.scores", 0, h, i, j, S, S);
                const float b = at(off, "encoder.layers.0.self_attn.scores", 0, h, i, j, S, S);
                EXPECT_NEAR(b, a * std::sqrt(32.0f), 1e-4f * (1.0f + std::fabs(b)));
            }
    // encoder.layers.1: the rows become more peaked (the mean of each row's largest weight).
    double max_on = 0, max_off = 0;
    int grew = 0;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < S; ++i) {
            float m_on = 0, m_off = 0;
            for (int j = 0; j < S; ++j) {
                m_on = std::max(m_on, at(on, "encoder.layers.1.self_attn.probs", 0, h, i, j, S, S));
                m_off = std::max(m_off, at(off, "encoder.layers.1.self_attn.probs", 0, h, i, j, S, S));
            }
            max_on += m_on / (H * S);
            max_off += m_off / (H * S);
            grew += m_off > m_on;
        }
    std::printf("lesson 3: encoder.layers.1 mean row max %.3f -> %.3f, %d of %d rows grew\n", max_on, max_off, grew, H * S);
    EXPECT_GT(max_off, max_on + 0.2);
    EXPECT_GT(grew, H * S * 3 / 4);
    EXPECT_NE(answer(l).find("peaked"), std::string::npos) << answer(l);
}

// In encoder.layers.0 three heads park the row ▁dogs on <eos> and head 3 looks at ▁will.
TEST(LessonClaims, HeadsLookDifferently) {
    const Lesson l = lesson("04-heads.json");
    Session session = translation_model();
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView v = view_of(session);
    const std::vector<std::string> src = v.src_labels(0);
    const int q = position_of(src, "\xE2\x96\x81" "dogs");
    ASSERT_GE(q, 0);
    std::vector<std::string> top(static_cast<size_t>(v.config.heads));
    for (int h = 0; h < v.config.heads; ++h) {
        int best = 0;
        for (int j = 1; j < v.S; ++j)
            if (at(v, "encoder.layers.0.self_attn.probs", 0, h, q, j, v.S, v.S) > at(v, "encoder.layers.0.self_attn.probs", 0, h, q, best, v.S, v.S))
                best = j;
        top[static_cast<size_t>(h)] = src[static_cast<size_t>(best)];
        EXPECT_GT(at(v, "encoder.layers.0.self_attn.probs", 0, h, q, best, v.S, v.S), 0.85f) << "head " << h;
    }
    EXPECT_EQ(top[0], "<eos>");
    EXPECT_EQ(top[1], "<eos>");
    EXPECT_EQ(top[2], "<eos>");
    EXPECT_EQ(top[3], "\xE2\x96\x81" "will");
    EXPECT_NE(answer(l).find("Head 3"), std::string::npos) << answer(l);
    EXPECT_NE(answer(l).find(top[3]), std::string::npos) << answer(l);
}

TEST(LessonClaims, MasksOff) {
    const Lesson l = lesson("05-masks.json");
    Session session = translation_model();
    session.set_input({"I see the dog.", "The small white dogs will not sleep in the old house."});
    const std::vector<std::string> before = session.decoded_text();
    session.set_causal_mask(false);
    const SessionView v = view_of(session);
    double above = 0;
    for (int i = 0; i < v.T; ++i)
        for (int j = i + 1; j < v.T; ++j) above += at(v, "decoder.layers.0.self_attn.probs", 0, 0, i, j, v.T, v.T);
    std::printf("lesson 5: causal off, weight above the diagonal (row 0, head 0) %.3f; \"%s\" -> \"%s\"\n", above,
                before[0].c_str(), session.decoded_text()[0].c_str());
    EXPECT_GT(above, 0.1);
    EXPECT_NE(session.decoded_text()[0], before[0]);
    EXPECT_NE(answer(l).find("diagonal"), std::string::npos) << answer(l);
    session.set_causal_mask(true);
    session.set_padding_mask(false);
    const SessionView p = view_of(session);
    const std::vector<std::string> src = p.src_labels(0);
    double on_pad = 0;
    for (int h = 0; h < p.config.heads; ++h)
        for (int i = 0; i < p.S; ++i)
            if (src[i] != "<pad>")
                for (int j = 0; j < p.S; ++j)
                    if (src[j] == "<pad>") on_pad = std::max<double>(on_pad, at(p, "encoder.layers.0.self_attn.probs", 0, h, i, j, p.S, p.S));
    std::printf("lesson 5: padding off, largest weight on a PAD key %.3f; \"%s\" -> \"%s\"\n", on_pad, before[0].c_str(),
                session.decoded_text()[0].c_str());
    EXPECT_GT(on_pad, 0.05);
    EXPECT_NE(session.decoded_text()[0], before[0]);
}

TEST(LessonClaims, TheNormResetsTheScale) {
    const Lesson l = lesson("06-residual-layernorm.json");
    Session session = translation_model();
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView v = view_of(session);
    const Stats ffn = stats(*v.output(step_index(v, "encoder.layers.0.ffn.out")));
    const Stats norm = stats(*v.output(step_index(v, "encoder.layers.0.norm2.out")));
    std::printf("lesson 6: std of encoder.layers.0.ffn.out %.3f, of norm2.out %.3f\n", ffn.std, norm.std);
    EXPECT_GT(ffn.std, 3.0 * norm.std);
    EXPECT_GT(std::fabs(norm.std - 1.0), 0.1);   // γ and β rescale: not exactly 1
    EXPECT_EQ(v.config.norm, NormPlacement::Post);
    EXPECT_EQ(answer(l).rfind("ffn.out's", 0), 0u) << answer(l);
}

TEST(LessonClaims, TheRowThatWritesRojoReadsRed) {
    const Lesson l = lesson("07-cross-attention.json");
    Session session = translation_model();
    session.set_input({"The red car is big."});
    const SessionView v = view_of(session);
    ASSERT_EQ(session.decoded_text()[0], "El coche rojo es grande.");
    const std::vector<std::string> src = v.src_labels(0), tgt = v.tgt_labels(0);
    const int row = position_of(tgt, "\xE2\x96\x81" "coche");   // the decoder position whose input is ▁coche writes ▁rojo
    ASSERT_GE(row, 0);
    for (int h = 0; h < v.config.heads; ++h)
        EXPECT_EQ(src[brightest_column(v, "decoder.layers.2.cross_attn.probs", h, row, v.T, v.S)], answer(l)) << "head " << h;
}

TEST(LessonClaims, TheAdjectiveRowReadsTheAdjectiveNotTheNoun) {
    const Lesson l = lesson("10-it-refers.json");
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors"));
    session.set_fused_attention(false);
    session.set_input({"The animal didn't cross the street because it was too tired."});
    EXPECT_EQ(session.decoded_text()[0], "El animal no cruz\xC3\xB3 la calle porque estaba demasiado cansado.");
    session.set_input({"The animal didn't cross the street because it was too wide."});
    const SessionView v = view_of(session);
    ASSERT_EQ(session.decoded_text()[0], "El animal no cruz\xC3\xB3 la calle porque era demasiado ancha.");
    ASSERT_EQ(v.config.heads, 8);
    ASSERT_EQ(v.config.decoder_layers, 4);
    const std::vector<std::string> src = v.src_labels(0), tgt = v.tgt_labels(0);
    const int row = position_of(tgt, "\xE2\x96\x81" "demasiado");   // writes the adjective, ▁ancha
    ASSERT_GE(row, 0);
    EXPECT_EQ(src[brightest_column(v, "decoder.layers.3.cross_attn.probs", 3, row, v.T, v.S)], answer(l));
}

TEST(LessonClaims, BeamAgainstGreedy) {
    const Lesson l = lesson("09-decoding.json");
    Session session = translation_model();
    session.set_decoding({4, 0.6});
    session.set_input({"Will your bird sing behind the castle?"});
    EXPECT_EQ(session.beam_results()[0].best, session.greedy_results()[0].ids);
    session.set_input({"The unbelievable dogs sleep."});
    const BeamHypothesis& greedy = session.greedy_results()[0];
    const BeamResult& beam = session.beam_results()[0];
    EXPECT_NE(beam.best, greedy.ids);
    EXPECT_LT(beam.log_prob, greedy.log_prob);   // beam's sentence is less probable...
    EXPECT_GT(beam.score, greedy.score);         // ...and wins only through the length penalty
    EXPECT_GT(static_cast<int>(beam.best.size()), static_cast<int>(greedy.ids.size()));
    // Label smoothing (ε = 0.1): the top probability stays below 1 even where the model is right.
    session.set_input({"Will your bird sing behind the castle?"});
    const SessionView v = view_of(session);
    const std::vector<float>& log_probs = *v.output(step_index(v, "generator.log_probs"));
    const size_t V = static_cast<size_t>(v.config.tgt_vocab);
    float top = -INFINITY;
    for (size_t r = 0; r < log_probs.size() / V; ++r)
        top = std::max(top, *std::max_element(log_probs.begin() + static_cast<std::ptrdiff_t>(r * V),
                                              log_probs.begin() + static_cast<std::ptrdiff_t>((r + 1) * V)));
    std::printf("lesson 9: the largest next-token probability of the bird sentence: %.4f\n", std::exp(top));
    EXPECT_LT(std::exp(top), 0.99f);
    EXPECT_NEAR(v.label_smoothing, 0.1f, 1e-6f);
    session.set_input({"The unbelievable dogs sleep."});
    session.set_decoding({4, 0.0});              // α = 0: ranked by log P alone, greedy's sentence wins
    EXPECT_EQ(session.beam_results()[0].best, session.greedy_results()[0].ids);
    EXPECT_NE(answer(l).find("Greedy"), std::string::npos) << answer(l);
}

}  // namespace
}  // namespace tx::app
