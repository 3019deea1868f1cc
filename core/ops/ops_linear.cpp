// Linear layer and the head split/merge of multi-head attention (paper §3.2.2), CPU ops of ops.h.
// linear: out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias, weight stored as torch.nn.Linear does.
// The float forward product is gemm.h's sgemm_nt (no per-call packing of the weight), the float
// backward products gemm_packed.h's (Eigen's on the generic path, cpu_isa.h); all double
// ones (the finite-difference tests' precision) are Eigen GEMMs on row-major maps of the raw buffers.
// The head split and merge copy batch rows on the CPU threads (parallel_for.h).
// CUDA twins: gpu/ (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <type_traits>

#include "tx/cpu_isa.h"
#include "ops/eigen_types.h"
#include "kernels/cpu_kernels.h"
#include "kernels/gemm.h"
#include "kernels/gemm_packed.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

// dbias += the column sums of dout (N,OC) on the active path's kernel: a portable build's Eigen sums
// with SSE2 only (linear_backward took 1.8% of a tiny training step's samples there, 0.6% native).
void bias_grad_float(float* dbias, const float* dout, int N, int OC) {
    if (const kernels::CpuKernels* k = cpu_kernels()) return k->elementwise->column_sums_add(dbias, dout, N, OC);
    Eigen::Map<RowVector<float>>(dbias, OC) += Eigen::Map<const RowMatrix<float>>(dout, N, OC).colwise().sum();
}

}  // namespace


template <typename Real>
void linear_forward(Real* out, const Real* inp, const Real* weight, const Real* bias, int N, int C, int OC) {
    if constexpr (std::is_same_v<Real, float>) {
        sgemm_nt(out, inp, weight, bias, N, C, OC);
    } else {
        Eigen::Map<const RowMatrix<Real>> x(inp, N, C);        // (N,C)
        Eigen::Map<const RowMatrix<Real>> w(weight, OC, C);    // (OC,C)
        Eigen::Map<RowMatrix<Real>> y(out, N, OC);             // (N,OC)
        y.noalias() = x * w.transpose();
        if (bias) y.rowwise() += Eigen::Map<const RowVector<Real>>(bias, OC);
    }
}

template <typename Real>
void linear_backward(Real* dinp, Real* dweight, Real* dbias, const Real* dout, const Real* inp,
                     const Real* weight, int N, int C, int OC) {
    // += into each gradient that is asked for; a frozen or input-free layer passes null
    if constexpr (std::is_same_v<Real, float>) {
        // Packing pays from 32-wide operands on (at 14 outputs, a tiny task's generator, Eigen's is faster).
        if (sgemm_packed_has_kernel() && C >= 32 && OC >= 32) {
            if (dinp) sgemm_packed(dinp, C, dout, OC, false, weight, C, false, N, C, OC, true);      // g · W
            if (dweight) sgemm_packed(dweight, C, dout, OC, true, inp, C, false, OC, C, N, true);    // gᵀ · x
            if (dbias) bias_grad_float(dbias, dout, N, OC);
            return;
        }
    }
    Eigen::Map<const RowMatrix<Real>> g(dout, N, OC);      // (N,OC)
    if (dinp) {
        Eigen::Map<const RowMatrix<Real>> w(weight, OC, C);
        Eigen::Map<RowMatrix<Real>>(dinp, N, C).noalias() += g * w;
    }
    if (dweight) {
        Eigen::Map<const RowMatrix<Real>> x(inp, N, C);
        Eigen::Map<RowMatrix<Real>>(dweight, OC, C).noalias() += g.transpose() * x;
    }
    if (dbias) Eigen::Map<RowVector<Real>>(dbias, OC) += g.colwise().sum();
}

template <typename Real>
void split_heads_forward(Real* out, const Real* inp, int B, int T, int H, int dk) {
    // out (B,H,T,dk) from inp (B,T,H*dk)
    const int D = H * dk;
    parallel_for(B, 4, [=](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b)
            for (int h = 0; h < H; ++h)
                for (int t = 0; t < T; ++t) {
                    const Real* x = inp + (static_cast<int64_t>(b) * T + t) * D + h * dk;
                    Real* o = out + ((static_cast<int64_t>(b) * H + h) * T + t) * dk;
                    for (int i = 0; i < dk; ++i) o[i] = x[i];
                }
    });
}

template <typename Real>
void split_heads_backward(Real* dinp, const Real* dout, int B, int T, int H, int dk) {
    // dinp (B,T,H*dk) += dout (B,H,T,dk) moved back to its columns
    const int D = H * dk;
    parallel_for(B, 4, [=](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b)
            for (int h = 0; h < H; ++h)
                for (int t = 0; t < T; ++t) {
                    Real* dx = dinp + (static_cast<int64_t>(b) * T + t) * D + h * dk;
                    const Real* g = dout + ((static_cast<int64_t>(b) * H + h) * T + t) * dk;
                    for (int i = 0; i < dk; ++i) dx[i] += g[i];
                }
    });
}

template <typename Real>
void merge_heads_forward(Real* out, const Real* inp, int B, int T, int H, int dk) {
    // out (B,T,H*dk) from inp (B,H,T,dk)
    const int D = H * dk;
    parallel_for(B, 4, [=](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b)
            for (int t = 0; t < T; ++t)
                for (int h = 0; h < H; ++h) {
                    const Real* x = inp + ((static_cast<int64_t>(b) * H + h) * T + t) * dk;
                    Real* o = out + (static_cast<int64_t>(b) * T + t) * D + h * dk;
                    for (int i = 0; i < dk; ++i) o[i] = x[i];
                }
    });
}

template <typename Real>
void merge_heads_backward(Real* dinp, const Real* dout, int B, int T, int H, int dk) {
    // dinp (B,H,T,dk) += dout (B,T,H*dk) split back into heads
    const int D = H * dk;
    parallel_for(B, 4, [=](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b)
            for (int t = 0; t < T; ++t)
                for (int h = 0; h < H; ++h) {
                    Real* dx = dinp + ((static_cast<int64_t>(b) * H + h) * T + t) * dk;
                    const Real* g = dout + (static_cast<int64_t>(b) * T + t) * D + h * dk;
                    for (int i = 0; i < dk; ++i) dx[i] += g[i];
                }
    });
}

template void linear_forward<float>(float*, const float*, const float*, const float*, int, int, int);
template void linear_forward<double>(double*, const double*, const double*, const double*, int, int, int);
template void linear_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                     int, int, int);
template void linear_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);
template void split_heads_forward<float>(float*, const float*, int, int, int, int);
template void split_heads_forward<double>(double*, const double*, int, int, int, int);
template void split_heads_backward<float>(float*, const float*, int, int, int, int);
template void split_heads_backward<double>(double*, const double*, int, int, int, int);
template void merge_heads_forward<float>(float*, const float*, int, int, int, int);
template void merge_heads_forward<double>(double*, const double*, int, int, int, int);
template void merge_heads_backward<float>(float*, const float*, int, int, int, int);
template void merge_heads_backward<double>(double*, const double*, int, int, int, int);

}  // namespace tx::cpu
