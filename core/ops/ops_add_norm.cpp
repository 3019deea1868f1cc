// Residual + dropout (+ LayerNorm or RMSNorm) in one pass over the rows (ops_add_norm.h). The forward
// draws each row's dropout mask, forms x + sub·mask and normalises the row while it is in cache; the
// backward gives both residual branches their gradient in the pass that computes it. The norm's row
// loops are those of ops_norm.cpp (norm_rows.h), so the fused and unfused paths give the same bits.
// Rows are shared out over the CPU threads (parallel_for.h), each row written by one thread.
#include "ops/ops_add_norm.h"

#include <algorithm>
#include <type_traits>

#include "tx/cpu_isa.h"
#include "ops/dropout_draw.h"
#include "kernels/cpu_kernels.h"
#include "kernels/norm_rows.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {
constexpr int64_t ADD_NORM_ROWS_PER_THREAD = 16;        // as ops_norm.cpp
constexpr int64_t ROW_CHUNK = 8;               // rows summed, then normalised, while still in L1
constexpr int64_t VALUES_PER_THREAD = 8192;    // dropout's hash per value: as dropout_forward

// out = x + sub·mask for values [first, last), mask drawn for those flat indices.
template <typename Real>
void add_dropped(Real* out, Real* mask, const Real* x, const Real* sub, int64_t first, int64_t last, Real p,
                 uint64_t seed) {
    if (!mask) {
        for (int64_t i = first; i < last; ++i) out[i] = x[i] + sub[i];
        return;
    }
    const Real scale = Real(1) / (Real(1) - p);
#if !defined(__AVX512DQ__)
    // float: the hash vectorised on the active path's kernel. A build for AVX-512DQ (-march=native on
    // Zen 4) vectorises the loop below itself with 64-bit multiplies, faster than the kernels'
    // 32-bit ones (add_norm_bench: 0.19 against 0.25 ms at 1024 × 128); other builds would run it scalar.
    if constexpr (std::is_same_v<Real, float>)
        if (const kernels::CpuKernels* k = cpu_kernels())
            return k->norm->residual_dropout(out, mask, x, sub, first, last, p, scale, seed);
#endif
    for (int64_t i = first; i < last; ++i) {
        mask[i] = dropout_uniform<Real>(seed, static_cast<uint64_t>(i)) >= p ? scale : Real(0);
        const Real dropped = sub[i] * mask[i];   // rounded as dropout_forward's output, then added
        out[i] = x[i] + dropped;
    }
}
}  // namespace

template <typename Real>
void residual_dropout_norm_forward(Real* out, Real* sum, Real* mask, Real* mean, Real* rstd, const Real* x,
                                   const Real* sub, const Real* weight, const Real* bias, int N, int C, Real p,
                                   uint64_t seed, Real eps) {
    parallel_for(N, ADD_NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r0 = first; r0 < last; r0 += ROW_CHUNK) {
            const int64_t r1 = std::min(last, r0 + ROW_CHUNK);
            add_dropped(sum, mask, x, sub, r0 * C, r1 * C, p, seed);
            norm_forward_rows<Real>(out + r0 * C, mean ? mean + r0 : nullptr, rstd + r0, sum + r0 * C, weight, bias,
                                    static_cast<int>(r1 - r0), C, eps);
        }
    });
}

template <typename Real>
void residual_dropout_norm_backward(Real* dx, Real* dsub, Real* dweight, Real* dbias, const Real* dout,
                                    const Real* sum, const Real* mask, const Real* weight, const Real* mean,
                                    const Real* rstd, int N, int C) {
    // Rows (dx, dsub), then column blocks (dweight, dbias): one writer per output, as layernorm_backward.
    parallel_for(N, ADD_NORM_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        norm_backward_rows<Real>(dx + first * C, dsub + first * C, mask ? mask + first * C : nullptr, dout + first * C,
                                 sum + first * C, weight, mean ? mean + first : nullptr, rstd + first,
                                 static_cast<int>(last - first), C);
    });
    norm_param_grad<Real>(dweight, dbias, dout, sum, mean, rstd, N, C);
}

template <typename Real>
void residual_dropout_forward(Real* out, Real* mask, const Real* x, const Real* sub, int N, Real p, uint64_t seed) {
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        add_dropped(out, mask, x, sub, first, last, p, seed);
    });
}

template <typename Real>
void residual_dropout_backward(Real* dx, Real* dsub, const Real* dout, const Real* mask, int N) {
    parallel_for(N, 4 * VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
            dx[i] += dout[i];
            dsub[i] += mask ? dout[i] * mask[i] : dout[i];
        }
    });
}

template void residual_dropout_norm_forward<float>(float*, float*, float*, float*, float*, const float*, const float*,
                                                   const float*, const float*, int, int, float, uint64_t, float);
template void residual_dropout_norm_forward<double>(double*, double*, double*, double*, double*, const double*,
                                                    const double*, const double*, const double*, int, int, double,
                                                    uint64_t, double);
template void residual_dropout_norm_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                                    const float*, const float*, const float*, const float*, int, int);
template void residual_dropout_norm_backward<double>(double*, double*, double*, double*, const double*, const double*,
                                                     const double*, const double*, const double*, const double*, int,
                                                     int);
template void residual_dropout_forward<float>(float*, float*, const float*, const float*, int, float, uint64_t);
template void residual_dropout_forward<double>(double*, double*, const double*, const double*, int, double, uint64_t);
template void residual_dropout_backward<float>(float*, float*, const float*, const float*, int);
template void residual_dropout_backward<double>(double*, double*, const double*, const double*, int);

}  // namespace tx::cpu
