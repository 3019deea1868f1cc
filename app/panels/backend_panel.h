// Backend panel: the CPU / CUDA switch (CUDA greyed out with the driver's reason when it cannot
// be used), the attention implementation (step by step or fused), and per-step times as bars —
// two bars per step, with each step's largest output difference, after a CPU-vs-CUDA comparison.
// Then generation timed with and without the KV cache: ms per token against N tokens, both ways,
// and, when the app was given one (--generation-bench), a benchmark file's tokens/s against PyTorch.
#pragma once
#include "panel.h"

namespace tx::app {

class BackendPanel final : public Panel {
public:
    BackendPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_comparison_table(const explain::SessionView& v);
    void draw_generation_timing(PanelContext& ctx);
    void draw_generation_bench(PanelContext& ctx);   // --generation-bench: the benchmark file's figures

    bool m_by_layer = true;
};

}  // namespace tx::app
