// IncrementalDecoder: the decoder one position at a time with a KV cache, written against
// Backend& like the Transformer whose weights it runs. Shapes: B batch rows, S source length,
// C capacity (positions the cache holds), t positions cached so far, D d_model, H heads,
// dk = D/H, F d_ff, V target vocabulary, G key/value heads (H but with grouped-query attention).
// Self-attention caches K and V as [B,G,C,dk] per layer; cross-attention's K and V of the encoder
// memory, [B,G,S,dk] per layer, are computed once.
#pragma once
#include <cstdint>
#include <vector>

#include "tx/backend.h"
#include "tx/transformer.h"

namespace tx {

class IncrementalDecoder {
public:
    // Whether the cached path computes what Transformer::decode() computes under these options.
    // Not with the causal mask off: every earlier position then attends to the newest one too,
    // so their keys and values change at every step and a cache of them is wrong. Not in
    // training: dropout draws a fresh mask per step of the full pass. Callers use the full path then.
    static bool supports(const RunOptions& options);
    // The same for a model on its backend: nor where the backend rounds every step's output
    // (precision().all_low, docs/precision.md), which only the full pass's steps do.
    static bool supports(const Transformer& model);

    // Needs model.encode() to have run on the model's current batch: reads the encoder memory
    // (the last encoder step's output [B,S,D]) and the source padding, and projects the memory
    // into each decoder layer's cross-attention K and V. capacity: positions to hold, 1..max_len.
    // The model's options must not change while this decoder is used (the cache was built under
    // them). Throws std::invalid_argument when supports() is false or the capacity is out of range.
    IncrementalDecoder(Transformer& model, int capacity);
    IncrementalDecoder(const IncrementalDecoder&) = delete;
    IncrementalDecoder& operator=(const IncrementalDecoder&) = delete;

    int batch_size() const { return m_B; }
    int capacity() const { return m_C; }
    int length() const { return m_t; }   // positions cached so far

    // Appends one decoder input id per row (tokens [B]) at position length(), runs every decoder
    // layer on that single query row (q [B,H,1,dk]) against the cached keys and values of
    // positions 0..length() (the cache's other slots are masked), and returns the next-token
    // log-probabilities of the newest position [B,V] (host). Throws std::invalid_argument for a
    // wrong count, an id outside the vocabulary or a full cache.
    std::vector<float> step(const std::vector<int>& tokens);

    // A batch of one row only (batch_size() == 1): appends the n ids of `tokens` at positions
    // length()..length()+n-1 in one pass, each query seeing the cache and the new ids before it
    // (the causal mask), and returns the next-token log-probabilities of every new position
    // [n,V] (host). Row i equals what n calls of step() return in turn (speculative decoding
    // checks a draft's k ids this way, docs/variants.md). Throws std::invalid_argument for a batch
    // of several rows, no ids, an id outside the vocabulary or more ids than the cache has room for.
    std::vector<float> extend(const std::vector<int>& tokens);

    // Forgets the positions from `length` on (0 <= length <= length()): the next step() or
    // extend() writes at `length`. Their cache slots stay allocated and are masked until written.
    // Throws std::invalid_argument outside that range.
    void truncate(int length);

    // Beam search keeps some beams and drops others: row b takes row parents[b]'s cache, ids and
    // source (a gather; rows may repeat). Throws std::invalid_argument for a wrong count or index.
    void reorder(const std::vector<int>& parents);

    // Keeps each layer's attention of the newest query from every later step() for viewing (the
    // app's Generate panel). Off by default: decoding then copies nothing. Starts with the next step.
    void keep_attention(bool on);
    // The newest query's post-softmax attention of the last step(), [B,H,keys] (host): self-attention
    // keys are the C cache slots (slot j >= length() is masked: weight 0), cross-attention keys the
    // S source positions. Row b, head h is the full pass's probs row length() - 1 of that block.
    // Throws std::logic_error when the last step did not keep it (keep_attention off, no step yet,
    // or fused attention, which never materialises the probabilities), std::out_of_range for a layer.
    std::vector<float> attention_probs(int layer, bool cross) const;

private:
    using Array = BackendArray<float>;
    struct Layer {
        Array self_k, self_v;     // [B,G,C,dk]
        Array cross_k, cross_v;   // [B,G,S,dk]
        Array self_probs;         // [B,H,C]: kept attention of the newest query (keep_attention)
        Array cross_probs;        // [B,H,S]
    };

    // The decoder over m_n new positions of each of the B rows (B·m_n query rows, position-major
    // within a row): step() runs it with n = 1, extend() with B = 1. Returns [B·n, V] (host).
    std::vector<float> run(const std::vector<int32_t>& ids, int n);
    // Sets n for this pass and (re)allocates the per-query-row buffers for B·n query rows.
    void reserve_rows(int n);
    void upload_cross_keep();   // m_cross_keep_host [B,S] as [B,n,S]
    void check_ids(const std::vector<int>& tokens, const char* what) const;
    // self: decoder self-attention, where RoPE and ALiBi act (cross-attention has no position term)
    void attention(const std::string& prefix, const float* input, const float* k, const float* v, const float* keep,
                   int keys, bool self, Array* kept_probs);
    // Self-attention of the newest query over the first `written` cache slots of each head,
    // k, v [B,G,C,dk], keep [B,1,C]; into m_ctx [B,H,1,dk] (kept_probs [B,H,C] when not null).
    void written_self_attention(const float* k, const float* v, const float* keep, int written, Array* kept_probs,
                                bool fused);
    bool rotates() const;   // RoPE on, with positions switched on
    void self_attention(int layer, const float* input);
    void cross_attention(int layer, const float* input);
    void feed_forward(int layer, const float* input);
    void ffn_matrix(float* out, const float* in, const std::string& matrix, bool bias, int in_dim, int out_dim);
    void add_and_norm(const std::string& norm, const float* sublayer);
    void add(const float* sublayer);
    void norm(const std::string& name, const float* input, float* out);
    void gather(Array& rows, Array& spare, size_t row_floats, const std::vector<int>& parents);
    void upload_self_keep();

    Transformer& m_model;
    Backend& m_backend;
    ModelConfig m_config;
    int m_B = 0, m_S = 0, m_C = 0, m_t = 0;
    int m_n = 1;                              // new positions per row in this pass
    int m_rows = 0;                           // query rows this pass: m_B·m_n
    int m_reserved_n = 0;                     // positions per row the buffers below hold
    int m_cross_keep_n = 0;                   // n of the cross mask on the backend (0: none yet)
    bool m_cross = true;                      // encoder-decoder: cross-attention on the memory
    float m_scale = 1.0f;
    std::vector<Layer> m_layers;
    std::vector<int32_t> m_ids_host;          // [B,C]: the decoder inputs so far
    std::vector<float> m_cross_keep_host;     // [B,S]: 1 = source key may be attended to
    // Below, R = B·n query rows of this pass (B with step(), n with extend()).
    BackendArray<int32_t> m_ids;              // [R]: this pass's inputs
    Array m_self_keep, m_cross_keep;          // [B,n,C], [B,n,S]: each query row's open keys
    Array m_x, m_sum, m_normed;               // [R,D]: the residual stream, a sum, a normalised copy
    Array m_mean, m_rstd;                     // [R]
    Array m_proj, m_qh, m_ctx, m_merged, m_attn;   // [R,D] each ([B,H,n,dk] for the head-split ones)
    Array m_scores, m_masked, m_probs;        // [B,H,n,max(C,S)]
    Array m_hidden;                           // [R,F] (F = config.ffn_width())
    Array m_ffn_pre;                          // [R,F] GELU's input
    Array m_gate, m_up;                       // [R,F] SwiGLU's projections
    Array m_rank;                             // [R,r] a low-rank FFN matrix's middle, x·Vᵀ
    Array m_ffn;                              // [R,D]
    Array m_logits, m_log_probs;              // [R,V]
    Array m_spare_self, m_spare_cross;        // gather targets of reorder()
    bool m_keep_attention = false;
    bool m_attention_kept = false;            // the last step() filled the layers' *_probs
};

}  // namespace tx
