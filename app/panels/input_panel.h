// Input panel: one to four sentences (a padded batch), the tokenizer, tokens as chips with their
// ids (UNK and PAD marked), the decoder input and the greedy decode.
#pragma once
#include "panel.h"

namespace tx::app {

class InputPanel final : public Panel {
public:
    InputPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    std::vector<std::string> m_edit;
    std::string m_target;
    bool m_use_target = false;
    uint64_t m_synced_version = 0;
    bool m_pending = false;
    double m_edit_time = 0.0;
};

}  // namespace tx::app
