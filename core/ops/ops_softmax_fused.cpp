// Masked, scaled softmax of attention in one pass over the scores (ops_softmax_fused.h): probs (B,H,T,S) =
// softmax over S of (keep ? scale·scores : -inf), keep = mask (B,T,S) != 0 shared by the heads.
// It does what attention_mask_forward then softmax_forward do, reading the scores and the mask
// once and writing only the probabilities; the backward likewise writes dscores in one pass.
// Rows are shared out over the CPU threads (parallel_for.h), each row written by one thread.
#include "ops/ops_softmax_fused.h"

#include "ops/eigen_types.h"
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/parallel_for.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu {

namespace {
constexpr int64_t FUSED_SOFTMAX_ROWS_PER_THREAD = 64;   // softmax rows of S values, as ops_attention.cpp
}

template <typename Real>
void masked_softmax_forward(Real* probs, const Real* scores, const Real* mask, int B, int H, int T, int S,
                            Real scale) {
    const int64_t rows = static_cast<int64_t>(B) * H * T;
    if constexpr (std::is_same_v<Real, float>) {
        // The vector kernels of the active path (softmax_kernels.h): a portable build's Eigen is SSE2 only.
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(rows, FUSED_SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) {
                    const int64_t bh = r / T, t = r % T;
                    const float* keep = mask ? mask + ((bh / H) * T + t) * S : nullptr;
                    k->masked_softmax(probs + r * S, scores + r * S, keep, S, scale);
                }
            });
            return;
        }
    }
    const Real neg_inf = -std::numeric_limits<Real>::infinity();
    parallel_for(rows, FUSED_SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int64_t bh = r / T, t = r % T;
            const Real* x = scores + r * S;
            const Real* keep = mask ? mask + ((bh / H) * T + t) * S : nullptr;
            Real* p = probs + r * S;
            // First touch: the scaled, masked scores go straight into the output row.
            Real maxval = neg_inf;
            for (int c = 0; c < S; ++c) {
                const Real v = (!keep || keep[c] != Real(0)) ? x[c] * scale : neg_inf;
                p[c] = v;
                maxval = v > maxval ? v : maxval;
            }
            if (maxval == neg_inf) {
                // every key masked: -inf - (-inf) would be NaN; nothing to attend to gives zeros
                for (int c = 0; c < S; ++c) p[c] = Real(0);
                continue;
            }
            Eigen::Map<Eigen::Array<Real, Eigen::Dynamic, 1>> ps(p, S);
            ps = (ps - maxval).exp();
            // Eigen's SSE2 exp gives a denormal for -inf; a masked key must get exactly nothing.
            if (keep)
                for (int c = 0; c < S; ++c)
                    if (keep[c] == Real(0)) p[c] = Real(0);
            ps *= Real(1) / ps.sum();
        }
    });
}

template <typename Real>
void masked_softmax_backward(Real* dscores, const Real* dprobs, const Real* probs, const Real* mask, int B, int H,
                             int T, int S, Real scale) {
    // dscores += keep ? scale·p·(dprobs - Σ dprobs·p) : 0; p is 0 where masked, the test on keep
    // only makes "a masked score gets nothing" exact whatever dprobs holds (even inf).
    const int64_t rows = static_cast<int64_t>(B) * H * T;
    if constexpr (std::is_same_v<Real, float>) {
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(rows, FUSED_SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) {
                    const int64_t bh = r / T, t = r % T;
                    const float* keep = mask ? mask + ((bh / H) * T + t) * S : nullptr;
                    k->masked_softmax_backward(dscores + r * S, dprobs + r * S, probs + r * S, keep, S, scale);
                }
            });
            return;
        }
    }
    parallel_for(rows, FUSED_SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int64_t bh = r / T, t = r % T;
            const Real* g = dprobs + r * S;
            const Real* p = probs + r * S;
            const Real* keep = mask ? mask + ((bh / H) * T + t) * S : nullptr;
            Real* dx = dscores + r * S;
            Real dot = 0;
            for (int c = 0; c < S; ++c)
                if (p[c] != Real(0)) dot += g[c] * p[c];
            for (int c = 0; c < S; ++c)
                if (!keep || keep[c] != Real(0)) dx[c] += scale * (p[c] * (g[c] - dot));
        }
    });
}

template void masked_softmax_forward<float>(float*, const float*, const float*, int, int, int, int, float);
template void masked_softmax_forward<double>(double*, const double*, const double*, int, int, int, int, double);
template void masked_softmax_backward<float>(float*, const float*, const float*, const float*, int, int, int, int,
                                             float);
template void masked_softmax_backward<double>(double*, const double*, const double*, const double*, int, int, int,
                                              int, double);

}  // namespace tx::cpu
