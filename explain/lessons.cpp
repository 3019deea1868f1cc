// Reads the lesson files (lessons.h). Every message names the file and the place in it, so a
// typo in a lesson is found without a debugger; a bad file never stops the other lessons.
#include "lessons.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tx::explain {

namespace {

// The spelling of each action in the files, and the field it needs.
struct ActionSpelling {
    const char* name;
    LessonActionKind kind;
};
constexpr ActionSpelling ACTIONS[] = {
    {"open_model", LessonActionKind::OpenModel},
    {"set_sentences", LessonActionKind::SetSentences},
    {"go_to_step", LessonActionKind::GoToStep},
    {"causal_mask", LessonActionKind::CausalMask},
    {"padding_mask", LessonActionKind::PaddingMask},
    {"positional_encoding", LessonActionKind::PositionalEncoding},
    {"attention_scaling", LessonActionKind::AttentionScaling},
    {"fused_attention", LessonActionKind::FusedAttention},
    {"select_attention", LessonActionKind::SelectAttention},
    {"show_panel", LessonActionKind::ShowPanel},
    {"highlight", LessonActionKind::HighlightPanel},
    {"decoding", LessonActionKind::Decoding},
    {"train", LessonActionKind::Train},
    {"neuron_view", LessonActionKind::NeuronView},
    {"head", LessonActionKind::HeadEnabled},
    {"all_heads_on", LessonActionKind::AllHeadsOn},
    {"generation", LessonActionKind::Generation},
    {"precision", LessonActionKind::Precision},
    {"model_variant", LessonActionKind::ModelVariant},
    {"look_inside", LessonActionKind::LookInside},
    {"speculative", LessonActionKind::Speculative},
};
const char* const TASKS[] = {"copy", "reverse", "sort"};
// The Precision panel's embedding scales (PrecisionPanel::EMBEDDING_SCALES): a lesson can choose
// only what the learner can choose.
constexpr float EMBEDDING_SCALES[] = {1.0f, 100.0f, 10000.0f};

struct Place {
    const std::string& file;
    std::string where;   // "step 2, action 1" or ""
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error(file + ": " + (where.empty() ? "" : where + ": ") + what);
    }
};

const json& field(const json& j, const char* key, const Place& at) {
    if (!j.is_object()) at.fail("expected a JSON object");
    if (!j.contains(key)) at.fail(std::string("missing \"") + key + "\"");
    return j.at(key);
}

std::string text(const json& j, const char* key, const Place& at) {
    const json& v = field(j, key, at);
    if (!v.is_string() || v.get<std::string>().empty()) at.fail(std::string("\"") + key + "\" must be a non-empty string");
    return v.get<std::string>();
}

std::vector<std::string> texts(const json& j, const char* key, size_t lo, size_t hi, const Place& at) {
    const json& v = field(j, key, at);
    const std::string rule = std::string("\"") + key + "\" must be a list of " + std::to_string(lo) + " to " +
                             std::to_string(hi) + " non-empty strings";
    if (!v.is_array() || v.size() < lo || v.size() > hi) at.fail(rule);
    std::vector<std::string> out;
    for (const json& s : v) {
        if (!s.is_string() || s.get<std::string>().empty()) at.fail(rule);
        out.push_back(s.get<std::string>());
    }
    return out;
}

int whole(const json& j, const char* key, int lo, int hi, const Place& at) {
    const json& v = field(j, key, at);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
        at.fail(std::string("\"") + key + "\" must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return static_cast<int>(v.get<long long>());
}

double real(const json& j, const char* key, double fallback, const Place& at) {
    if (!j.contains(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number()) at.fail(std::string("\"") + key + "\" must be a number");
    return v.get<double>();
}

bool flag(const json& j, const char* key, const Place& at) {
    const json& v = field(j, key, at);
    if (!v.is_boolean()) at.fail(std::string("\"") + key + "\" must be true or false");
    return v.get<bool>();
}

std::string one_of(const std::string& value, const std::vector<std::string>& allowed, const char* what, const Place& at) {
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    at.fail("unknown " + std::string(what) + " \"" + value + "\" (use one of: " + list + ")");
}

LessonAction read_action(const json& j, const std::vector<std::string>& panel_keys, const Place& at) {
    const std::string name = text(j, "do", at);
    const auto* spelling = std::find_if(std::begin(ACTIONS), std::end(ACTIONS), [&](const ActionSpelling& a) { return name == a.name; });
    if (spelling == std::end(ACTIONS)) {
        std::vector<std::string> names;
        for (const auto& a : ACTIONS) names.emplace_back(a.name);
        one_of(name, names, "action", at);
    }
    LessonAction a;
    a.kind = spelling->kind;
    switch (a.kind) {
        case LessonActionKind::OpenModel: a.name = text(j, "model", at); break;
        case LessonActionKind::SetSentences: a.sentences = texts(j, "sentences", 1, 4, at); break;
        case LessonActionKind::GoToStep: a.name = text(j, "step", at); break;
        case LessonActionKind::CausalMask:
        case LessonActionKind::PaddingMask:
        case LessonActionKind::PositionalEncoding:
        case LessonActionKind::AttentionScaling:
        case LessonActionKind::FusedAttention: a.on = flag(j, "on", at); break;
        case LessonActionKind::SelectAttention:
            a.name = text(j, "block", at);
            a.number = whole(j, "head", 0, 63, at);
            a.on = j.contains("alone") && flag(j, "alone", at);
            break;
        case LessonActionKind::ShowPanel:
        case LessonActionKind::HighlightPanel: a.name = one_of(text(j, "panel", at), panel_keys, "panel", at); break;
        case LessonActionKind::Decoding: a.number = whole(j, "beam", 1, 16, at); break;
        case LessonActionKind::Speculative:
            a.number = whole(j, "k", 1, 16, at);
            a.key = j.contains("draft_layers") ? whole(j, "draft_layers", 1, 23, at) : 0;
            break;
        case LessonActionKind::NeuronView:
            a.number = whole(j, "query", 0, 4095, at);
            a.key = whole(j, "key", 0, 4095, at);
            break;
        case LessonActionKind::HeadEnabled:
            a.name = text(j, "block", at);
            a.number = whole(j, "head", 0, 63, at);
            a.on = flag(j, "on", at);
            break;
        case LessonActionKind::AllHeadsOn: break;
        case LessonActionKind::Generation:
            a.on = flag(j, "sample", at);
            a.sampling.temperature = real(j, "temperature", 1.0, at);
            a.sampling.top_k = j.contains("top_k") ? whole(j, "top_k", 0, 1 << 20, at) : 0;
            a.sampling.top_p = real(j, "top_p", 1.0, at);
            a.sampling.seed = j.contains("seed") ? static_cast<uint64_t>(whole(j, "seed", 0, 1 << 30, at)) : 0;
            try {
                validate(a.sampling);
            } catch (const std::invalid_argument& e) {
                at.fail(e.what());
            }
            break;
        case LessonActionKind::Train: {
            a.name = one_of(text(j, "task", at), std::vector<std::string>(std::begin(TASKS), std::end(TASKS)), "task", at);
            const std::string format = j.contains("precision") ? one_of(text(j, "precision", at), {"fp32", "bf16", "fp16"}, "training precision", at) : "fp32";
            a.precision.format = precision_from_string(format).value();
            const std::string scale = j.contains("loss_scale") ? one_of(text(j, "loss_scale", at), {"none", "dynamic"}, "loss scale", at)
                                                               : (format == "fp16" ? "dynamic" : "none");
            if (format == "fp32" && scale != "none") at.fail("\"loss_scale\" needs \"precision\" bf16 or fp16 (FP32 training has no loss scale)");
            a.loss_scale = loss_scale_from_string(scale).value();
            break;
        }
        case LessonActionKind::Precision: {
            const std::string format = one_of(text(j, "format", at), {"fp32", "bf16", "fp16", "int8"}, "precision format", at);
            a.precision.format = precision_from_string(format).value();
            a.precision.all_low = j.contains("all_low") && flag(j, "all_low", at);
            if (const auto why = validate(a.precision)) at.fail(*why);
            a.embedding_scale = static_cast<float>(real(j, "embedding_scale", 1.0, at));
            if (std::find(std::begin(EMBEDDING_SCALES), std::end(EMBEDDING_SCALES), a.embedding_scale) == std::end(EMBEDDING_SCALES))
                at.fail("\"embedding_scale\" must be 1, 100 or 10000 (the Precision panel's choices)");
            break;
        }
        case LessonActionKind::LookInside:
            // The Look inside panel's tabs (LookInsidePanel::VIEWS).
            a.name = one_of(text(j, "view", at), {"lens", "patch", "heads", "rollout", "entropy", "attribution"}, "Look inside view", at);
            a.sentences = {j.contains("corrupted") ? text(j, "corrupted", at) : std::string()};
            break;
        case LessonActionKind::ModelVariant: {
            // The Model panel's choices, spelled as in checkpoints and on the command line.
            if (j.contains("positional")) {
                const std::string v = one_of(text(j, "positional", at), {"sinusoidal", "learned", "rope", "alibi", "none", "relative"}, "positional scheme", at);
                a.variant.positional = positional_from_string(v).value();
            }
            if (j.contains("ffn")) a.variant.ffn = ffn_from_string(one_of(text(j, "ffn", at), {"relu", "gelu", "swiglu"}, "feed-forward", at)).value();
            if (j.contains("norm_kind"))
                a.variant.norm_kind = norm_kind_from_string(one_of(text(j, "norm_kind", at), {"layernorm", "rmsnorm"}, "norm kind", at)).value();
            if (j.contains("kv_heads")) a.variant.kv_heads = whole(j, "kv_heads", 0, 64, at);
            if (j.contains("window")) a.variant.window = whole(j, "window", 0, 4096, at);
            if (j.contains("window_dilation")) a.variant.window_dilation = whole(j, "window_dilation", 1, 4096, at);
            if (j.contains("global_positions")) {
                const auto& list = j.at("global_positions");
                std::vector<int> positions;
                if (list.is_array())
                    for (const auto& p : list)
                        if (p.is_number_integer() && p.get<long long>() >= 0 && p.get<long long>() < 4096) positions.push_back(p.get<int>());
                if (!list.is_array() || positions.size() != list.size())
                    at.fail("\"global_positions\" must be a list of whole numbers from 0 to 4095");
                a.variant.global_positions = positions;
            }
            if (a.variant.empty())
                at.fail("\"model_variant\" needs at least one of \"positional\", \"ffn\", \"norm_kind\", \"kv_heads\", "
                        "\"window\", \"window_dilation\", \"global_positions\"");
            break;
        }
    }
    return a;
}

}  // namespace

const char* to_string(LessonActionKind kind) {
    for (const auto& a : ACTIONS)
        if (a.kind == kind) return a.name;
    return "?";
}

Lesson read_lesson(const std::string& path, const std::vector<std::string>& panel_keys) {
    std::ifstream in(path);
    Place top{path, ""};
    if (!in) top.fail("cannot open the file");
    json j;
    try {
        j = json::parse(in);
    } catch (const json::exception& e) {
        top.fail(std::string("not valid JSON (") + e.what() + ")");
    }
    Lesson lesson;
    lesson.file = path;
    lesson.title = text(j, "title", top);
    lesson.paragraphs = texts(j, "paragraphs", 1, 3, top);
    const json& steps = field(j, "steps", top);
    if (!steps.is_array() || steps.empty()) top.fail("\"steps\" must be a non-empty list");
    for (size_t s = 0; s < steps.size(); ++s) {
        Place at{path, "step " + std::to_string(s + 1)};
        LessonStep step;
        step.text = text(steps[s], "text", at);
        if (steps[s].contains("actions")) {
            const json& actions = steps[s]["actions"];
            if (!actions.is_array()) at.fail("\"actions\" must be a list");
            for (size_t a = 0; a < actions.size(); ++a)
                step.actions.push_back(read_action(actions[a], panel_keys, Place{path, at.where + ", action " + std::to_string(a + 1)}));
        }
        lesson.steps.push_back(std::move(step));
    }
    Place qa{path, "question"};
    const json& q = field(j, "question", top);
    lesson.question.prompt = text(q, "prompt", qa);
    lesson.question.choices = texts(q, "choices", 2, 6, qa);
    lesson.question.answer = whole(q, "answer", 0, static_cast<int>(lesson.question.choices.size()) - 1, qa);
    if (q.contains("hint")) lesson.question.hint = text(q, "hint", qa);
    lesson.question.explanation = text(q, "explanation", qa);
    return lesson;
}

LessonSet load_lessons(const std::string& path, const std::vector<std::string>& panel_keys) {
    LessonSet set;
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
        std::sort(files.begin(), files.end());
        if (files.empty()) set.errors.push_back(path + ": no lesson files (*.json) in this folder");
    } else if (fs::is_regular_file(path, ec)) {
        files.push_back(path);
    } else {
        set.errors.push_back(path + ": no such lesson file or folder");
    }
    for (const auto& file : files) {
        try {
            set.lessons.push_back(read_lesson(file, panel_keys));
        } catch (const std::exception& e) {
            set.errors.push_back(e.what());
        }
    }
    return set;
}

}  // namespace tx::explain
