// Rotary position embedding (RoFormer, Su et al. 2021, eq. 34), CPU ops of ops.h: each head
// vector of q or k (B,H,T,dk) has its pairs (2i, 2i+1) rotated by (pos0 + t)·θ_i, θ_i = 10000^(−2i/dk),
// so that q·k after rotation depends on the positions only through their difference.
// CUDA twin: gpu/ops/ops_rope.cu (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <cmath>
#include <vector>

#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

constexpr int64_t ROPE_ROWS_PER_THREAD = 64;   // a row is dk/2 rotations: a few hundred flops

// cos and sin of (pos0 + t)·θ_i for t < T, i < dk/2, as (T, dk/2) tables. Computed in double, so
// that a float angle at position 500 is not off by 500 roundings of θ_i, and once per call: the
// B·H rows of one position share them.
template <typename Real>
void rotation_table(std::vector<Real>& cos_t, std::vector<Real>& sin_t, int T, int dk, int pos0) {
    const int half = dk / 2;
    cos_t.resize(static_cast<size_t>(T) * half);
    sin_t.resize(cos_t.size());
    for (int i = 0; i < half; ++i) {
        const double theta = std::pow(10000.0, -2.0 * i / dk);
        for (int t = 0; t < T; ++t) {
            const double angle = static_cast<double>(pos0 + t) * theta;
            cos_t[static_cast<size_t>(t) * half + i] = static_cast<Real>(std::cos(angle));
            sin_t[static_cast<size_t>(t) * half + i] = static_cast<Real>(std::sin(angle));
        }
    }
}

}  // namespace

template <typename Real>
void rope_forward(Real* out, const Real* inp, int B, int H, int T, int dk, int pos0) {
    // out, inp (B,H,T,dk); rows (b,h,t) are independent, and each pair is read before it is
    // written, so out == inp is safe
    if (B <= 0 || H <= 0 || T <= 0 || dk <= 0) return;
    std::vector<Real> cos_t, sin_t;
    rotation_table(cos_t, sin_t, T, dk, pos0);
    const int half = dk / 2;
    const Real* c_tab = cos_t.data();
    const Real* s_tab = sin_t.data();
    parallel_for(static_cast<int64_t>(B) * H * T, ROPE_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int64_t t = r % T;
            const Real* x = inp + r * dk;
            Real* o = out + r * dk;
            const Real* c = c_tab + t * half;
            const Real* s = s_tab + t * half;
            for (int i = 0; i < half; ++i) {
                const Real x0 = x[2 * i], x1 = x[2 * i + 1];
                o[2 * i] = x0 * c[i] - x1 * s[i];
                o[2 * i + 1] = x0 * s[i] + x1 * c[i];
            }
            if (dk % 2) o[dk - 1] = x[dk - 1];
        }
    });
}

template <typename Real>
void rope_backward(Real* dinp, const Real* dout, int B, int H, int T, int dk, int pos0) {
    // dinp (B,H,T,dk) += Rᵀ·dout: a rotation's transpose is the rotation by the opposite angle
    if (B <= 0 || H <= 0 || T <= 0 || dk <= 0) return;
    std::vector<Real> cos_t, sin_t;
    rotation_table(cos_t, sin_t, T, dk, pos0);
    const int half = dk / 2;
    const Real* c_tab = cos_t.data();
    const Real* s_tab = sin_t.data();
    parallel_for(static_cast<int64_t>(B) * H * T, ROPE_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int64_t t = r % T;
            const Real* g = dout + r * dk;
            Real* dx = dinp + r * dk;
            const Real* c = c_tab + t * half;
            const Real* s = s_tab + t * half;
            for (int i = 0; i < half; ++i) {
                const Real g0 = g[2 * i], g1 = g[2 * i + 1];
                dx[2 * i] += g0 * c[i] + g1 * s[i];
                dx[2 * i + 1] += -g0 * s[i] + g1 * c[i];
            }
            if (dk % 2) dx[dk - 1] += g[dk - 1];
        }
    });
}

template void rope_forward<float>(float*, const float*, int, int, int, int, int);
template void rope_forward<double>(double*, const double*, int, int, int, int, int);
template void rope_backward<float>(float*, const float*, int, int, int, int, int);
template void rope_backward<double>(double*, const double*, int, int, int, int, int);

}  // namespace tx::cpu
