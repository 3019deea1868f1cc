// Training panel: task, preset and options; play, pause, single step, reset, save; live plots of
// loss, eval loss, learning rate, accuracy, exact match and tokens/s; sample decodes; and the
// cross-attention of a probe input redrawn as it trains. Reads the TrainingSnapshot the app
// copies each frame: it never waits on the trainer's thread.
#pragma once
#include "panel.h"

namespace tx::app {

class TrainingPanel final : public Panel {
public:
    TrainingPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_settings(PanelContext& ctx);
    void draw_plots(PanelContext& ctx);
    void draw_probe(PanelContext& ctx);
    int m_task = 0;                   // TaskKind
    int m_preset = 0;                 // Preset
    TrainingConfig m_training;
    bool m_initialised = false;
    std::string m_save_path;
    std::string m_trainer_json;       // the running trainer's settings, last copied into m_training
};

}  // namespace tx::app
