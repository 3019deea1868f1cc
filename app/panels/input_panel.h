// Input panel: one to four sentences (a padded batch), the tokenizer, tokens as chips with their
// ids (UNK and PAD marked; subword pieces grouped under their word, words never seen in training
// flagged), a random test sentence and the list of known words, the decoding choice (greedy or
// beam search), the decoder input and the decoded output. For a decoder-only model each
// sentence is a prompt: one row of BOS + prompt + continuation, the continuation set apart.
#pragma once
#include "panel.h"

namespace tx::app {

class InputPanel final : public Panel {
public:
    InputPanel();

protected:
    void draw_content(PanelContext& ctx) override;
    std::string explanation_for(const explain::SessionView& v) const override;

private:
    void draw_grouped_source(PanelContext& ctx, int b);   // batch row b, pieces under their words
    void draw_examples(PanelContext& ctx);                // the Examples list of a shipped model
    void draw_known_words(PanelContext& ctx);             // the test-sentence button and the word list
    std::vector<std::string> m_edit;
    std::string m_word_filter;
    std::string m_target;
    bool m_use_target = false;
    uint64_t m_synced_version = 0;
    bool m_pending = false;
    double m_edit_time = 0.0;
    int m_beam_size = 4;      // the sliders' values, sent when released
    float m_alpha = 0.6f;
};

}  // namespace tx::app
