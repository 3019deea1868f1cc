// CPU ops of the Transformer: forward/backward pairs of free functions, backward directly
// below its forward (llm.c style). Arguments: outputs, then inputs, then sizes.
// Shape letters: B batch, T query length, S key length, D model width, H heads,
// dk = D/H, F FFN width, V vocabulary, N rows (= B*T), C columns.
// Every backward ACCUMULATES into its gradient outputs (+=); callers zero them.
// Templates on the scalar Real, instantiated for float (the model) and double (gradient checks).
// The CUDA twins in gpu/ have the same names and argument order (namespace tx::cuda).
#pragma once
#include <cstdint>

namespace tx::cpu {

// out (N,D) = weight[ids[n]] * scale; scale is sqrt(D) in the model (paper §3.4).
template <typename Real>
void embedding_forward(Real* out, const int32_t* ids, const Real* weight, int N, int D, Real scale);
// dweight (V,D) += scatter of dout (N,D) * scale
template <typename Real>
void embedding_backward(Real* dweight, const Real* dout, const int32_t* ids, int N, int D, Real scale);

// pe (L,D): PE[p,2i] = sin(p / 10000^(2i/D)), PE[p,2i+1] = cos(p / 10000^(2i/D)); any D, odd too.
template <typename Real>
void positional_encoding_table(Real* pe, int L, int D);
// out (B,T,D) = inp (B,T,D) + pe[0:T] (L,D)
template <typename Real>
void positional_forward(Real* out, const Real* inp, const Real* pe, int B, int T, int D);
// dinp (B,T,D) += dout
template <typename Real>
void positional_backward(Real* dinp, const Real* dout, int B, int T, int D);

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias (OC); bias may be null.
template <typename Real>
void linear_forward(Real* out, const Real* inp, const Real* weight, const Real* bias, int N, int C, int OC);
// dinp (N,C) += dout·W, dweight (OC,C) += doutᵀ·inp, dbias (OC) += Σ_n dout; any of them may be null.
template <typename Real>
void linear_backward(Real* dinp, Real* dweight, Real* dbias, const Real* dout, const Real* inp,
                     const Real* weight, int N, int C, int OC);

// out (B,H,T,dk) from inp (B,T,H*dk): head h takes columns h*dk .. h*dk+dk-1.
template <typename Real>
void split_heads_forward(Real* out, const Real* inp, int B, int T, int H, int dk);
template <typename Real>
void split_heads_backward(Real* dinp, const Real* dout, int B, int T, int H, int dk);
// out (B,T,H*dk) from inp (B,H,T,dk): the inverse of split_heads.
template <typename Real>
void merge_heads_forward(Real* out, const Real* inp, int B, int T, int H, int dk);
template <typename Real>
void merge_heads_backward(Real* dinp, const Real* dout, int B, int T, int H, int dk);

// out (B,H,T,S) = q (B,H,T,dk) · k (B,H,S,dk)ᵀ * scale; scale = 1/sqrt(dk), or 1 when disabled.
template <typename Real>
void scores_forward(Real* out, const Real* q, const Real* k, int B, int H, int T, int S, int dk, Real scale);
template <typename Real>
void scores_backward(Real* dq, Real* dk_, const Real* dout, const Real* q, const Real* k,
                     int B, int H, int T, int S, int dk, Real scale);

// out (B,H,T,S) = keep ? scores : -inf, keep = mask (B,T,S) != 0, shared by all heads.
// mask may be null (nothing masked).
template <typename Real>
void attention_mask_forward(Real* out, const Real* scores, const Real* mask, int B, int H, int T, int S);
// dscores += keep ? dout : 0
template <typename Real>
void attention_mask_backward(Real* dscores, const Real* dout, const Real* mask, int B, int H, int T, int S);

// Row softmax over the last axis: probs (R,C) from inp (R,C). -inf entries get 0; a row whose
// entries are all -inf gives all zeros (never NaN): nothing to attend to, nothing attended.
template <typename Real>
void softmax_forward(Real* probs, const Real* inp, int R, int C);
// dinp (R,C) += probs * (dout - Σ_c dout*probs)
template <typename Real>
void softmax_backward(Real* dinp, const Real* dout, const Real* probs, int R, int C);

// out (B,H,T,dk) = probs (B,H,T,S) · v (B,H,S,dk)
template <typename Real>
void context_forward(Real* out, const Real* probs, const Real* v, int B, int H, int T, int S, int dk);
template <typename Real>
void context_backward(Real* dprobs, Real* dv, const Real* dout, const Real* probs, const Real* v,
                      int B, int H, int T, int S, int dk);

// Fused attention (FlashAttention's idea, Dao et al. 2022): out (B,H,T,dk) = softmax(mask(q·kᵀ·scale))·v
// computed over tiles of keys with an online softmax (a running row max and sum, rescaling the
// partial context when the max grows), so the (T,S) scores and probabilities never exist.
// mask (B,T,S) as attention_mask_forward (may be null); a fully masked row gives zeros.
// Forward only: equals scores -> attention_mask -> softmax -> context within rounding.
template <typename Real>
void fused_attention_forward(Real* out, const Real* q, const Real* k, const Real* v, const Real* mask,
                             int B, int H, int T, int S, int dk, Real scale);

// out (N) = a + b; may be called with out == a.
template <typename Real>
void residual_forward(Real* out, const Real* a, const Real* b, int N);
// da += dout, db += dout
template <typename Real>
void residual_backward(Real* da, Real* db, const Real* dout, int N);

// out (N,C) = (inp - mean) * rstd * weight + bias; mean (N), rstd (N) = 1/sqrt(var + eps) with the
// biased variance, as torch.nn.LayerNorm. mean and rstd are cached for backward.
template <typename Real>
void layernorm_forward(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight,
                       const Real* bias, int N, int C, Real eps);
template <typename Real>
void layernorm_backward(Real* dinp, Real* dweight, Real* dbias, const Real* dout, const Real* inp,
                        const Real* weight, const Real* mean, const Real* rstd, int N, int C);

// out (N) = max(inp, 0); may be called with out == inp.
template <typename Real>
void relu_forward(Real* out, const Real* inp, int N);
// dinp += out > 0 ? dout : 0 (out is relu's output)
template <typename Real>
void relu_backward(Real* dinp, const Real* dout, const Real* out, int N);

// Inverted dropout: mask[i] = keep ? 1/(1-p) : 0 with keep decided by a counter-based hash of
// (seed, i), so the CPU and the GPU draw the same mask; out = inp * mask. p = 0 copies.
template <typename Real>
void dropout_forward(Real* out, Real* mask, const Real* inp, int N, Real p, uint64_t seed);
// dinp += dout * mask
template <typename Real>
void dropout_backward(Real* dinp, const Real* dout, const Real* mask, int N);

// out (R,V) = log_softmax(inp) over the last axis.
template <typename Real>
void log_softmax_forward(Real* out, const Real* inp, int R, int V);
// dinp += dout - softmax(inp) * Σ_v dout, with softmax = exp(out)
template <typename Real>
void log_softmax_backward(Real* dinp, const Real* dout, const Real* out, int R, int V);

// Label-smoothed cross-entropy as a KL divergence against the smoothed target (the Annotated
// Transformer's LabelSmoothing): for a row with target y != pad, the target distribution puts
// 1 - smoothing on y, smoothing / (V - 2) on every other token except pad, and 0 on pad.
// losses (R) = Σ_v t_v (log t_v - log_probs_v) (0·log 0 = 0); rows whose target is pad give 0.
template <typename Real>
void cross_entropy_forward(Real* losses, const Real* log_probs, const int32_t* targets, int R, int V,
                           Real smoothing, int pad_id);
// dlog_probs (R,V) += -t_v * dlosses[r]
template <typename Real>
void cross_entropy_backward(Real* dlog_probs, const Real* dlosses, const int32_t* targets, int R, int V,
                            Real smoothing, int pad_id);
// The two backwards above in one pass, as training uses them: the gradient goes straight to the
// logits, d(log_probs) is never written. dlogits (R,V) += dlosses[r] · (p_v · Σ_u t_u − t_v) with
// p = exp(log_probs) the softmax (Σ_u t_u = 1 unless V = 2); rows whose target is pad get nothing.
template <typename Real>
void cross_entropy_log_softmax_backward(Real* dlogits, const Real* dlosses, const Real* log_probs,
                                        const int32_t* targets, int R, int V, Real smoothing, int pad_id);

// Adam (Kingma & Ba) with bias correction, in place over flat buffers of n floats; step t >= 1.
template <typename Real>
void adam_update(Real* params, Real* m, Real* v, const Real* grads, int64_t n, Real lr, Real beta1,
                 Real beta2, Real eps, int64_t t);

// ---- Modern variants (RoPE, ALiBi, learned positions, GELU, SwiGLU, RMSNorm) ----

// RoPE (RoFormer, Su et al. 2021, eq. 34): rotates the pairs (2i, 2i+1) of each head vector of
// inp (B,H,T,dk) by the angle (pos0 + t)·θ_i, θ_i = 10000^(−2i/dk), i = 0..dk/2−1 (dk even; an odd
// dk's last component has no partner and passes unrotated):
//   out[2i] = x[2i]·cos − x[2i+1]·sin,  out[2i+1] = x[2i]·sin + x[2i+1]·cos.
// out may equal inp. pos0 = position of row t = 0 (the KV cache decodes one row at a time).
template <typename Real>
void rope_forward(Real* out, const Real* inp, int B, int H, int T, int dk, int pos0);
// dinp (B,H,T,dk) += Rᵀ·dout (the rotation by the opposite angle)
template <typename Real>
void rope_backward(Real* dinp, const Real* dout, int B, int H, int T, int dk, int pos0);

// ALiBi (Press et al. 2022): out (B,H,T,S) = scores − m_h·|(q0 + t) − s| with the per-head slopes
// of alibi_slopes; q0 = position of query row t = 0. out may equal scores; −inf stays −inf.
template <typename Real>
void alibi_forward(Real* out, const Real* scores, int B, int H, int T, int S, int q0);
// dscores (B,H,T,S) += dout: the bias is constant
template <typename Real>
void alibi_backward(Real* dscores, const Real* dout, int B, int H, int T, int S);
// slopes (H): the paper's geometric sequence 2^(−8/H·(h+1)) for H a power of two; for other H
// the paper's reference code (get_slopes): the P = 2^⌊log2 H⌋ slopes of P heads, then the
// even-indexed slopes of 2P heads, 2^(−8/(2P)·(2j+1)), for the remaining H − P heads.
template <typename Real>
void alibi_slopes(Real* slopes, int H);

// T5's relative position bias (Raffel et al. 2020): out (B,H,T,S) = scores + table[bucket, h] with
// bucket = relative_bucket(q0 + t, s, bidirectional) and table (RELATIVE_BUCKETS, H), learned. The
// buckets (T5's defaults): distances below 8 (bidirectional; 16 causal) exact, then log-spaced
// up to RELATIVE_MAX_DISTANCE; bidirectional splits them between keys before and after the
// query, causal gives every later key bucket 0. out may equal scores; −inf stays −inf.
constexpr int RELATIVE_BUCKETS = 32;
constexpr int RELATIVE_MAX_DISTANCE = 128;
int relative_bucket(int query, int key, bool bidirectional);
template <typename Real>
void relative_bias_forward(Real* out, const Real* scores, const Real* table, int B, int H, int T, int S, int q0,
                           bool bidirectional);
// dtable (RELATIVE_BUCKETS, H) += the sum of dout (B,H,T,S) over the entries of each bucket and
// head; the scores' own gradient is dout unchanged (the bias is added).
template <typename Real>
void relative_bias_backward(Real* dtable, const Real* dout, int B, int H, int T, int S, int q0, bool bidirectional);

// Learned absolute positions: the forward is positional_forward with the learned table (L,D).
// dtable (L,D) rows 0..T−1 += Σ_b dout (B,T,D), summed over b in order (deterministic).
template <typename Real>
void learned_positional_backward(Real* dtable, const Real* dout, int B, int T, int D);

// GELU, exact erf form (torch.nn.functional.gelu's default): out (N) = x·Φ(x),
// Φ(x) = (1 + erf(x/√2))/2. out may equal inp.
template <typename Real>
void gelu_forward(Real* out, const Real* inp, int N);
// dinp (N) += dout·(Φ(x) + x·φ(x)), φ the standard normal density; reads gelu's input
template <typename Real>
void gelu_backward(Real* dinp, const Real* dout, const Real* inp, int N);

// SwiGLU's hidden (Shazeer 2020): out (N) = SiLU(gate)·up, SiLU(x) = x·σ(x). out may equal gate or up.
template <typename Real>
void swiglu_forward(Real* out, const Real* gate, const Real* up, int N);
// dgate (N) += dout·up·σ(gate)·(1 + gate·(1 − σ(gate))), dup (N) += dout·SiLU(gate)
template <typename Real>
void swiglu_backward(Real* dgate, Real* dup, const Real* dout, const Real* gate, const Real* up, int N);

// RMSNorm (Zhang & Sennrich 2019): out (N,C) = inp·rstd·weight (C), rstd (N) = 1/sqrt(mean_c(inp²) + eps),
// cached for backward. No mean subtraction and no bias.
template <typename Real>
void rmsnorm_forward(Real* out, Real* rstd, const Real* inp, const Real* weight, int N, int C, Real eps);
// dinp (N,C) += rstd·(dxhat − xhat·mean_c(dxhat·xhat)), xhat = inp·rstd, dxhat = dout·weight;
// dweight (C) += Σ_n dout·xhat
template <typename Real>
void rmsnorm_backward(Real* dinp, Real* dweight, const Real* dout, const Real* inp, const Real* weight,
                      const Real* rstd, int N, int C);

}  // namespace tx::cpu
