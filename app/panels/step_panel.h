// Step-through panel: the forward pass as its list of named steps grouped by stack and layer,
// with the current one highlighted; controls (also arrows, space, Home, End); and the current
// step's name, formula, named shape, value heatmap (per head), statistics and time.
#pragma once
#include "panel.h"

namespace tx::app {

class StepPanel final : public Panel {
public:
    StepPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_list(PanelContext& ctx);
    void draw_detail(PanelContext& ctx, size_t step);
    size_t m_scrolled_to = static_cast<size_t>(-1);
    int m_head = -1;   // -1: every head
};

}  // namespace tx::app
