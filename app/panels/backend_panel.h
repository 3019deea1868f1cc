// Backend panel: CPU / CUDA switch (CUDA greyed out with the reason when unavailable), and the
// per-step times of the last forward pass as a table and bars.
#pragma once
#include "panel.h"

namespace tx::app {

class BackendPanel final : public Panel {
public:
    BackendPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    bool m_by_layer = true;
};

}  // namespace tx::app
