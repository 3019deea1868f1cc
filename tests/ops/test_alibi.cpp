// ALiBi (core/ops/ops_alibi.cpp): the slopes against the paper's reference code transliterated
// here, the forward against the linear bias −m·|i − j| written here, the diagonal unbiased, the
// backward against central finite differences in double and the += rule, and the PyTorch fixture.
// Shapes: scores and out (B,H,T,S), slopes (H). CUDA twin: tests/gpu/test_alibi_cuda.cpp.
#include "tx/ops.h"

#include "support/compare.h"
#include "support/finite_differences.h"
#include "support/variant_op_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace tx::test;

// ---- forward ----

// The paper's reference code, transliterated (github.com/ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py, get_slopes), with its repeated products rather than powers.
std::vector<double> paper_get_slopes(int n) {
    auto power_of_2 = [](int m) {
        const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(m) - 3)));
        std::vector<double> s;
        for (int i = 0; i < m; ++i) s.push_back(start * std::pow(start, i));
        return s;
    };
    const double lg = std::log2(n);
    if (lg == std::floor(lg)) return power_of_2(n);
    const int closest = 1 << static_cast<int>(std::floor(lg));
    std::vector<double> s = power_of_2(closest);
    const std::vector<double> more = paper_get_slopes(2 * closest);
    for (int i = 0; static_cast<int>(s.size()) < n; i += 2) s.push_back(more[i]);
    return s;
}

TEST(Alibi, SlopesAreThePapers) {
    // §3: "for 8 heads, the slopes are 1/2^1, 1/2^2, ..., 1/2^8"
    std::vector<double> s8(8);
    tx::cpu::alibi_slopes(s8.data(), 8);
    for (int h = 0; h < 8; ++h) EXPECT_EQ(s8[h], std::ldexp(1.0, -(h + 1)));
    // "for 16 heads ... 1/2^0.5, 1/2^1, ..., 1/2^8"
    std::vector<double> s16(16);
    tx::cpu::alibi_slopes(s16.data(), 16);
    for (int h = 0; h < 16; ++h) EXPECT_NEAR(s16[h], std::pow(2.0, -0.5 * (h + 1)), 1e-15);
    // H = 6, not a power of two: the 4-head slopes, then the 8-head ones at even indices
    std::vector<double> s6(6);
    tx::cpu::alibi_slopes(s6.data(), 6);
    const std::vector<double> expected6 = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
    EXPECT_TRUE(close(s6, expected6, 0.0, 1e-15));
    for (int H : {1, 2, 3, 4, 5, 6, 7, 12, 20, 32}) {
        SCOPED_TRACE(testing::Message() << "H=" << H);
        std::vector<double> got(H);
        tx::cpu::alibi_slopes(got.data(), H);
        EXPECT_TRUE(close(got, paper_get_slopes(H), 0.0, 1e-14));
        std::vector<float> gotf(H);
        tx::cpu::alibi_slopes(gotf.data(), H);
        EXPECT_TRUE(close(gotf, paper_get_slopes(H), 0.0, 1e-7));
    }
}

Vec alibi_reference(const Vec& scores, int B, int H, int T, int S, int q0) {
    const std::vector<double> m = paper_get_slopes(H);
    Vec out(scores.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    const size_t i = ((static_cast<size_t>(b) * H + h) * T + t) * S + s;
                    out[i] = scores[i] - m[h] * std::abs(static_cast<double>(q0 + t - s));
                }
    return out;
}

TEST(Alibi, ForwardMatchesTheLinearBias) {
    for (auto [B, H, T, S, q0] : {std::tuple{1, 1, 1, 1, 0}, {2, 4, 5, 5, 0}, {2, 6, 3, 7, 0}, {1, 3, 1, 9, 8},
                                  {1, 8, 4, 6, 2}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " q0=" << q0);
        Vec scores = random_vec(static_cast<size_t>(B) * H * T * S, 130 + H);
        scores[0] = -std::numeric_limits<double>::infinity();   // a masked entry stays masked
        const Vec ref = alibi_reference(scores, B, H, T, S, q0);
        Vec out(scores.size(), std::nan(""));
        tx::cpu::alibi_forward(out.data(), scores.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(out, ref, 1e-14, 1e-14));
        EXPECT_EQ(out[0], -std::numeric_limits<double>::infinity());
        const std::vector<float> sf = to_float(scores);
        std::vector<float> of(sf.size(), NAN);
        tx::cpu::alibi_forward(of.data(), sf.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
        Vec inplace = scores;
        tx::cpu::alibi_forward(inplace.data(), inplace.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(inplace, ref, 1e-14, 1e-14));
    }
}

TEST(Alibi, DiagonalIsUnbiasedAndBiasGrowsWithDistance) {
    // zero scores show the bias itself: 0 where the key is the query's own position, −m·distance elsewhere
    const int H = 2, T = 4, S = 4;
    Vec zero(static_cast<size_t>(H) * T * S, 0.0), out(zero.size());
    tx::cpu::alibi_forward(out.data(), zero.data(), 1, H, T, S, 0);
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t) {
            EXPECT_EQ(out[(h * T + t) * S + t], 0.0);
            for (int s = 0; s + 1 <= t; ++s) EXPECT_LT(out[(h * T + t) * S + s], out[(h * T + t) * S + s + 1]);
        }
    EXPECT_EQ(out[(0 * T + 3) * S + 0], -3 * 0.0625);   // H = 2: slopes 2^-4, 2^-8
    EXPECT_EQ(out[(1 * T + 3) * S + 0], -3 * 0.00390625);
}

// ---- backward ----

TEST(Backward, Alibi) {
    const int B = 2, H = 3, T = 3, S = 4, q0 = 1;
    Vec x = random_vec(static_cast<size_t>(B) * H * T * S, 140);
    const Vec g = random_vec(x.size(), 141);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::alibi_forward(out.data(), x.data(), B, H, T, S, q0);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::alibi_backward(dx.data(), g.data(), B, H, T, S);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::alibi_backward(d[0].data(), g.data(), B, H, T, S);
    });
}

// ---- against PyTorch ----

TYPED_TEST(VariantOpFixtures, Alibi) {
    using Real = TypeParam;
    for (const std::string p : {"alibi", "alibi_h8"}) {
        SCOPED_TRACE(p);
        const std::string in = p + ".scores";
        const int B = dim(in, 0), H = dim(in, 1), T = dim(in, 2), S = dim(in, 3);
        const int q0 = params().at(p).at("q0").get<int>();
        const std::vector<Real> x = values<Real>(in), g = values<Real>(p + ".dout");
        std::vector<Real> out(x.size()), dx(x.size(), Real(0));
        tx::cpu::alibi_forward(out.data(), x.data(), B, H, T, S, q0);
        EXPECT_TRUE(matches(out, p + ".out"));
        tx::cpu::alibi_backward(dx.data(), g.data(), B, H, T, S);
        EXPECT_TRUE(matches(dx, p + ".dscores"));
    }
    for (int H : {3, 6, 12}) {
        std::vector<Real> slopes(H);
        tx::cpu::alibi_slopes(slopes.data(), H);
        EXPECT_TRUE(matches(slopes, "alibi.slopes_" + std::to_string(H)));
    }
}

}  // namespace
