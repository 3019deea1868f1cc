// Training panel: task (copy, copy-text, reverse, sort, translate), preset and options, fresh
// weights or fine-tuning a checkpoint; play, pause, single step, reset, save; live plots of train
// and validation loss, learning rate, accuracy, exact match, BLEU and tokens/s; sample decodes; and
// the cross-attention of a probe input redrawn as it trains. Reads the TrainingSnapshot the app
// copies each frame: it never waits on the trainer's thread.
#pragma once
#include "panel.h"

namespace tx::app {

class TrainingPanel final : public Panel {
public:
    TrainingPanel();
    // The settings the panel starts a task with: the preset's, with evaluations kept small for
    // translation (100 validation sentences every 100 steps: BLEU needs greedy decodes, and 500 of
    // them every few steps would hold training up) and "The red car is big." as its probe.
    static TrainingConfig live_training(Preset preset, TaskKind task);

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_settings(PanelContext& ctx);
    void draw_plots(PanelContext& ctx);
    void draw_probe(PanelContext& ctx);
    void configure(PanelContext& ctx);   // a new trainer with the settings shown
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
