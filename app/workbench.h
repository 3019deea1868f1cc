// Workbench: the explorer's state without a window: the Session and its SessionView, the Trainer,
// the selections, the panels' settings, the results derived from the model and the input, the
// status line and log. Everything that changes it is a Command (command.h) given to apply().
// ExplorerApp owns one and draws it; tests/app/test_command_random_walk.cpp drives one with no
// window or ImGui context.
// The SessionView has two writers, both here: refresh() copies the Session into it after a
// command, publish_results() the derived results (derived.h: each keyed on what it was computed
// from, so none is ever reset by hand). Known words, Look inside and Precision are computed off the
// calling thread in a windowed run and adopted by tick(); a headless Workbench makes them at once
// (screenshots and tests see the result). The trainer always runs on its own thread.
#pragma once
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "command.h"
#include "derived.h"
#include "known_words.h"
#include "look_inside.h"
#include "model_catalog.h"
#include "precision_view.h"
#include "session_twin.h"
#include "session_view.h"
#include "speculative_view.h"
#include "tx/backend_comparison.h"
#include "tx/generation_timing.h"
#include "tx/checkpoint.h"
#include "tx/trainer.h"
#include "tx/training_config.h"

namespace tx {
class Session;
}

namespace tx::app {

// Selections shared by panels (which batch row, which attention block and head is looked at).
struct Selection {
    int batch_row = 0;
    int attention_block = 0;     // index into SessionView::attention
    int head = 0;
    bool show_scores = false;    // raw scaled scores instead of probabilities
    bool attention_lines = false;   // Attention panel: lines between tokens instead of heatmaps
    bool single_head = false;       // Attention panel: only the selected head, large (--head sets it)
    // Neuron view: the traced cell (query row, key column) of attention_block, head, batch_row;
    // -1 until a heatmap cell is clicked (or --neuron names one).
    int neuron_query = -1;
    int neuron_key = -1;
};

struct TrainerInfo {
    bool exists = false;
    Preset preset = Preset::Tiny;
    TrainingConfig training;
    ModelConfig model;
    std::string error;           // why it could not be created
    std::string start_from;      // fine-tuning: the checkpoint it started from; empty: fresh weights
    bool preparing = false;      // being created on a thread of its own (reading a corpus, tokenizing)
    std::string comparison_row;  // the variant comparison row it trains (ComparisonRow::id); empty: none
};

// One line of the status bar's log.
struct LogMessage {
    std::string text;
    bool error = false;
    double time = 0.0;           // seconds since the Workbench was made
};

class Workbench {
public:
    // assets: the folder with models/, vocab/, corpus/ ("" : paths as given). headless: no
    // learner's settings are remembered, errors are also printed to stderr, and results made off
    // the GUI thread in a window are made at once.
    Workbench(std::string assets_dir, bool headless);
    ~Workbench();
    Workbench(const Workbench&) = delete;
    Workbench& operator=(const Workbench&) = delete;

    // The first model: `checkpoint` if given and readable, else the shipped everyday model, else an
    // untrained default model; on `sentences`, else the remembered ones, else the model's own
    // catalog sentence, else a default sentence. Errors are reported, never thrown.
    void open_first_model(const std::string& checkpoint, std::vector<std::string> sentences);

    // Carries out one command. Nothing is thrown: a failure is reported (report_error) and the
    // state stays usable. The window's commands (needs_window) are only logged here.
    void apply(const Command& command);
    // Once a frame (or after each command in a test): adopts results made off this thread and the
    // trainer's snapshot.
    void tick();

    // Messages for the status line and log.
    void report_error(const std::string& message);
    void report_status(const std::string& message);
    // A fresh file name in the export folder: base_name.ext, else base_name-2.ext, …
    std::string export_path(const std::string& base_name, const char* extension) const;

    const explain::SessionView& view() const { return m_view; }
    Selection& selection() { return m_selection; }
    const Selection& selection() const { return m_selection; }
    const TrainingSnapshot& training() const { return m_training; }
    const TrainerInfo& trainer_info() const { return m_trainer_info; }
    bool has_trainer() const { return m_trainer != nullptr; }
    bool trainer_preparing() const { return m_prepared != nullptr; }
    // The trainer could not be made (trainer_info().error says why).
    bool trainer_failed() const { return !m_trainer && !m_prepared && !m_trainer_info.error.empty(); }
    bool busy() const;              // results are being made off this thread: keep ticking
    int error_count() const { return m_error_count; }
    const std::deque<LogMessage>& log() const { return m_log; }
    void clear_log() { m_log.clear(); }
    const std::string& status() const { return m_status; }
    bool status_is_error() const { return m_status_error; }
    const std::string& model_source() const { return m_model_source; }
    const std::vector<explain::CatalogModel>& catalog() const { return m_catalog; }
    const std::string& assets_dir() const { return m_assets_dir; }
    std::string resolve_asset(const std::string& relative) const;
    bool is_open_model(const explain::CatalogModel& m) const;   // the open model is this catalog entry's file
    // A launch command's value lay outside the model (PickAttentionCell, ShowGeneratedToken): the
    // line to print ("--head 9: …"), after which the run ends as for a bad argument (exit 2). Taken
    // once; nothing when no value was refused since.
    std::optional<std::string> take_bad_launch_value();
    // Errors are printed to stderr too in headless runs (screenshots, the self-test); tests that
    // send thousands of bad commands turn that off.
    void print_errors(bool on) { m_print_errors = on; }
    void pause_trainer_now();       // at shutdown: the trainer thread stops after its step
    // How many copies of the model the Generate timing, Look inside and Precision have needed: one
    // per model version (session_twin.h), however many of them ran on it.
    uint64_t twin_copies_made() const { return m_twin.copies_made(); }
    // RandomTestSentence's draws: from the system's entropy unless seeded (tests repeat a walk).
    void seed_random(uint64_t seed) { m_random.seed(seed); }

    // What a learner's settings remember (settings.cpp reads and writes these in a window).
    struct Remembered {
        std::string export_dir;
        std::vector<std::string> sentences;   // the last input set (not in headless runs)
    };
    Remembered& remembered() { return m_remembered; }

    // The Precision panel's settings, which its next run uses; only SetPrecision changes them.
    struct PrecisionSettings {
        PrecisionMode mode{Precision::Bf16, false};
        float embedding_scale = 1.0f;
    };
    const PrecisionSettings& precision_settings() const { return m_precision_settings; }
    // The Look inside panel's patching settings, which its next run uses; only SetPatching changes them.
    const PatchingSettings& patching_settings() const { return m_patching; }
    // What the Look inside and Precision panels' results are computed from now: the first sentence
    // (and target text) with the panels' settings.
    explain::LookInsideRequest look_inside_request() const;
    explain::PrecisionRequest precision_request() const;

private:
    struct PreparedTrainer;
    enum class WhenReady { Nothing, Start, Step };

    void apply_reporting_errors(const Command& command);   // apply() without publish_results()
    void apply_one(const Command& command);                 // … and without its error handling
    void refresh(bool full);
    void set_input_now(const std::vector<std::string>& sentences, const std::optional<std::string>& target);
    void replace_session(std::unique_ptr<Session> session, const std::string& source,
                         std::vector<std::string> sentences = {});
    void rebuild_now(const ModelConfig& config);
    void load_model(const std::string& path, std::vector<std::string> sentences);
    void go_to_step(const GoToStep& c);
    void pick_attention_cell(const PickAttentionCell& c);
    void show_generated_token(const ShowGeneratedToken& c);
    void compute_generation_now();                   // recomputes m_view.generation, keeping its cursor
    void export_csv(const ExportCsv& c);
    // Training.
    bool trainer_settings_usable(const TrainingConfig& training);
    void create_trainer(ModelConfig model, TrainingConfig training, std::function<Checkpoint()> start_from);
    void adopt_prepared_trainer();
    void configure_trainer(const ConfigureTrainer& c);
    void fine_tune(const FineTune& c);
    void train_comparison_row(const TrainComparisonRow& c);
    void use_trained_model();
    void random_test_sentence();
    void measure_generation();
    void set_speculative(const SetSpeculative& c);
    void update_speculative();
    void compute_look_inside();
    void compute_precision();
    // The derived results: their keys now, and the one function that writes them into m_view.
    using ModelKeyedLookInside = std::pair<uint64_t, explain::LookInsideRequest>;   // model version, request
    using ModelKeyedPrecision = std::pair<uint64_t, explain::PrecisionRequest>;
    using RunKeyedGeneration = std::pair<uint64_t, explain::GenerationSettings>;    // run version, settings
    std::string known_words_key() const;
    ModelKeyedLookInside look_inside_key() const;
    ModelKeyedPrecision precision_key() const;
    RunKeyedGeneration generation_key() const;
    // run version, selected sentence, settings
    using RunKeyedSpeculative = std::tuple<uint64_t, int, explain::SpeculativeSettings>;
    RunKeyedSpeculative speculative_key() const;
    void publish_results();
    double now_s() const;

    std::string m_assets_dir;
    bool m_headless = false;
    std::string m_cuda_unavailable, m_cuda_device;   // backend_names.h, asked once
    std::vector<explain::CatalogModel> m_catalog;   // File -> Models
    Remembered m_remembered;
    PrecisionSettings m_precision_settings;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    std::mt19937_64 m_random{std::random_device{}()};

    std::unique_ptr<Session> m_session;
    SessionTwin m_twin;                   // the copy of m_session's model that work beside it reads
    std::string m_model_source;
    explain::SessionView m_view;
    Selection m_selection;
    explain::GenerationSettings m_generation;      // the Generate panel's decoding mode (the trace holds a copy)

    std::unique_ptr<Trainer> m_trainer;
    TrainerInfo m_trainer_info;
    TrainingSnapshot m_training;
    std::shared_ptr<PreparedTrainer> m_prepared;   // the trainer being made, written by its thread
    std::thread m_prepare_thread;
    WhenReady m_when_ready = WhenReady::Nothing;   // a Play or Step pressed while it is being made

    // Results derived from the model and the input (derived.h), each keyed on what it depends on.
    // Known words: the model's corpus read off the GUI thread (a 400,000-pair corpus takes about a
    // second). Look inside and Precision: on the shared model copy, off the GUI thread. The
    // Generate panel's trace, its timing and the backend comparison: at once, in their commands.
    Derived<std::string, explain::KnownWords> m_known_words;
    Derived<ModelKeyedLookInside, explain::LookInside> m_look_inside;
    Derived<ModelKeyedPrecision, explain::PrecisionView> m_precision;
    Derived<RunKeyedGeneration, explain::GenerationTrace> m_generation_trace;
    Derived<uint64_t, GenerationTiming> m_generation_timing;     // keyed on the run version
    Derived<uint64_t, BackendComparison> m_comparison;           // keyed on the run version
    // The Decoding panel's speculative rounds: at once, in UpdateSpeculative (a sentence's worth of
    // decoding, tens of milliseconds).
    Derived<RunKeyedSpeculative, explain::SpeculativeView> m_speculative;
    explain::SpeculativeSettings m_speculative_settings;
    bool m_speculative_open = false;
    // The Generate panel's cursor (token 1 … T, step within its pass), clamped to the trace shown.
    // The first trace opens at token 1 with its pass done, unless a command placed the cursor.
    int m_generation_token = 1, m_generation_step = 0;
    bool m_generation_cursor_placed = false;
    std::shared_ptr<const explain::GenerationTrace> m_published_trace;   // the one m_view.generation copies
    PatchingSettings m_patching;
    std::shared_ptr<const explain::GenerationBench> m_generation_bench;   // LoadGenerationBench's file
    std::string m_generation_bench_error;                               // … or why it could not be read

    std::deque<LogMessage> m_log;
    std::string m_status;
    bool m_status_error = false;
    int m_error_count = 0;
    std::optional<std::string> m_bad_launch_value;
    bool m_print_errors = false;
};

}  // namespace tx::app
