// Precision panel: the first sentence run in FP32 and in a lower precision (BF16 or FP16
// autocast, "everything in low precision", INT8 weight-only; docs/precision.md) side by side: the
// step table of differences with the low-precision steps marked and the first inf/NaN explained,
// an attention head's low − FP32 heatmap beside its FP32 map, the logits' top 5 at a position, the
// greedy outputs and where they part, and one weight matrix's rounding-error histogram. Computed on
// a private model copy off the GUI thread (explain/precision_view.h); drawn here, never recomputed.
#pragma once
#include <string>

#include "panel.h"
#include "precision_view.h"

namespace tx::app {

class PrecisionPanel final : public Panel {
public:
    // The embedding scales offered (1: the model as trained; larger ones provoke FP16 overflow).
    static constexpr float EMBEDDING_SCALES[] = {1.0f, 100.0f, 10000.0f};
    PrecisionPanel();
    // One line: what the mode does (docs/precision.md, "The modes").
    static std::string describe_mode(PrecisionMode mode);

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_controls(PanelContext& ctx);
    void draw_outputs(const explain::PrecisionView& r);
    void draw_steps(const explain::PrecisionView& r);
    void draw_attention(PanelContext& ctx, const explain::PrecisionView& r);
    void draw_logits(const explain::PrecisionView& r);
    void draw_histogram(const explain::PrecisionView& r);
    void draw_bits(const explain::RoundingHistogram& h);   // w[0, 0] of the chosen matrix in FP32, BF16 and FP16 bits

    int m_block = -1;             // attention block (index into PrecisionView::attention); -1: the first cross-attention
    int m_head = 0;
    int m_position = -1;          // logits position; -1: where the outputs part, else the first
    int m_weight = 0;             // index into linear_weight_names
    // The histogram of relative errors: the default for BF16/FP16, whose relative error is bounded
    // (2^-8, 2^-11); INT8's is not (a small weight can round to 0), so it starts absolute.
    bool m_relative = true;
    Precision m_relative_for = Precision::Bf16;   // the format m_relative was last set for
};

}  // namespace tx::app
