// The lesson loader (explain/lessons.h): the shipped lessons read without an error, and a bad lesson
// file gives one message naming the file and what is wrong in it, while the good files still load.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "lesson_progress.h"
#include "lessons.h"
#include "support/temp_path.h"
#include "support/lesson_panels.h"

namespace tx::explain {
namespace {

namespace fs = std::filesystem;

// The panel keys of app/panel_registry.cpp (which needs ImGui, so this test does not link it; the
// app's self-test loads the shipped lessons against the registry itself).
using test::LESSON_PANELS;

const char* GOOD = R"({"title": "T", "paragraphs": ["P."],
  "steps": [{"text": "Look.", "actions": [{"do": "highlight", "panel": "masks"}, {"do": "causal_mask", "on": false}]},
            {"text": "Read."}],
  "question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 1, "explanation": "Because."}})";

class LessonFiles : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::path(tx::test::unique_temp_path("lessons-test"));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = (m_dir / name).string();
        std::ofstream(path) << text;
        return path;
    }
    // The message read_lesson throws for this text.
    std::string error_of(const std::string& text) {
        const std::string path = write("bad.json", text);
        try {
            read_lesson(path, LESSON_PANELS);
        } catch (const std::runtime_error& e) {
            return e.what();
        }
        return "(no error)";
    }
    fs::path m_dir;
};

TEST_F(LessonFiles, TheShippedLessonsLoad) {
    const LessonSet set = load_lessons(std::string(TX_SOURCE_DIR) + "/assets/lessons", LESSON_PANELS);
    for (const auto& e : set.errors) ADD_FAILURE() << e;
    ASSERT_EQ(set.lessons.size(), 23u);
    std::set<std::string> keys;
    for (size_t i = 0; i < set.lessons.size(); ++i) {
        const Lesson& l = set.lessons[i];
        EXPECT_FALSE(l.steps.empty()) << l.file;
        EXPECT_LT(l.question.answer, static_cast<int>(l.question.choices.size())) << l.file;
        // The file's number is the number the panel shows (lesson i + 1), so "lesson 7" in a text,
        // --lesson 7 and 07-….json are the same lesson.
        char number[24];   // room for any size_t, so the compiler sees no truncation
        std::snprintf(number, sizeof number, "%02zu-", i + 1);
        EXPECT_EQ(fs::path(l.file).filename().string().rfind(number, 0), 0u) << l.file;
        EXPECT_TRUE(keys.insert(progress_key(l)).second) << "two lessons named " << progress_key(l);
    }
}

TEST_F(LessonFiles, TheNewActionsReadTheirFields) {
    const char* text = R"({"title": "T", "paragraphs": ["P."],
  "steps": [{"text": "Off.", "actions": [{"do": "head", "block": "decoder.layers.2.cross_attn", "head": 3, "on": false},
                                          {"do": "all_heads_on"},
                                          {"do": "generation", "sample": true, "temperature": 0.5, "top_k": 5, "seed": 7},
                                          {"do": "generation", "sample": false}]}],
  "question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 0, "explanation": "Because."}})";
    const Lesson l = read_lesson(write("new.json", text), LESSON_PANELS);
    const auto& a = l.steps[0].actions;
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a[0].kind, LessonActionKind::HeadEnabled);
    EXPECT_EQ(a[0].name, "decoder.layers.2.cross_attn");
    EXPECT_EQ(a[0].number, 3);
    EXPECT_FALSE(a[0].on);
    EXPECT_EQ(a[1].kind, LessonActionKind::AllHeadsOn);
    EXPECT_EQ(a[2].kind, LessonActionKind::Generation);
    EXPECT_TRUE(a[2].on);
    EXPECT_EQ(a[2].sampling.temperature, 0.5);
    EXPECT_EQ(a[2].sampling.top_k, 5);
    EXPECT_EQ(a[2].sampling.top_p, 1.0);
    EXPECT_EQ(a[2].sampling.seed, 7u);
    EXPECT_FALSE(a[3].on);
    EXPECT_EQ(a[3].sampling.temperature, 1.0);
    // Out-of-range sampling settings are refused with the place and the option's own message.
    const std::string bad = error_of(std::string(text).replace(std::string(text).find("0.5"), 3, "0.0"));
    EXPECT_NE(bad.find("step 1, action 3: "), std::string::npos) << bad;
    EXPECT_NE(bad.find("temperature"), std::string::npos) << bad;
    const std::string no_flag = error_of(std::string(text).replace(std::string(text).find("\"sample\": false"), 15, "\"seed\": 1"));
    EXPECT_NE(no_flag.find("step 1, action 4: missing \"sample\""), std::string::npos) << no_flag;
}

TEST_F(LessonFiles, ThePrecisionActionsReadTheirFields) {
    const char* text = R"({"title": "T", "paragraphs": ["P."],
  "steps": [{"text": "Bits.", "actions": [{"do": "precision", "format": "fp16", "all_low": true, "embedding_scale": 100},
                                           {"do": "precision", "format": "int8"},
                                           {"do": "train", "task": "copy", "precision": "fp16", "loss_scale": "none"},
                                           {"do": "train", "task": "reverse", "precision": "fp16"},
                                           {"do": "train", "task": "sort"}]}],
  "question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 0, "explanation": "Because."}})";
    const Lesson l = read_lesson(write("precision.json", text), LESSON_PANELS);
    const auto& a = l.steps[0].actions;
    ASSERT_EQ(a.size(), 5u);
    EXPECT_EQ(a[0].kind, LessonActionKind::Precision);
    EXPECT_EQ(a[0].precision.format, Precision::Fp16);
    EXPECT_TRUE(a[0].precision.all_low);
    EXPECT_EQ(a[0].embedding_scale, 100.0f);
    EXPECT_EQ(a[1].precision.format, Precision::Int8);   // defaults: not all low, the model as trained
    EXPECT_FALSE(a[1].precision.all_low);
    EXPECT_EQ(a[1].embedding_scale, 1.0f);
    EXPECT_EQ(a[2].kind, LessonActionKind::Train);
    EXPECT_EQ(a[2].precision.format, Precision::Fp16);
    EXPECT_EQ(a[2].loss_scale.mode, LossScaleMode::None);
    EXPECT_EQ(a[3].loss_scale.mode, LossScaleMode::Dynamic);   // fp16's default, as --train-precision fp16
    EXPECT_EQ(a[4].precision.format, Precision::Fp32);
    EXPECT_EQ(a[4].loss_scale.mode, LossScaleMode::None);
    // Bad values are refused with the file, the place and the rule.
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        return error_of(t.replace(t.find(from), from.size(), to));
    };
    const std::string all_low_int8 = replaced("\"format\": \"int8\"", "\"format\": \"int8\", \"all_low\": true");
    EXPECT_NE(all_low_int8.find("bad.json: step 1, action 2: "), std::string::npos) << all_low_int8;
    EXPECT_NE(all_low_int8.find("needs bf16 or fp16"), std::string::npos) << all_low_int8;
    const std::string scale = replaced("\"embedding_scale\": 100", "\"embedding_scale\": 7");
    EXPECT_NE(scale.find("step 1, action 1: \"embedding_scale\" must be 1, 100 or 10000"), std::string::npos) << scale;
    const std::string format = replaced("\"format\": \"fp16\"", "\"format\": \"fp8\"");
    EXPECT_NE(format.find("unknown precision format \"fp8\""), std::string::npos) << format;
    const std::string missing = replaced("\"format\": \"int8\"", "\"all_low\": false");
    EXPECT_NE(missing.find("step 1, action 2: missing \"format\""), std::string::npos) << missing;
    const std::string train_int8 = replaced("\"precision\": \"fp16\", \"loss_scale\"", "\"precision\": \"int8\", \"loss_scale\"");
    EXPECT_NE(train_int8.find("step 1, action 3: unknown training precision \"int8\""), std::string::npos) << train_int8;
    const std::string fp32_scale = replaced("{\"do\": \"train\", \"task\": \"sort\"}", "{\"do\": \"train\", \"task\": \"sort\", \"loss_scale\": \"dynamic\"}");
    EXPECT_NE(fp32_scale.find("step 1, action 5: \"loss_scale\" needs \"precision\" bf16 or fp16"), std::string::npos) << fp32_scale;
    const std::string bad_scale = replaced("\"loss_scale\": \"none\"", "\"loss_scale\": \"fixed\"");
    EXPECT_NE(bad_scale.find("unknown loss scale \"fixed\""), std::string::npos) << bad_scale;
}

TEST_F(LessonFiles, TheLookInsideActionReadsItsViewAndSentence) {
    const char* text = R"({"title": "T", "paragraphs": ["P."],
  "steps": [{"text": "Look.", "actions": [{"do": "look_inside", "view": "patch", "corrupted": "The cat sleeps."},
                                          {"do": "look_inside", "view": "heads"}]}],
  "question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 0, "explanation": "Because."}})";
    const Lesson l = read_lesson(write("look.json", text), LESSON_PANELS);
    const auto& a = l.steps[0].actions;
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].kind, LessonActionKind::LookInside);
    EXPECT_EQ(a[0].name, "patch");
    EXPECT_EQ(a[0].sentences, std::vector<std::string>{"The cat sleeps."});
    EXPECT_EQ(a[1].name, "heads");
    EXPECT_EQ(a[1].sentences, std::vector<std::string>{""});   // no corrupted sentence
    std::string bad = text;
    bad.replace(bad.find("\"heads\""), 7, "\"probes\"");
    try {
        read_lesson(write("look-bad.json", bad), LESSON_PANELS);
        ADD_FAILURE() << "accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("unknown Look inside view \"probes\""), std::string::npos) << e.what();
    }
}

TEST_F(LessonFiles, TheModelVariantActionReadsItsFields) {
    const char* text = R"({"title": "T", "paragraphs": ["P."],
  "steps": [{"text": "Variants.", "actions": [{"do": "model_variant", "positional": "rope"},
                                               {"do": "model_variant", "ffn": "swiglu", "norm_kind": "rmsnorm"},
                                               {"do": "model_variant", "positional": "alibi", "ffn": "gelu", "norm_kind": "layernorm"}]}],
  "question": {"prompt": "Q?", "choices": ["a", "b"], "answer": 0, "explanation": "Because."}})";
    const Lesson l = read_lesson(write("variant.json", text), LESSON_PANELS);
    const auto& a = l.steps[0].actions;
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a[0].kind, LessonActionKind::ModelVariant);
    EXPECT_EQ(a[0].variant.positional, PositionalKind::Rope);
    EXPECT_FALSE(a[0].variant.ffn.has_value());        // unset fields keep the open model's
    EXPECT_FALSE(a[0].variant.norm_kind.has_value());
    EXPECT_EQ(a[1].variant.ffn, FfnKind::SwiGlu);
    EXPECT_EQ(a[1].variant.norm_kind, NormKind::RmsNorm);
    EXPECT_FALSE(a[1].variant.positional.has_value());
    EXPECT_EQ(a[2].variant.positional, PositionalKind::Alibi);
    EXPECT_EQ(a[2].variant.ffn, FfnKind::Gelu);
    EXPECT_EQ(a[2].variant.norm_kind, NormKind::LayerNorm);
    // Applied to a config, only the fields set change.
    ModelConfig c;
    c.d_model = 96;
    c.seed = 7;
    const ModelConfig r = apply_variant(c, a[1].variant);
    EXPECT_EQ(r.positional, c.positional);
    EXPECT_EQ(r.ffn, FfnKind::SwiGlu);
    EXPECT_EQ(r.norm_kind, NormKind::RmsNorm);
    EXPECT_EQ(r.d_model, 96);
    EXPECT_EQ(r.seed, 7u);
    EXPECT_EQ(describe(a[1].variant), "SwiGLU feed-forward, RMSNorm");
    // Bad values are refused with the file, the place and the choices.
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        return error_of(t.replace(t.find(from), from.size(), to));
    };
    const std::string scheme = replaced("\"positional\": \"rope\"", "\"positional\": \"xpos\"");
    EXPECT_NE(scheme.find("bad.json: step 1, action 1: unknown positional scheme \"xpos\" (use one of: sinusoidal, learned, rope, alibi, none, relative)"),
              std::string::npos) << scheme;
    const std::string ffn = replaced("\"ffn\": \"swiglu\"", "\"ffn\": \"geglu\"");
    EXPECT_NE(ffn.find("step 1, action 2: unknown feed-forward \"geglu\""), std::string::npos) << ffn;
    const std::string norm = replaced("\"norm_kind\": \"layernorm\"", "\"norm_kind\": \"batchnorm\"");
    EXPECT_NE(norm.find("step 1, action 3: unknown norm kind \"batchnorm\""), std::string::npos) << norm;
    const std::string none = replaced("\"positional\": \"rope\"", "\"seed\": 1");
    EXPECT_NE(none.find("step 1, action 1: \"model_variant\" needs at least one of \"positional\", \"ffn\", \"norm_kind\""),
              std::string::npos) << none;
}

TEST(LessonProgress, KeysLeaveOutTheNumber) {
    EXPECT_EQ(progress_key("/x/assets/lessons/03-positional.json"), "positional");
    EXPECT_EQ(progress_key("12-it-refers.json"), "it-refers");
    EXPECT_EQ(progress_key("notes.json"), "notes");
    EXPECT_EQ(progress_key("2024.json"), "2024");   // digits alone are a name, not a place
}

TEST(LessonProgress, DoneListsSurviveTheSettingsLine) {
    const std::set<std::string> done = {"whole-pass", "tokens", "it-refers"};
    EXPECT_EQ(encode_done(done), "it-refers,tokens,whole-pass");
    EXPECT_EQ(decode_done(encode_done(done)), done);
    EXPECT_TRUE(decode_done("").empty());
    // A hand-edited line: empty entries and keys with other characters are skipped.
    EXPECT_EQ(decode_done(",tokens,,bad key,x=y,masks,"), (std::set<std::string>{"tokens", "masks"}));
}

TEST(LessonProgress, TheFirstLessonIsOfferedOnceToAPersonOnly) {
    LessonProgress fresh;
    EXPECT_TRUE(should_offer_first_lesson(fresh, false, false));
    EXPECT_FALSE(should_offer_first_lesson(fresh, true, false));    // --screenshot, the self-test
    EXPECT_FALSE(should_offer_first_lesson(fresh, false, true));    // --lesson N asks for a lesson itself
    LessonProgress offered;
    offered.offered = true;
    EXPECT_FALSE(should_offer_first_lesson(offered, false, false));
}

TEST_F(LessonFiles, ProgressFindsLessonsByKey) {
    write("01-first.json", GOOD);
    write("02-second.json", GOOD);
    const LessonSet set = load_lessons(m_dir.string(), LESSON_PANELS);
    ASSERT_EQ(set.lessons.size(), 2u);
    EXPECT_EQ(lesson_index(set.lessons, "second"), 1);
    EXPECT_EQ(lesson_index(set.lessons, "first"), 0);
    EXPECT_EQ(lesson_index(set.lessons, "third"), -1);
    EXPECT_EQ(lesson_index(set.lessons, ""), -1);
}

TEST_F(LessonFiles, AGoodFileReadsEveryField) {
    const Lesson l = read_lesson(write("good.json", GOOD), LESSON_PANELS);
    EXPECT_EQ(l.title, "T");
    ASSERT_EQ(l.steps.size(), 2u);
    ASSERT_EQ(l.steps[0].actions.size(), 2u);
    EXPECT_EQ(l.steps[0].actions[0].kind, LessonActionKind::HighlightPanel);
    EXPECT_EQ(l.steps[0].actions[0].name, "masks");
    EXPECT_EQ(l.steps[0].actions[1].kind, LessonActionKind::CausalMask);
    EXPECT_FALSE(l.steps[0].actions[1].on);
    EXPECT_TRUE(l.steps[1].actions.empty());
    EXPECT_EQ(l.question.answer, 1);
}

TEST_F(LessonFiles, BadFilesNameTheFileAndTheProblem) {
    const std::string file = (m_dir / "bad.json").string();
    const auto expect = [&](const std::string& text, const std::string& part) {
        const std::string message = error_of(text);
        EXPECT_NE(message.find(file + ": "), std::string::npos) << message;
        EXPECT_NE(message.find(part), std::string::npos) << message;
    };
    expect("{\"title\": \"T\", ", "not valid JSON");
    expect("[1, 2]", "expected a JSON object");
    expect(R"({"paragraphs": ["P."]})", "missing \"title\"");
    std::string s = GOOD;
    expect(std::string(s).replace(s.find("\"highlight\""), 11, "\"jump\""), "step 1, action 1: unknown action \"jump\"");
    expect(std::string(s).replace(s.find("\"masks\""), 7, "\"maskz\""), "unknown panel \"maskz\" (use one of: input,");
    expect(std::string(s).replace(s.find("\"on\": false"), 11, "\"on\": 0"), "step 1, action 2: \"on\" must be true or false");
    expect(std::string(s).replace(s.find("\"answer\": 1"), 11, "\"answer\": 2"), "question: \"answer\" must be a whole number from 0 to 1");
    expect(std::string(s).replace(s.find("[\"P.\"]"), 6, "[]"), "\"paragraphs\" must be a list of 1 to 3");
}

TEST_F(LessonFiles, ABadFileIsLeftOutAndTheOthersLoad) {
    write("01-good.json", GOOD);
    write("02-bad.json", "{ not json");
    write("03-good.json", GOOD);
    write("notes.txt", "not a lesson");
    const LessonSet set = load_lessons(m_dir.string(), LESSON_PANELS);
    EXPECT_EQ(set.lessons.size(), 2u);
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_EQ(set.errors[0].rfind((m_dir / "02-bad.json").string() + ": not valid JSON", 0), 0u) << set.errors[0];
    const LessonSet missing = load_lessons((m_dir / "nowhere").string(), LESSON_PANELS);
    EXPECT_TRUE(missing.lessons.empty());
    ASSERT_EQ(missing.errors.size(), 1u);
    EXPECT_NE(missing.errors[0].find("no such lesson file or folder"), std::string::npos);
}

}  // namespace
}  // namespace tx::explain
