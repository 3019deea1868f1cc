// The Positional panel's numbers (see positional_views.h), from the CPU ops the model runs.
#include "positional_views.h"

#include <algorithm>
#include <cmath>

#include "tx/ops.h"

namespace tx::explain {

RopeView rope_view(const float* q, const float* k, int dk, int L, int pair) {
    RopeView r;
    r.L = std::max(L, 0);
    r.dk = std::max(dk, 0);
    if (r.L == 0 || r.dk == 0) return r;
    const int half = r.dk / 2;
    r.pair = std::clamp(pair, 0, std::max(half - 1, 0));
    r.theta = std::pow(10000.0, -2.0 * r.pair / r.dk);
    // The same q (and k) at every position p, rotated as the model rotates row p: (1, 1, L, dk).
    std::vector<double> qs(static_cast<size_t>(r.L) * r.dk), ks(qs.size());
    for (int p = 0; p < r.L; ++p)
        for (int d = 0; d < r.dk; ++d) {
            qs[static_cast<size_t>(p) * r.dk + d] = q[d];
            ks[static_cast<size_t>(p) * r.dk + d] = k[d];
        }
    cpu::rope_forward<double>(qs.data(), qs.data(), 1, 1, r.L, r.dk, 0);
    cpu::rope_forward<double>(ks.data(), ks.data(), 1, 1, r.L, r.dk, 0);
    if (half > 0)
        for (int p = 0; p < r.L; ++p) {
            const size_t at = static_cast<size_t>(p) * r.dk + 2 * static_cast<size_t>(r.pair);
            r.q_pair.insert(r.q_pair.end(), {qs[at], qs[at + 1]});
            r.k_pair.insert(r.k_pair.end(), {ks[at], ks[at + 1]});
        }
    r.dots.assign(static_cast<size_t>(r.L) * r.L, 0.0);
    for (int p = 0; p < r.L; ++p)
        for (int pp = 0; pp < r.L; ++pp) {
            double dot = 0.0;
            for (int d = 0; d < r.dk; ++d) dot += qs[static_cast<size_t>(p) * r.dk + d] * ks[static_cast<size_t>(pp) * r.dk + d];
            r.dots[static_cast<size_t>(p) * r.L + pp] = dot;
            r.scale = std::max(r.scale, std::fabs(dot));
        }
    // Diagonal o holds the cells with p − p' = o − (L−1).
    r.by_offset.assign(static_cast<size_t>(2 * r.L - 1), 0.0);
    for (int o = 0; o < 2 * r.L - 1; ++o) {
        const int offset = o - (r.L - 1);
        double lo = INFINITY, hi = -INFINITY;
        for (int p = std::max(0, offset); p < r.L && p - offset < r.L; ++p) {
            const double dot = r.dots[static_cast<size_t>(p) * r.L + (p - offset)];
            if (lo == INFINITY) r.by_offset[static_cast<size_t>(o)] = dot;
            lo = std::min(lo, dot);
            hi = std::max(hi, dot);
        }
        r.spread = std::max(r.spread, hi - lo);
    }
    return r;
}

std::vector<float> alibi_slope_values(int H) {
    std::vector<float> slopes(static_cast<size_t>(std::max(H, 0)));
    cpu::alibi_slopes<float>(slopes.data(), H);
    return slopes;
}

std::vector<float> alibi_bias(int H, int L) {
    std::vector<float> bias(static_cast<size_t>(std::max(H, 0)) * std::max(L, 0) * std::max(L, 0), 0.0f);
    cpu::alibi_forward<float>(bias.data(), bias.data(), 1, H, L, L, 0);
    return bias;
}

std::vector<float> cosine_similarity(const float* table, int L, int D) {
    std::vector<double> norm(static_cast<size_t>(std::max(L, 0)), 0.0);
    for (int i = 0; i < L; ++i) {
        double s = 0.0;
        for (int d = 0; d < D; ++d) s += static_cast<double>(table[static_cast<size_t>(i) * D + d]) * table[static_cast<size_t>(i) * D + d];
        norm[static_cast<size_t>(i)] = std::sqrt(s);
    }
    std::vector<float> sim(static_cast<size_t>(std::max(L, 0)) * std::max(L, 0), 0.0f);
    for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j) {
            const double n = norm[static_cast<size_t>(i)] * norm[static_cast<size_t>(j)];
            if (n == 0.0) continue;
            double dot = 0.0;
            for (int d = 0; d < D; ++d)
                dot += static_cast<double>(table[static_cast<size_t>(i) * D + d]) * table[static_cast<size_t>(j) * D + d];
            sim[static_cast<size_t>(i) * L + j] = static_cast<float>(dot / n);
        }
    return sim;
}

}  // namespace tx::explain
