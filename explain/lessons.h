// Lessons: the guided tour's data (assets/lessons/NN-name.json, one lesson a file, read in file
// name order) and its loader. A lesson is paragraphs, steps (each a text and the actions its
// "Do it" performs on the app) and a multiple-choice question. No ImGui here: the Lessons panel
// performs the actions, and the unit tests read the files.
#pragma once
#include <string>
#include <vector>

#include "model_variant.h"
#include "tx/loss_scaler.h"
#include "tx/precision.h"
#include "tx/sampling.h"

namespace tx::explain {

// What a lesson step can make the app do. To add one: a value here, its spelling and fields in
// lessons.cpp (ACTIONS), its effect in LessonsPanel::perform and its check in the self-test
// (tests/app/self_test.cpp).
enum class LessonActionKind {
    OpenModel,            // "open_model": {"model": "grammar"} — a File → Models entry by its file's stem
    SetSentences,         // "set_sentences": {"sentences": ["...", ...]} — 1 to 4, a padded batch from 2
    GoToStep,             // "go_to_step": {"step": "decoder.layers.2.cross_attn.probs"}
    CausalMask,           // "causal_mask": {"on": false}
    PaddingMask,          // "padding_mask": {"on": false}
    PositionalEncoding,   // "positional_encoding": {"on": false}
    AttentionScaling,     // "attention_scaling": {"on": false} — 1/√dk, same weights
    FusedAttention,       // "fused_attention": {"on": true} — the fused attention op (Backend panel)
    SelectAttention,      // "select_attention": {"block": "decoder.layers.2.cross_attn", "head": 0, "alone": true} —
                          // "alone" (optional, default false) draws that head alone ("selected head only")
    ShowPanel,            // "show_panel": {"panel": "masks"} — open and raise it
    HighlightPanel,       // "highlight": {"panel": "attention"} — raise it and frame it for a few seconds
    Decoding,             // "decoding": {"beam": 4} — 1 is greedy
    Train,                // "train": {"task": "copy" | "reverse", "precision": "fp16", "loss_scale": "none"} — tiny
                          // preset, started at once; precision fp32 (default), bf16 or fp16 and loss_scale
                          // "none" or "dynamic" (default: dynamic for fp16, none otherwise) are optional
    NeuronView,           // "neuron_view": {"query": 2, "key": 1} — the selected block and head's cell
    HeadEnabled,          // "head": {"block": "decoder.layers.2.cross_attn", "head": 1, "on": false} — head ablation
    AllHeadsOn,           // "all_heads_on": {} — every head of every block back on
    Generation,           // "generation": {"sample": true, "temperature": 0.5, "top_k": 0, "top_p": 1, "seed": 1} —
                          // the Generate panel's settings; only "sample" is required (greedy: false)
    Precision,            // "precision": {"format": "fp16", "all_low": true, "embedding_scale": 1} — the Precision
                          // panel's mode (fp32, bf16, fp16, int8; all_low with bf16 / fp16 only, default false;
                          // embedding_scale one of the panel's 1, 100, 10000, default 1), then the panel is shown
    ModelVariant,         // "model_variant": {"positional": "rope", "ffn": "swiglu", "norm_kind": "rmsnorm",
                          // "kv_heads": 2, "window": 4, "window_dilation": 2, "global_positions": [0]} — the
                          // open model rebuilt with these fields changed (at least one),
                          // fresh weights (Model panel)
    LookInside,           // "look_inside": {"corrupted": "...", "view": "patch"} — the Look inside panel's corrupted
                          // sentence ("" for none; optional, default "") and tab (lens, patch, heads, rollout,
                          // entropy, attribution), then the panel is shown
    Speculative,          // "speculative": {"k": 4, "draft_layers": 2} — the Decoding panel's speculative section
                          // opened with k proposals per round (1-16) and a draft of the model's first
                          // draft_layers decoder layers (optional; default 0: one fewer than the model has)
};

struct LessonAction {
    LessonActionKind kind = LessonActionKind::ShowPanel;
    std::string name;                     // model key, step name, panel key, attention block, task or Look inside tab
    std::vector<std::string> sentences;   // SetSentences; LookInside: the corrupted sentence (one, maybe "")
    bool on = true;                       // the toggles; HeadEnabled: the head on; Generation: sample;
                                          // SelectAttention: the head alone
    int number = 0;                       // SelectAttention, HeadEnabled: head; Decoding: beam size; NeuronView: query;
                                          // Speculative: k
    int key = 0;                          // NeuronView: key; Speculative: the draft's decoder layers (0: one fewer)
    SamplingOptions sampling;             // Generation (validated when read); `on` says whether it samples
    PrecisionMode precision;              // Precision: the panel's mode; Train: .format, the training precision
    float embedding_scale = 1.0f;         // Precision
    LossScaleSettings loss_scale;         // Train (mode None or Dynamic)
    ModelVariant variant;                 // ModelVariant: the fields it changes
};

struct LessonStep {
    std::string text;                     // what the learner is about to see, and where
    std::vector<LessonAction> actions;    // none: the step is read, then "Next"
};

struct LessonQuestion {
    std::string prompt;
    std::vector<std::string> choices;     // 2 to 6, in file order (the panel shows them shuffled, quiz.h)
    int answer = 0;                       // index into choices (file order)
    std::string hint;                     // where to look, after a first wrong try ("" : a general hint)
    std::string explanation;              // why the answer is right: after a right answer or a second try
};

struct Lesson {
    std::string file;                     // where it was read from, for messages
    std::string title;
    std::vector<std::string> paragraphs;  // 1 to 3
    std::vector<LessonStep> steps;
    LessonQuestion question;
};

struct LessonSet {
    std::vector<Lesson> lessons;
    std::vector<std::string> errors;      // one per bad file: "FILE: what is wrong"
};

// Reads one lesson file; throws std::runtime_error "FILE: problem" (the JSON error, or the
// first missing or wrong field with its place: "step 2, action 1: ..."). Panel keys are
// checked against `panel_keys`.
Lesson read_lesson(const std::string& path, const std::vector<std::string>& panel_keys);
// Every *.json file of a folder (or one file), in file name order. A bad file is left out with an
// error naming it; the others load.
LessonSet load_lessons(const std::string& path, const std::vector<std::string>& panel_keys);

const char* to_string(LessonActionKind kind);

}  // namespace tx::explain
