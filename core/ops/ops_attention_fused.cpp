// Fused attention on the CPU (ops.h): the online-softmax algorithm of FlashAttention (Dao et al.
// 2022, Algorithm 1) over tiles of KEY_TILE keys, written plainly as the reference for the CUDA
// kernel (gpu/ops/ops_attention_fused.cu), which follows the same recurrence per query row.
// q (B,H,T,dk), k and v (B,H,S,dk), mask (B,T,S) shared by the heads, out (B,H,T,dk).
#include "tx/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tx::cpu {

namespace {
constexpr int KEY_TILE = 32;   // keys per tile: the scores of one tile are all that ever exist
}

template <typename Real>
void fused_attention_forward(Real* out, const Real* q, const Real* k, const Real* v, const Real* mask,
                             int B, int H, int T, int S, int dk, Real scale) {
    const Real neg_inf = -std::numeric_limits<Real>::infinity();
    std::vector<Real> acc(static_cast<size_t>(dk));   // running Σ_j exp(s_j - m)·v_j of one row
    Real s[KEY_TILE];
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const int64_t bh = static_cast<int64_t>(b) * H + h;
            const Real* kb = k + bh * S * dk;
            const Real* vb = v + bh * S * dk;
            for (int t = 0; t < T; ++t) {
                const Real* qt = q + (bh * T + t) * dk;
                const Real* keep = mask ? mask + (static_cast<int64_t>(b) * T + t) * S : nullptr;
                Real m = neg_inf;   // running max of the scores seen so far
                Real l = 0;         // running Σ exp(s_j - m)
                std::fill(acc.begin(), acc.end(), Real(0));
                for (int j0 = 0; j0 < S; j0 += KEY_TILE) {
                    const int n = std::min(KEY_TILE, S - j0);
                    Real tile_max = neg_inf;
                    for (int j = 0; j < n; ++j) {
                        if (keep && keep[j0 + j] == Real(0)) {
                            s[j] = neg_inf;
                            continue;
                        }
                        Real dot = 0;
                        for (int d = 0; d < dk; ++d) dot += qt[d] * kb[static_cast<int64_t>(j0 + j) * dk + d];
                        s[j] = dot * scale;
                        tile_max = std::max(tile_max, s[j]);
                    }
                    const Real m_new = std::max(m, tile_max);
                    if (m_new == neg_inf) continue;   // every key so far masked: nothing to add
                    // Rescale what was summed under the old max; exp(-inf) would be fine, but
                    // m = -inf only when nothing was summed, so skip the NaN-prone -inf - -inf.
                    const Real correction = m == neg_inf ? Real(0) : std::exp(m - m_new);
                    l *= correction;
                    for (int d = 0; d < dk; ++d) acc[d] *= correction;
                    for (int j = 0; j < n; ++j) {
                        if (s[j] == neg_inf) continue;   // a masked key gets exactly nothing
                        const Real p = std::exp(s[j] - m_new);
                        l += p;
                        const Real* vj = vb + static_cast<int64_t>(j0 + j) * dk;
                        for (int d = 0; d < dk; ++d) acc[d] += p * vj[d];
                    }
                    m = m_new;
                }
                // l = 0 only for a fully masked row: zeros, as softmax_forward gives
                Real* o = out + (bh * T + t) * dk;
                const Real inv = l > Real(0) ? Real(1) / l : Real(0);
                for (int d = 0; d < dk; ++d) o[d] = acc[d] * inv;
            }
        }
}

template void fused_attention_forward<float>(float*, const float*, const float*, const float*, const float*,
                                             int, int, int, int, int, float);
template void fused_attention_forward<double>(double*, const double*, const double*, const double*,
                                              const double*, int, int, int, int, int, double);

}  // namespace tx::cpu
