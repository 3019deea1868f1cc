// Generate panel: the first sentence's output written one token at a time with the KV cache, with
// two cursors (token t = 1 … T, and the step within that token's decoder pass): the new query row
// against the cached keys (self- and cross-attention, per layer and head), the cache growing, the
// causal mask's newest row, the next-token distribution after temperature / top-k / top-p, the
// token chosen, and the same numbers recomputed without the cache, timed both ways. A decoder-only
// model's prompt is its first sentence: the prompt is read into the cache, then continued.
#pragma once
#include "panel.h"

namespace tx::app {

class GeneratePanel final : public Panel {
public:
    GeneratePanel();

protected:
    void draw_content(PanelContext& ctx) override;
    std::string explanation_for(const explain::SessionView& v) const override;

private:
    void draw_controls(PanelContext& ctx);
    void draw_cursor(PanelContext& ctx);
    void draw_attention(PanelContext& ctx);
    void draw_cross_attention(const explain::SessionView& v, const explain::GeneratedToken& now, const std::vector<explain::GenerationStep>& steps,
                              int head);   // encoder-decoder only
    void draw_distribution(const explain::SessionView& v);
    void draw_cache(const explain::SessionView& v);
    void draw_comparison(const explain::SessionView& v);

    explain::GenerationSettings m_settings;   // the controls' values, sent when released
    bool m_editing = false;          // a control is held: do not overwrite it from the view
    int m_layer = 0;                 // the decoder layer whose attention rows are shown
};

}  // namespace tx::app
