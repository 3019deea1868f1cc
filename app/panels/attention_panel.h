// Attention panel: per-head heatmaps (query rows × key columns) for a chosen layer and kind
// (encoder self, decoder masked self, cross), an overview of all layers × heads, head ablation
// (switch a head off and see the decode change), and raw scores vs probabilities.
#pragma once
#include "eos_parking.h"
#include "panel.h"

namespace tx::app {

class AttentionPanel final : public Panel {
public:
    AttentionPanel();

protected:
    void draw_content(PanelContext& ctx) override;
    std::string explanation_for(const explain::SessionView& v) const override;

private:
    void draw_overview(PanelContext& ctx);
    void draw_heads(PanelContext& ctx);
    void draw_lines(PanelContext& ctx);
    int m_values = 0;            // 0 probabilities, 1 scores, 2 masked scores
    std::vector<bool> m_line_heads;   // heads drawn as lines
    // The <eos> count under the overview, for the snapshot version and batch row it was counted on
    // (it reads every encoder and cross-attention map: once per change, not once per frame).
    explain::EosParking m_parking;
    uint64_t m_parking_version = 0;
    int m_parking_row = -1;
};

}  // namespace tx::app
