// Panel: the base of every view (ImHex's View). It owns ImGui::Begin/End (or the tab item) and
// calls draw_content(); panels read the SessionView and TrainingSnapshot and send Commands to
// the app, which applies them after the frame. One panel per file in panels/.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tx/config.h"
#include "imgui.h"
#include "imgui_internal.h"   // the tab bar's layout, for the lesson highlight
#include "model_variant.h"
#include "session_view.h"
#include "tx/trainer.h"
#include "tx/training_config.h"

namespace tx::app {

struct LookInsideRequest;
struct PrecisionRequest;

// What panels ask of the app. Queued and applied between frames, so a frame reads one snapshot.
class Commands {
public:
    virtual ~Commands() = default;
    virtual void set_input(std::vector<std::string> sentences, std::optional<std::string> target) = 0;
    virtual void step_forward() = 0;
    virtual void step_back() = 0;
    virtual void next_layer() = 0;
    virtual void previous_layer() = 0;
    virtual void run_to_end() = 0;
    virtual void restart() = 0;
    virtual void run_to(size_t step) = 0;                      // cursor just after `step`
    virtual void set_decoding(int beam_size, double length_penalty) = 0;   // beam 1: greedy
    virtual void set_causal_mask(bool on) = 0;
    virtual void set_positional_encoding(bool on) = 0;          // off: embeddings only, no word order
    virtual void set_padding_mask(bool on) = 0;
    virtual void set_head_enabled(const std::string& prefix, int head, bool on) = 0;
    virtual void enable_all_heads() = 0;
    virtual void rebuild_model(const ModelConfig& config) = 0;  // fresh weights
    // The open model's config with the variant's fields changed (model_variant.h), rebuilt with
    // fresh weights; read when applied, so it follows a model opened just before.
    virtual void rebuild_variant(const ModelVariant& variant) = 0;
    virtual void load_checkpoint(const std::string& path) = 0;
    virtual void save_checkpoint(const std::string& path) = 0;
    virtual void set_backend(const std::string& name) = 0;
    virtual void set_fused_attention(bool on) = 0;
    // Runs the current input on the other backend too: per-step times and output differences.
    virtual void compare_backends() = 0;
    // Training (the trainer runs on its own thread; these never wait on it).
    virtual void trainer_configure(Preset preset, const TrainingConfig& training) = 0;
    virtual void trainer_start() = 0;
    virtual void trainer_pause() = 0;
    virtual void trainer_step() = 0;
    virtual void trainer_reset() = 0;
    virtual void trainer_save(const std::string& path) = 0;
    virtual void use_trained_model() = 0;
    // Messages for the status line and log.
    virtual void report_error(const std::string& message) = 0;
    virtual void report_status(const std::string& message) = 0;
    // Where PNG and CSV exports go.
    virtual std::string export_path(const std::string& base_name, const char* extension) = 0;
    // Reads the rectangle (screen coordinates) from the back buffer after this frame renders.
    virtual void export_region_png(ImVec2 min, ImVec2 max, const std::string& path) = 0;
    virtual void show_panel(const std::string& key) = 0;        // open and raise another panel
    // Added for the Lessons panel. Names are resolved when the command is applied, so a step that
    // first opens another model can then name that model's steps.
    virtual void set_attention_scaling(bool on) = 0;            // ModelConfig::scale_attention, same weights
    virtual void open_model(const std::string& key) = 0;        // a File → Models entry by its file's stem ("copy")
    virtual void go_to_step(const std::string& name) = 0;       // run_to that step; an attention step selects its block
    virtual void select_attention(const std::string& prefix, int head) = 0;   // "decoder.layers.2.cross_attn", head
    // Opens the Neuron view on cell (query, key) of the selected attention block and head.
    virtual void open_neuron_view(int query, int key) = 0;
    virtual void highlight_panel(const std::string& key) = 0;   // show_panel, then a coloured frame for a few seconds
    // Fine-tuning: as trainer_configure, but the trainer starts from a checkpoint's weights and
    // tokenizer (its sizes too): the shipped default model, or the model the explorer shows.
    virtual void trainer_fine_tune(const TrainingConfig& training, bool explorer_model) = 0;
    // A random source sentence of the model's test split (SessionView::known_words) as the input.
    virtual void random_test_sentence() = 0;
    // The Generate panel: its settings (recomputes the trace), a computation of a stale trace,
    // and its cursor (token 1 … T, step within that token's pass), clamped to the trace.
    virtual void set_generation(const GenerationSettings& settings) = 0;
    virtual void update_generation() = 0;
    virtual void set_generation_cursor(int token, int step) = 0;
    // Backend panel: times generating 8 … 64 tokens with and without the KV cache (SessionView::generation_timing).
    virtual void measure_generation() = 0;
    // The Training panel's "Compare variants": a new trainer with one row of the variant comparison
    // (core/include/tx/variant_comparison.h: its model, schedule, budget and target), started at once.
    virtual void trainer_compare_variant(const std::string& row_id) = 0;
    // The Look inside panel: computes its views for `request` (SessionView::look_inside) off the GUI
    // thread (headless runs: at once, so screenshots and the self-test see the result).
    virtual void compute_look_inside(const LookInsideRequest& request) = 0;
    // The Precision panel: runs the first sentence in FP32 and in the request's mode
    // (SessionView::precision), off the GUI thread as compute_look_inside.
    virtual void compute_precision(const PrecisionRequest& request) = 0;
    // The Precision panel's settings, as its controls set them (a lesson's "precision" action):
    // its mode and embedding scale. An invalid mode (all_low with FP32 or INT8) is reported, not set.
    virtual void set_precision(PrecisionMode mode, float embedding_scale) = 0;
};

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

struct PanelContext {
    const SessionView& view;
    const TrainingSnapshot& training;
    const TrainerInfo& trainer;
    Commands& commands;
    Selection& selection;
    bool self_test = false;      // deterministic, no confirmations
};

class Panel {
public:
    // Key and title come from the panel registry (panel_registry.h), which names every panel it builds.
    explicit Panel(std::string explanation) : m_explanation(std::move(explanation)) {}
    void set_identity(std::string key, std::string title) {
        m_key = std::move(key);
        m_title = std::move(title);
    }
    virtual ~Panel() = default;
    Panel(const Panel&) = delete;
    Panel& operator=(const Panel&) = delete;

    const std::string& title() const { return m_title; }
    const std::string& key() const { return m_key; }          // for --panel and the settings
    const std::string& explanation() const { return m_explanation; }
    // The explanation as drawn for this model: panels whose text depends on the architecture
    // (a decoder-only model has no encoder) override it.
    virtual std::string explanation_for(const SessionView&) const { return m_explanation; }
    bool& open() { return m_open; }
    void request_focus() { m_focus = true; }
    // Where the panel was last drawn (screen coordinates) and in which ImGui frame: for highlights.
    ImVec2 drawn_min() const { return m_drawn_min; }
    ImVec2 drawn_max() const { return m_drawn_max; }
    int drawn_frame() const { return m_drawn_frame; }
    // The tab's own rectangle in the tab bar, when drawn as a tab this frame (tab_frame()).
    ImVec2 tab_min() const { return m_tab_min; }
    ImVec2 tab_max() const { return m_tab_max; }
    int tab_frame() const { return m_tab_frame; }

    // As a window of its own (Begin/End).
    void draw_window(PanelContext& ctx, ImGuiWindowFlags flags = 0) {
        if (m_focus) ImGui::SetNextWindowFocus();
        m_focus = false;
        if (ImGui::Begin(m_title.c_str(), &m_open, flags)) {
            remember_rect();
            draw_body(ctx);
        }
        ImGui::End();
    }
    // As a tab of the main area's tab bar (BeginTabItem/EndTabItem).
    void draw_tab(PanelContext& ctx) {
        const ImGuiTabItemFlags flags = m_focus ? ImGuiTabItemFlags_SetSelected : 0;
        m_focus = false;
        const ImGuiID tab_id = ImGui::GetID(m_title.c_str());   // as BeginTabItem names it, inside the bar
        if (ImGui::BeginTabItem(m_title.c_str(), &m_open, flags)) {
            ImGui::BeginChild(("##tab_" + m_key).c_str(), ImVec2(0, 0), false);
            remember_rect();
            draw_body(ctx);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        remember_tab(tab_id);
    }

protected:
    virtual void draw_content(PanelContext& ctx) = 0;

private:
    // Where the tab bar placed this tab (as ImGui 1.86's TabItemEx computes it: the bar's left edge
    // + the tab's offset - the bar's scrolling).
    void remember_tab(ImGuiID id) {
        ImGuiTabBar* bar = ImGui::GetCurrentContext()->CurrentTabBar;
        const ImGuiTabItem* tab = bar ? ImGui::TabBarFindTabByID(bar, id) : nullptr;
        if (!tab) return;
        m_tab_min = ImVec2(bar->BarRect.Min.x + tab->Offset - bar->ScrollingAnim, bar->BarRect.Min.y);
        m_tab_max = ImVec2(m_tab_min.x + tab->Width, bar->BarRect.Max.y);
        m_tab_frame = ImGui::GetFrameCount();
    }
    void remember_rect() {
        m_drawn_min = ImGui::GetWindowPos();
        m_drawn_max = ImVec2(m_drawn_min.x + ImGui::GetWindowWidth(), m_drawn_min.y + ImGui::GetWindowHeight());
        m_drawn_frame = ImGui::GetFrameCount();
    }
    void draw_body(PanelContext& ctx) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", explanation_for(ctx.view).c_str());
        ImGui::PopTextWrapPos();
        ImGui::Separator();
        if (!ctx.view.valid) {
            ImGui::TextUnformatted("No model loaded.");
            return;
        }
        draw_content(ctx);
    }

    std::string m_title, m_key, m_explanation;
    bool m_open = true;
    bool m_focus = false;
    ImVec2 m_drawn_min, m_drawn_max;
    int m_drawn_frame = -1;
    ImVec2 m_tab_min, m_tab_max;
    int m_tab_frame = -1;
};

}  // namespace tx::app
