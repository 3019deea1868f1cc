// What the lessons (assets/lessons/*.json) tell a learner the screen will show, checked on the
// shipped models with the settings each lesson's steps make: the translations with and
// without positions, the effect of the 1/√dk switch, the self-attention block's shapes, the heads
// and head ablation, the masks, the feed-forward layer, the alignment, greedy against beam search,
// temperature, seeds and the KV cache on the language model, the induction model's heads and the
// logit lens, the Precision panel's bits, attention differences, first inf/NaN and FP16
// training without a loss scale, and the modern variants (RoPE, ALiBi, RMSNorm, SwiGLU) on fresh weights. Each question's stated answer is tied to the computed fact, so an edited lesson or a
// retrained model that makes a question false fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "bit_layout.h"
#include "lessons.h"
#include "precision_view.h"
#include "tx/evaluation.h"
#include "tx/mixed_precision_training.h"
#include "tx/trainer.h"
#include "tx/training_config.h"
#include "generation_trace.h"
#include "look_inside.h"
#include "model_variant.h"
#include "positional_views.h"
#include "session_view.h"
#include "speculative_view.h"
#include "tx/parameters.h"
#include "tx/checkpoint.h"
#include "tx/session.h"
#include "tx/pronoun_probe.h"
#include "tx/backend.h"
#include "support/lesson_panels.h"

namespace tx::explain {
namespace {

using test::LESSON_PANELS;

Lesson lesson(const std::string& file) {
    return read_lesson(std::string(TX_SOURCE_DIR) + "/assets/lessons/" + file, LESSON_PANELS);
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

std::string formatted(const char* format, double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, x);
    return buffer;
}

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

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
    const Lesson l = lesson("01-whole-pass.json");
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

// Lesson 1's map of the tour names every later lesson: a number "(N)", "lesson N", or within "A to B".
TEST(LessonClaims, TheMapNamesEveryLesson) {
    const std::string map = lesson("01-whole-pass.json").paragraphs.at(1);
    std::vector<bool> named(100, false);
    const std::regex range(R"((\d+) to (\d+)|(\d+))");
    for (auto it = std::sregex_iterator(map.begin(), map.end(), range); it != std::sregex_iterator(); ++it) {
        const int from = std::stoi((*it)[1].matched ? (*it)[1] : (*it)[3]);
        const int to = (*it)[2].matched ? std::stoi((*it)[2]) : from;
        for (int n = from; n <= to && n < 100; ++n) named[static_cast<size_t>(n)] = true;
    }
    int lessons = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TX_SOURCE_DIR) + "/assets/lessons"))
        lessons += entry.path().extension() == ".json";
    ASSERT_GE(lessons, 20);
    for (int n = 2; n <= lessons; ++n) EXPECT_TRUE(named[static_cast<size_t>(n)]) << "lesson " << n << " is not on the map: " << map;
}

TEST(LessonClaims, Tokens) {
    const Lesson l = lesson("02-tokens.json");
    Session session = translation_model();
    session.set_input({"The unbelievable dogs sleep."});
    std::string pieces;
    for (const Token& t : session.source_tokens()[0]) pieces += t.text + " ";
    EXPECT_NE(pieces.find("\xE2\x96\x81un b e l ie v ab le "), std::string::npos) << pieces;
    EXPECT_EQ(session.config().d_model, 128);
    EXPECT_EQ(session.source_tokens()[0].size() + 1, 13u);   // S, EOS included: a distractor
    EXPECT_EQ(session.config().src_vocab, 2000);              // the other distractor
    EXPECT_EQ(answer(l).rfind(std::to_string(session.config().d_model), 0), 0u) << answer(l);
    // "in the everyday model ... “maybe” is ▁may + be" (and the common words around it are whole).
    Session everyday(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors"));
    everyday.set_input({"My sister reads maybe a book."});
    std::string everyday_pieces;
    for (const Token& t : everyday.source_tokens()[0]) everyday_pieces += t.text + " ";
    EXPECT_EQ(everyday_pieces, "\xE2\x96\x81My \xE2\x96\x81sister \xE2\x96\x81reads \xE2\x96\x81may be \xE2\x96\x81" "a \xE2\x96\x81" "book . ");
    EXPECT_NE(l.paragraphs.at(0).find("\xE2\x80\x9Cmaybe\xE2\x80\x9D is \xE2\x96\x81may + be"), std::string::npos);
}

TEST(LessonClaims, PositionsOffMakeTheSwappedSentencesTranslateAlike) {
    const Lesson l = lesson("03-positional.json");
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
    const Lesson l = lesson("04-attention-score.json");
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
    std::printf("lesson 4: encoder.layers.1 mean row max %.3f -> %.3f, %d of %d rows grew\n", max_on, max_off, grew, H * S);
    EXPECT_GT(max_off, max_on + 0.2);
    EXPECT_GT(grew, H * S * 3 / 4);
    EXPECT_NE(answer(l).find("peaked"), std::string::npos) << answer(l);
}

// In encoder.layers.0 three heads park the row ▁dogs on <eos> and head 3 looks at ▁will.
TEST(LessonClaims, HeadsLookDifferently) {
    const Lesson l = lesson("06-heads.json");
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
    const Lesson l = lesson("08-masks.json");
    Session session = translation_model();
    session.set_input({"I see the dog.", "The small white dogs will not sleep in the old house."});
    const std::vector<std::string> before = session.decoded_text();
    session.set_causal_mask(false);
    const SessionView v = view_of(session);
    double above = 0;
    for (int i = 0; i < v.T; ++i)
        for (int j = i + 1; j < v.T; ++j) above += at(v, "decoder.layers.0.self_attn.probs", 0, 0, i, j, v.T, v.T);
    std::printf("lesson 8: causal off, weight above the diagonal (row 0, head 0) %.3f; \"%s\" -> \"%s\"\n", above,
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
    std::printf("lesson 8: padding off, largest weight on a PAD key %.3f; \"%s\" -> \"%s\"\n", on_pad, before[0].c_str(),
                session.decoded_text()[0].c_str());
    EXPECT_GT(on_pad, 0.05);
    EXPECT_NE(session.decoded_text()[0], before[0]);
}

TEST(LessonClaims, TheNormResetsTheScale) {
    const Lesson l = lesson("09-residual-layernorm.json");
    Session session = translation_model();
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView v = view_of(session);
    const Stats ffn = stats(*v.output(step_index(v, "encoder.layers.0.ffn.out")));
    const Stats norm = stats(*v.output(step_index(v, "encoder.layers.0.norm2.out")));
    std::printf("lesson 9: std of encoder.layers.0.ffn.out %.3f, of norm2.out %.3f\n", ffn.std, norm.std);
    EXPECT_GT(ffn.std, 3.0 * norm.std);
    EXPECT_GT(std::fabs(norm.std - 1.0), 0.1);   // γ and β rescale: not exactly 1
    EXPECT_EQ(v.config.norm, NormPlacement::Post);
    EXPECT_EQ(answer(l).rfind("ffn.out's", 0), 0u) << answer(l);
}

TEST(LessonClaims, TheRowThatWritesRojoReadsRed) {
    const Lesson l = lesson("11-cross-attention.json");
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
    const Lesson l = lesson("12-it-refers.json");
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
    EXPECT_EQ(src[brightest_column(v, "decoder.layers.3.cross_attn.probs", 7, row, v.T, v.S)], answer(l));
}

// Lesson 12's other claims: the pairs it suggests, the size of the template in the training split
// (the corpus statistics), and the probe over the held-out "it" sentences (txcli evaluate --pronouns).
TEST(LessonClaims, TheItSentencesFollowTheTrainingSentences) {
    const Lesson l = lesson("12-it-refers.json");
    const std::string everyday = std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors";
    Session session(load_checkpoint(everyday));
    session.set_fused_attention(false);
    const std::string& step2 = l.steps.at(1).text;
    for (const auto& [adjective, spanish] : std::vector<std::pair<std::string, std::string>>{
             {"scared", "asustado"}, {"long", "larga"}, {"heavy", "pesada"}, {"curious", "curiosa"}}) {
        session.set_input({"The animal didn't cross the street because it was too " + adjective + "."});
        const std::string out = session.decoded_text()[0];
        std::printf("lesson 12: too %s -> %s\n", adjective.c_str(), out.c_str());
        EXPECT_TRUE(says(out, "demasiado " + spanish + ".")) << out;
        EXPECT_TRUE(says(step2, "\xE2\x80\x9C" + spanish + "\xE2\x80\x9D") || says(step2, "(" + spanish + ")")) << spanish;
    }
    // "About 19,400 of them have this very form": the it-pronoun row of the split table.
    std::ifstream stats(std::string(TX_SOURCE_DIR) + "/assets/corpus/everyday/stats.txt");
    const std::regex row(R"(^it-pronoun\s+(\d+)\s+\d+\s+\d+\s*$)");
    int templated = 0;
    for (std::string line; std::getline(stats, line);) {
        std::smatch m;
        if (std::regex_match(line, m, row)) templated = std::stoi(m[1]);
    }
    std::printf("lesson 12: %d training pairs of the template\n", templated);
    EXPECT_NEAR(templated, 19400, 100);
    EXPECT_TRUE(says(l.paragraphs.at(1), "About 19,400"));

    // Step 3: gender right in MARKED of the probes whose adjective shows it; the best cross-attention
    // head by share, and its weights on the two nouns in the lesson's "wide" sentence.
    const Checkpoint c = load_checkpoint(everyday);
    auto backend = make_cpu_backend();
    Transformer model(c.config, *backend);
    model.set_parameters(c.parameters);
    const std::vector<PronounProbe> probes = read_pronoun_probes(std::string(TX_SOURCE_DIR) + "/assets/corpus/everyday/pronoun_test.tsv");
    const PronounReport r = score_pronouns(model, make_tokenizer(c), probes);
    int best_layer = 0, best_head = 0;
    for (int layer = 0; layer < r.cross.layers; ++layer)
        for (int head = 0; head < r.cross.heads; ++head)
            if (r.cross.share(layer, head) > r.cross.share(best_layer, best_head)) best_layer = layer, best_head = head;
    const std::string& step3 = l.steps.at(2).text;
    const std::string marked = std::to_string(r.marked_agreeing) + " of the " + std::to_string(r.marked) + " whose adjective shows it";
    const std::string best = "head " + std::to_string(best_head) + " of layer " + std::to_string(best_layer) + ", does so in only " +
                             formatted("%.0f", 100.0 * r.cross.share(best_layer, best_head)) + "% of them";
    std::printf("lesson 12: %d probes; %s; %s\n", r.probes, marked.c_str(), best.c_str());
    EXPECT_TRUE(says(step3, "Over the " + std::to_string(r.probes) + " held-out sentences")) << r.probes;
    EXPECT_TRUE(says(step3, marked)) << marked;
    EXPECT_TRUE(says(step3, best)) << best;
    session.set_input({"The animal didn't cross the street because it was too wide."});
    const SessionView v = view_of(session);
    const std::vector<std::string> src = v.src_labels(0), tgt = v.tgt_labels(0);
    const int adjective_row = position_of(tgt, "\xE2\x96\x81" "demasiado");
    const std::string probs = "decoder.layers." + std::to_string(best_layer) + ".cross_attn.probs";
    const float animal = at(v, probs, 0, best_head, adjective_row, position_of(src, "\xE2\x96\x81" "animal"), v.T, v.S);
    const float street = at(v, probs, 0, best_head, adjective_row, position_of(src, "\xE2\x96\x81" "street"), v.T, v.S);
    std::printf("lesson 12: that head's adjective row: animal %.4f, street %.4f\n", animal, street);
    EXPECT_TRUE(says(step3, "under 1% of its row to either noun"));
    // "no head points at the referent": no encoder "it" row or cross-attention head wins 3 times in 4.
    for (const HeadShares* shares : {&r.encoder_self, &r.cross})
        for (int layer = 0; layer < shares->layers; ++layer)
            for (int head = 0; head < shares->heads; ++head) EXPECT_LT(shares->share(layer, head), 0.75) << layer << " " << head;
    EXPECT_LT(std::max(animal, street), 0.01f);
}

// Lesson 13 trains the tiny reverse model as its "train" action starts it: the warm-up it names is the
// preset's, and held-out token accuracy passes 90% near the step count it names (below 90% fifty
// steps earlier, above it there). Measured: 82% at step 100, 97% at 150.
TEST(LessonClaims, TheReverseTaskSharpensWhereTheLessonSays) {
    const Lesson l = lesson("13-training.json");
    const LessonAction& train = l.steps.at(0).actions.at(0);
    ASSERT_EQ(train.kind, LessonActionKind::Train);
    const TrainingConfig t = preset_training(Preset::Tiny, task_from_string(train.name).value());
    std::smatch m;
    ASSERT_TRUE(std::regex_search(l.paragraphs.at(0), m, std::regex(R"(warm-up \((\d+) steps here)"))) << l.paragraphs.at(0);
    EXPECT_EQ(std::stoi(m[1]), t.warmup);
    const std::string& text = l.steps.at(1).text;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(passes 90%, after about (\d+) steps)"))) << text;
    const int stated = std::stoi(m[1]);
    TrainingRun run(preset_model(Preset::Tiny), t);
    std::vector<double> accuracy;   // held-out token accuracy every 50 steps
    for (int step = 1; step <= stated; ++step) {
        ASSERT_FALSE(run.train_step().diverged);
        if (step % 50 == 0) accuracy.push_back(run.evaluate(false).token_accuracy);
    }
    ASSERT_GE(accuracy.size(), 2u);
    std::printf("lesson 13: held-out token accuracy %.3f at step %d, %.3f at step %d\n", accuracy[accuracy.size() - 2],
                stated - 50, accuracy.back(), stated);
    EXPECT_LT(accuracy[accuracy.size() - 2], 0.9) << "already past 90% fifty steps before step " << stated;
    EXPECT_GE(accuracy.back(), 0.9) << "not yet at 90% at step " << stated;
}

TEST(LessonClaims, BeamAgainstGreedy) {
    const Lesson l = lesson("14-decoding.json");
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
    std::printf("lesson 14: the largest next-token probability of the bird sentence: %.4f\n", std::exp(top));
    // "Its top probability can still be above 90%": above the smoothed target, below 1.
    EXPECT_GT(std::exp(top), 0.9f);
    EXPECT_LT(std::exp(top), 1.0f);
    EXPECT_NE(l.paragraphs.at(0).find("still be above 90%"), std::string::npos);
    EXPECT_LT(std::exp(top), 0.99f);
    EXPECT_NEAR(v.label_smoothing, 0.1f, 1e-6f);
    session.set_input({"The unbelievable dogs sleep."});
    session.set_decoding({4, 0.0});              // α = 0: ranked by log P alone, greedy's sentence wins
    EXPECT_EQ(session.beam_results()[0].best, session.greedy_results()[0].ids);
    EXPECT_NE(answer(l).find("Greedy"), std::string::npos) << answer(l);
}

// Step 5: speculative decoding with the lesson's draft and k on the lesson's sentence gives
// greedy's output in fewer rounds than greedy's steps, with most proposals rejected.
TEST(LessonClaims, SpeculativeDecodingGivesGreedysOutputInFewerPasses) {
    const Lesson l = lesson("14-decoding.json");
    const LessonStep& step = l.steps.at(4);
    const LessonAction* spec = nullptr;
    std::string sentence;
    for (const LessonAction& a : step.actions) {
        if (a.kind == LessonActionKind::Speculative) spec = &a;
        if (a.kind == LessonActionKind::SetSentences) sentence = a.sentences.at(0);
    }
    ASSERT_NE(spec, nullptr);
    Session session = translation_model();
    ASSERT_EQ(session.config().decoder_layers, 3);   // "2 of its 3 decoder layers"
    EXPECT_TRUE(says(step.text, "first " + std::to_string(spec->key) + " of its 3 decoder layers"));
    EXPECT_TRUE(says(step.text, "proposes " + std::to_string(spec->number) + " pieces per round"));
    session.set_input({sentence});
    std::vector<int> src;
    for (const Token& t : session.source_tokens()[0]) src.push_back(t.id);
    src.push_back(session.config().special.eos);
    const SpeculativeView view = speculative_view(session.model(), src, {}, session.output_limit(0),
                                                  {spec->number, spec->key});
    ASSERT_EQ(view.error, "");
    EXPECT_EQ(view.result.tokens, view.greedy);                            // "it is greedy's, piece for piece"
    EXPECT_EQ(view.result.tokens, session.greedy_results()[0].ids);        // as the panel's greedy output
    EXPECT_LT(view.result.target_passes(), view.greedy_steps());           // "fewer than greedy's steps"
    EXPECT_LT(2 * view.result.accepted(), view.result.proposed());         // "most proposals are rejected"
    std::printf("lesson 14, step 5: %d rounds against %d greedy steps, %d of %d proposals accepted\n",
                view.result.target_passes(), view.greedy_steps(), view.result.accepted(), view.result.proposed());
}

// The block's steps and their shapes on "The red car is big.": 7 pieces, 4 heads of 32.
TEST(LessonClaims, TheSelfAttentionBlockShapeByShape) {
    const Lesson l = lesson("05-self-attention-block.json");
    Session session = translation_model();
    session.set_input({"The red car is big."});
    const SessionView v = view_of(session);
    std::string pieces;
    for (const std::string& s : v.src_labels(0)) pieces += s + " ";
    EXPECT_EQ(pieces, "\xE2\x96\x81The \xE2\x96\x81red \xE2\x96\x81" "car \xE2\x96\x81is \xE2\x96\x81" "big . <eos> ");
    const auto shape = [&](const std::string& step) { return v.steps[step_index(v, "encoder.layers.0." + step)].shape.str(); };
    for (const char* qkv : {"self_attn.q", "self_attn.k", "self_attn.v"}) EXPECT_EQ(shape(qkv), "[B=1, H=4, S=7, dk=32]") << qkv;
    EXPECT_EQ(answer(l), shape("self_attn.context"));
    EXPECT_EQ(l.question.choices[0], shape("self_attn.out"));   // the distractors are the block's other shapes
    EXPECT_EQ(l.question.choices[2], shape("self_attn.probs"));
    EXPECT_EQ(l.question.choices[3], shape("ffn.hidden"));
    EXPECT_EQ(v.config.heads * v.config.d_k(), v.config.d_model);   // 4 × 32 = 128: concatenation restores D
}

// decoder.layers.2.cross_attn: three heads off change nothing, the fourth changes the sentence.
TEST(LessonClaims, TheLastCrossAttentionsHeadsShareOneJob) {
    const Lesson l = lesson("07-switching-heads-off.json");
    Session session = translation_model();
    session.set_input({"The red car is big."});
    const std::string block = "decoder.layers.2.cross_attn";
    const std::string before = session.decoded_text()[0];
    EXPECT_EQ(before, "El coche rojo es grande.");
    for (int h = 0; h < 3; ++h) {
        session.set_head_enabled(block, h, false);
        EXPECT_EQ(session.decoded_text()[0], before) << "heads 0.." << h << " off";
    }
    session.set_head_enabled(block, 3, false);
    const std::string none = session.decoded_text()[0];
    std::printf("lesson 7: all four heads of %s off: \"%s\"\n", block.c_str(), none.c_str());
    EXPECT_EQ(none, "El zapato negro era pequeño.");
    for (int h = 0; h < 4; ++h) session.set_head_enabled(block, h, true);
    EXPECT_EQ(session.decoded_text()[0], before);
    EXPECT_NE(answer(l).find(before), std::string::npos) << answer(l);
    EXPECT_NE(l.question.explanation.find(none), std::string::npos);
}

TEST(LessonClaims, TheFeedForwardWidensZeroesAndHoldsMostWeights) {
    const Lesson l = lesson("10-feed-forward.json");
    Session session = translation_model();
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView v = view_of(session);
    EXPECT_EQ(v.config.ffn, FfnKind::Relu);
    EXPECT_EQ(v.config.d_model, 128);
    EXPECT_EQ(v.config.d_ff, 512);
    const std::vector<float>& h = *v.output(step_index(v, "encoder.layers.0.ffn.hidden"));
    size_t zeros = 0;
    for (float f : h) zeros += f == 0.0f;
    const float lowest = *std::min_element(h.begin(), h.end());
    std::printf("lesson 10: ffn.hidden min %g, %zu of %zu zero (%.1f%%)\n", lowest, zeros, h.size(), 100.0 * zeros / h.size());
    EXPECT_EQ(lowest, 0.0f);
    EXPECT_GT(zeros, h.size() * 9 / 10);   // "more than 9 in 10"
    EXPECT_NE(l.question.explanation.find("more than 9 in 10"), std::string::npos);
    EXPECT_EQ(answer(l).rfind("0:", 0), 0u) << answer(l);
    // Where the weights are: W1 and W2 against W_Q, W_K, W_V and W_O (biases left out, as the text says).
    const ParameterTable table(v.config);
    const auto count = [&](const std::string& name) { return table.at("encoder.layers.0." + name).numel(); };
    const int64_t ffn = count("ffn.linear1.weight") + count("ffn.linear2.weight");
    const int64_t attention = count("self_attn.q_proj.weight") + count("self_attn.k_proj.weight") +
                              count("self_attn.v_proj.weight") + count("self_attn.out_proj.weight");
    EXPECT_EQ(ffn, 131072);
    EXPECT_EQ(attention, 65536);
    // "most of an encoder layer's weights ... in a decoder layer about half" (biases and norms counted).
    const auto share = [&](const std::string& layer) {
        int64_t all = 0, in_ffn = 0;
        for (const ParameterInfo& e : table.entries())
            if (e.name.rfind(layer, 0) == 0) {
                all += e.numel();
                if (e.name.rfind(layer + "ffn.", 0) == 0) in_ffn += e.numel();
            }
        return static_cast<double>(in_ffn) / static_cast<double>(all);
    };
    std::printf("lesson 10: the FFN's share of an encoder layer %.3f, of a decoder layer %.3f\n", share("encoder.layers.0."),
                share("decoder.layers.0."));
    EXPECT_GT(share("encoder.layers.0."), 0.6);
    EXPECT_NEAR(share("decoder.layers.0."), 0.5, 0.01);
    // "Which units light up differs from piece to piece": no two pieces switch on the same units.
    const int S = v.S, F = v.config.d_ff;
    for (int a = 0; a < S; ++a)
        for (int b = a + 1; b < S; ++b) {
            bool same = true;
            for (int u = 0; u < F && same; ++u)
                same = (h[static_cast<size_t>(a) * F + u] > 0) == (h[static_cast<size_t>(b) * F + u] > 0);
            EXPECT_FALSE(same) << "pieces " << a << " and " << b << " switch on the same units";
        }
    EXPECT_NE(l.paragraphs[1].find("131,072"), std::string::npos);
    EXPECT_NE(l.paragraphs[1].find("65,536"), std::string::npos);
}

// The language model on "The cat is sleeping on the": the Generate panel's token 1.
Session language_model() {
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/lm.safetensors"));
    session.set_fused_attention(false);
    session.set_input({"The cat is sleeping on the"});
    return session;
}

GenerationTrace generate(const Session& session, bool sample, double temperature, uint64_t seed) {
    std::vector<int> prompt;
    for (const Token& t : session.source_tokens()[0]) prompt.push_back(t.id);
    GenerationSettings settings;
    settings.sample = sample;
    settings.sampling.temperature = temperature;
    settings.sampling.seed = seed;
    return compute_generation(session.model(), prompt, settings, 1);
}

// The text the Generate panel shows: the chosen pieces, EOS left out.
std::string text_of(const Session& session, const GenerationTrace& g) {
    std::vector<int> ids;
    for (const GeneratedToken& t : g.tokens)
        if (t.chosen != session.config().special.eos) ids.push_back(t.chosen);
    return session.tokenizer().decode(ids);
}

TEST(LessonClaims, TemperatureSharpensAndFlattens) {
    const Lesson l = lesson("15-logits-temperature.json");
    Session session = language_model();
    ASSERT_TRUE(session.decoder_only());
    const SessionView v = view_of(session);
    EXPECT_EQ(v.steps.back().name, "generator.log_probs");
    const GenerationTrace greedy = generate(session, false, 1.0, 0);
    const GenerationTrace cold = generate(session, true, 0.5, 1);
    const GenerationTrace hot = generate(session, true, 2.0, 1);
    for (const GenerationTrace* g : {&greedy, &cold, &hot}) ASSERT_TRUE(g->error.empty() && !g->tokens.empty()) << g->error;
    const GeneratedToken &g1 = greedy.tokens[0], &c1 = cold.tokens[0], &h1 = hot.tokens[0];
    EXPECT_EQ(session.tokenizer().vocabulary().token(g1.top_ids[0]), "\xE2\x96\x81" "bed");
    EXPECT_EQ(c1.top_ids[0], g1.top_ids[0]);
    EXPECT_EQ(h1.top_ids[0], g1.top_ids[0]);
    std::printf("lesson 15: top piece p = %.3f; drawn with %.3f at T = 0.5, %.3f at T = 2\n", g1.top_model_probs[0], c1.top_probs[0], h1.top_probs[0]);
    EXPECT_NEAR(g1.top_model_probs[0], 0.14, 0.005);
    EXPECT_NEAR(h1.top_probs[0], 0.02, 0.005);
    EXPECT_NEAR(c1.top_probs[0], 0.35, 0.005);
    EXPECT_LT(h1.top_probs[0], h1.top_model_probs[0]);
    EXPECT_GT(c1.top_probs[0], c1.top_model_probs[0]);
    // "at temperature 2 the continuation turns into a jumble": it runs to the length limit.
    EXPECT_FALSE(hot.finished);
    EXPECT_GT(hot.tokens.size(), 20u);
    EXPECT_NE(answer(l).find("smaller"), std::string::npos) << answer(l);
    EXPECT_NE(l.question.explanation.find("p = 0.14"), std::string::npos);
}

TEST(LessonClaims, SeedsRepeatAndTheCacheAgreesWithTheFullPass) {
    const Lesson l = lesson("16-sampling-kv-cache.json");
    Session session = language_model();
    const GenerationTrace greedy = generate(session, false, 1.0, 0);
    const GenerationTrace two = generate(session, true, 1.0, 2);
    const GenerationTrace three = generate(session, true, 1.0, 3);
    const GenerationTrace two_again = generate(session, true, 1.0, 2);
    EXPECT_EQ(text_of(session, greedy), "bed.");
    EXPECT_EQ(text_of(session, two), "chair.");
    EXPECT_EQ(text_of(session, three), "bed now.");
    EXPECT_EQ(text_of(session, two_again), text_of(session, two));
    double worst = 0;
    for (const GenerationTrace* g : {&greedy, &two, &three}) worst = std::max(worst, g->max_diff);
    std::printf("lesson 16: max |cached - full| log p over the three runs: %.2e\n", worst);
    EXPECT_LT(worst, 1e-4);   // "a few millionths, far below 0.001"
    EXPECT_GT(worst, 0.0);    // computed, not skipped
    EXPECT_NE(answer(l).find("Less than 0.001"), std::string::npos) << answer(l);
    for (const char* quoted : {"“chair.”", "“bed now.”", "“bed.”"}) EXPECT_NE(l.question.explanation.find(quoted), std::string::npos) << quoted;
}

TEST(LessonClaims, APreviousTokenHeadAndAnInductionHead) {
    const Lesson l = lesson("17-induction-heads.json");
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/induction.safetensors"));
    session.set_fused_attention(false);
    session.set_input({"5 12 3 17 8 1 5 12 3 17 8"});
    EXPECT_EQ(session.decoded_text()[0], "1");
    const SessionView v = view_of(session);
    const std::vector<std::string> labels = v.tgt_labels(0);
    ASSERT_EQ(labels, (std::vector<std::string>{"<bos>", "5", "12", "3", "17", "8", "1", "5", "12", "3", "17", "8", "1"}));
    // Layer 0, head 0: the first half's rows look one column to the left.
    for (int i = 1; i <= 6; ++i)
        EXPECT_EQ(brightest_column(v, "decoder.layers.0.self_attn.probs", 0, i, v.T, v.T), i - 1) << "row " << i;
    // Layer 1, head 2: the second half's rows look five columns left, at the symbol after the earlier occurrence.
    for (int i = 7; i <= 11; ++i)
        EXPECT_EQ(brightest_column(v, "decoder.layers.1.self_attn.probs", 2, i, v.T, v.T), i - 5) << "row " << i;
    const int second_3 = 9;
    ASSERT_EQ(labels[second_3], "3");
    const int col = brightest_column(v, "decoder.layers.1.self_attn.probs", 2, second_3, v.T, v.T);
    EXPECT_EQ(labels[static_cast<size_t>(col)], "17");
    EXPECT_NE(answer(l).find("“" + labels[static_cast<size_t>(col)] + "”"), std::string::npos) << answer(l);
    // The step that sends the learner to layer 1, head 2 draws that head alone: the panel's first map
    // would otherwise be head 0's, where the second "3" peaks on the distractor, the second "12".
    EXPECT_EQ(labels[static_cast<size_t>(brightest_column(v, "decoder.layers.1.self_attn.probs", 0, second_3, v.T, v.T))], "12");
    bool alone = false;
    for (const LessonStep& s : l.steps)
        for (const LessonAction& a : s.actions)
            if (a.kind == LessonActionKind::SelectAttention && a.name == "decoder.layers.1.self_attn" && a.number == 2) alone = a.on;
    EXPECT_TRUE(alone) << "lesson 17 selects layer 1's head 2 without drawing it alone";
}

// The Look inside panel's logit lens on the everyday model's "tired" sentence.
TEST(LessonClaims, TheLensShowsTheAdjectiveOnlyAtTheLastLayer) {
    const Lesson l = lesson("18-logit-lens.json");
    LookInsideRequest request;
    request.source = "The animal didn't cross the street because it was too tired.";
    const LookInside r = compute_look_inside(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors"), request);
    const LogitLens& lens = r.lens;
    ASSERT_TRUE(lens.error.empty()) << lens.error;
    ASSERT_EQ(lens.layers, 4);
    const auto t = std::find(lens.position_tokens.begin(), lens.position_tokens.end(), "\xE2\x96\x81" "demasiado");
    ASSERT_NE(t, lens.position_tokens.end());
    const int column = static_cast<int>(t - lens.position_tokens.begin());
    const auto cell = [&](int layer) { return lens.cells[static_cast<size_t>(layer * lens.positions + column)]; };
    EXPECT_EQ(r.lens_token(lens.chosen[static_cast<size_t>(column)]), "\xE2\x96\x81" "cansado");
    EXPECT_EQ(r.lens_token(cell(3).top[0]), "\xE2\x96\x81" "cansado");
    EXPECT_NEAR(std::exp(cell(3).chosen_log_prob), 0.95, 0.005);   // "p ≈ 0.95"
    // The answer: layer 3 is the first whose top piece is ▁cansado.
    for (int layer = 0; layer < 3; ++layer) EXPECT_NE(r.lens_token(cell(layer).top[0]), "\xE2\x96\x81" "cansado") << layer;
    EXPECT_NE(answer(l).find("Layer 3"), std::string::npos) << answer(l);
    // "the read-outs of the earlier layers are nearly uniform: their top piece gets a few thousandths
    // at most among the 16,000 pieces, and the final piece no more": every position.
    float earlier = 0, earlier_top = 0;
    for (int layer = 0; layer < 3; ++layer)
        for (int p = 0; p < lens.positions; ++p) {
            const auto& c = lens.cells[static_cast<size_t>(layer * lens.positions + p)];
            earlier = std::max(earlier, std::exp(c.chosen_log_prob));
            earlier_top = std::max(earlier_top, std::exp(c.top_log_probs.front()));
        }
    std::printf("lesson 18: before the last layer, the largest probability of the final token %.4f, of any top piece %.4f\n",
                earlier, earlier_top);
    EXPECT_LT(earlier_top, 0.005f);
    EXPECT_LE(earlier, earlier_top);
    EXPECT_EQ(lens.vocab, 16000);
}

// Lesson 21: activation patching of "…too tired." into "…too wide." on the everyday model, the
// Look inside panel's grids as the lesson reads them.
TEST(LessonClaims, PatchingFollowsTheDifferenceFromTiredToWas) {
    const Lesson l = lesson("21-asking-a-head.json");
    const LessonAction& look = l.steps.at(0).actions.at(2);
    ASSERT_EQ(look.kind, LessonActionKind::LookInside);
    LookInsideRequest request;
    request.source = l.steps.at(0).actions.at(1).sentences.at(0);
    request.corrupted = look.sentences.at(0);
    const LookInside r = compute_look_inside(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors"), request);
    const ActivationPatching& p = r.patching;
    ASSERT_TRUE(p.error.empty()) << p.error;
    // Step 1: the measure and its two ends ("about 9" and "about −10").
    std::printf("lesson 21: %s; clean %.3f, corrupted %.3f\n", p.metric_text.c_str(), p.clean, p.corrupted);
    EXPECT_EQ(p.metric_text, "log p(\xE2\x96\x81" "estaba) \xE2\x88\x92 log p(\xE2\x96\x81" "era) at target position 7");
    EXPECT_NEAR(p.clean, 9.0, 0.5);
    EXPECT_NEAR(p.corrupted, -10.0, 0.5);
    const auto grid = [&](const std::string& name) -> const PatchGrid& {
        for (const PatchGrid& g : p.grids)
            if (g.name == name) return g;
        ADD_FAILURE() << "no grid " << name;
        return p.grids.front();
    };
    const auto column = [&](const std::string& piece) {
        const auto at = std::find(p.clean_tokens.begin(), p.clean_tokens.end(), piece);
        EXPECT_NE(at, p.clean_tokens.end()) << piece;
        return static_cast<int>(at - p.clean_tokens.begin());
    };
    const PatchGrid& layers = grid("encoder.layer");
    const auto cell = [&](const PatchGrid& g, int row, int col) { return g.normalised.at(static_cast<size_t>(row * g.cols + col)); };
    const int tired = column("\xE2\x96\x81" "tired"), was = column("\xE2\x96\x81" "was");
    // Step 2: layers 0 to 2, the difference at ▁tired alone.
    for (int layer = 0; layer < 3; ++layer) EXPECT_GT(cell(layers, layer, tired), 0.9) << layer;
    // The answer: after layer 3, ▁was brings back "over nine tenths", ▁tired "about a fifth"; no other position much.
    std::printf("lesson 21: after layer 3, tired %.3f, was %.3f\n", cell(layers, 3, tired), cell(layers, 3, was));
    EXPECT_GT(cell(layers, 3, was), 0.9);
    EXPECT_NEAR(cell(layers, 3, tired), 0.2, 0.05);
    for (int c = 0; c < layers.cols; ++c)
        if (c != tired && c != was) { EXPECT_LT(std::fabs(cell(layers, 3, c)), 0.05) << p.clean_tokens[static_cast<size_t>(c)]; }
    EXPECT_EQ(answer(l).rfind("\xE2\x96\x81" "was", 0), 0u) << answer(l);
    // Step 3: cross-attention carries it to position 7 in layers 2 and 3; no single cross head above ~0.1.
    const PatchGrid& cross = grid("decoder.cross_attn");
    const PatchGrid& heads = grid("heads.decoder.cross_attn");
    std::printf("lesson 21: cross-attention at position 7: layer 2 %.3f, layer 3 %.3f\n", cell(cross, 2, 7), cell(cross, 3, 7));
    EXPECT_GT(cell(cross, 2, 7), 0.2);
    EXPECT_GT(cell(cross, 3, 7), 0.5);
    EXPECT_LT(cell(cross, 0, 7), 0.05);
    EXPECT_LT(cell(cross, 1, 7), 0.05);
    double best_head = 0.0;
    for (double x : heads.normalised) best_head = std::max(best_head, x);
    std::printf("lesson 21: the best single cross-attention head restores %.3f\n", best_head);
    EXPECT_LT(best_head, 0.15);   // "no single cross-attention head restores more than about a tenth"

    // Step 4, the Logit attribution tab at the patching metric's position: the logit of ▁estaba
    // "about 10", the FFN "by far the most, about +16", no layer-3 cross head "more than about half
    // a unit".
    const LessonStep& attribution_step = l.steps.at(3);
    ASSERT_EQ(attribution_step.actions.at(0).kind, LessonActionKind::LookInside);
    EXPECT_EQ(attribution_step.actions.at(0).name, "attribution");
    const auto at = std::find_if(r.attribution.begin(), r.attribution.end(), [](const LogitAttribution& a) { return a.position == 7; });
    ASSERT_NE(at, r.attribution.end());
    EXPECT_EQ(at->token_text, "\xE2\x96\x81" "estaba");
    EXPECT_NEAR(at->logit, 10.0, 0.5);
    const Contribution* largest = nullptr;
    double largest_cross_head = 0.0;
    for (const Contribution& c : at->parts) {
        if (!largest || std::fabs(c.value) > std::fabs(largest->value)) largest = &c;
        if (c.name.rfind("decoder.layers.3.cross_attn.head", 0) == 0) largest_cross_head = std::max(largest_cross_head, std::fabs(c.value));
    }
    ASSERT_NE(largest, nullptr);
    double second = 0.0;   // the largest |part| after the FFN's
    for (const Contribution& c : at->parts)
        if (&c != largest) second = std::max(second, std::fabs(c.value));
    std::printf("lesson 21: attribution: %s %.3f, largest cross head %.3f\n", largest->name.c_str(), largest->value, largest_cross_head);
    EXPECT_EQ(largest->name, "decoder.layers.3.ffn");
    EXPECT_NEAR(largest->value, 16.0, 1.0);
    EXPECT_GT(largest->value, 10.0 * second);   // "by far": ten times any other part
    EXPECT_LT(largest_cross_head, 0.6);
}

// Lesson 19's "precision" actions, in step order: the Precision panel's mode and embedding scale.
PrecisionRequest precision_request(const Lesson& l, size_t step) {
    PrecisionRequest r;
    bool found = false;
    for (const LessonAction& a : l.steps.at(step).actions)
        if (a.kind == LessonActionKind::Precision) r.mode = a.precision, r.embedding_scale = a.embedding_scale, found = true;
    EXPECT_TRUE(found) << "step " << step + 1 << " sets no precision";
    return r;
}

const char* const PRECISION_SENTENCE = "The animal didn't cross the street because it was too tired.";

TEST(LessonClaims, NumbersHavePrecision) {
    const Lesson l = lesson("19-precision.json");
    ASSERT_EQ(l.steps.size(), 4u);
    const Checkpoint everyday = load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/everyday.safetensors");
    EXPECT_EQ(l.steps[0].actions.at(1).sentences.at(0), PRECISION_SENTENCE);

    // Step 1: the weight the panel writes in bits (w[0, 0] of the first matrix in its list), and
    // the values of its FP32, BF16 and FP16 bits, as the panel prints them (%.9g).
    PrecisionRequest r1 = precision_request(l, 0);
    r1.source = PRECISION_SENTENCE;
    const PrecisionView v1 = compute_precision_view(everyday, r1);
    ASSERT_TRUE(v1.error.empty()) << v1.error;
    ASSERT_FALSE(v1.absolute.empty());
    const RoundingHistogram& first = v1.absolute.front();
    const std::string& text1 = l.steps[0].text;
    EXPECT_TRUE(says(text1, first.parameter)) << first.parameter;
    for (Precision p : {Precision::Fp32, Precision::Bf16, Precision::Fp16}) {
        const BitLayout b = bit_layout(first.first_weight, p);
        const std::string value = formatted("%.9g", b.value);
        std::printf("lesson 19: w[0,0] in %s: %s %s %s = %s\n", to_string(p), b.sign.c_str(), b.exponent.c_str(),
                    b.mantissa.c_str(), value.c_str());
        EXPECT_TRUE(says(text1, value)) << to_string(p) << " value " << value;
        if (p != Precision::Fp32) { EXPECT_TRUE(says(text1, b.mantissa)) << to_string(p) << " mantissa " << b.mantissa; }
    }

    // Step 2 (and step 1's BF16): the largest |low − FP32| of the first cross-attention's head 0,
    // the heatmap the panel opens on, stated to 2 significant digits.
    const auto cross_head0 = [](const PrecisionView& v) {
        for (const AttentionPair& p : v.attention)
            if (p.kind == AttentionKind::Cross) return attention_difference(p, 0).max_abs;
        ADD_FAILURE() << "no cross-attention";
        return 0.0;
    };
    PrecisionRequest r2 = precision_request(l, 1);
    r2.source = PRECISION_SENTENCE;
    const PrecisionView v2 = compute_precision_view(everyday, r2);
    ASSERT_TRUE(v2.error.empty()) << v2.error;
    const double bf16 = cross_head0(v1), fp16 = cross_head0(v2);
    std::printf("lesson 19: largest |difference| of the first cross-attention's head 0: %s %.4g, %s %.4g (ratio %.2f)\n",
                to_string(r1.mode.format), bf16, to_string(r2.mode.format), fp16, bf16 / fp16);
    // The lesson gives these as orders of magnitude: their exact values depend on the FP32
    // kernels' summation order, which moves a few values across a BF16 or FP16 rounding boundary
    // (AVX-512: 0.003282 / 0.0008494; AVX2: 0.003283 / 0.0002524; generic: 0.003283 / 0.001109).
    const std::string& text2 = l.steps[1].text;
    EXPECT_TRUE(says(text2, "smaller than BF16's in step 1: from a few ten-thousandths to about a thousandth"));
    EXPECT_TRUE(says(text2, "need not be 8 times smaller"));
    EXPECT_GE(fp16, 1e-4);
    EXPECT_LT(fp16, 2e-3);
    EXPECT_GT(bf16, fp16);
    EXPECT_EQ(v1.first_change, -1);   // "the translations are the same"
    EXPECT_EQ(v2.first_change, -1);
    EXPECT_EQ(v1.first_nonfinite, -1);
    EXPECT_EQ(v2.first_nonfinite, -1);

    // Step 3: everything in FP16 with the embeddings ×100 breaks at one step, with the value the
    // explanation quotes; FP16 autocast breaks at the same step (it is a product, rounded in both
    // modes); BF16 "everything low" with the same embeddings does not break (FP32's range).
    PrecisionRequest r3 = precision_request(l, 2);
    r3.source = PRECISION_SENTENCE;
    ASSERT_TRUE(r3.mode.all_low);
    ASSERT_EQ(r3.mode.format, Precision::Fp16);
    const PrecisionView v3 = compute_precision_view(everyday, r3);
    ASSERT_TRUE(v3.error.empty()) << v3.error;
    ASSERT_GE(v3.first_nonfinite, 0) << "nothing breaks";
    const std::string broken = v3.steps[static_cast<size_t>(v3.first_nonfinite)].difference.name;
    std::printf("lesson 19: first inf/NaN with %s, embeddings x%g: step %d, %s: %s\n", describe(r3.mode).c_str(),
                static_cast<double>(r3.embedding_scale), v3.first_nonfinite, broken.c_str(), v3.nonfinite_reason.c_str());
    const std::string reached = "4.923e+05";   // the FP32 run's largest |value| of that step, as the reason prints it
    EXPECT_TRUE(says(v3.nonfinite_reason, reached)) << v3.nonfinite_reason;
    EXPECT_TRUE(says(l.question.explanation, reached));
    PrecisionRequest autocast = r3;
    autocast.mode.all_low = false;
    const PrecisionView v3a = compute_precision_view(everyday, autocast);
    EXPECT_EQ(v3a.first_nonfinite, v3.first_nonfinite);
    PrecisionRequest bf16_all_low = r3;
    bf16_all_low.mode.format = Precision::Bf16;
    EXPECT_EQ(compute_precision_view(everyday, bf16_all_low).first_nonfinite, -1);
    EXPECT_TRUE(says(answer(l), broken)) << answer(l) << " is not " << broken;
    for (size_t c = 0; c < l.question.choices.size(); ++c)
        if (static_cast<int>(c) != l.question.answer) { EXPECT_FALSE(says(l.question.choices[c], broken)) << l.question.choices[c]; }
    EXPECT_TRUE(says(l.question.explanation, broken));

    // Step 4: the tiny copy task in FP16 without a loss scale, as the "train" action starts it:
    // within 200 steps some weights' gradient values are flushed to 0 (well under 1% of them),
    // and the model learns all the same (Training.TinyCopyModelLearnsWithinTwoHundredSteps' bar).
    const LessonAction& train = l.steps[3].actions.at(0);
    ASSERT_EQ(train.kind, LessonActionKind::Train);
    ASSERT_EQ(train.precision.format, Precision::Fp16);
    ASSERT_EQ(train.loss_scale.mode, LossScaleMode::None);
    TrainingConfig t = preset_training(Preset::Tiny, task_from_string(train.name).value());
    t.precision = train.precision.format;
    t.loss_scale = train.loss_scale;
    TrainingRun run(preset_model(Preset::Tiny), t);
    GradientRoundingCounts flushed;
    for (int i = 0; i < 200; ++i) {
        const TrainingRun::StepResult s = run.train_step();
        ASSERT_FALSE(s.diverged) << s.message;
        flushed.parameters += s.rounding.parameters;
        flushed.activations += s.rounding.activations;
    }
    const EvalResult e = run.evaluate(false);
    std::printf("lesson 19: FP16, no loss scale, 200 steps: flushed %.4f%% of the weights' gradient values, %.4f%% of "
                "the activations'; held-out loss %.3f, token accuracy %.3f\n",
                100 * flushed.parameters.underflow_share(), 100 * flushed.activations.underflow_share(), e.loss, e.token_accuracy);
    EXPECT_GT(flushed.parameters.underflowed, 0);
    EXPECT_LT(flushed.parameters.underflow_share(), 0.01);
    EXPECT_LT(e.loss, 0.5);
    EXPECT_GT(e.token_accuracy, 0.85);
}

// Lesson 20 rebuilds the translation model with fresh weights in each variant. The model its
// "model_variant" action makes: the grammar model's config with the step's fields changed, fresh
// weights from its seed, built as the app's Model panel rebuilds it (vocabulary and tokenizer kept).
struct VariantRun {
    Session session;
    SessionView view;
};
VariantRun variant_run(const Lesson& l, size_t step, const std::string& sentence) {
    Session grammar = translation_model();
    grammar.set_input({sentence});
    const SessionView gv = view_of(grammar);
    const LessonAction* found = nullptr;
    for (const LessonAction& a : l.steps.at(step).actions)
        if (a.kind == LessonActionKind::ModelVariant) found = &a;
    if (!found) ADD_FAILURE() << "step " << step + 1 << " rebuilds no variant";
    const ModelConfig config = apply_variant(grammar.config(), found ? found->variant : ModelVariant{});
    VariantRun run{Session(Session::fresh(config, gv.vocabulary, grammar.tokenizer().model())), {}};
    run.session.set_fused_attention(false);
    run.session.set_input({sentence});
    run.view = view_of(run.session);
    return run;
}

TEST(LessonClaims, ModernVariants) {
    const Lesson l = lesson("20-modern-variants.json");
    ASSERT_EQ(l.steps.size(), 7u);
    ASSERT_EQ(l.steps[0].actions.at(0).name, "grammar");
    const std::string sentence = l.steps[0].actions.at(1).sentences.at(0);

    // Step 1: the trained model's translation, quoted; every rebuilt variant's differs from it.
    Session trained = translation_model();
    trained.set_input({sentence});
    const std::string translation = trained.decoded_text()[0];
    EXPECT_TRUE(says(l.steps[0].text, "\xE2\x80\x9C" + translation + "\xE2\x80\x9D")) << translation;

    // Step 2: RoPE. The Positional panel's view as it opens: the first self-attention block, head
    // 0, pair dk/8, the q of token 0 and the k of token 1, rotated to positions 0..L−1 (L follows
    // the input). θ = 10000^(−2i/dk) and the full turn 2π/θ as the panel prints them (%.4g); the
    // dot products constant along each diagonal (rounding only) but not along a row.
    {
        VariantRun r = variant_run(l, 1, sentence);
        const SessionView& v = r.view;
        const std::string noise = r.session.decoded_text()[0];
        std::printf("lesson 20: trained: %s; fresh RoPE model: %s\n", translation.c_str(), noise.c_str());
        EXPECT_NE(noise, translation);   // "the translation is now noise"
        ASSERT_EQ(v.config.positional, PositionalKind::Rope);
        EXPECT_EQ(v.config.ffn, FfnKind::Relu);
        EXPECT_EQ(v.config.norm_kind, NormKind::LayerNorm);
        const int dk = v.d_k(), H = v.config.heads, S = v.S;
        const int L = std::max({v.S, v.T, 2});
        const AttentionBlock& a = v.attention.at(0);
        ASSERT_EQ(a.prefix, "encoder.layers.0.self_attn");
        const std::vector<float>& q = *v.output(a.q);
        const std::vector<float>& k = *v.output(a.k);
        const RopeView rope = rope_view(q.data() + (0 * H + 0) * static_cast<size_t>(S) * dk,
                                        k.data() + ((0 * H + 0) * static_cast<size_t>(S) + 1) * dk, dk, L, dk / 8);
        const std::string theta = formatted("%.4g", rope.theta), turn = formatted("%.4g", 2 * M_PI / rope.theta);
        const double relative = rope.spread / rope.scale;
        double row_range = 0;   // the largest max − min along a row: the score does depend on p'
        for (int p = 0; p < L; ++p) {
            const auto row = rope.dots.begin() + static_cast<size_t>(p) * L;
            row_range = std::max(row_range, *std::max_element(row, row + L) - *std::min_element(row, row + L));
        }
        std::printf("lesson 20: RoPE pair %d: theta %s, full turn %s positions; L %d; spread %.2g of %.4g (%.2g), row range %.4g\n",
                    rope.pair, theta.c_str(), turn.c_str(), L, rope.spread, rope.scale, relative, row_range);
        const std::string& text = l.steps[1].text;
        EXPECT_TRUE(says(text, "pair i = " + std::to_string(rope.pair))) << rope.pair;
        EXPECT_TRUE(says(text, "10000^(\xE2\x88\x92" + std::to_string(2 * rope.pair) + "/" + std::to_string(dk) + ")"));
        EXPECT_TRUE(says(text, " " + theta + " rad")) << theta;
        EXPECT_TRUE(says(text, turn + " positions")) << turn;
        EXPECT_LT(relative, 1e-12);                 // "rounding only"
        EXPECT_GT(row_range, 1e-3 * rope.scale);    // the question's distractor "constant along each row" is false
        EXPECT_GT(rope.scale, 0.0);                 // and so is "zero"
        EXPECT_TRUE(says(answer(l), "diagonal")) << answer(l);
    }

    // Step 3: ALiBi. The slopes the op uses for 4 heads, and the bias of head 0 for a key 3
    // positions from its query, as the panel's tooltip writes it.
    {
        const VariantRun r = variant_run(l, 2, sentence);
        ASSERT_EQ(r.view.config.positional, PositionalKind::Alibi);
        const int H = r.view.config.heads;
        const std::vector<float> slopes = alibi_slope_values(H);
        ASSERT_EQ(slopes.size(), 4u);
        const std::string& text = l.steps[2].text;
        for (int h = 0; h < H; ++h) {
            const double inverse = 1.0 / slopes[static_cast<size_t>(h)];
            EXPECT_EQ(inverse, std::round(inverse));
            EXPECT_TRUE(says(text, "1/" + formatted("%.0f", inverse))) << inverse;
        }
        const int L = std::max({r.view.S, r.view.T, 2});
        ASSERT_GT(L, 3);
        const std::vector<float> bias = alibi_bias(H, L);
        const double b03 = bias[0 * L + 3];   // head 0, query 0, key 3
        EXPECT_TRUE(says(text, "\xE2\x88\x92" + formatted("%.4g", -b03))) << b03;
        EXPECT_EQ(b03, -3.0 * slopes[0]);
        EXPECT_TRUE(says(text, "3/" + formatted("%.0f", 1.0 / slopes[3]))) << slopes[3];   // head 3's push at distance 3
        // The scores step holds QKᵀ/√dk plus exactly this bias: without positions it lacks it.
        Session off(Session::fresh(r.session.config(), r.view.vocabulary, r.session.tokenizer().model()));
        off.set_fused_attention(false);
        off.set_positional_encoding(false);
        off.set_input({sentence});
        const SessionView ov = view_of(off);
        const int S = r.view.S;
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(at(r.view, "encoder.layers.0.self_attn.scores", 0, h, 0, 3, S, S) -
                            at(ov, "encoder.layers.0.self_attn.scores", 0, h, 0, 3, S, S),
                        -3.0 * slopes[static_cast<size_t>(h)], 1e-5);
    }

    // Step 4: RMSNorm on the first add & norm. Fresh weights have γ = 1, so every row's mean
    // square is 1: over the whole output (the Step panel's mean and std) mean² + std² = 1, and the
    // mean is not 0. The values as the panel prints them (%.3g).
    {
        const VariantRun r = variant_run(l, 3, sentence);
        ASSERT_EQ(r.view.config.norm_kind, NormKind::RmsNorm);
        const std::string step = "encoder.layers.0.norm1.out";
        const StepInfo& info = r.view.steps[step_index(r.view, step)];
        EXPECT_TRUE(says(info.formula, "RMSNorm")) << info.formula;
        const std::vector<float>& out = *r.view.output(step_index(r.view, step));
        const int D = r.view.config.d_model;
        for (size_t row = 0; row * D < out.size(); ++row) {
            double sq = 0;
            for (int d = 0; d < D; ++d) sq += static_cast<double>(out[row * D + d]) * out[row * D + d];
            EXPECT_NEAR(sq / D, 1.0, 1e-3) << "row " << row;
        }
        const Stats st = stats(out);
        const std::string mean = formatted("%.3g", st.mean), std = formatted("%.3g", st.std);
        std::printf("lesson 20: RMSNorm %s: mean %s, std %s, mean^2 + std^2 = %.4f\n", step.c_str(), mean.c_str(), std.c_str(),
                    st.mean * st.mean + st.std * st.std);
        const std::string& text = l.steps[3].text;
        EXPECT_TRUE(says(text, step));
        EXPECT_TRUE(says(text, "mean " + mean)) << mean;
        EXPECT_TRUE(says(text, "std " + std)) << std;
        EXPECT_GT(std::fabs(st.mean), 0.01);
        EXPECT_NEAR(st.mean * st.mean + st.std * st.std, 1.0, 1e-3);
    }

    // Step 5: SwiGLU. The gate step's width, and the three bias-free matrices of one FFN against
    // ReLU's two (with their biases), from the model's own parameter table.
    {
        const VariantRun r = variant_run(l, 4, sentence);
        ASSERT_EQ(r.view.config.ffn, FfnKind::SwiGlu);
        const int F = r.view.config.ffn_width();
        const std::string step = "encoder.layers.0.ffn.gate";
        const TensorShape& shape = r.view.steps[step_index(r.view, step)].shape;
        EXPECT_EQ(shape.dims.back(), F);
        const ParameterTable swiglu(r.view.config);
        int64_t three = 0;
        for (const char* m : {"linear1", "linear2", "linear3"}) {
            const ParameterInfo& p = swiglu.at(std::string("encoder.layers.0.ffn.") + m + ".weight");
            three += p.numel();
            EXPECT_TRUE(p.shape[0] == F || p.shape[1] == F) << m;
        }
        EXPECT_EQ(swiglu.find("encoder.layers.0.ffn.linear1.bias"), nullptr);
        ModelConfig relu_config = r.view.config;
        relu_config.ffn = FfnKind::Relu;
        const ParameterTable relu(relu_config);
        int64_t two = 0, biases = 0;
        for (const char* m : {"linear1", "linear2"}) {
            two += relu.at(std::string("encoder.layers.0.ffn.") + m + ".weight").numel();
            biases += relu.at(std::string("encoder.layers.0.ffn.") + m + ".bias").numel();
        }
        const auto grouped = [](int64_t n) {   // 132096 -> "132,096"
            const std::string digits = std::to_string(n);
            std::string s;
            for (size_t i = 0; i < digits.size(); ++i) {
                if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
                s += digits[i];
            }
            return s;
        };
        std::printf("lesson 20: SwiGLU width %d (d_ff %d): 3 matrices %lld weights; ReLU 2 matrices %lld + %lld biases\n", F,
                    r.view.config.d_ff, static_cast<long long>(three), static_cast<long long>(two), static_cast<long long>(biases));
        const std::string& text = l.steps[4].text;
        EXPECT_TRUE(says(text, step));
        EXPECT_TRUE(says(text, "F = " + std::to_string(F))) << F;
        EXPECT_TRUE(says(text, "d_ff = " + std::to_string(r.view.config.d_ff)));
        EXPECT_TRUE(says(text, grouped(three))) << grouped(three);
        EXPECT_TRUE(says(text, grouped(two))) << grouped(two);
        EXPECT_TRUE(says(text, std::to_string(biases) + " biases")) << biases;
    }

    // Step 6: grouped-query attention. The shapes of k and k_repeat, W_K's rows, and the cache's
    // ratio, from the rebuilt model's own steps and parameter table.
    {
        const VariantRun r = variant_run(l, 5, sentence);
        const ModelConfig& c = r.view.config;
        ASSERT_EQ(c.kv_heads, 2);
        const std::string step = "encoder.layers.0.self_attn.k_repeat";
        const TensorShape& repeated = r.view.steps[step_index(r.view, step)].shape;
        const TensorShape& shared = r.view.steps[step_index(r.view, "encoder.layers.0.self_attn.k")].shape;
        EXPECT_EQ(shared.dims.at(1), 2);
        EXPECT_EQ(shared.names.at(1), "G");
        EXPECT_EQ(repeated.dims.at(1), c.heads);
        EXPECT_EQ(repeated.dims.at(3), c.d_k());
        const int64_t rows = ParameterTable(c).at("encoder.layers.0.self_attn.k_proj.weight").shape.at(0);
        std::printf("lesson 20: GQA: k [B,%lld,S,%lld], k_repeat [B,%lld,S,%lld]; W_K %lld rows of d_model %d\n",
                    static_cast<long long>(shared.dims[1]), static_cast<long long>(shared.dims[3]),
                    static_cast<long long>(repeated.dims[1]), static_cast<long long>(repeated.dims[3]),
                    static_cast<long long>(rows), c.d_model);
        const std::string& text = l.steps[5].text;
        EXPECT_TRUE(says(text, step));
        EXPECT_TRUE(says(text, "[B, G = 2, S, dk = " + std::to_string(c.d_k()) + "]"));
        EXPECT_TRUE(says(text, std::to_string(rows) + " rows instead of d_model = " + std::to_string(c.d_model)));
        EXPECT_TRUE(says(text, "the " + std::to_string(c.heads) + " query heads share 2 key heads"));
        EXPECT_TRUE(says(text, "[B, H = " + std::to_string(c.heads) + ", S, " + std::to_string(c.d_k()) + "]"));
        EXPECT_EQ(c.heads / c.kv_head_count(), 2) << "\"half the memory\"";
        // The model translates as every rebuilt variant does (noise), but its cached decoding is the
        // full recompute's: the Session decoded it with the cache.
        EXPECT_FALSE(r.view.decoded_text.empty());
    }

    // Step 7: the dilated window with a global position, read off the masks the model applies
    // (the Masks panel draws these matrices): the encoder's keys 0, 2 and 4 away, the tokens
    // "cat" sees and misses, the global first row and column, and the decoder's t − 2k.
    {
        const VariantRun r = variant_run(l, 6, sentence);
        const SessionView& v = r.view;
        ASSERT_EQ(v.config.window, 4);
        ASSERT_EQ(v.config.window_dilation, 2);
        ASSERT_EQ(v.config.global_positions, std::vector<int>{0});
        const std::string& text = l.steps[6].text;
        const int S = v.S, T = v.T;
        const auto src = v.src_labels(0);
        auto enc_keeps = [&](int i, int j) { return v.src_self_mask[(static_cast<size_t>(i) * S) + j] != 0.0f; };
        auto quoted = [](const std::string& token) { return "\xE2\x80\x9C" + token + "\xE2\x80\x9D"; };
        ASSERT_GE(S, 7);
        EXPECT_TRUE(says(text, quoted(src[4]) + " at position 4 sees")) << src[4];
        std::vector<std::string> seen, missed;
        for (int j = 0; j < S; ++j) {
            const bool keeps = enc_keeps(4, j), listed = j % 2 == 0;   // 0, 2 or 4 away from 4, or global 0
            EXPECT_EQ(keeps, listed) << "encoder query 4, key " << j;
            if (j != 4 && j != S - 1) (keeps ? seen : missed).push_back(src[static_cast<size_t>(j)]);
        }
        EXPECT_EQ(src[static_cast<size_t>(S - 1)], "<eos>");
        EXPECT_TRUE(says(text, "sees " + quoted(seen.at(0)) + ", " + quoted(seen.at(1)) + ", itself and <eos>"));
        EXPECT_TRUE(says(text, "not " + quoted(missed.at(0)) + ", " + quoted(missed.at(1)) + " or " + quoted(missed.at(2))));
        for (int i = 0; i < S; ++i) EXPECT_TRUE(enc_keeps(0, i) && enc_keeps(i, 0)) << "global position 0, " << i;
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j)
                if (i != 0 && j != 0) {
                    EXPECT_EQ(enc_keeps(i, j), std::abs(i - j) % 2 == 0 && std::abs(i - j) <= 4) << i << ", " << j;
                }
        ASSERT_GE(T, 8) << "the decoder needs 8 positions to show t - 6";
        for (int t = 0; t < T; ++t)
            for (int j = 0; j < T; ++j) {
                const bool keeps = v.tgt_mask[static_cast<size_t>(t) * T + j] != 0.0f;
                EXPECT_EQ(keeps, j == 0 || (j <= t && (t - j) % 2 == 0 && t - j <= 6)) << "decoder query " << t << ", key " << j;
            }
        EXPECT_TRUE(says(text, "query t sees t, t \xE2\x88\x92 2, t \xE2\x88\x92 4 and t \xE2\x88\x92 6"));
        EXPECT_TRUE(says(text, "BOS at position 0"));
    }
}

// Lesson 22: the language model's sizes as the Model panel shows them, the quiz's ratio to GPT-3's
// 175 billion parameters (the published figure), computed from the model's own parameter table,
// and the LLaMA-like rebuild's shared key/value heads at the step the lesson names.
// Lesson 23: the attention matrices grow with S², the feed-forward rows with S; fused attention
// leaves the matrices unwritten and gives the same contexts; a window of 4 keeps keys at most 2
// away and leaves the shapes as they were; the quiz's count is the probabilities' count.
TEST(LessonClaims, AttentionAtLength) {
    const Lesson l = lesson("23-attention-at-length.json");
    const std::string short_sentence = l.steps.at(0).actions.at(2).sentences.at(0);
    const std::string long_sentence = l.steps.at(1).actions.at(0).sentences.at(0);
    Session session = translation_model();
    struct Sizes {
        std::string probs, hidden;
        int64_t probs_count = 0, hidden_count = 0;
    };
    auto sizes = [&](const std::string& sentence) {
        session.set_input({sentence});
        const SessionView v = view_of(session);
        const StepInfo& probs = v.steps[step_index(v, "encoder.layers.0.self_attn.probs")];
        const StepInfo& hidden = v.steps[step_index(v, "encoder.layers.0.ffn.hidden")];
        return Sizes{probs.shape.str(), hidden.shape.str(), probs.shape.numel(), hidden.shape.numel()};
    };
    const Sizes small = sizes(short_sentence), large = sizes(long_sentence);
    EXPECT_EQ(small.probs, "[B=1, H=4, S=6, S=6]");
    EXPECT_EQ(small.hidden, "[B=1, S=6, F=512]");
    EXPECT_TRUE(says(l.steps.at(0).text, small.probs)) << small.probs;
    EXPECT_TRUE(says(l.steps.at(0).text, small.hidden)) << small.hidden;
    EXPECT_TRUE(says(l.steps.at(0).text, "6 pieces"));
    EXPECT_EQ(large.probs, "[B=1, H=4, S=12, S=12]");          // "12 pieces, twice as long"
    EXPECT_EQ(large.probs_count, 4 * small.probs_count);        // S²
    EXPECT_EQ(large.hidden_count, 2 * small.hidden_count);      // S
    // "they overtake them once S passes 128": H·S² > S·F exactly when S > F / H
    const ModelConfig& c = session.config();
    ASSERT_EQ(c.d_ff / c.heads, 128);
    EXPECT_TRUE(says(l.steps.at(1).text, "once S passes 128"));
    EXPECT_LT(large.probs_count, large.hidden_count);            // "still smaller" at 12 pieces
    EXPECT_EQ(answer(l), std::to_string(large.probs_count) + ": 4 heads \xC3\x97 12 \xC3\x97 12");
    EXPECT_TRUE(says(l.question.explanation, std::to_string(small.probs_count)));
    // Step 3: fused attention writes no matrix and gives the step-by-step contexts within rounding.
    const SessionView steps_view = view_of(session);
    session.set_fused_attention(true);
    const SessionView fused_view = view_of(session);
    for (const char* block : {"encoder.layers.0.self_attn", "decoder.layers.2.cross_attn"}) {
        const std::string b = block;
        for (const char* matrix : {".scores", ".masked_scores", ".probs"})
            EXPECT_FALSE(fused_view.steps[step_index(fused_view, b + matrix)].materialised) << b + matrix;
        const std::vector<float>& fused = *fused_view.output(step_index(fused_view, b + ".context"));
        const std::vector<float>& plain = *steps_view.output(step_index(steps_view, b + ".context"));
        ASSERT_EQ(fused.size(), plain.size());
        for (size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], plain[i], 1e-5f) << b << " " << i;
    }
    // Step 4: a window of 4 keeps, in every encoder row, the keys at most 2 positions away, and the
    // shapes stay as they were.
    const LessonAction& rebuild = l.steps.at(3).actions.at(1);
    ASSERT_EQ(rebuild.kind, LessonActionKind::ModelVariant);
    Checkpoint windowed = load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors");
    windowed.config = apply_variant(windowed.config, rebuild.variant);
    ASSERT_EQ(windowed.config.window, 4);
    Session banded(windowed);
    banded.set_input({long_sentence});
    const SessionView w = view_of(banded);
    EXPECT_EQ(w.steps[step_index(w, "encoder.layers.0.self_attn.probs")].shape.str(), large.probs);
    for (int i = 0; i < w.S; ++i)
        for (int j = 0; j < w.S; ++j)
            EXPECT_EQ(w.src_self_mask[static_cast<size_t>(i) * w.S + j] != 0.0f, std::abs(i - j) <= 2) << i << "," << j;
    EXPECT_TRUE(says(l.steps.at(3).text, "at most 2 positions away"));
}

TEST(LessonClaims, FromThisModelToAChatModel) {
    const Lesson l = lesson("22-chat-models.json");
    ASSERT_EQ(l.steps.size(), 5u);
    ASSERT_EQ(l.steps[0].actions.at(0).name, "lm");
    Session lm = language_model();
    const SessionView v = view_of(lm);
    const ModelConfig& c = v.config;
    ASSERT_EQ(c.arch, Arch::DecoderOnly);
    EXPECT_TRUE(says(l.steps[0].text, "vocabulary of 2,000 pieces"));
    EXPECT_EQ(c.tgt_vocab, 2000);
    const std::string& sizes = l.steps[1].text;
    EXPECT_TRUE(says(sizes, "d_model " + std::to_string(c.d_model) + ", " + std::to_string(c.heads) + " heads, " +
                                std::to_string(c.decoder_layers) + " decoder layers and no encoder, a context of " +
                                std::to_string(c.max_len) + " positions"));
    // The Model panel's count: its config with both vocabularies the session's (model_panel.cpp).
    ModelConfig shown = c;
    shown.src_vocab = shown.tgt_vocab = v.vocab_size;
    const int64_t parameters = ParameterTable(shown).total();
    EXPECT_EQ(parameters, ParameterTable(c).total());
    const double ratio = 175e9 / static_cast<double>(parameters);
    std::printf("lesson 22: %lld parameters; GPT-3 has %.0f times as many\n", static_cast<long long>(parameters), ratio);
    EXPECT_EQ(answer(l), "About 190,000 times");
    EXPECT_NEAR(ratio, 190000.0, 5000.0);   // "about": two significant digits
    const std::string& why = l.question.explanation;
    EXPECT_TRUE(says(why, std::to_string(parameters) + " parameters"));
    EXPECT_TRUE(says(why, formatted("%.0f", std::round(ratio / 1000.0)) + ",000"));
    EXPECT_TRUE(says(why, "d_model " + std::to_string(12288 / c.d_model) + " times as wide"));
    EXPECT_TRUE(says(why, "about 9,000 times")) << (12288 / c.d_model) * (12288 / c.d_model);
    EXPECT_TRUE(says(why, std::to_string(96 / c.decoder_layers) + " times as many layers"));
    // The answer is read off the screen: the count is in no step's text.
    for (const LessonStep& step : l.steps) EXPECT_FALSE(says(step.text, std::to_string(parameters))) << step.text;
    // Step 4: RoPE, SwiGLU, RMSNorm and 2 shared key/value heads on the language model.
    const LessonAction* rebuild = nullptr;
    for (const LessonAction& a : l.steps[3].actions)
        if (a.kind == LessonActionKind::ModelVariant) rebuild = &a;
    ASSERT_NE(rebuild, nullptr);
    Session llama(Session::fresh(apply_variant(c, rebuild->variant), v.vocabulary, lm.tokenizer().model()));
    llama.set_fused_attention(false);
    llama.set_input({"The cat is sleeping on the"});
    const SessionView lv = view_of(llama);
    EXPECT_EQ(lv.config.positional, PositionalKind::Rope);
    EXPECT_EQ(lv.config.ffn, FfnKind::SwiGlu);
    EXPECT_EQ(lv.config.norm_kind, NormKind::RmsNorm);
    EXPECT_EQ(lv.steps[step_index(lv, "decoder.layers.0.self_attn.k")].shape.dims.at(1), 2);
    EXPECT_EQ(lv.steps[step_index(lv, "decoder.layers.0.self_attn.k_repeat")].shape.dims.at(1), c.heads);
    EXPECT_TRUE(says(l.steps[3].text, "decoder.layers.0.self_attn.k_repeat"));
}

}  // namespace
}  // namespace tx::explain
