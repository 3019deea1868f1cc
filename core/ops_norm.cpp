// Layer normalisation (Ba et al. 2016) over the last axis, as torch.nn.LayerNorm: biased
// variance, eps inside the square root. inp, out (N,C); weight, bias (C); mean, rstd (N) cached.
// Below it RMSNorm (Zhang & Sennrich 2019): no mean, no bias; weight (C), rstd (N) cached.
// CUDA twin: gpu/ (same name and argument order, namespace tx::cuda).
#include "ops.h"

#include <algorithm>
#include <cmath>

#include "parallel_for.h"

namespace tx::cpu {

namespace {
constexpr int64_t ROWS_PER_THREAD = 16;   // below 32 rows one thread does it: not worth a wake-up
}

template <typename Real>
void layernorm_forward(Real* out, Real* mean, Real* rstd, const Real* inp, const Real* weight,
                       const Real* bias, int N, int C, Real eps) {
    parallel_for(N, ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t n = first; n < last; ++n) {
            const Real* x = inp + n * C;
            Real* o = out + n * C;
            Real m = 0;
            for (int c = 0; c < C; ++c) m += x[c];
            m /= C;
            // two passes (mean, then squared deviations): no cancellation as in E[x²] - E[x]²
            Real var = 0;
            for (int c = 0; c < C; ++c) var += (x[c] - m) * (x[c] - m);
            var /= C;
            const Real s = Real(1) / std::sqrt(var + eps);
            for (int c = 0; c < C; ++c) o[c] = (x[c] - m) * s * weight[c] + bias[c];
            mean[n] = m;
            rstd[n] = s;
        }
    });
}

template <typename Real>
void layernorm_backward(Real* dinp, Real* dweight, Real* dbias, const Real* dout, const Real* inp,
                        const Real* weight, const Real* mean, const Real* rstd, int N, int C) {
    // dinp (N,C), dweight, dbias (C) +=. With xhat = (x - mean)*rstd and dxhat = dout*weight:
    // dx = rstd * (dxhat - mean_c(dxhat) - xhat * mean_c(dxhat * xhat))   (llm.c layernorm_backward)
    // Two passes so that each output has one writer: dx by rows, dweight and dbias by columns
    // (each column still sums its rows in order 0..N-1, so any thread count gives the same bits).
    parallel_for(N, ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t n = first; n < last; ++n) {
            const Real* x = inp + n * C;
            const Real* g = dout + n * C;
            Real* dx = dinp + n * C;
            const Real m = mean[n];
            const Real s = rstd[n];
            Real dxhat_mean = 0;
            Real dxhat_xhat_mean = 0;
            for (int c = 0; c < C; ++c) {
                const Real xhat = (x[c] - m) * s;
                const Real dxhat = g[c] * weight[c];
                dxhat_mean += dxhat;
                dxhat_xhat_mean += dxhat * xhat;
            }
            dxhat_mean /= C;
            dxhat_xhat_mean /= C;
            for (int c = 0; c < C; ++c) {
                const Real xhat = (x[c] - m) * s;
                const Real dxhat = g[c] * weight[c];
                dx[c] += s * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
            }
        }
    });
    // Columns in blocks of 16 floats (a cache line), so two threads never write one line.
    constexpr int64_t COLUMN_BLOCK = 16;
    const int64_t blocks = (C + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    parallel_for(N >= 2 * ROWS_PER_THREAD ? blocks : 1, 1, [=](int64_t first, int64_t last) {
        const int c0 = static_cast<int>(first * COLUMN_BLOCK);
        const int c1 = static_cast<int>(std::min<int64_t>(C, last * COLUMN_BLOCK));
        for (int64_t n = 0; n < N; ++n) {
            const Real* x = inp + n * C;
            const Real* g = dout + n * C;
            const Real m = mean[n];
            const Real s = rstd[n];
            for (int c = c0; c < c1; ++c) {
                dbias[c] += g[c];
                dweight[c] += (x[c] - m) * s * g[c];
            }
        }
    });
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
    // out (N,C) = inp·rstd·weight, rstd (N) = 1/sqrt(mean_c(inp²) + eps): LayerNorm without the
    // re-centring, which the paper finds unnecessary and which costs a pass over the row
    parallel_for(N, ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t n = first; n < last; ++n) {
            const Real* x = inp + n * C;
            Real* o = out + n * C;
            Real ms = 0;
            for (int c = 0; c < C; ++c) ms += x[c] * x[c];
            ms /= C;
            const Real s = Real(1) / std::sqrt(ms + eps);
            for (int c = 0; c < C; ++c) o[c] = x[c] * s * weight[c];
            rstd[n] = s;
        }
    });
}

template <typename Real>
void rmsnorm_backward(Real* dinp, Real* dweight, const Real* dout, const Real* inp, const Real* weight,
                      const Real* rstd, int N, int C) {
    // dinp (N,C), dweight (C) +=. With xhat = x·rstd and dxhat = dout·weight, rstd depends on x
    // through d(rstd)/dx_c = −rstd³·x_c/C, hence dx = rstd·(dxhat − xhat·mean_c(dxhat·xhat)).
    // Rows then column blocks, one writer per output, as layernorm_backward.
    parallel_for(N, ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t n = first; n < last; ++n) {
            const Real* x = inp + n * C;
            const Real* g = dout + n * C;
            Real* dx = dinp + n * C;
            const Real s = rstd[n];
            Real dxhat_xhat_mean = 0;
            for (int c = 0; c < C; ++c) dxhat_xhat_mean += g[c] * weight[c] * x[c] * s;
            dxhat_xhat_mean /= C;
            for (int c = 0; c < C; ++c) dx[c] += s * (g[c] * weight[c] - x[c] * s * dxhat_xhat_mean);
        }
    });
    constexpr int64_t COLUMN_BLOCK = 16;
    const int64_t blocks = (C + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    parallel_for(N >= 2 * ROWS_PER_THREAD ? blocks : 1, 1, [=](int64_t first, int64_t last) {
        const int c0 = static_cast<int>(first * COLUMN_BLOCK);
        const int c1 = static_cast<int>(std::min<int64_t>(C, last * COLUMN_BLOCK));
        for (int64_t n = 0; n < N; ++n) {
            const Real* x = inp + n * C;
            const Real* g = dout + n * C;
            const Real s = rstd[n];
            for (int c = c0; c < c1; ++c) dweight[c] += x[c] * s * g[c];
        }
    });
}

template void rmsnorm_forward<float>(float*, float*, const float*, const float*, int, int, float);
template void rmsnorm_forward<double>(double*, double*, const double*, const double*, int, int, double);
template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                      int, int);
template void rmsnorm_backward<double>(double*, double*, const double*, const double*, const double*,
                                       const double*, int, int);

}  // namespace tx::cpu
