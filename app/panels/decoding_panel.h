// Decoding panel: greedy decoding and beam search side by side for the selected sentence (text,
// subword pieces, log P(Y), |Y|, lp, score), the beam search step by step (the live beams entering
// each decoder step, their candidates and each candidate's fate), the ranked finished hypotheses,
// and the beam size K and length penalty α that the whole app decodes with.
#pragma once
#include "panel.h"

namespace tx::app {

class DecodingPanel final : public Panel {
public:
    DecodingPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_controls(PanelContext& ctx);
    void draw_comparison(const explain::SessionView& v, int row);
    void draw_trace(const explain::SessionView& v, int row);
    void draw_hypotheses(const explain::SessionView& v, int row);

    int m_beam_size = 4;      // the sliders' values, sent when released
    float m_alpha = 0.6f;
    bool m_editing = false;   // a slider is held: do not overwrite it from the view
};

}  // namespace tx::app
