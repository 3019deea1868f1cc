// ALiBi, attention with linear biases (Press et al. 2022), CPU ops of ops.h: no positional
// embedding; each head h subtracts m_h·|i − j| from its scores (B,H,T,S), query i = q0 + t, key j = s,
// with the paper's fixed per-head slopes m_h (H). The bias is a constant: its backward passes dout on.
// CUDA twin: gpu/ops/ops_alibi.cu (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

constexpr int64_t ALIBI_ROWS_PER_THREAD = 64;   // a row is S multiply-adds

}  // namespace

template <typename Real>
void alibi_slopes(Real* slopes, int H) {
    // The paper's reference code (github.com/ofirpress/attention_with_linear_biases, get_slopes):
    //   power of two P: start = 2^(−8/P), slopes = start^(h+1)
    //   otherwise: get_slopes(P) for P = 2^⌊log2 H⌋, then get_slopes(2P)[0::2][:H−P]
    // get_slopes(2P)[2j] = 2^(−8/(2P)·(2j+1)). Written with exp2 in double: the same values
    // (exact powers of two whenever 8/P·(h+1) is an integer) without repeated products.
    if (H <= 0) return;
    int P = 1;
    while (P * 2 <= H) P *= 2;
    for (int h = 0; h < H; ++h) {
        const double exponent = h < P ? -8.0 / P * (h + 1) : -8.0 / (2 * P) * (2 * (h - P) + 1);
        slopes[h] = static_cast<Real>(std::exp2(exponent));
    }
}

template <typename Real>
void alibi_forward(Real* out, const Real* scores, int B, int H, int T, int S, int q0) {
    // out, scores (B,H,T,S); one row (b,h,t) at a time, each entry read before it is written, so
    // out == scores is safe. Masked entries (−inf) stay −inf: the bias is finite.
    if (B <= 0 || H <= 0 || T <= 0 || S <= 0) return;
    std::vector<Real> slope_vec(static_cast<size_t>(H));
    alibi_slopes(slope_vec.data(), H);
    const Real* slopes = slope_vec.data();
    parallel_for(static_cast<int64_t>(B) * H * T, ALIBI_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int t = static_cast<int>(r % T);
            const Real m = slopes[(r / T) % H];
            const int64_t i = static_cast<int64_t>(q0) + t;
            const Real* x = scores + r * S;
            Real* o = out + r * S;
            for (int s = 0; s < S; ++s) o[s] = x[s] - m * static_cast<Real>(std::llabs(i - s));
        }
    });
}

template <typename Real>
void alibi_backward(Real* dscores, const Real* dout, int B, int H, int T, int S) {
    // dscores (B,H,T,S) += dout
    const int64_t n = static_cast<int64_t>(B) * H * T * S;
    parallel_for(n, 32768, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) dscores[i] += dout[i];
    });
}

template void alibi_slopes<float>(float*, int);
template void alibi_slopes<double>(double*, int);
template void alibi_forward<float>(float*, const float*, int, int, int, int, int);
template void alibi_forward<double>(double*, const double*, int, int, int, int, int);
template void alibi_backward<float>(float*, const float*, int, int, int, int);
template void alibi_backward<double>(double*, const double*, int, int, int, int);

}  // namespace tx::cpu
