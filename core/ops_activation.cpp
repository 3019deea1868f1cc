// The FFN's modern activations, CPU ops of ops.h over flat buffers of N values: GELU in its exact
// erf form (Hendrycks & Gimpel 2016; torch.nn.functional.gelu's default) and SwiGLU's hidden
// SiLU(gate)·up (Shazeer 2020). ReLU stays in ops_elementwise.cpp.
// CUDA twin: gpu/ops_activation.cu (same names and argument order, namespace tx::cuda).
#include "ops.h"

#include <cmath>

#include "parallel_for.h"

namespace tx::cpu {

namespace {

// erf and exp cost ~20× an add: fewer values than ops_elementwise.cpp's 32768 repay a thread
constexpr int64_t VALUES_PER_THREAD = 4096;

template <typename Real>
Real sigmoid(Real x) {
    // exp(−x) overflows to +inf for very negative x and gives 0, never NaN
    return Real(1) / (Real(1) + std::exp(-x));
}

}  // namespace

template <typename Real>
void gelu_forward(Real* out, const Real* inp, int N) {
    // out = x·Φ(x), Φ(x) = (1 + erf(x/√2))/2
    const Real inv_sqrt2 = static_cast<Real>(0.70710678118654752440);
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
            const Real x = inp[i];
            out[i] = Real(0.5) * x * (Real(1) + std::erf(x * inv_sqrt2));
        }
    });
}

template <typename Real>
void gelu_backward(Real* dinp, const Real* dout, const Real* inp, int N) {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x), φ(x) = exp(−x²/2)/√(2π)
    const Real inv_sqrt2 = static_cast<Real>(0.70710678118654752440);
    const Real inv_sqrt_2pi = static_cast<Real>(0.39894228040143267794);
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
            const Real x = inp[i];
            const Real cdf = Real(0.5) * (Real(1) + std::erf(x * inv_sqrt2));
            const Real pdf = inv_sqrt_2pi * std::exp(Real(-0.5) * x * x);
            dinp[i] += dout[i] * (cdf + x * pdf);
        }
    });
}

template <typename Real>
void swiglu_forward(Real* out, const Real* gate, const Real* up, int N) {
    // out = gate·σ(gate)·up; each value read before out is written, so out may be gate or up
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
            const Real g = gate[i];
            out[i] = g * sigmoid(g) * up[i];
        }
    });
}

template <typename Real>
void swiglu_backward(Real* dgate, Real* dup, const Real* dout, const Real* gate, const Real* up, int N) {
    // SiLU'(g) = σ(g) + g·σ(g)·(1 − σ(g)) = σ(g)·(1 + g·(1 − σ(g)))
    parallel_for(N, VALUES_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
            const Real g = gate[i];
            const Real sg = sigmoid(g);
            dgate[i] += dout[i] * up[i] * sg * (Real(1) + g * (Real(1) - sg));
            dup[i] += dout[i] * g * sg;
        }
    });
}

template void gelu_forward<float>(float*, const float*, int);
template void gelu_forward<double>(double*, const double*, int);
template void gelu_backward<float>(float*, const float*, const float*, int);
template void gelu_backward<double>(double*, const double*, const double*, int);
template void swiglu_forward<float>(float*, const float*, const float*, int);
template void swiglu_forward<double>(double*, const double*, const double*, int);
template void swiglu_backward<float>(float*, float*, const float*, const float*, const float*, int);
template void swiglu_backward<double>(double*, double*, const double*, const double*, const double*, int);

}  // namespace tx::cpu
