// Training panel: task (copy, copy-text, reverse, sort, translate), preset and options, fresh
// weights or fine-tuning a checkpoint; play, pause, single step, reset, save; live plots of train
// and validation loss, learning rate, accuracy, exact match, BLEU and tokens/s (in bf16/fp16 mixed
// precision also the loss scale and the share of gradient values flushed to 0); sample decodes; and
// the cross-attention of a probe input redrawn as it trains. "Compare variants" reruns one row of
// the comparison table of docs/variants.md (core/include/tx/variant_comparison.h) and shows its progress toward the
// row's target next to the figure the table reports. Reads the TrainingSnapshot the app copies
// each frame: it never waits on the trainer's thread.
#pragma once
#include <utility>
#include <vector>

#include "panel.h"
#include "tx/variant_comparison.h"

namespace tx::app {

class TrainingPanel final : public Panel {
public:
    TrainingPanel();
    // The settings the panel starts a task with: the preset's, with evaluations kept small for
    // translation (100 validation sentences every 100 steps: BLEU needs greedy decodes, and 500 of
    // them every few steps would hold training up) and "The red car is big." as its probe.
    static TrainingConfig live_training(Preset preset, TaskKind task);
    // The figures of the comparison table of docs/variants.md (assets/compare/results.json); a missing or bad
    // file leaves the panel without them and says why.
    void load_comparison_results(const std::string& path);
    int comparison_choice() const { return m_compare_row; }   // index into comparison_rows()

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_settings(PanelContext& ctx);
    void draw_precision_settings();   // precision and loss scale, into m_training
    void draw_plots(PanelContext& ctx);
    void draw_probe(PanelContext& ctx);
    void configure(PanelContext& ctx);   // a new trainer with the settings shown
    void draw_comparison_chooser(PanelContext& ctx);
    void draw_comparison_progress(PanelContext& ctx);   // while (or after) a comparison row trains
    int m_compare_row = 0;
    std::vector<std::pair<std::string, ComparisonResult>> m_reported;   // row id -> the table's figures
    std::string m_reported_error;     // why the table's figures could not be read
    std::string m_shown_comparison;   // the trainer's comparison row when last drawn
    int m_task = 0;                   // TaskKind
    int m_preset = 0;                 // Preset
    int m_start = 0;                  // translate: 0 fresh weights, 1 the shipped model, 2 the explorer's model
    TrainingConfig m_training;
    bool m_initialised = false;
    bool m_synced = false;            // the fields show the first trainer's settings
    std::string m_save_path;
    std::string m_trainer_json;       // the running trainer's settings, last copied into m_training
};

}  // namespace tx::app
