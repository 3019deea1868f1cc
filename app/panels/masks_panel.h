// Masks panel: the padding mask, the causal (look-ahead) mask and their combination as matrices
// for the current batch, toggles that switch them off in the model, and their effect on the
// decoder's scores and probabilities.
#pragma once
#include "panel.h"

namespace tx::app {

class MasksPanel final : public Panel {
public:
    MasksPanel();

protected:
    void draw_content(PanelContext& ctx) override;
};

}  // namespace tx::app
