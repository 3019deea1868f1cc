// ExplorerApp: owns the Session, the Trainer, the panels, the menu bar, the status line and the
// settings. main.cpp calls draw() once per frame and after_render() once the frame is drawn.
// Panels send Commands; the app applies them between frames and refreshes the SessionView.
#pragma once
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "options.h"
#include "known_words.h"
#include "lesson_progress.h"
#include "look_inside.h"
#include "precision_view.h"
#include "model_catalog.h"
#include "tx/checkpoint.h"
#include "panel.h"

namespace tx {
class Session;
class Trainer;
}

namespace tx::app {

class SelfTest;

class ExplorerApp final : public Commands {
public:
    explicit ExplorerApp(AppOptions options);
    ~ExplorerApp() override;

    void draw();                                   // one frame of UI
    void after_render(int framebuffer_w, int framebuffer_h);
    bool should_quit() const { return m_quit; }
    int exit_code() const { return m_exit_code; }
    bool idle() const;                             // nothing animating: the loop may wait for input
    void shutdown();                               // frees GL textures; before the context goes

    // Commands (queued; applied after the frame's panels are drawn).
    void set_input(std::vector<std::string> sentences, std::optional<std::string> target) override;
    void step_forward() override;
    void step_back() override;
    void next_layer() override;
    void previous_layer() override;
    void run_to_end() override;
    void restart() override;
    void run_to(size_t step) override;
    void set_decoding(int beam_size, double length_penalty) override;
    void set_causal_mask(bool on) override;
    void set_positional_encoding(bool on) override;
    void set_padding_mask(bool on) override;
    void set_head_enabled(const std::string& prefix, int head, bool on) override;
    void enable_all_heads() override;
    void rebuild_model(const ModelConfig& config) override;
    void rebuild_variant(const ModelVariant& variant) override;
    void load_checkpoint(const std::string& path) override;
    void save_checkpoint(const std::string& path) override;
    void set_backend(const std::string& name) override;
    void set_fused_attention(bool on) override;
    void compare_backends() override;
    void trainer_configure(Preset preset, const TrainingConfig& training) override;
    void trainer_start() override;
    void trainer_pause() override;
    void trainer_step() override;
    void trainer_reset() override;
    void trainer_save(const std::string& path) override;
    void use_trained_model() override;
    void report_error(const std::string& message) override;
    void report_status(const std::string& message) override;
    std::string export_path(const std::string& base_name, const char* extension) override;
    void export_region_png(ImVec2 min, ImVec2 max, const std::string& path) override;
    void show_panel(const std::string& key) override;
    void set_attention_scaling(bool on) override;
    void open_model(const std::string& key) override;
    void go_to_step(const std::string& name) override;
    void select_attention(const std::string& prefix, int head) override;
    void open_neuron_view(int query, int key) override;
    void highlight_panel(const std::string& key) override;
    void trainer_fine_tune(const TrainingConfig& training, bool explorer_model) override;
    void random_test_sentence() override;
    void set_generation(const GenerationSettings& settings) override;
    void update_generation() override;
    void set_generation_cursor(int token, int step) override;
    void measure_generation() override;
    void trainer_compare_variant(const std::string& row_id) override;
    void compute_look_inside(const LookInsideRequest& request) override;
    void compute_precision(const PrecisionRequest& request) override;
    void set_precision(PrecisionMode mode, float embedding_scale) override;

    // Read access for the self-test.
    const SessionView& view() const { return m_view; }
    const TrainingSnapshot& training() const { return m_training; }
    Selection& selection() { return m_selection; }
    int error_count() const { return m_error_count; }
    const std::vector<std::unique_ptr<Panel>>& panels() const { return m_panels; }
    const std::string& config_dir() const { return m_config_dir; }
    void finish(int exit_code) { m_exit_code = exit_code; m_quit = true; }
    const TrainerInfo& trainer_info() const { return m_trainer_info; }
    const std::string& highlighted_panel() const { return m_highlight; }   // "" when none is framed

    // Settings persisted in the .ini (see settings.cpp).
    struct Settings {
        std::string layout = "default";
        std::string export_dir;
        std::vector<std::string> sentences;
        std::vector<std::pair<std::string, bool>> panels_open;
        // Orders each lesson question's choices for this learner (quiz.h); 0 until drawn or read.
        uint64_t quiz_seed = 0;
        // The Lessons panel's progress (lesson_progress.h): done lessons, the open one, the offer made.
        LessonProgress lessons;
        bool loaded = false;
    };
    Settings& settings() { return m_settings; }

private:
    static constexpr double HIGHLIGHT_S = 4.0;   // how long highlight_panel() frames a panel
    // The same file by two paths (relative or absolute); false when either does not exist.
    static bool same_file(const std::string& a, const std::string& b);
    static double now_s();                        // ImGui's clock; 0 before a context exists
    void load_fonts();
    void create_initial_session();
    void make_panels();
    void apply_commands();
    void print_frame_times() const;
    void refresh(bool full);
    void do_set_input(const std::vector<std::string>& sentences, const std::optional<std::string>& target);
    void replace_session(std::unique_ptr<Session> session, const std::string& source,
                         std::vector<std::string> sentences = {});
    void rebuild_now(const ModelConfig& config);   // rebuild_model's and rebuild_variant's work, fresh weights
    void draw_menu_bar();
    void open_catalog_model(const std::string& file, const std::string& sentence);
    void draw_status_bar();
    void draw_log_window();
    void draw_panels();
    // The default layout's left column: Input on top, below it the last open LeftBottom panel.
    std::string left_bottom_panel() const;
    bool in_left_column(const Panel& panel) const;
    void handle_keys();
    void follow_launch_training();   // --train N: pause the trainer once it has done N steps
    // False (with the reason reported) while a trainer is being prepared or for invalid settings.
    bool trainer_settings_usable(const TrainingConfig& training);
    void queue(std::function<void()> command);
    std::string resolve_asset(const std::string& relative) const;
    // Makes a trainer on a thread of its own (a corpus is read and tokenized, maybe a tokenizer
    // trained: seconds), so the window keeps drawing; draw() adopts it once made.
    void create_trainer(ModelConfig model, TrainingConfig training, std::function<Checkpoint()> start_from);
    void adopt_prepared_trainer();

    AppOptions m_options;
    std::string m_assets_dir;
    std::vector<CatalogModel> m_catalog;   // File -> Models
    std::string m_config_dir;
    std::string m_ini_path;
    Settings m_settings;

    std::unique_ptr<Session> m_session;
    std::string m_model_source;
    SessionView m_view;

    std::unique_ptr<Trainer> m_trainer;
    TrainerInfo m_trainer_info;
    TrainingSnapshot m_training;
    struct PreparedTrainer;
    std::shared_ptr<PreparedTrainer> m_prepared;   // the trainer being made, written by its thread
    std::thread m_prepare_thread;
    enum class WhenReady { Nothing, Start, Step };
    WhenReady m_when_ready = WhenReady::Nothing;   // a Play or Step pressed while it is being made
    std::string m_known_words_key;                 // the model whose known words the view holds
    // Reading a model's corpus for its known words, off the GUI thread (a 400,000-pair corpus takes
    // about a second); adopted by the frame that finds it ready, if the model is still the same.
    std::future<KnownWords> m_known_words_reading;
    std::vector<std::future<KnownWords>> m_known_words_abandoned;   // for models left before they were read
    void adopt_known_words();

    std::vector<std::unique_ptr<Panel>> m_panels;
    Selection m_selection;
    std::vector<std::function<void()>> m_commands;

    struct Message {
        std::string text;
        bool error = false;
        double time = 0.0;
    };
    std::deque<Message> m_log;
    std::string m_status;
    bool m_status_error = false;
    int m_error_count = 0;
    bool m_show_log = false;
    bool m_show_about = false;

    struct RegionExport {
        ImVec2 min, max;
        std::string path;
    };
    std::vector<RegionExport> m_region_exports;
    int m_frame = 0;
    int m_launch_training_done_frame = -1;   // --train N: the frame at which training paused (or ended)
    bool m_quit = false;
    int m_exit_code = 0;
    ImWchar* m_glyph_ranges = nullptr;
    ImVector<ImWchar> m_ranges;
    std::unique_ptr<SelfTest> m_self_test;
    std::string m_focus_panel;
    float m_frame_ms = 0.0f;
    std::vector<float> m_frame_times;   // --frame-times: ms per frame after the first 10
    std::string m_highlight;         // highlight_panel(): the panel framed until m_highlight_until (ImGui time)
    double m_highlight_until = 0.0;
    std::string m_left_bottom;   // the panel below Input at the last layout (it is laid out again on a change)
    int m_lesson_steps_left = 0;          // --lesson N,STEPS: steps still to do
    void draw_highlight();
    GenerationSettings m_generation;      // the Generate panel's decoding mode (the trace holds a copy)
    void compute_generation_now();        // recomputes m_view.generation, keeping its cursor
    // The Look inside panel's computation, off the GUI thread; adopted by the frame that finds it
    // ready if no model or input change came in between (m_look_inside_epoch counts those).
    std::future<std::shared_ptr<const LookInside>> m_look_inside_running;
    uint64_t m_look_inside_epoch = 0, m_look_inside_running_epoch = 0;
    void adopt_look_inside();
    // The Precision panel's runs, the same way (m_precision_epoch counts model and input changes).
    std::future<std::shared_ptr<const PrecisionView>> m_precision_running;
    uint64_t m_precision_epoch = 0, m_precision_running_epoch = 0;
    void adopt_precision();
};

}  // namespace tx::app
