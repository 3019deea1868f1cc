// Attention's mask, scale and softmax in one pass (CPU only, no CUDA twin; ops_softmax_fused.cpp).
// probs, scores (B,H,T,S) row-major; mask (B,T,S) shared by the H heads, may be null (nothing masked).
#pragma once

namespace tx::cpu {

// probs = softmax over S of (keep ? scale·scores : -inf), keep = mask != 0. Equals
// attention_mask_forward then softmax_forward (ops.h) of scale·scores, fully masked rows included
// (all zeros, never NaN).
template <typename Real>
void masked_softmax_forward(Real* probs, const Real* scores, const Real* mask, int B, int H, int T, int S,
                            Real scale);
// dscores += keep ? scale·p·(dprobs - Σ dprobs·p) : 0, with p the forward's probs.
template <typename Real>
void masked_softmax_backward(Real* dscores, const Real* dprobs, const Real* probs, const Real* mask, int B, int H,
                             int T, int S, Real scale);

}  // namespace tx::cpu
