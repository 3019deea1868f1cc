// Shapes panel: every tensor of the forward pass with its named shape and size in bytes,
// following the step cursor; and the model's parameters.
#pragma once
#include "panel.h"

namespace tx::app {

class ShapesPanel final : public Panel {
public:
    ShapesPanel();

protected:
    void draw_content(PanelContext& ctx) override;
    std::string explanation_for(const explain::SessionView& v) const override;

private:
    size_t m_scrolled_to = static_cast<size_t>(-1);
};

}  // namespace tx::app
