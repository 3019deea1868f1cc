// Masks panel: the padding mask, the causal (look-ahead) mask and their combination as matrices
// for the current batch, toggles that switch them off in the model, and their effect on the
// decoder's scores and probabilities.
#pragma once
#include <cstdint>
#include <vector>

#include "panel.h"

namespace tx::app {

class MasksPanel final : public Panel {
public:
    MasksPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    // The mask matrices of one batch row, made again only when the trace (SessionView::version) or
    // the row changes: at S ≈ 500 the encoder's S×S matrix is ~1 MB, too much to rebuild and
    // rehash every frame. stamp grows with each rebuild (the heatmaps' cache key).
    struct Matrices {
        uint64_t version = 0;
        int row = -1;
        uint64_t stamp = 0;
        std::vector<float> enc, causal, tgt_pad, combined, cross, window;
    };
    void update_matrices(const explain::SessionView& v, int row);
    Matrices m_matrices;
};

}  // namespace tx::app
