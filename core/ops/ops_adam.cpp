// Adam (Kingma & Ba 2015, Algorithm 1) with bias correction, as torch.optim.Adam without weight
// decay: one loop over the flat parameter, gradient and moment buffers (n values each).
// CUDA twin: gpu/ (same name and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cpu_kernels.h"
#include "tx/cpu_isa.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

template <typename Real>
void adam_update(Real* params, Real* m, Real* v, const Real* grads, int64_t n, Real lr, Real beta1,
                 Real beta2, Real eps, int64_t t) {
    // The moments start at 0 and are biased towards it; dividing by 1 - beta^t undoes that.
    // beta^t in double: for float, 1 - 0.999^t loses digits quickly at small t.
    const Real bc1 = static_cast<Real>(1.0 - std::pow(static_cast<double>(beta1), static_cast<double>(t)));
    const Real bc2 = static_cast<Real>(1.0 - std::pow(static_cast<double>(beta2), static_cast<double>(t)));
    // torch.optim.Adam's arrangement: lr·m̂/(√v̂ + eps) = (lr/bc1)·m / (√v·(1/√bc2) + eps), with
    // the corrections hoisted out of the loop: one divide per element instead of three.
    const Real step = lr / bc1;
    const Real inv_sqrt_bc2 = Real(1) / std::sqrt(bc2);
    // Eigen's array expressions, a chunk at a time: vectorised (std::sqrt per element is not, as
    // it may set errno), and the chunk's four buffers stay in L1 between the three lines.
    using Array = Eigen::Array<Real, Eigen::Dynamic, 1>;
    // The chunks are shared out over the CPU threads (parallel_for.h); each value is one thread's.
    constexpr int64_t CHUNK = 1024;
    parallel_for((n + CHUNK - 1) / CHUNK, 16, [=](int64_t first, int64_t last) {
        // float: the active path's kernel, the same operations in the same order; a portable build's
        // Eigen is SSE2 only (Adam took 1.95% of a tiny training step's samples there, 1.19% native).
        // The kernels' square root is the correctly rounded one; Eigen's SSE one (EIGEN_FAST_MATH) is
        // rsqrt and a Newton step, so the generic path's bits may differ from theirs in the last place.
        if constexpr (std::is_same_v<Real, float>) {
            if (const kernels::CpuKernels* k = cpu_kernels()) {
                const int64_t begin = first * CHUNK, count = std::min(n, last * CHUNK) - begin;
                return k->elementwise->adam_update(params + begin, m + begin, v + begin, grads + begin, count, step,
                                                   beta1, beta2, inv_sqrt_bc2, eps);
            }
        }
        for (int64_t i = first * CHUNK; i < std::min(n, last * CHUNK); i += CHUNK) {
            const int64_t len = std::min(CHUNK, n - i);
            const Eigen::Map<const Array> g(grads + i, len);
            Eigen::Map<Array> mi(m + i, len), vi(v + i, len), p(params + i, len);
            mi = beta1 * mi + (Real(1) - beta1) * g;
            vi = beta2 * vi + (Real(1) - beta2) * g * g;
            p -= step * mi / (vi.sqrt() * inv_sqrt_bc2 + eps);
        }
    });
}

template void adam_update<float>(float*, float*, float*, const float*, int64_t, float, float, float, float,
                                 int64_t);
template void adam_update<double>(double*, double*, double*, const double*, int64_t, double, double, double,
                                  double, int64_t);

}  // namespace tx::cpu
