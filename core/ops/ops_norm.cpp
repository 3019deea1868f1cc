// Layer normalisation (Ba et al. 2016) over the last axis, as torch.nn.LayerNorm: biased
// variance, eps inside the square root. inp, out (N,C); weight, bias (C); mean, rstd (N) cached.
// Below it RMSNorm (Zhang & Sennrich 2019): no mean, no bias; weight (C), rstd (N) cached.
// The row loops (norm_rows.h) run float on the per-instruction-set kernels (norm_kernels.h).
// CUDA twin: gpu/ (same name and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tx/cpu_isa.h"
#include "kernels/cpu_kernels.h"
#include "kernels/norm_rows.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

constexpr int64_t NORM_ROWS_PER_THREAD = 16;   // below 32 rows one thread does it: not worth a wake-up

// The plain loops: double (the gradient tests) and float where the CPU has neither kernel.
template <typename Real>
void plain_forward_rows(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight, const Real* bias,
                        int rows, int C, Real eps) {
    const bool rms = mean == nullptr;
    for (int64_t n = 0; n < rows; ++n) {
        const Real* x = inp + n * C;
        Real* o = out + n * C;
        Real m = 0;
        if (!rms) {
            for (int c = 0; c < C; ++c) m += x[c];
            m /= C;
        }
        // two passes (mean, then squared deviations): no cancellation as in E[x²] - E[x]²; RMSNorm
        // drops the re-centring, which the paper finds unnecessary and which costs a pass over the row
        Real var = 0;
        for (int c = 0; c < C; ++c) var += (x[c] - m) * (x[c] - m);
        var /= C;
        const Real s = Real(1) / std::sqrt(var + eps);
        if (rms)
            for (int c = 0; c < C; ++c) o[c] = x[c] * s * weight[c];
        else
            for (int c = 0; c < C; ++c) o[c] = (x[c] - m) * s * weight[c] + bias[c];
        if (!rms) mean[n] = m;
        rstd[n] = s;
    }
}

template <typename Real>
void plain_backward_rows(Real* dinp, Real* dinp2, const Real* mask2, const Real* dout, const Real* inp,
                         const Real* weight, const Real* mean, const Real* rstd, int rows, int C) {
    // With xhat = (x - mean)*rstd and dxhat = dout*weight:
    // d = rstd * (dxhat - mean_c(dxhat) - xhat * mean_c(dxhat * xhat))   (llm.c layernorm_backward);
    // RMSNorm: mean 0 and no mean_c(dxhat) term, as rstd then depends on x through −rstd³·x_c/C only.
    const bool rms = mean == nullptr;
    for (int64_t n = 0; n < rows; ++n) {
        const Real* x = inp + n * C;
        const Real* g = dout + n * C;
        const Real m = rms ? Real(0) : mean[n];
        const Real s = rstd[n];
        Real dxhat_mean = 0;
        Real dxhat_xhat_mean = 0;
        for (int c = 0; c < C; ++c) {
            const Real xhat = (x[c] - m) * s;
            const Real dxhat = g[c] * weight[c];
            dxhat_mean += dxhat;
            dxhat_xhat_mean += dxhat * xhat;
        }
        dxhat_mean = rms ? Real(0) : dxhat_mean / C;
        dxhat_xhat_mean /= C;
        for (int c = 0; c < C; ++c) {
            const Real xhat = (x[c] - m) * s;
            const Real dxhat = g[c] * weight[c];
            const Real d = s * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
            dinp[n * C + c] += d;
            if (dinp2) dinp2[n * C + c] += mask2 ? mask2[n * C + c] * d : d;
        }
    }
}

template <typename Real>
void plain_param_grad_columns(Real* dweight, Real* dbias, const Real* dout, const Real* inp, const Real* mean,
                              const Real* rstd, int N, int C, int c0, int c1) {
    for (int64_t n = 0; n < N; ++n) {
        const Real* x = inp + n * C;
        const Real* g = dout + n * C;
        const Real m = mean ? mean[n] : Real(0);
        const Real s = rstd[n];
        for (int c = c0; c < c1; ++c) {
            if (dbias) dbias[c] += g[c];
            dweight[c] += (x[c] - m) * s * g[c];
        }
    }
}

}  // namespace

// float: the active path's kernels (a portable build runs them as fast as a native one); double
// and CPUs without AVX2 + FMA: the plain loops.
template <typename Real>
void norm_forward_rows(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight, const Real* bias,
                       int rows, int C, Real eps) {
    if constexpr (std::is_same_v<Real, float>)
        if (const kernels::CpuKernels* k = cpu_kernels())
            return k->norm->forward_rows(out, mean, rstd, inp, weight, bias, rows, C, eps);
    plain_forward_rows(out, mean, rstd, inp, weight, bias, rows, C, eps);
}

template <typename Real>
void norm_backward_rows(Real* dinp, Real* dinp2, const Real* mask2, const Real* dout, const Real* inp,
                        const Real* weight, const Real* mean, const Real* rstd, int rows, int C) {
    if constexpr (std::is_same_v<Real, float>)
        if (const kernels::CpuKernels* k = cpu_kernels())
            return k->norm->backward_rows(dinp, dinp2, mask2, dout, inp, weight, mean, rstd, rows, C);
    plain_backward_rows(dinp, dinp2, mask2, dout, inp, weight, mean, rstd, rows, C);
}

template <typename Real>
void norm_param_grad_columns(Real* dweight, Real* dbias, const Real* dout, const Real* inp, const Real* mean,
                             const Real* rstd, int N, int C, int c0, int c1) {
    if constexpr (std::is_same_v<Real, float>)
        if (const kernels::CpuKernels* k = cpu_kernels())
            return k->norm->param_grad_columns(dweight, dbias, dout, inp, mean, rstd, N, C, c0, c1);
    plain_param_grad_columns(dweight, dbias, dout, inp, mean, rstd, N, C, c0, c1);
}

template <typename Real>
void norm_param_grad(Real* dweight, Real* dbias, const Real* dout, const Real* inp, const Real* mean,
                     const Real* rstd, int N, int C) {
    // Columns in blocks of 16 floats (a cache line), so two threads never write one line; each
    // column sums its rows in order 0..N-1, so any thread count gives the same bits.
    constexpr int64_t COLUMN_BLOCK = 16;
    const int64_t blocks = (C + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    // Few rows: one piece of work over all the columns (not only the first block of 16).
    const bool split = N >= 2 * NORM_ROWS_PER_THREAD;
    parallel_for(split ? blocks : 1, 1, [=](int64_t first, int64_t last) {
        const int c0 = static_cast<int>(first * COLUMN_BLOCK);
        const int c1 = split ? static_cast<int>(std::min<int64_t>(C, last * COLUMN_BLOCK)) : C;
        norm_param_grad_columns(dweight, dbias, dout, inp, mean, rstd, N, C, c0, c1);
    });
}

template void norm_forward_rows<float>(float*, float*, float*, const float*, const float*, const float*, int, int,
                                       float);
template void norm_forward_rows<double>(double*, double*, double*, const double*, const double*, const double*, int,
                                        int, double);
template void norm_backward_rows<float>(float*, float*, const float*, const float*, const float*, const float*,
                                        const float*, const float*, int, int);
template void norm_backward_rows<double>(double*, double*, const double*, const double*, const double*,
                                         const double*, const double*, const double*, int, int);
template void norm_param_grad<float>(float*, float*, const float*, const float*, const float*, const float*, int, int);
template void norm_param_grad<double>(double*, double*, const double*, const double*, const double*, const double*,
                                      int, int);

template <typename Real>
void layernorm_forward(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight,
                       const Real* bias, int N, int C, Real eps) {
    parallel_for(N, NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        norm_forward_rows(out + first * C, mean + first, rstd + first, inp + first * C, weight, bias,
                          static_cast<int>(last - first), C, eps);
    });
}

template <typename Real>
void layernorm_backward(Real* dinp, Real* dweight, Real* dbias, const Real* dout, const Real* inp,
                        const Real* weight, const Real* mean, const Real* rstd, int N, int C) {
    // dinp (N,C), dweight, dbias (C) +=. Two passes so that each output has one writer: dinp by
    // rows, dweight and dbias by columns.
    parallel_for(N, NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        norm_backward_rows<Real>(dinp + first * C, nullptr, nullptr, dout + first * C, inp + first * C, weight,
                                 mean + first, rstd + first, static_cast<int>(last - first), C);
    });
    norm_param_grad(dweight, dbias, dout, inp, mean, rstd, N, C);
}

template void layernorm_forward<float>(float*, float*, float*, const float*, const float*, const float*,
                                       int, int, float);
template void layernorm_forward<double>(double*, double*, double*, const double*, const double*,
                                        const double*, int, int, double);
template void layernorm_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                        const float*, const float*, int, int);
template void layernorm_backward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, const double*, const double*, int, int);

template <typename Real>
void rmsnorm_forward(Real* out, Real* rstd, const Real* inp, const Real* weight, int N, int C, Real eps) {
    // out (N,C) = inp·rstd·weight, rstd (N) = 1/sqrt(mean_c(inp²) + eps)
    parallel_for(N, NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        norm_forward_rows<Real>(out + first * C, nullptr, rstd + first, inp + first * C, weight, nullptr,
                                static_cast<int>(last - first), C, eps);
    });
}

template <typename Real>
void rmsnorm_backward(Real* dinp, Real* dweight, const Real* dout, const Real* inp, const Real* weight,
                      const Real* rstd, int N, int C) {
    // dinp (N,C), dweight (C) +=; rows then column blocks, one writer per output, as layernorm_backward.
    parallel_for(N, NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        norm_backward_rows<Real>(dinp + first * C, nullptr, nullptr, dout + first * C, inp + first * C, weight,
                                 nullptr, rstd + first, static_cast<int>(last - first), C);
    });
    norm_param_grad<Real>(dweight, nullptr, dout, inp, nullptr, rstd, N, C);
}

template void rmsnorm_forward<float>(float*, float*, const float*, const float*, int, int, float);
template void rmsnorm_forward<double>(double*, double*, const double*, const double*, int, int, double);
template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                      int, int);
template void rmsnorm_backward<double>(double*, double*, const double*, const double*, const double*,
                                       const double*, int, int);

}  // namespace tx::cpu
