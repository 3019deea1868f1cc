// Command: everything a panel, a menu, a key, a lesson step or a launch option can ask of the
// explorer, as plain data. One struct per request, one std::variant of them all, and one
// Workbench::apply (workbench.h) that carries them out; the window's own requests (panels shown,
// pictures read from the screen) are applied by ExplorerApp::apply (explorer_app.h) first.
// A new button is: a struct here, its case in apply, and the panel that sends it.
// No ImGui here: the Workbench and the tests use it without a window.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "generation_trace.h"
#include "look_inside.h"
#include "model_variant.h"
#include "precision_view.h"
#include "tx/config.h"
#include "tx/precision.h"
#include "tx/training_config.h"

namespace tx::app {

// --- The input and the cursor over the model's steps -------------------------------------------
struct SetInput {                  // new input sentences (a padded batch) and an optional forced target
    std::vector<std::string> sentences;
    std::optional<std::string> target;
};
struct RandomTestSentence {};      // a random sentence of the model's test split as the input
struct StepForward {};             // run one more step
struct StepBack {};                // undo the last step
struct NextLayer {};               // run to the end of the current layer
struct PreviousLayer {};           // back to the end of the previous layer (or the start)
struct RunToEnd {};                // run every step
struct Restart {};                 // back before the first step
struct RunTo {                     // put the cursor just after step `step` (an index of SessionView::steps)
    size_t step = 0;
};
// Run to a step by its name (or, from the command line, its number); a step inside an attention
// block also selects that block. From the command line the message names --step.
struct GoToStep {
    std::string step;
    bool from_command_line = false;
};

// --- Switches of the run (same weights) ---------------------------------------------------------
struct SetDecoding {               // beam search with beam_size (1: greedy) and GNMT length penalty
    int beam_size = 1;
    double length_penalty = 0.6;
};
struct SetCausalMask { bool on = true; };          // the decoder's causal mask on or off
struct SetPaddingMask { bool on = true; };         // the padding mask on or off
struct SetPositionalEncoding { bool on = true; };  // off: embeddings only, no word order
struct SetAttentionScaling { bool on = true; };    // ModelConfig::scale_attention (1/sqrt(dk))
struct SetHeadEnabled {            // switch one head of an attention block ("decoder.layers.2.cross_attn") on or off
    std::string prefix;
    int head = 0;
    bool on = true;
};
struct EnableAllHeads {};          // every head back on
struct SetFusedAttention { bool on = false; };     // the fused attention op instead of its steps
struct SetBackend { std::string name; };           // "cpu" or "cuda"; the weights move there
struct CompareBackends {};         // run the input on the other backend too: per-step times and differences

// --- Models ------------------------------------------------------------------------------------
struct RebuildModel { ModelConfig config; };       // a model of this config with fresh weights
// The open model's config with the variant's fields changed (model_variant.h), fresh weights;
// read when applied, so it follows a model opened just before.
struct RebuildVariant { explain::ModelVariant variant; };
struct LoadCheckpoint { std::string path; };       // a .safetensors checkpoint replaces the model
struct SaveCheckpoint { std::string path; };       // the model, written to a checkpoint
struct OpenModel { std::string key; };             // a File → Models entry by its file's stem ("copy")

// --- Selections ----------------------------------------------------------------------------------
struct SelectAttention {           // the attention block by its prefix, and its head
    std::string prefix;
    int head = 0;
    bool alone = false;               // draw that head alone ("selected head only"); false leaves the choice as it is
};
// --head/--neuron: the selected head (drawn alone) and/or the Neuron view's cell (query, key) of the
// selected block; -1: not given. A value outside the model ends the run as a bad argument does (exit 2).
struct PickAttentionCell {
    int head = -1;
    int query = -1, key = -1;
    bool show_neuron_panel = false;   // also raise the Neuron view (when no --panel or --layout names one)
};
struct OpenNeuronView {            // the Neuron view on cell (query, key) of the selected block and head
    int query = 0, key = 0;
};
struct DrawAttentionAsLines { bool on = false; };  // the Attention panel draws lines between tokens

// --- The Generate panel --------------------------------------------------------------------------
struct SetGeneration {             // its decoding settings; compute_now: recompute the trace at once
    explain::GenerationSettings settings;
    bool compute_now = true;
};
struct UpdateGeneration {};        // recompute a stale trace
struct SetGenerationCursor {       // token 1 … T and the step within its pass, clamped to the trace
    int token = 1, step = 0;
};
// --generate T: the trace computed at once, its cursor at token T's last step; beyond the output the
// run ends as a bad argument does (exit 2).
struct ShowGeneratedToken {
    int token = 1;
};

// --- The Decoding panel's speculative decoding ----------------------------------------------------
struct SetSpeculative {            // k proposals per round, the draft's decoder layers (0: one fewer), section open
    int k = 4;
    int draft_layers = 0;
    bool open = true;
};
struct UpdateSpeculative {};       // make the rounds of the selected sentence under the settings, if not held

// --- The Backend panel ---------------------------------------------------------------------------
struct MeasureGeneration {};       // time generating 8 … 64 tokens with and without the KV cache
struct LoadGenerationBench { std::string path; };   // a bench/run_generate_bench.sh JSON to plot

// --- Look inside and Precision panels ------------------------------------------------------------
// Each computes its panel's result for the current model, input and settings (Workbench::
// look_inside_request, precision_request), off the GUI thread; nothing when it is held or running.
struct ComputeLookInside {};       // the five views of the first sentence
struct ComputePrecision {};        // FP32 against the Precision panel's mode (SetPrecision)
// The patching view's corrupted sentence and metric (activation_patching.h): position -1 and
// empty tokens choose (automatic); a token alone is log p(token) at the position, with versus
// log p(token) − log p(versus). Tokens are piece texts ("▁cansado", "cansado", "#12").
struct PatchingSettings {
    std::string corrupted;         // empty: no patching
    int metric_position = -1;
    std::string metric_token, metric_versus;
    bool operator==(const PatchingSettings&) const = default;
};
struct SetPatching { PatchingSettings settings; };

// --- Training (the trainer runs on its own thread; none of these waits on it) ----------------------
struct ConfigureTrainer {          // a new trainer: the preset's model for the task, fresh weights
    Preset preset = Preset::Tiny;
    TrainingConfig training;
};
// A new trainer from a checkpoint's weights and tokenizer: the explorer's model, or the shipped
// small-grammar translation model.
struct FineTune {
    TrainingConfig training;
    bool explorer_model = false;
};
struct TrainComparisonRow { std::string row_id; };   // a variant comparison row's trainer, started at once
struct StartTraining {};           // run (or run once made)
struct PauseTraining {};           // pause after the current step
struct StepTraining {};            // one step
struct ResetTrainer {};            // fresh weights, step 0
struct SaveTrainedModel { std::string path; };     // the trainer's model, written to a checkpoint
struct UseTrainedModel {};         // the explorer shows the trainer's model

// --- Exports -------------------------------------------------------------------------------------
struct ScreenRect { float x0 = 0, y0 = 0, x1 = 0, y1 = 0; };   // screen coordinates (ImGui's)
// A picture of the rectangle, read from the back buffer once this frame is drawn. `path` empty:
// a fresh name in the export folder from base_name. Needs the window.
struct ExportRegionPng {
    ScreenRect region;
    std::string base_name;
    std::string path;
};
struct ExportCsv {                 // text written to a fresh .csv name in the export folder
    std::string base_name;
    std::string text;
};

// --- The window's own state (ExplorerApp::apply; a Workbench alone logs that it has no window) ------
struct ShowPanel { std::string key; };             // open and raise a panel
struct HighlightPanel { std::string key; };        // ShowPanel, then a coloured frame for a few seconds
// The Precision panel's mode and embedding scale; an invalid mode (all_low with FP32 or INT8) is reported.
struct SetPrecision {
    PrecisionMode mode{Precision::Bf16, false};
    float embedding_scale = 1.0f;
};
struct SetLookInside {             // the Look inside panel's corrupted sentence (SetPatching, the metric kept) and, if named, its tab
    std::string corrupted;
    std::string view;
};
struct OpenLesson {                // the Lessons panel on lesson `number` (1-based), then `steps` "Do it"s, one a frame
    int number = 1;
    int steps = 0;
};

using Command = std::variant<
    SetInput, RandomTestSentence, StepForward, StepBack, NextLayer, PreviousLayer, RunToEnd, Restart, RunTo, GoToStep,
    SetDecoding, SetCausalMask, SetPaddingMask, SetPositionalEncoding, SetAttentionScaling, SetHeadEnabled,
    EnableAllHeads, SetFusedAttention, SetBackend, CompareBackends,
    RebuildModel, RebuildVariant, LoadCheckpoint, SaveCheckpoint, OpenModel,
    SelectAttention, PickAttentionCell, OpenNeuronView, DrawAttentionAsLines,
    SetGeneration, UpdateGeneration, SetGenerationCursor, ShowGeneratedToken, SetSpeculative, UpdateSpeculative,
    MeasureGeneration, LoadGenerationBench, ComputeLookInside, ComputePrecision, SetPatching,
    ConfigureTrainer, FineTune, TrainComparisonRow, StartTraining, PauseTraining, StepTraining, ResetTrainer,
    SaveTrainedModel, UseTrainedModel,
    ExportRegionPng, ExportCsv,
    ShowPanel, HighlightPanel, SetPrecision, SetLookInside, OpenLesson>;

// The commands only a window can carry out (ExplorerApp::apply); see the section above.
inline bool needs_window(const Command& c) {
    return std::holds_alternative<ShowPanel>(c) || std::holds_alternative<HighlightPanel>(c) ||
           std::holds_alternative<SetLookInside>(c) ||
           std::holds_alternative<OpenLesson>(c) || std::holds_alternative<ExportRegionPng>(c);
}

// Where panels, widgets and lessons send commands. ExplorerApp queues them and applies them after
// the frame's panels are drawn, so a frame reads one snapshot.
class CommandSink {
public:
    virtual ~CommandSink() = default;
    virtual void send(Command command) = 0;
};

}  // namespace tx::app
