// The sublayer connection in one pass (CPU only, no CUDA twin; ops_add_norm.cpp): Post-LN's
// out = norm(x + dropout(sub)) and Pre-LN's out = x + dropout(sub), forward and backward.
// x, sub, sum, out, mask (N,C) row-major; weight, bias (C); mean, rstd (N). mean null means RMSNorm
// (bias unused). mask null: no dropout; else mask[i] = keep ? 1/(1-p) : 0 drawn for the flat index i
// from seed exactly as dropout_forward (ops.h) draws it, so the values equal the unfused ops' bits.
#pragma once
#include <cstdint>

namespace tx::cpu {

// sum = x + sub·mask, out = norm(sum) with its statistics in mean and rstd: dropout_forward on sub,
// residual_forward, then layernorm_forward (or rmsnorm_forward) in one pass over the rows.
template <typename Real>
void residual_dropout_norm_forward(Real* out, Real* sum, Real* mask, Real* mean, Real* rstd, const Real* x,
                                   const Real* sub, const Real* weight, const Real* bias, int N, int C, Real p,
                                   uint64_t seed, Real eps);
// With dsum the norm's input gradient: dx += dsum, dsub += mask·dsum (mask null: dsum), and
// dweight, dbias += as layernorm_backward (dbias null for RMSNorm); sum is the forward's.
template <typename Real>
void residual_dropout_norm_backward(Real* dx, Real* dsub, Real* dweight, Real* dbias, const Real* dout,
                                    const Real* sum, const Real* mask, const Real* weight, const Real* mean,
                                    const Real* rstd, int N, int C);

// out = x + sub·mask over N values: dropout_forward on sub then residual_forward, in one pass.
template <typename Real>
void residual_dropout_forward(Real* out, Real* mask, const Real* x, const Real* sub, int N, Real p, uint64_t seed);
// dx += dout, dsub += mask·dout (mask null: dout).
template <typename Real>
void residual_dropout_backward(Real* dx, Real* dsub, const Real* dout, const Real* mask, int N);

}  // namespace tx::cpu
