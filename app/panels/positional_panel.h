// Positional encoding panel: sin/cos curves of chosen dimensions over positions, the PE matrix
// as a heatmap, and the similarity PE(i)·PE(j), for the model's d_model and a chosen length.
#pragma once
#include "panel.h"

namespace tx::app {

class PositionalPanel final : public Panel {
public:
    PositionalPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    int m_length = 0;             // 0: follow the current input's length
    int m_dims[4] = {0, 1, 6, 7};
    std::vector<float> m_pe;      // [L, D]
    std::vector<float> m_sim;     // [L, L]
    int m_cached_l = -1, m_cached_d = -1;
};

}  // namespace tx::app
