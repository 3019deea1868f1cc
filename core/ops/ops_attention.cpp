// Scaled dot-product attention (paper §3.2.1) as four CPU ops of ops.h:
// scores = q·kᵀ·scale (B,H,T,S) -> mask with -inf -> row softmax -> context = probs·v (B,H,T,dk).
// scores and context are one GEMM per (b,h) on the raw buffers: gemm_packed.h's on a kernel path at
// the shapes where it wins, else Eigen's on row-major maps; the (b,h) pairs and softmax rows are
// shared out over the CPU threads (parallel_for.h), each output written by one thread, so the bits
// do not depend on the thread count.
// CUDA twins: gpu/ (same names and argument order, namespace tx::cuda).
#include "tx/ops.h"

#include "ops/eigen_types.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "tx/cpu_isa.h"
#include "kernels/cpu_kernels.h"
#include "kernels/gemm_packed.h"
#include "runtime/parallel_for.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu {

namespace {
constexpr int64_t HEADS_PER_THREAD = 4;    // (b,h) pairs: one small GEMM each
constexpr int64_t SOFTMAX_ROWS_PER_THREAD = 64;    // softmax rows of S or T values

// Where a float per-head product goes to sgemm_packed (gemm_packed.h) instead of Eigen's. Measured
// on a Zen 4 core (bench/softmax_bench, one head, one thread, median µs, Eigen -march=native /
// Eigen portable (SSE2) / packed AVX-512):
//   scores (T,dk)·(S,dk)ᵀ, T = S = 8, dk = 16..64: 0.14–0.28 / 0.15–0.38 / 0.29–0.96 (Eigen wins)
//                          T = S = 32, dk = 64: 2.10 / 3.85 / 1.51; T = S = 512, dk = 64: 402 / 876 / 320
//   context (T,S)·(S,dk), dk = 32, 64 at T = S = 8..512: packed wins from 0.15 / 0.22 / 0.12 at 8 to
//                          376 / 875 / 321 at 512; dk = 16: native Eigen wins (T = S = 128: 6.2 vs
//                          10.8, the packed tile's 32 columns half empty), portable Eigen loses (14.9).
// The backward's products follow the same rule (same bench): dq += scale·g·k and dv += probsᵀ·g at
// T = S = 128 take 14.1 / 28.1 / 11.2 and 15.3 / 29.4 / 12.0 at dk = 32, 6.1 / 14.8 / 10.9 and
// 7.6 / 16.1 / 12.5 at dk = 16; at T = S = 8 all are within 0.05 µs of each other.
constexpr int PACKED_MIN_SCORE_ROWS = 32;   // T and S both at least this
constexpr int PACKED_MIN_DK = 32;           // narrower heads: only where Eigen lacks AVX
#if defined(__AVX__)
constexpr bool EIGEN_HAS_AVX = true;
#else
constexpr bool EIGEN_HAS_AVX = false;
#endif

// (T,K)·(K,S)ᵀ-shaped products: scores and context's dprobs.
bool packed_for_scores(int T, int S) {
    return sgemm_packed_has_kernel() && T >= PACKED_MIN_SCORE_ROWS && S >= PACKED_MIN_SCORE_ROWS;
}
// Products with dk columns: context, dq, dk, dv.
bool packed_for_heads(int dk) { return sgemm_packed_has_kernel() && (dk >= PACKED_MIN_DK || !EIGEN_HAS_AVX); }

// dst (n) += scale·src (n)
void add_scaled(float* dst, const float* src, int64_t n, float scale) {
    for (int64_t i = 0; i < n; ++i) dst[i] += scale * src[i];
}

// Per thread, grown once: the unscaled product that scores_backward adds scaled.
float* head_scratch(size_t floats) {
    thread_local std::vector<float> buffer;
    if (buffer.size() < floats) buffer.resize(floats);
    return buffer.data();
}
}  // namespace

template <typename Real>
void scores_forward(Real* out, const Real* q, const Real* k, int B, int H, int T, int S, int dk, Real scale) {
    // out (B,H,T,S), q (B,H,T,dk), k (B,H,S,dk)
    if constexpr (std::is_same_v<Real, float>) {
        if (packed_for_scores(T, S)) {
            parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t bh = first; bh < last; ++bh) {
                    float* o = out + bh * T * S;
                    sgemm_packed(o, S, q + bh * T * dk, dk, false, k + bh * S * dk, dk, true, T, S, dk, false);
                    if (scale != 1.0f)
                        for (int64_t i = 0; i < static_cast<int64_t>(T) * S; ++i) o[i] *= scale;
                }
            });
            return;
        }
    }
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            Eigen::Map<const RowMatrix<Real>> qm(q + bh * T * dk, T, dk);
            Eigen::Map<const RowMatrix<Real>> km(k + bh * S * dk, S, dk);
            Eigen::Map<RowMatrix<Real>> om(out + bh * T * S, T, S);
            om.noalias() = scale * (qm * km.transpose());
        }
    });
}

template <typename Real>
void scores_backward(Real* dq, Real* dk_, const Real* dout, const Real* q, const Real* k,
                     int B, int H, int T, int S, int dk, Real scale) {
    // dq (B,H,T,dk) += scale·dout·k, dk_ (B,H,S,dk) += scale·doutᵀ·q; either may be null
    if constexpr (std::is_same_v<Real, float>) {
        if (packed_for_heads(dk)) {
            parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
                float* tmp = head_scratch(static_cast<size_t>(std::max(T, S)) * dk);
                for (int64_t bh = first; bh < last; ++bh) {
                    const float* g = dout + bh * T * S;
                    if (dq) {
                        sgemm_packed(tmp, dk, g, S, false, k + bh * S * dk, dk, false, T, dk, S, false);
                        add_scaled(dq + bh * T * dk, tmp, static_cast<int64_t>(T) * dk, scale);
                    }
                    if (dk_) {
                        sgemm_packed(tmp, dk, g, S, true, q + bh * T * dk, dk, false, S, dk, T, false);
                        add_scaled(dk_ + bh * S * dk, tmp, static_cast<int64_t>(S) * dk, scale);
                    }
                }
            });
            return;
        }
    }
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            Eigen::Map<const RowMatrix<Real>> g(dout + bh * T * S, T, S);
            if (dq) {
                Eigen::Map<const RowMatrix<Real>> km(k + bh * S * dk, S, dk);
                Eigen::Map<RowMatrix<Real>>(dq + bh * T * dk, T, dk).noalias() += scale * (g * km);
            }
            if (dk_) {
                Eigen::Map<const RowMatrix<Real>> qm(q + bh * T * dk, T, dk);
                Eigen::Map<RowMatrix<Real>>(dk_ + bh * S * dk, S, dk).noalias() += scale * (g.transpose() * qm);
            }
        }
    });
}

template <typename Real>
void attention_mask_forward(Real* out, const Real* scores, const Real* mask, int B, int H, int T, int S) {
    // out, scores (B,H,T,S); mask (B,T,S) is shared by the H heads; out may be scores
    const Real neg_inf = -std::numeric_limits<Real>::infinity();
    const int64_t TS = static_cast<int64_t>(T) * S;
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            const int64_t off = bh * TS;
            const Real* m = mask ? mask + (bh / H) * TS : nullptr;
            // float: the active path's kernel (a portable build's SSE2 loop took 3.3% of a tiny
            // forward pass's samples, a native one's 0.8%)
            if constexpr (std::is_same_v<Real, float>) {
                if (const kernels::CpuKernels* k = cpu_kernels(); m && k) {
                    k->elementwise->attention_mask(out + off, scores + off, m, TS);
                    continue;
                }
            }
            for (int64_t i = 0; i < TS; ++i)
                out[off + i] = (!m || m[i] != Real(0)) ? scores[off + i] : neg_inf;
        }
    });
}

template <typename Real>
void attention_mask_backward(Real* dscores, const Real* dout, const Real* mask, int B, int H, int T, int S) {
    // dscores (B,H,T,S) += dout where kept; a masked score does not reach the output
    const int64_t TS = static_cast<int64_t>(T) * S;
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            const int64_t off = bh * TS;
            const Real* m = mask ? mask + (bh / H) * TS : nullptr;
            for (int64_t i = 0; i < TS; ++i)
                if (!m || m[i] != Real(0)) dscores[off + i] += dout[off + i];
        }
    });
}

template <typename Real>
void softmax_forward(Real* probs, const Real* inp, int R, int C) {
    // probs, inp (R,C). Subtracting the row max keeps exp() <= 1 (no overflow). Masked (-inf)
    // entries are set to exactly 0 after the vectorised exp: Eigen's SSE2 exp returns a
    // denormal (~1e-39) for -inf, and a masked key must get exactly nothing.
    if constexpr (std::is_same_v<Real, float>) {
        // The vector kernels of the active path (softmax_kernels.h): a portable build's Eigen is SSE2 only.
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(R, SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) k->softmax(probs + r * C, inp + r * C, C);
            });
            return;
        }
    }
    const Real neg_inf = -std::numeric_limits<Real>::infinity();
    parallel_for(R, SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const Real* x = inp + r * C;
            Real* p = probs + r * C;
            Real maxval = neg_inf;
            for (int c = 0; c < C; ++c) maxval = x[c] > maxval ? x[c] : maxval;
            if (maxval == neg_inf) {
                // fully masked row: -inf - (-inf) would be NaN; nothing to attend to gives zeros
                for (int c = 0; c < C; ++c) p[c] = Real(0);
                continue;
            }
            Eigen::Map<Eigen::Array<Real, Eigen::Dynamic, 1>> ps(p, C);
            ps = (Eigen::Map<const Eigen::Array<Real, Eigen::Dynamic, 1>>(x, C) - maxval).exp();
            for (int c = 0; c < C; ++c)
                if (x[c] == neg_inf) p[c] = Real(0);
            ps *= Real(1) / ps.sum();
        }
    });
}

template <typename Real>
void softmax_backward(Real* dinp, const Real* dout, const Real* probs, int R, int C) {
    // dinp (R,C) += probs * (dout - Σ_c dout*probs); a zero row (fully masked) gets nothing
    if constexpr (std::is_same_v<Real, float>) {
        if (const kernels::SoftmaxRowKernels* k = softmax_row_kernels()) {
            parallel_for(R, SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) k->softmax_backward(dinp + r * C, dout + r * C, probs + r * C, C);
            });
            return;
        }
    }
    parallel_for(R, SOFTMAX_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const Real* g = dout + r * C;
            const Real* p = probs + r * C;
            Real* dx = dinp + r * C;
            Real dot = 0;
            for (int c = 0; c < C; ++c) dot += g[c] * p[c];
            for (int c = 0; c < C; ++c) dx[c] += p[c] * (g[c] - dot);
        }
    });
}

template <typename Real>
void context_forward(Real* out, const Real* probs, const Real* v, int B, int H, int T, int S, int dk) {
    // out (B,H,T,dk), probs (B,H,T,S), v (B,H,S,dk)
    if constexpr (std::is_same_v<Real, float>) {
        if (packed_for_heads(dk)) {
            parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t bh = first; bh < last; ++bh)
                    sgemm_packed(out + bh * T * dk, dk, probs + bh * T * S, S, false, v + bh * S * dk, dk, false, T,
                                 dk, S, false);
            });
            return;
        }
    }
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            Eigen::Map<const RowMatrix<Real>> pm(probs + bh * T * S, T, S);
            Eigen::Map<const RowMatrix<Real>> vm(v + bh * S * dk, S, dk);
            Eigen::Map<RowMatrix<Real>>(out + bh * T * dk, T, dk).noalias() = pm * vm;
        }
    });
}

template <typename Real>
void context_backward(Real* dprobs, Real* dv, const Real* dout, const Real* probs, const Real* v,
                      int B, int H, int T, int S, int dk) {
    // dprobs (B,H,T,S) += dout·vᵀ, dv (B,H,S,dk) += probsᵀ·dout; either may be null
    if constexpr (std::is_same_v<Real, float>) {
        const bool packed_dprobs = dprobs && packed_for_scores(T, S);
        const bool packed_dv = dv && packed_for_heads(dk);
        if (packed_dprobs || packed_dv) {
            parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
                for (int64_t bh = first; bh < last; ++bh) {
                    const float* g = dout + bh * T * dk;
                    Eigen::Map<const RowMatrix<float>> gm(g, T, dk);
                    if (packed_dprobs)
                        sgemm_packed(dprobs + bh * T * S, S, g, dk, false, v + bh * S * dk, dk, true, T, S, dk, true);
                    else if (dprobs)
                        Eigen::Map<RowMatrix<float>>(dprobs + bh * T * S, T, S).noalias() +=
                            gm * Eigen::Map<const RowMatrix<float>>(v + bh * S * dk, S, dk).transpose();
                    if (packed_dv)
                        sgemm_packed(dv + bh * S * dk, dk, probs + bh * T * S, S, true, g, dk, false, S, dk, T, true);
                    else if (dv)
                        Eigen::Map<RowMatrix<float>>(dv + bh * S * dk, S, dk).noalias() +=
                            Eigen::Map<const RowMatrix<float>>(probs + bh * T * S, T, S).transpose() * gm;
                }
            });
            return;
        }
    }
    parallel_for(static_cast<int64_t>(B) * H, HEADS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t bh = first; bh < last; ++bh) {
            Eigen::Map<const RowMatrix<Real>> g(dout + bh * T * dk, T, dk);
            if (dprobs) {
                Eigen::Map<const RowMatrix<Real>> vm(v + bh * S * dk, S, dk);
                Eigen::Map<RowMatrix<Real>>(dprobs + bh * T * S, T, S).noalias() += g * vm.transpose();
            }
            if (dv) {
                Eigen::Map<const RowMatrix<Real>> pm(probs + bh * T * S, T, S);
                Eigen::Map<RowMatrix<Real>>(dv + bh * S * dk, S, dk).noalias() += pm.transpose() * g;
            }
        }
    });
}

template void scores_forward<float>(float*, const float*, const float*, int, int, int, int, int, float);
template void scores_forward<double>(double*, const double*, const double*, int, int, int, int, int, double);
template void scores_backward<float>(float*, float*, const float*, const float*, const float*,
                                     int, int, int, int, int, float);
template void scores_backward<double>(double*, double*, const double*, const double*, const double*,
                                      int, int, int, int, int, double);
template void attention_mask_forward<float>(float*, const float*, const float*, int, int, int, int);
template void attention_mask_forward<double>(double*, const double*, const double*, int, int, int, int);
template void attention_mask_backward<float>(float*, const float*, const float*, int, int, int, int);
template void attention_mask_backward<double>(double*, const double*, const double*, int, int, int, int);
template void softmax_forward<float>(float*, const float*, int, int);
template void softmax_forward<double>(double*, const double*, int, int);
template void softmax_backward<float>(float*, const float*, const float*, int, int);
template void softmax_backward<double>(double*, const double*, const double*, int, int);
template void context_forward<float>(float*, const float*, const float*, int, int, int, int, int);
template void context_forward<double>(double*, const double*, const double*, int, int, int, int, int);
template void context_backward<float>(float*, float*, const float*, const float*, const float*,
                                      int, int, int, int, int);
template void context_backward<double>(double*, double*, const double*, const double*, const double*,
                                       int, int, int, int, int);

}  // namespace tx::cpu
