// Neuron trace: every number of one attention cell (query i, key j, one head, one batch row),
// as BertViz's neuron view shows it, read from the traced steps of one attention block. Shapes as
// transformer.h: q [B,H,R,dk], k and v [B,H,C,dk], scores, masked_scores and probs [B,H,R,C],
// context [B,H,R,dk]; R query positions (S encoder, T decoder), C key positions (S for encoder
// self and cross-attention, T for decoder self-attention). Pure: no ImGui, no Session.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "session_view.h"

namespace tx::explain {

struct NeuronCell {
    int block = 0;          // index into SessionView::attention
    int batch_row = 0;
    int head = 0;
    int query = 0;          // i, a query row
    int key = 0;            // j, a key column
};

struct NeuronTrace {
    std::string error;                  // why the cell does not exist; the rest is empty then
    NeuronCell cell;
    AttentionKind kind = AttentionKind::EncoderSelf;
    int layer = 0;
    std::string prefix;                 // "decoder.layers.2.cross_attn"
    int rows = 0, cols = 0, dk = 0;     // R, C, dk
    std::vector<std::string> query_tokens;   // [R] the query side's token at each position
    std::vector<std::string> key_tokens;     // [C] the key side's (source tokens in cross-attention)
    bool query_is_pad = false;          // computed, but its result is never used
    // Decoder queries: the token position i writes (the next decoder input, or after the last one
    // the model's most probable token); "" for encoder queries, PAD rows, or before the generator ran.
    std::string query_writes;
    bool head_disabled = false;         // head ablation: the traced context of this head is zeros

    // The first of the block's steps q, k, v, scores, masked_scores, probs, context without an
    // output, and whether that is because fused attention skipped it (else: not reached yet).
    bool complete = false;
    size_t missing_step = 0;
    bool missing_is_fused = false;

    // 1–2. q_i, k_j, their element-wise product and its sum (needs q and k).
    bool have_qk = false;
    std::vector<float> q, k, product;   // [dk]
    double dot = 0.0;                   // Σ_d q_d·k_d
    double dot_abs = 0.0;               // Σ_d |q_d·k_d|, the scale of the sum's rounding error

    // 3. Scaling: score = dot / √dk when config.scale_attention, else the dot itself.
    bool scaled = true;
    double sqrt_dk = 1.0;
    double score = 0.0;                 // recomputed from q and k (plus the ALiBi bias where it applies)
    bool alibi = false;                 // ALiBi on this self-attention: score includes position_bias
    bool rotated = false;               // RoPE on this self-attention: q and k are the rotated ones (q_rot, k_rot)
    double position_bias = 0.0;         // ALiBi's −m_h·|i − j|, or T5's b[bucket, h] when relative
    bool relative = false;              // T5's relative bias on this self-attention: score includes position_bias
    int relative_bucket = 0;            // the bucket of key j for query i
    bool have_scores = false;
    float traced_score = 0.0f;          // the scores step at (i, j)
    std::vector<float> scores_row;      // [C] the scores step's row i

    // 4. The mask of cell (i, j), as the current toggles build it.
    bool causal_on = true, padding_on = true;
    std::string window_reason;          // why the sliding window masks this cell (tx/attention_window.h); empty: it does not
    bool key_is_pad = false;            // key j holds PAD
    bool key_is_future = false;         // decoder self-attention: j > i
    bool masked = false;                // the cell's score is replaced by −∞
    std::string mask_text;              // which mask decides the cell, and any toggle that is off
    std::vector<char> keep_row;         // [C] 1 = key may be attended from query i
    bool have_masked = false;
    float traced_masked = 0.0f;         // the masked_scores step at (i, j)
    std::vector<float> masked_row;      // [C]

    // 5. Softmax across row i: p_ij = exp(s_ij − m) / Σ_k exp(s_ik − m), m = the row's max.
    bool have_probs = false;
    bool fully_masked = false;          // every key masked: the row is all zeros, never NaN
    double row_max = 0.0;               // m
    double exp_j = 0.0;                 // exp(s_ij − m)
    double exp_sum = 0.0;               // Σ_k exp(s_ik − m)
    std::vector<float> probs_recomputed;   // [C] from masked_row
    std::vector<float> probs_row;          // [C] the probs step's row i
    float traced_prob = 0.0f;              // p_ij from the probs step

    // 6. context_i = Σ_j p_ij·v_j (needs probs, v and context).
    bool have_context = false;
    std::vector<float> values;          // [C, dk] v_j of every key
    std::vector<float> weighted;        // [C, dk] p_ij·v_j (p from the probs step)
    std::vector<float> context_sum;     // [dk] Σ_j p_ij·v_j
    std::vector<float> context_abs;     // [dk] Σ_j |p_ij·v_j|, the scale of the sum's rounding error
    std::vector<float> traced_context;  // [dk] the context step's row i of this head
};

// Query rows and key columns of a block at the current batch sizes.
int neuron_rows(const SessionView& view, const AttentionBlock& block);
int neuron_cols(const SessionView& view, const AttentionBlock& block);

NeuronTrace trace_neuron(const SessionView& view, const NeuronCell& cell);

// The Neuron view's sentences that depend on the cell's settings: where q and k come from (RoPE
// rotates them, each has a bias), and what the √dk division does (and does not) promise.
std::string qk_source_text(const NeuronTrace& trace);
std::string scaling_text(const NeuronTrace& trace);

}  // namespace tx::explain
