// The encoder-decoder Transformer (or, with arch decoder-only, its decoder alone) written once
// against Backend&, as an ordered list of named steps (docs/design.md §3, §5). Each step has a forward
// and a backward; running every step is the forward pass, and the step outputs are the trace.
// Shapes: B batch, S source length, T target length, D d_model, H heads, dk = D/H, F d_ff,
// V vocabulary.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/config.h"
#include "tx/parameters.h"
#include "tx/shape.h"
#include "tx/weight_cache.h"

namespace tx {

enum class StepKind {
    Embed, Positional, Projection, Scores, Mask, Softmax, Context, OutputProjection,
    AddNorm, Norm, Residual, FfnHidden, FfnOut, Generator, LogSoftmax
};
enum class Stack { Encoder, Decoder, Output };
enum class AttentionKind { EncoderSelf, DecoderSelf, Cross };

const char* to_string(StepKind kind);
const char* to_string(Stack stack);
const char* to_string(AttentionKind kind);

struct StepInfo {
    std::string name;         // trace name, e.g. "encoder.layers.0.self_attn.probs"
    StepKind kind;
    Stack stack;
    int layer = -1;           // -1 outside the layers (embeddings, final norms, generator)
    std::string formula;      // one line, e.g. "P = softmax(masked scores) per query row"
    std::string explanation;  // one to three sentences: what it computes and why
    TensorShape shape;        // the output's shape at the current batch sizes
    bool per_head = false;    // output is [B, H, rows, cols]
    double ms = 0.0;          // time of its last forward run
    // false when the last run skipped it: fused attention computes the context without the
    // (T,S) scores, masked scores and probabilities, so those steps hold no current output.
    bool materialised = true;
};

// Options of a forward run that are not hyperparameters: the teaching toggles and training mode.
struct RunOptions {
    bool causal_mask = true;     // decoder self-attention sees only earlier positions
    bool padding_mask = true;    // PAD keys get no attention
    bool positional_encoding = true;   // off: the encoder cannot tell word order (permutation-equivariant)
    bool training = false;       // dropout on (attention shown stays pre-dropout)
    uint64_t dropout_seed = 0;   // changed by the trainer every step
    // Evaluation only: each attention's context comes from one fused kernel (online softmax over
    // key tiles) instead of scores -> mask -> softmax -> context; training ignores it.
    bool fused_attention = false;
    // Head ablation (eval only): attention prefix ("decoder.layers.0.cross_attn") -> heads off.
    std::map<std::string, std::vector<int>> disabled_heads;
    // Greedy decoding and beam search choose each token with the KV cache (incremental_decoder.h)
    // where it can follow the options above; off: they re-run the whole decoder over the prefix
    // for every token (the reference the cache is tested and benchmarked against).
    bool kv_cache = true;
};

// Where an attention block's tensors live in the step list.
struct AttentionBlock {
    std::string prefix;        // "encoder.layers.0.self_attn"
    AttentionKind kind;
    int layer;
    size_t q, k, v, scores, masked_scores, probs, context, out;   // step indices
    // The q and k the scores are computed from: the RoPE-rotated steps (q_rot, k_rot) where
    // positions rotate q and k, else q and k themselves.
    size_t scores_q, scores_k;
    // Grouped-query attention (ModelConfig::kv_heads G < H): the projections k_shared and v_shared
    // [B,G,keys,dk], which k and v [B,H,keys,dk] repeat for each query head of a group. Without
    // grouping, k_shared = k and v_shared = v. k and v always have H heads.
    size_t k_shared = 0, v_shared = 0;
};

class Transformer {
public:
    // Allocates parameters (zero) and gradients on the backend; throws ConfigError if invalid.
    Transformer(const ModelConfig& config, Backend& backend);
    Transformer(const Transformer&) = delete;
    Transformer& operator=(const Transformer&) = delete;

    const ModelConfig& config() const { return m_config; }
    const ParameterTable& table() const { return m_table; }
    Backend& backend() { return m_backend; }
    const Backend& backend() const { return m_backend; }

    // Flat parameters / gradients in backend memory, ParameterTable layout. Writing through
    // parameters() is allowed until the next forward pass: it drops the weights packed for
    // evaluation passes (weight_cache.h).
    float* parameters() {
        m_weight_cache.clear();
        m_backend.parameters_changed();
        return m_params.data();
    }
    float* gradients() { return m_grads.data(); }
    void set_parameters(const std::vector<float>& host);   // size must be table().total()
    std::vector<float> download_parameters() const;
    std::vector<float> download_gradients() const;

    // The batch: B rows of ids, padded with PAD to the longest row of each side. src rows are
    // the encoder input (tokens + EOS), tgt rows the decoder input (BOS + tokens). Throws
    // std::invalid_argument for an empty batch, an empty row, an id outside the vocabulary, or
    // a row longer than max_len. A decoder-only model accepts src rows that are all empty.
    void set_batch(const std::vector<std::vector<int>>& src, const std::vector<std::vector<int>>& tgt);
    // Replaces the decoder input only (greedy decoding grows it one token at a time); the
    // encoder's outputs stay valid.
    void set_target(const std::vector<std::vector<int>>& tgt);
    // Sizes every buffer for target length up to T now, so growing tgt allocates nothing.
    void reserve_target(int T);
    int batch_size() const { return m_B; }
    int src_len() const { return m_S; }
    int tgt_len() const { return m_T; }
    const std::vector<int32_t>& src_ids() const { return m_src_host; }   // [B,S]
    const std::vector<int32_t>& tgt_ids() const { return m_tgt_host; }   // [B,T]

    RunOptions& options() { return m_options; }
    const RunOptions& options() const { return m_options; }
    // Rebuilds the masks from the ids and the options; call after changing mask options.
    void update_masks();
    // Masks as F32 0/1 for viewing and the trace: src_mask [B,1,1,S], tgt_mask [B,1,T,T]
    // (causal and padding combined, as the options say).
    const std::vector<float>& src_mask() const { return m_src_mask_host; }
    const std::vector<float>& tgt_mask() const { return m_tgt_mask_host; }
    // The encoder self-attention's keep matrix [B,1,S,S]: src_mask's padding per query row,
    // with the sliding window where config().window > 0.
    const std::vector<float>& src_self_mask() const { return m_src_self_mask_host; }

    const std::vector<StepInfo>& steps() const { return m_info; }
    size_t step_count() const { return m_steps.size(); }
    size_t find_step(const std::string& name) const;   // step_count() when absent
    size_t first_decoder_step() const { return m_first_decoder_step; }
    const std::vector<AttentionBlock>& attention_blocks() const { return m_attention; }

    void run_step(size_t index);          // forward of one step (earlier steps must have run)
    // Not with ALiBi or T5's relative bias: the fused kernel has no bias term, so those models run the steps.
    bool fused_attention_active() const {
        return m_options.fused_attention && !m_options.training && m_config.positional != PositionalKind::Alibi &&
               m_config.positional != PositionalKind::Relative;
    }
    // Training on a backend with the fused mask+softmax: one pass from the scores to the
    // probabilities (and back), the mask step's own output left unmaterialised.
    bool fused_softmax_active() const { return m_options.training && m_backend.fuses_masked_softmax(); }
    // How the attention steps run now: each of their forwards and backwards branches on this once.
    //   Steps: scores, mask, softmax and context each compute and keep their output.
    //   FusedSoftmax (training, fused_softmax_active): the softmax step masks and normalises the
    //     scores in one pass; the mask step keeps no output.
    //   Fused (inference, fused_attention_active): the context step computes softmax(mask(QKᵀ))V
    //     from q, k and v in tiles; scores, mask and probabilities keep no output.
    enum class AttentionPath { Steps, FusedSoftmax, Fused };
    AttentionPath attention_path() const {
        if (fused_attention_active()) return AttentionPath::Fused;
        return fused_softmax_active() ? AttentionPath::FusedSoftmax : AttentionPath::Steps;
    }
    // Training on a backend with the fused sublayer connection (core/ops/ops_add_norm.h): the sublayer's
    // dropout, the residual and (Post-LN) the norm in one pass each way. The sublayer's own step then
    // keeps its output before dropout, as the attention step keeps its probabilities.
    bool fused_add_norm_active() const { return m_options.training && m_backend.fuses_add_norm(); }
    // Per-step times (on by default) wait for each step to finish; a benchmark of whole passes
    // turns them off so that a GPU can queue the steps back to back.
    void set_step_timing(bool on) { m_step_timing = on; }
    void forward();                       // every step, in order
    void encode();                        // the encoder steps only
    void decode();                        // the decoder and generator steps (encode() has run)
    std::vector<float> step_output(size_t index) const;   // host copy of a finished step's output
    // Backend memory of a finished step's output (its shape: steps()[index].shape), of a
    // parameter (ParameterTable layout) and of the positional-encoding table [max_len, D], for
    // code that runs the model's weights outside the step list (the incremental decoder).
    const float* step_data(size_t index) const { return m_steps.at(index).out.data(); }
    const float* parameter(const std::string& name) const { return param(name); }
    const float* positional_table() const { return m_pe.data(); }
    // Overwrites a finished step's output with `host` (its shape: steps()[index].shape), for
    // activation patching and the logit lens (explain/). The steps after it then hold stale
    // outputs until they run again; throws std::invalid_argument for a wrong size.
    void set_step_output(size_t index, const std::vector<float>& host);

    // Training: mean label-smoothed cross-entropy over non-PAD targets [B,T] (the next tokens),
    // after forward(); keeps the targets so that backward() can follow (until the batch changes).
    // Returns the loss and sets `tokens` to the number of non-PAD targets.
    double loss(const std::vector<int32_t>& targets, float smoothing, int* tokens = nullptr);
    void zero_gradients();                // parameter gradients (activation ones: loss() and backward())
    void backward();                      // every step's backward, in reverse order (+=)

    // out (N,OC) = inp · wᵀ + b on the backend, w one of this model's weights; evaluation passes keep
    // the weights packed in m_weight_cache, training passes (the weights change every step) do not.
    // The KV cache (incremental_decoder.h) runs its products through it too, sharing the packing.
    void linear_forward(float* out, const float* inp, const float* w, const float* b, int N, int C, int OC);

private:
    using Array = BackendArray<float>;
    struct Step {
        std::function<TensorShape()> shape;
        std::function<void()> forward;
        std::function<void()> backward;
        Array out, grad;
    };
    // A cache (what a backward needs from its forward) or scratch buffer, named in the cache
    // structs below; it grows to numel() floats with the batch, like the step outputs.
    struct Buffer {
        std::function<int64_t()> numel;
        Array array;
        float* data() { return array.data(); }
    };
    // The buffers of each kind of step, by name. L is the step's rows (S or T), K its keys.
    struct PositionCache { Buffer* dropout_mask; Buffer* dropped_grad; };              // [B,L,D]
    struct ProjectionCache { Buffer* flat; Buffer* dflat; };                           // [B,L,D] before the head split
    struct ProbsCache { Buffer* dropout_mask; Buffer* dropped; Buffer* ddropped; };    // [B,H,L,K]
    struct AttentionOutCache { Buffer* merged; Buffer* dropout_mask; Buffer* dropped_grad; Buffer* dmerged; };   // [B,L,D]
    struct AddNormCache { Buffer* sum; Buffer* mean; Buffer* rstd; Buffer* dsum; };  // sum [B,L,D], mean rstd [B·L]
    struct NormCache { Buffer* mean; Buffer* rstd; };                                // [B·L]; RMSNorm: rstd only
    // [B,L,F]; pre (the activation's input, GELU only), dpre its gradient (ReLU, GELU)
    struct FfnHiddenCache { Buffer* dropout_mask; Buffer* dropped_grad; Buffer* pre; Buffer* dpre; };
    struct FfnOutCache { Buffer* dropout_mask; Buffer* dropped_grad; };                    // [B,L,D]
    // Where positions enter the model (config().positional): added to the embeddings, rotating
    // each self-attention's q and k, as a bias on its scores, or nowhere. The one branch point.
    enum class PositionEntry { Embeddings, RotateQK, ScoreBias, Nowhere };
    static PositionEntry position_entry(PositionalKind kind);

    size_t add_step(StepInfo info, std::function<TensorShape()> shape, std::function<void()> forward,
                    std::function<void()> backward);
    Buffer* buffer(std::function<int64_t()> numel);
    void build();
    size_t build_embedding(Stack stack, bool source);
    size_t build_positions(Stack stack, bool source, size_t embedded);
    // One attention block's sizes and mask, read when a step runs (B, S and T change per batch).
    struct AttentionGeometry {
        std::string prefix;            // "decoder.layers.0.cross_attn"
        AttentionKind kind;
        Stack stack;
        int layer;
        std::function<int()> rows, keys;      // query positions (S or T), key positions
        std::string q_letter, k_letter;       // their names in the shapes: "S" or "T"
        std::function<const float*()> keep;   // the keep matrix [B,1,rows,keys]
    };
    size_t build_attention(const std::string& prefix, AttentionKind kind, int layer, Stack stack,
                           size_t query_input, size_t kv_input);
    std::function<TensorShape()> attention_map_shape(const AttentionGeometry& g) const;   // [B,H,rows,keys]
    size_t build_head_projection(const AttentionGeometry& g, char role, size_t input, bool query);
    size_t build_repeat_heads(const AttentionGeometry& g, char role, size_t shared);
    size_t build_rotation(const AttentionGeometry& g, char role, size_t projected, bool query);
    size_t build_scores(const AttentionGeometry& g, size_t q, size_t k);
    size_t build_mask(const AttentionGeometry& g, size_t scores);
    size_t build_probs(const AttentionGeometry& g, size_t scores, size_t masked, ProbsCache cache);
    size_t build_context(const AttentionGeometry& g, const AttentionBlock& block, ProbsCache cache);
    size_t build_attention_out(const AttentionGeometry& g, size_t context);
    size_t build_ffn(const std::string& prefix, Stack stack, int layer, size_t input);
    size_t build_norm(const std::string& name, Stack stack, int layer, size_t input, size_t residual,
                      StepKind kind);
    size_t build_residual(const std::string& name, Stack stack, int layer, size_t a, size_t b);
    void build_generator(size_t input);
    void ensure_buffers();
    const float* param(const std::string& name) const;
    float* grad(const std::string& name);
    float* out(size_t step) { return m_steps[step].out.data(); }
    float* dout(size_t step) { return m_steps[step].grad.data(); }
    bool dropping() const { return m_options.training && m_config.dropout > 0.0f; }
    uint64_t dropout_seed(size_t step, uint64_t stream) const;
    // Dropout in place on a step's output (training only), its mask kept in `mask`.
    void apply_dropout(size_t step, Buffer* mask, uint64_t stream, int64_t n);
    // The gradient of a step whose output went through dropout in place: dout·mask in `scratch`
    // when dropping, else dout itself.
    const float* through_dropout(size_t step, Buffer* mask, Buffer* scratch, int64_t n);
    // The sublayer's dropout is the fused connection's to apply (fused_add_norm_active()).
    bool dropout_in_connection(size_t step) const;
    void run_range(size_t begin, size_t end);

    ModelConfig m_config;
    ParameterTable m_table;
    Backend& m_backend;
    Array m_params, m_grads;
    Array m_pe;                        // [max_len, D]
    WeightCache m_weight_cache;        // cleared by parameters() and set_parameters()
    RunOptions m_options;
    bool m_step_timing = true;

    int m_B = 0, m_S = 0, m_T = 0;
    std::vector<int32_t> m_src_host, m_tgt_host;
    std::vector<float> m_src_mask_host, m_tgt_mask_host, m_src_self_mask_host;
    BackendArray<int32_t> m_src_ids, m_tgt_ids, m_targets;
    Array m_src_keep, m_tgt_keep, m_cross_keep;   // [B,S,S], [B,T,T], [B,T,S]: 1 = may attend
    Array m_losses;                                 // [B*T]
    Array m_dlosses;                                // [B*T] d(mean loss)/d(loss_r) = 1/tokens
    float m_loss_smoothing = 0.0f;                  // of the last loss()
    bool m_loss_set = false;                        // loss() ran on the current batch

    std::vector<Step> m_steps;
    std::deque<Buffer> m_buffers;      // stable addresses: the closures hold Buffer*
    std::vector<StepInfo> m_info;
    std::vector<AttentionBlock> m_attention;
    std::vector<size_t> m_connection_dropout;   // sublayer steps whose dropout a fused connection applies
    size_t m_first_decoder_step = 0;
};

}  // namespace tx
