// Decoding panel: greedy decoding and beam search side by side for the selected sentence (text,
// subword pieces, log P(Y), |Y|, lp, score), the beam search step by step (the live beams entering
// each decoder step, their candidates and each candidate's fate), the ranked finished hypotheses,
// and the beam size K and length penalty α that the whole app decodes with. Below them, speculative
// decoding of the same sentence: a draft made of the model's first layers proposes k pieces per
// round, the model checks them in one pass, and the rounds show what it kept.
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
    void draw_speculative(PanelContext& ctx);   // of the selected sentence

    int m_spec_k = 4;            // the speculative section's sliders, sent when released
    int m_spec_layers = 1;
    bool m_spec_editing = false;
    bool m_spec_was_open = false;   // last frame's: scroll to the section when it opens
    int m_beam_size = 4;      // the sliders' values, sent when released
    float m_alpha = 0.6f;
    bool m_editing = false;   // a slider is held: do not overwrite it from the view
};

}  // namespace tx::app
