// The FFN's modern activations, CPU ops of ops.h over flat buffers of N values: GELU in its exact
// erf form (Hendrycks & Gimpel 2016; torch.nn.functional.gelu's default) and SwiGLU's hidden
// SiLU(gate)·up (Shazeer 2020). ReLU stays in ops_elementwise.cpp.
// CUDA twin: gpu/ops/ops_activation.cu (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

// GCC 12 reports the self-initialised placeholder of its own _mm512_undefined_ps as uninitialised
// once Eigen's AVX-512 exp/erf are inlined here (a known false alarm, as the CMakeLists note for
// -Wmaybe-uninitialized); set before the intrinsic headers are first read, where the warning points.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <algorithm>

#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

// Eigen's vectorised erf and exp (all lanes at once): the scalar std::erf cost 25 ns a value,
// 175× ReLU, where Eigen's float erf takes ~1 ns (measured on this machine). Its float erf is a
// rational approximation within 4e-7 of the exact value (measured over [−12, 12]); its exp is within
// 1.3e-7 relative. Double arrays keep double accuracy (the gradient checks hold them to 1e-14).
// Values go through fixed blocks of LANES, loaded into aligned fixed-size arrays (a short last block
// padded with zeros): every value takes the same vector path whatever the thread count and the
// buffers' alignment, whereas Eigen on a raw range would send its unaligned first and last values
// through the scalar std::erf, and the bits would depend on where the threads' ranges begin.
constexpr int LANES = 16;
template <typename Real>
using Block = Eigen::Array<Real, LANES, 1>;
constexpr int64_t BLOCKS_PER_THREAD = 2048;   // 32k values, as ops_elementwise.cpp: vectorised, they stream

template <typename Real>
Block<Real> load(const Real* src, int m) {
    Block<Real> b = Block<Real>::Zero();
    for (int i = 0; i < m; ++i) b[i] = src[i];
    return b;
}

// f(offset, count) for each block of LANES values (count < LANES for the last one), over the CPU threads
template <typename F>
void for_blocks(int N, F f) {
    const int64_t blocks = (static_cast<int64_t>(N) + LANES - 1) / LANES;
    parallel_for(blocks, BLOCKS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t k = first; k < last; ++k) {
            const int64_t offset = k * LANES;
            f(offset, static_cast<int>(std::min<int64_t>(LANES, N - offset)));
        }
    });
}

template <typename Real>
void store(Real* dst, const Block<Real>& b, int m) {
    for (int i = 0; i < m; ++i) dst[i] = b[i];
}

template <typename Real>
void add(Real* dst, const Block<Real>& b, int m) {
    for (int i = 0; i < m; ++i) dst[i] += b[i];
}

}  // namespace

template <typename Real>
void gelu_forward(Real* out, const Real* inp, int N) {
    // out = x·Φ(x), Φ(x) = (1 + erf(x/√2))/2; a block is loaded before it is stored: out == inp is safe
    const Real inv_sqrt2 = static_cast<Real>(0.70710678118654752440);
    for_blocks(N, [=](int64_t o, int m) {
        const Block<Real> x = load(inp + o, m);
        const Block<Real> y = Real(0.5) * x * (Real(1) + (x * inv_sqrt2).erf());
        store(out + o, y, m);
    });
}

template <typename Real>
void gelu_backward(Real* dinp, const Real* dout, const Real* inp, int N) {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x), φ(x) = exp(−x²/2)/√(2π)
    const Real inv_sqrt2 = static_cast<Real>(0.70710678118654752440);
    const Real inv_sqrt_2pi = static_cast<Real>(0.39894228040143267794);
    for_blocks(N, [=](int64_t o, int m) {
        const Block<Real> x = load(inp + o, m), g = load(dout + o, m);
        const Block<Real> cdf = Real(0.5) * (Real(1) + (x * inv_sqrt2).erf());
        const Block<Real> pdf = inv_sqrt_2pi * (Real(-0.5) * x.square()).exp();
        add(dinp + o, Block<Real>(g * (cdf + x * pdf)), m);
    });
}

template <typename Real>
void swiglu_forward(Real* out, const Real* gate, const Real* up, int N) {
    // out = gate·σ(gate)·up, σ(g) = 1/(1 + exp(−g)): exp(−g) overflows to +inf for very negative
    // g and σ is 0, never NaN. Blocks are loaded before they are stored: out may be gate or up.
    for_blocks(N, [=](int64_t o, int m) {
        const Block<Real> g = load(gate + o, m), u = load(up + o, m);
        store(out + o, Block<Real>(g / (Real(1) + (-g).exp()) * u), m);
    });
}

template <typename Real>
void swiglu_backward(Real* dgate, Real* dup, const Real* dout, const Real* gate, const Real* up, int N) {
    // SiLU'(g) = σ(g) + g·σ(g)·(1 − σ(g)) = σ(g)·(1 + g·(1 − σ(g)))
    for_blocks(N, [=](int64_t o, int m) {
        const Block<Real> g = load(gate + o, m), u = load(up + o, m), d = load(dout + o, m);
        const Block<Real> sg = Real(1) / (Real(1) + (-g).exp());
        add(dgate + o, Block<Real>(d * u * sg * (Real(1) + g * (Real(1) - sg))), m);
        add(dup + o, Block<Real>(d * g * sg), m);
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
