// The training loss, CPU ops of ops.h: log_softmax over the vocabulary, then label-smoothed
// cross-entropy (paper §5.4) written as the KL divergence of the Annotated Transformer's
// LabelSmoothing. log_probs (R,V), targets and losses (R). Rows are shared out over the CPU
// threads (parallel_for.h), one writer per row. CUDA twins: gpu/ (namespace tx::cuda).
#include "tx/ops.h"

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/parallel_for.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu {

namespace {
constexpr int64_t LOSS_ROWS_PER_THREAD = 8;   // rows of V values (V is the vocabulary: thousands)
}  // namespace

template <typename Real>
void log_softmax_forward(Real* out, const Real* inp, int R, int V) {
    // out (R,V) = x - max - log Σ exp(x - max): the max shift keeps exp() from overflowing
    // The vector kernels of the active path (softmax_kernels.h): a portable build's Eigen is SSE2 only.
    if constexpr (std::is_same_v<Real, float>) {
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) k->log_softmax(out + r * V, inp + r * V, V);
            });
            return;
        }
    }
    parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const Real* x = inp + r * V;
            Real* o = out + r * V;
            Eigen::Map<const Eigen::Array<Real, Eigen::Dynamic, 1>> xs(x, V);
            const Real maxval = xs.maxCoeff();
            const Real lse = maxval + std::log((xs - maxval).exp().sum());
            Eigen::Map<Eigen::Array<Real, Eigen::Dynamic, 1>>(o, V) = xs - lse;
        }
    });
}

template <typename Real>
void log_softmax_backward(Real* dinp, const Real* dout, const Real* out, int R, int V) {
    // dinp (R,V) += dout - exp(out) * Σ_v dout
    if constexpr (std::is_same_v<Real, float>) {
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) k->log_softmax_backward(dinp + r * V, dout + r * V, out + r * V, V);
            });
            return;
        }
    }
    parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const Real* g = dout + r * V;
            const Real* o = out + r * V;
            Real* dx = dinp + r * V;
            Real gsum = 0;
            for (int v = 0; v < V; ++v) gsum += g[v];
            // Eigen's array exp is vectorised (std::exp per element took ~1.5% of a translation step).
            using Array = Eigen::Array<Real, Eigen::Dynamic, 1>;
            Eigen::Map<Array>(dx, V) += Eigen::Map<const Array>(g, V) - Eigen::Map<const Array>(o, V).exp() * gsum;
        }
    });
}

namespace {

// The smoothed target of one row: 1 - smoothing on the target, 0 on pad, smoothing/(V-2) on the
// V-2 others (the Annotated Transformer's LabelSmoothing). V = 2 leaves no "others".
template <typename Real>
struct SmoothedTarget {
    Real on, off;
    int target, pad;
    Real operator()(int v) const { return v == target ? on : (v == pad ? Real(0) : off); }
};

template <typename Real>
SmoothedTarget<Real> smoothed_target(int target, int V, Real smoothing, int pad_id) {
    return {Real(1) - smoothing, V > 2 ? smoothing / Real(V - 2) : Real(0), target, pad_id};
}

}  // namespace

template <typename Real>
void cross_entropy_forward(Real* losses, const Real* log_probs, const int32_t* targets, int R, int V,
                           Real smoothing, int pad_id) {
    // losses (R) = Σ_v t_v (log t_v - log_probs_v). t takes two non-zero values, so the sum is
    // on·(log on - lp[y]) + off·((V-2)·log off - Σ_others lp): two logarithms a row, not V. Terms
    // with t_v = 0 are left out, not computed: 0·log 0 = 0 by definition, and 0·(-inf) for a
    // log-probability of -inf would give NaN.
    parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int y = targets[r];
            if (y == pad_id) {
                losses[r] = Real(0);
                continue;
            }
            const SmoothedTarget<Real> t = smoothed_target(y, V, smoothing, pad_id);
            const Real* lp = log_probs + r * V;
            Real loss = t.on > Real(0) ? t.on * (std::log(t.on) - lp[y]) : Real(0);
            if (t.off > Real(0)) {
                Real others = 0;   // the V-2 tokens that are neither the target nor PAD
                for (int v = 0; v < V; ++v) others += (v != y && v != pad_id) ? lp[v] : Real(0);
                loss += t.off * (Real(V - 2) * std::log(t.off) - others);
            }
            losses[r] = loss;
        }
    });
}

template <typename Real>
void cross_entropy_backward(Real* dlog_probs, const Real* dlosses, const int32_t* targets, int R, int V,
                            Real smoothing, int pad_id) {
    // dlog_probs (R,V) += -t_v * dlosses[r]; pad rows have no loss, hence no gradient
    parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            if (targets[r] == pad_id) continue;
            const SmoothedTarget<Real> t = smoothed_target(targets[r], V, smoothing, pad_id);
            Real* d = dlog_probs + r * V;
            for (int v = 0; v < V; ++v) d[v] -= t(v) * dlosses[r];
        }
    });
}

template <typename Real>
void cross_entropy_log_softmax_backward(Real* dlogits, const Real* dlosses, const Real* log_probs,
                                        const int32_t* targets, int R, int V, Real smoothing, int pad_id) {
    // dlogits (R,V) += dl · (p_v Σt − t_v): cross_entropy_backward gives d(log_probs) = −dl·t, and
    // log_softmax_backward turns g into g − p·Σg = dl·(p·Σt − t).
    const kernels::SoftmaxRowKernels* k = softmax_row_kernels();   // float only; null: Eigen's exp
    parallel_for(R, LOSS_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            if (targets[r] == pad_id) continue;
            const SmoothedTarget<Real> t = smoothed_target(targets[r], V, smoothing, pad_id);
            const Real total = t.on + (V > 2 ? t.off * Real(V - 2) : Real(0));   // Σ_u t_u
            const Real dl = dlosses[r];
            using Array = Eigen::Array<Real, Eigen::Dynamic, 1>;
            Eigen::Map<Array> d(dlogits + r * V, V);
            // Every token as one of the "others" first (t_v = off; vectorised), then the two
            // exceptions corrected: the target (t = on) and pad (t = 0).
            if constexpr (std::is_same_v<Real, float>) {
                if (k)
                    k->exp_affine_add(dlogits + r * V, log_probs + r * V, V, total, t.off, dl);
                else
                    d += (Eigen::Map<const Array>(log_probs + r * V, V).exp() * total - t.off) * dl;
            } else {
                d += (Eigen::Map<const Array>(log_probs + r * V, V).exp() * total - t.off) * dl;
            }
            d[t.target] += (t.off - t.on) * dl;
            if (pad_id >= 0 && pad_id < V) d[pad_id] += t.off * dl;
        }
    });
}

template void log_softmax_forward<float>(float*, const float*, int, int);
template void log_softmax_forward<double>(double*, const double*, int, int);
template void log_softmax_backward<float>(float*, const float*, const float*, int, int);
template void log_softmax_backward<double>(double*, const double*, const double*, int, int);
template void cross_entropy_forward<float>(float*, const float*, const int32_t*, int, int, float, int);
template void cross_entropy_forward<double>(double*, const double*, const int32_t*, int, int, double, int);
template void cross_entropy_backward<float>(float*, const float*, const int32_t*, int, int, float, int);
template void cross_entropy_backward<double>(double*, const double*, const int32_t*, int, int, double, int);
template void cross_entropy_log_softmax_backward<float>(float*, const float*, const float*, const int32_t*, int, int,
                                                        float, int);
template void cross_entropy_log_softmax_backward<double>(double*, const double*, const double*, const int32_t*, int,
                                                         int, double, int);

}  // namespace tx::cpu
