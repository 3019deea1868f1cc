// Input panel: one to four sentences (a padded batch), the tokenizer, tokens as chips with their
// ids (UNK and PAD marked), the decoding choice (greedy or beam search), the decoder input and
// the decoded output.
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
    int m_beam_size = 4;      // the sliders' values, sent when released
    float m_alpha = 0.6f;
};

}  // namespace tx::app
