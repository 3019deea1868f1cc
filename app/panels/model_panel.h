// Model panel: the hyperparameters (editing rebuilds the model with fresh weights, after a
// warning when trained weights would be lost; invalid values are explained, never applied) and
// loading / saving a checkpoint (.safetensors).
#pragma once
#include "panel.h"

namespace tx::app {

class ModelPanel final : public Panel {
public:
    ModelPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    bool variant_fields();
    ModelConfig m_edit;
    uint64_t m_synced_version = 0;
    bool m_edited = false;
    std::string m_path;
};

}  // namespace tx::app
