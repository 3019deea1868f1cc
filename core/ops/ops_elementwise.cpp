// Elementwise CPU ops of ops.h over flat buffers of N values: residual add, ReLU, and inverted
// dropout (paper §5.4) with a counter-based mask that the CUDA twin reproduces bit for bit.
// Each splits its N values into contiguous ranges over the CPU threads (parallel_for.h).
// CUDA twins: gpu/ (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <type_traits>

#include "tx/cpu_isa.h"
#include "ops/dropout_draw.h"
#include "kernels/cpu_kernels.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

constexpr int64_t VALUES_PER_THREAD = 32768;   // below 64k values one thread streams them faster

}  // namespace

template <typename Real>
void residual_forward(Real* out, const Real* a, const Real* b, int N) {
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) out[i] = a[i] + b[i];
    });
}

template <typename Real>
void residual_backward(Real* da, Real* db, const Real* dout, int N) {
    // da += dout, db += dout; either may be null
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        if (da) for (int64_t i = first; i < last; ++i) da[i] += dout[i];
        if (db) for (int64_t i = first; i < last; ++i) db[i] += dout[i];
    });
}

template <typename Real>
void relu_forward(Real* out, const Real* inp, int N) {
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        // float: the active path's kernel (a portable build's SSE2 loop took 1.2% of a tiny forward
        // pass's samples, a native one's under 0.4%)
        if constexpr (std::is_same_v<Real, float>)
            if (const kernels::CpuKernels* k = cpu_kernels()) return k->elementwise->relu_forward(out, inp, first, last);
        for (int64_t i = first; i < last; ++i) out[i] = inp[i] > Real(0) ? inp[i] : Real(0);
    });
}

template <typename Real>
void relu_backward(Real* dinp, const Real* dout, const Real* out, int N) {
    // reads relu's output, not its input, so the FFN can run relu in place
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        // float: the active path's kernel. Without AVX's masked stores the compiler keeps the loop's
        // if, scalar, a branch that half the values mispredict: 10.8% of a tiny training step's
        // samples in a portable build, 1.0% in a native one (perf, txcli train --preset tiny).
        if constexpr (std::is_same_v<Real, float>)
            if (const kernels::CpuKernels* k = cpu_kernels())
                return k->elementwise->relu_backward(dinp, dout, out, first, last);
        for (int64_t i = first; i < last; ++i)
            if (out[i] > Real(0)) dinp[i] += dout[i];
    });
}

template <typename Real>
void dropout_forward(Real* out, Real* mask, const Real* inp, int N, Real p, uint64_t seed) {
    // out, mask, inp (N). Kept values are scaled by 1/(1-p) so the expectation is unchanged and
    // evaluation needs no rescaling. p = 0 keeps everything (u >= 0 always) with mask 1.
    const Real scale = Real(1) / (Real(1) - p);
    parallel_for(N, VALUES_PER_THREAD / 4, [=](int64_t first, int64_t last) {
#if !defined(__AVX512DQ__)
        // float: the hash on the active path's kernel (as the fused connection's, ops_add_norm.cpp);
        // without AVX-512DQ the compiler runs the loop below scalar (no 64-bit vector multiply).
        if constexpr (std::is_same_v<Real, float>)
            if (const kernels::CpuKernels* k = cpu_kernels())
                return k->norm->dropout(out, mask, inp, first, last, p, scale, seed);
#endif
        for (int64_t i = first; i < last; ++i) {
            const bool keep = dropout_uniform<Real>(seed, static_cast<uint64_t>(i)) >= p;
            mask[i] = keep ? scale : Real(0);
            out[i] = inp[i] * mask[i];
        }
    });
}

template <typename Real>
void dropout_backward(Real* dinp, const Real* dout, const Real* mask, int N) {
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) dinp[i] += dout[i] * mask[i];
    });
}

template void residual_forward<float>(float*, const float*, const float*, int);
template void residual_forward<double>(double*, const double*, const double*, int);
template void residual_backward<float>(float*, float*, const float*, int);
template void residual_backward<double>(double*, double*, const double*, int);
template void relu_forward<float>(float*, const float*, int);
template void relu_forward<double>(double*, const double*, int);
template void relu_backward<float>(float*, const float*, const float*, int);
template void relu_backward<double>(double*, const double*, const double*, int);
template void dropout_forward<float>(float*, float*, const float*, int, float, uint64_t);
template void dropout_forward<double>(double*, double*, const double*, int, double, uint64_t);
template void dropout_backward<float>(float*, const float*, const float*, int);
template void dropout_backward<double>(double*, const double*, const double*, int);

}  // namespace tx::cpu
