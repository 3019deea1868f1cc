// The row and column loops that LayerNorm and RMSNorm (ops_norm.cpp) and the fused residual + dropout
// + norm (ops_add_norm.cpp) share, so that both give the same bits. float runs on the active path's
// kernels (norm_kernels.h, cpu_isa.h), double on plain loops. inp, out (rows,C); weight, bias (C);
// mean, rstd (rows); mean null means RMSNorm (no re-centring, no bias). One thread; callers split rows.
#pragma once

namespace tx::cpu {

template <typename Real>
void norm_forward_rows(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight, const Real* bias,
                       int rows, int C, Real eps);
// dinp += d and, where dinp2 is not null, dinp2 += mask2·d (mask2 null: += d), d the gradient of inp.
template <typename Real>
void norm_backward_rows(Real* dinp, Real* dinp2, const Real* mask2, const Real* dout, const Real* inp,
                        const Real* weight, const Real* mean, const Real* rstd, int rows, int C);
// dweight, dbias (C) += over all N rows, for columns [c0, c1) only (dbias null for RMSNorm).
template <typename Real>
void norm_param_grad_columns(Real* dweight, Real* dbias, const Real* dout, const Real* inp, const Real* mean,
                             const Real* rstd, int N, int C, int c0, int c1);
// The parameter gradients over N rows, columns split over the CPU threads in cache-line blocks.
template <typename Real>
void norm_param_grad(Real* dweight, Real* dbias, const Real* dout, const Real* inp, const Real* mean,
                     const Real* rstd, int N, int C);

}  // namespace tx::cpu
