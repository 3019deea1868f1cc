// Neuron view (BertViz's neuron view, Transformer Explainer's worked attention): one attention
// cell (query row i, key column j) of one head and batch row, computed with this run's numbers:
// q_i and k_j over dk, q_i ⊙ k_j and its sum, ÷√dk, the mask, the softmax across row i (over the
// keys), and Σ_j p_ij·v_j next to the traced context row. The numbers come from trace_neuron().
#pragma once
#include <utility>

#include "neuron_trace.h"
#include "panel.h"

namespace tx::app {

class NeuronPanel final : public Panel {
public:
    NeuronPanel();
    // The trace drawn last (the self-test checks it against the traced tensors).
    const explain::NeuronTrace& last_trace() const { return m_trace; }
    uint64_t last_version() const { return m_version; }

protected:
    void draw_content(PanelContext& ctx) override;

private:
    // Block, head, batch row, query and key; returns the cell to draw (a default when none is chosen).
    std::pair<int, int> draw_controls(PanelContext& ctx);
    void draw_vectors(const PanelContext& ctx);       // stages 1–4
    void draw_softmax(const PanelContext& ctx);       // stage 5
    void draw_weighted_sum(const PanelContext& ctx);  // stage 6
    explain::NeuronTrace m_trace;
    uint64_t m_version = 0;                           // SessionView::version of m_trace
};

}  // namespace tx::app
