// Positional encoding panel: where the open model gets word order from, by its config's
// "positional": the sinusoidal table (curves, PE matrix [L, D], PE(i)·PE(j)); RoPE (one q/k pair
// rotated over positions, and q_p·k_p' [L, L] depending on p − p' only); ALiBi (each head's bias
// −m_h·|i − j| [L, L], query rows × key columns); a learned table ([L, D] and its cosine
// similarity [L, L]); or none. L = the positions shown (the input's length unless chosen).
#pragma once
#include <string>
#include <vector>

#include "panel.h"
#include "positional_views.h"

namespace tx::app {

class PositionalPanel final : public Panel {
public:
    PositionalPanel();

    // What the views last computed and showed, for the self-test's independent recompute.
    struct RopeChoice {
        int block = -1;     // index into SessionView::attention (a self-attention block); -1: the first
        int head = 0, pair = 0;
        int query = 0, key = 1;   // the tokens (rows of that block's q and k) whose vectors are rotated
    };
    const RopeChoice& rope_choice() const { return m_rope_choice; }   // as used: block resolved, all clamped
    const explain::RopeView& rope() const { return m_rope; }
    const std::vector<float>& alibi_slopes() const { return m_slopes; }   // (H)
    const std::vector<float>& alibi_bias() const { return m_alibi; }      // (H, L, L)
    int alibi_length() const { return m_alibi_l; }
    const std::vector<float>& learned_similarity() const { return m_learned_sim; }   // (L, L)
    int learned_length() const { return m_learned_l; }
    bool learned_source() const { return m_learned_src; }   // the table shown: src_pos (true) or tgt_pos

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_sinusoidal(PanelContext& ctx, int L);
    void draw_rope(PanelContext& ctx, int L);
    void draw_alibi(PanelContext& ctx, int L);
    void draw_learned(PanelContext& ctx, int L);
    void draw_relative(PanelContext& ctx, int L);
    void draw_none(PanelContext& ctx);

    int m_length = 0;             // 0: follow the current input's length
    int m_dims[4] = {0, 1, 6, 7};
    std::vector<float> m_pe;      // [L, D]
    std::vector<float> m_sim;     // [L, L]
    int m_cached_l = -1, m_cached_d = -1;

    RopeChoice m_rope_want, m_rope_choice;
    explain::RopeView m_rope;
    std::vector<float> m_rope_dots;   // [L, L] m_rope.dots as floats, for the heatmap
    uint64_t m_rope_version = 0;
    int m_rope_row = -1;
    bool m_pair_chosen = false;   // until the slider moves, the pair is dk/8

    std::vector<float> m_slopes, m_alibi;
    int m_alibi_l = -1, m_alibi_h = -1;
    bool m_alibi_own_scale = false;

    bool m_relative_decoder = false;   // which stack's table: the encoder's (bidirectional) or the decoder's
    std::vector<float> m_relative;     // [H, L, L] the bias each head adds, from the table
    std::vector<float> m_relative_table;   // the table m_relative was read from, and its length
    int m_relative_l = -1;
    bool m_relative_bidirectional = false;

    bool m_learned_src = true;
    std::vector<float> m_learned_sim;
    int m_learned_l = -1;
    uint64_t m_learned_version = 0;
};

}  // namespace tx::app
