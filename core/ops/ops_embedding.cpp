// Token embedding and sinusoidal positional encoding (paper §3.4, §3.5), CPU ops of ops.h.
// ids (N) index rows of weight (V,D); pe (L,D) is a fixed table added to the first T positions.
// A learned table (L,D) uses the same forward; its gradient is learned_positional_backward.
// CUDA twins: gpu/ (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <cmath>

#include "runtime/parallel_for.h"

namespace tx::cpu {

template <typename Real>
void embedding_forward(Real* out, const int32_t* ids, const Real* weight, int N, int D, Real scale) {
    // out (N,D), ids (N), weight (V,D)
    for (int n = 0; n < N; ++n) {
        const Real* w = weight + static_cast<int64_t>(ids[n]) * D;
        Real* o = out + static_cast<int64_t>(n) * D;
        for (int d = 0; d < D; ++d) o[d] = w[d] * scale;
    }
}

template <typename Real>
void embedding_backward(Real* dweight, const Real* dout, const int32_t* ids, int N, int D, Real scale) {
    // dweight (V,D) +=, dout (N,D); a token seen twice collects both rows
    for (int n = 0; n < N; ++n) {
        Real* dw = dweight + static_cast<int64_t>(ids[n]) * D;
        const Real* g = dout + static_cast<int64_t>(n) * D;
        for (int d = 0; d < D; ++d) dw[d] += g[d] * scale;
    }
}

template <typename Real>
void positional_encoding_table(Real* pe, int L, int D) {
    // pe (L,D). Column j uses i = j/2: even j gets sin, odd j gets cos, so an odd D ends on a sin.
    // Computed in double so that the float table is the correctly rounded formula.
    for (int j = 0; j < D; ++j) {
        const int i = j / 2;
        const double inv_freq = 1.0 / std::pow(10000.0, 2.0 * i / D);
        for (int p = 0; p < L; ++p) {
            const double angle = p * inv_freq;
            pe[static_cast<int64_t>(p) * D + j] =
                static_cast<Real>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
}

template <typename Real>
void positional_forward(Real* out, const Real* inp, const Real* pe, int B, int T, int D) {
    // out (B,T,D) = inp (B,T,D) + pe[0:T] (L,D); out may be inp
    const int64_t TD = static_cast<int64_t>(T) * D;
    for (int b = 0; b < B; ++b) {
        const Real* x = inp + b * TD;
        Real* o = out + b * TD;
        for (int64_t i = 0; i < TD; ++i) o[i] = x[i] + pe[i];
    }
}

template <typename Real>
void positional_backward(Real* dinp, const Real* dout, int B, int T, int D) {
    // dinp (B,T,D) += dout; the table is fixed, it has no gradient
    const int64_t n = static_cast<int64_t>(B) * T * D;
    for (int64_t i = 0; i < n; ++i) dinp[i] += dout[i];
}

template void embedding_forward<float>(float*, const int32_t*, const float*, int, int, float);
template void embedding_forward<double>(double*, const int32_t*, const double*, int, int, double);
template void embedding_backward<float>(float*, const float*, const int32_t*, int, int, float);
template void embedding_backward<double>(double*, const double*, const int32_t*, int, int, double);
template void positional_encoding_table<float>(float*, int, int);
template void positional_encoding_table<double>(double*, int, int);
template void positional_forward<float>(float*, const float*, const float*, int, int, int);
template void positional_forward<double>(double*, const double*, const double*, int, int, int);
template void positional_backward<float>(float*, const float*, int, int, int);
template void positional_backward<double>(double*, const double*, int, int, int);

template <typename Real>
void learned_positional_backward(Real* dtable, const Real* dout, int B, int T, int D) {
    // dtable (L,D) rows 0..T-1 += Σ_b dout (B,T,D). One writer per table entry, summing b in
    // order 0..B-1: the same bits on any thread count.
    const int64_t TD = static_cast<int64_t>(T) * D;
    parallel_for(TD, 32768, [=](int64_t first, int64_t last) {
        for (int b = 0; b < B; ++b) {
            const Real* g = dout + b * TD;
            for (int64_t i = first; i < last; ++i) dtable[i] += g[i];
        }
    });
}

template void learned_positional_backward<float>(float*, const float*, int, int, int);
template void learned_positional_backward<double>(double*, const double*, int, int, int);

}  // namespace tx::cpu
