// The Positional panel's numbers (explain/positional_views.h) against the formulas: RoPE's dot
// products depend only on the offset p − p', ALiBi's bias is −m_h·|i − j| with the paper's
// slopes, and the cosine similarity of a table matches a direct computation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "positional_views.h"

namespace tx::explain {
namespace {

TEST(PositionalViews, RopeDotsDependOnlyOnTheOffset) {
    const int dk = 8, L = 12;
    std::vector<float> q(dk), k(dk);
    for (int d = 0; d < dk; ++d) {
        q[d] = 0.3f * static_cast<float>(d) - 1.0f;
        k[d] = 0.7f - 0.2f * static_cast<float>(d);
    }
    const RopeView v = rope_view(q.data(), k.data(), dk, L, 1);
    ASSERT_EQ(v.dots.size(), static_cast<size_t>(L * L));
    EXPECT_NEAR(v.theta, std::pow(10000.0, -2.0 / dk), 1e-12);   // pair 1
    for (int p = 0; p < L; ++p)
        for (int pp = 0; pp < L; ++pp) {
            const int o = p - pp + L - 1;
            EXPECT_NEAR(v.dots[p * L + pp], v.by_offset[o], 1e-9 * (1.0 + v.scale));
        }
    EXPECT_LT(v.spread, 1e-9 * (1.0 + v.scale));
    // At offset 0 the rotation cancels: the dot is q·k unrotated.
    double plain = 0.0;
    for (int d = 0; d < dk; ++d) plain += static_cast<double>(q[d]) * k[d];
    EXPECT_NEAR(v.by_offset[L - 1], plain, 1e-6);
    // The pair rotates by θ per position: at position 1 its angle moved by θ.
    const double a0 = std::atan2(v.q_pair[1], v.q_pair[0]), a1 = std::atan2(v.q_pair[3], v.q_pair[2]);
    EXPECT_NEAR(std::remainder(a1 - a0 - v.theta, 2 * M_PI), 0.0, 1e-9);
}

TEST(PositionalViews, AlibiBiasIsMinusSlopeTimesDistance) {
    const int H = 8, L = 5;
    const std::vector<float> slopes = alibi_slope_values(H);
    ASSERT_EQ(slopes.size(), static_cast<size_t>(H));
    for (int h = 0; h < H; ++h) EXPECT_FLOAT_EQ(slopes[h], std::pow(2.0f, -8.0f * (h + 1) / H));
    const std::vector<float> bias = alibi_bias(H, L);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j)
                EXPECT_FLOAT_EQ(bias[(h * L + i) * L + j], -slopes[h] * static_cast<float>(std::abs(i - j)));
}

TEST(PositionalViews, CosineSimilarityMatchesADirectComputation) {
    const int L = 4, D = 3;
    const std::vector<float> table = {1, 0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 0};   // the last row is all zeros
    const std::vector<float> c = cosine_similarity(table.data(), L, D);
    EXPECT_NEAR(c[0 * L + 0], 1.0f, 1e-6);
    EXPECT_NEAR(c[0 * L + 1], 0.0f, 1e-6);
    EXPECT_NEAR(c[0 * L + 2], 1.0f / std::sqrt(2.0f), 1e-6);
    EXPECT_NEAR(c[1 * L + 2], 2.0f / (2.0f * std::sqrt(2.0f)), 1e-6);
    EXPECT_EQ(c[3 * L + 0], 0.0f);
    EXPECT_EQ(c[3 * L + 3], 0.0f);
}

}  // namespace
}  // namespace tx::explain
