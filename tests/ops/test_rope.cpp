// Rotary position embedding (core/ops/ops_rope.cpp): the forward against RoFormer's complex
// rotation written here (not from the op's code), the properties that make it what it is (position
// 0 is the identity, norms kept, dot products depend only on the offset, one row at a time as the
// KV cache calls it), the backward against central finite differences in double and the += rule,
// and the PyTorch fixture. Shapes: x and out (B,H,T,dk). CUDA twin: tests/gpu/test_rope_cuda.cpp.
#include "tx/ops.h"

#include "support/compare.h"
#include "support/finite_differences.h"
#include "support/variant_op_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace tx::test;

// ---- forward ----

// RoFormer §3.2: in the complex view, pair (2i, 2i+1) is z = x_2i + i·x_2i+1 and position m
// multiplies it by e^{i·m·θ_i}, θ_i = 10000^(−2i/d).
Vec rope_reference(const Vec& x, int B, int H, int T, int dk, int pos0) {
    Vec out(x.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const size_t row = ((static_cast<size_t>(b) * H + h) * T + t) * dk;
                for (int i = 0; i < dk / 2; ++i) {
                    const double theta = std::pow(10000.0, -2.0 * i / dk);
                    const std::complex<double> z(x[row + 2 * i], x[row + 2 * i + 1]);
                    const std::complex<double> r = z * std::polar(1.0, (pos0 + t) * theta);
                    out[row + 2 * i] = r.real();
                    out[row + 2 * i + 1] = r.imag();
                }
            }
    return out;
}

TEST(Rope, ForwardMatchesTheComplexRotation) {
    for (auto [B, H, T, dk, pos0] : {std::tuple{1, 1, 1, 2, 0}, {2, 3, 5, 2, 7}, {2, 2, 4, 8, 0}, {1, 4, 3, 16, 100},
                                     {3, 1, 9, 32, 1000}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " pos0=" << pos0);
        const Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 100 + dk);
        const Vec ref = rope_reference(x, B, H, T, dk, pos0);
        Vec out(x.size(), std::nan(""));
        tx::cpu::rope_forward(out.data(), x.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(out, ref, 1e-12, 1e-12));
        // float: the angles are formed in double, so even at position 1000 only the final roundings differ
        const std::vector<float> xf = to_float(x);
        std::vector<float> of(x.size(), NAN);
        tx::cpu::rope_forward(of.data(), xf.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
        // in place (out == inp), as the model rotates q and k
        Vec inplace = x;
        tx::cpu::rope_forward(inplace.data(), inplace.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(inplace, ref, 1e-12, 1e-12));
    }
}

TEST(Rope, PositionZeroIsTheIdentityAndNormsArePreserved) {
    const int dk = 8;
    const Vec x = random_vec(dk, 110);
    Vec out(dk);
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 0);
    EXPECT_TRUE(close(out, x, 0.0, 0.0));
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 37);
    EXPECT_FALSE(close(out, x, 1e-3, 0.0));   // it does rotate
    for (int i = 0; i < dk / 2; ++i)   // each pair keeps its length (a rotation)
        EXPECT_NEAR(std::hypot(out[2 * i], out[2 * i + 1]), std::hypot(x[2 * i], x[2 * i + 1]), 1e-12);
}

TEST(Rope, RowsOfOneCallSitAtConsecutivePositionsFromPos0) {
    // the KV cache rotates one row at a time with pos0 = its position: it must equal row t of a full call
    const int B = 2, H = 2, T = 6, dk = 4;
    const Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 111);
    Vec full(x.size());
    tx::cpu::rope_forward(full.data(), x.data(), B, H, T, dk, 3);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const size_t row = ((static_cast<size_t>(b) * H + h) * T + t) * dk;
                Vec one(dk);
                tx::cpu::rope_forward(one.data(), x.data() + row, 1, 1, 1, dk, 3 + t);
                for (int d = 0; d < dk; ++d) EXPECT_DOUBLE_EQ(one[d], full[row + d]);
            }
}

TEST(Rope, DotProductDependsOnlyOnTheOffset) {
    // RoFormer eq. 16: <R_i q, R_j k> = <q, R_{j−i} k>, a function of j − i alone
    const int dk = 16;
    const Vec q = random_vec(dk, 112), k = random_vec(dk, 113);
    auto rotated_dot = [&](int i, int j) {
        Vec qi(dk), kj(dk);
        tx::cpu::rope_forward(qi.data(), q.data(), 1, 1, 1, dk, i);
        tx::cpu::rope_forward(kj.data(), k.data(), 1, 1, 1, dk, j);
        return dot(qi, kj);
    };
    for (auto [i, j] : {std::pair{0, 0}, {3, 1}, {1, 3}, {10, 2}, {7, 40}}) {
        SCOPED_TRACE(testing::Message() << "i=" << i << " j=" << j);
        EXPECT_NEAR(rotated_dot(i, j), rotated_dot(i + 5, j + 5), 1e-12);
        EXPECT_NEAR(rotated_dot(i, j), rotated_dot(i + 123, j + 123), 1e-11);
    }
    // and it does depend on the offset (otherwise the check above could not fail)
    EXPECT_GT(std::abs(rotated_dot(3, 1) - rotated_dot(3, 2)), 1e-3);
}

TEST(Rope, OddWidthPassesTheLastComponentUnrotated) {
    const int dk = 5;
    const Vec x = random_vec(dk, 114);
    Vec out(dk);
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 9);
    // θ_i uses dk = 5 here: compare the pairs with the formula for d = 5, the last value untouched
    for (int i = 0; i < 2; ++i) {
        const double theta = std::pow(10000.0, -2.0 * i / dk);
        const std::complex<double> r = std::complex<double>(x[2 * i], x[2 * i + 1]) * std::polar(1.0, 9 * theta);
        EXPECT_NEAR(out[2 * i], r.real(), 1e-12);
        EXPECT_NEAR(out[2 * i + 1], r.imag(), 1e-12);
    }
    EXPECT_EQ(out[4], x[4]);
}

// ---- backward ----

TEST(Backward, Rope) {
    for (auto [B, H, T, dk, pos0] : {std::tuple{1, 1, 1, 2, 0}, {2, 2, 3, 4, 5}, {1, 3, 4, 6, 0}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " pos0=" << pos0);
        Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 120 + dk);
        const Vec g = random_vec(x.size(), 121 + dk);
        Vec out(x.size());
        auto forward = [&] {
            tx::cpu::rope_forward(out.data(), x.data(), B, H, T, dk, pos0);
            return out;
        };
        Vec dx(x.size(), 0.0);
        tx::cpu::rope_backward(dx.data(), g.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
        check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
            tx::cpu::rope_backward(d[0].data(), g.data(), B, H, T, dk, pos0);
        });
    }
}

// ---- against PyTorch ----

TYPED_TEST(VariantOpFixtures, Rope) {
    using Real = TypeParam;
    for (const std::string p : {"rope", "rope_dk2"}) {
        SCOPED_TRACE(p);
        const std::string in = p + ".inp";
        const int B = dim(in, 0), H = dim(in, 1), T = dim(in, 2), dk = dim(in, 3);
        const int pos0 = params().at(p).at("pos0").get<int>();
        const std::vector<Real> x = values<Real>(in), g = values<Real>(p + ".dout");
        std::vector<Real> out(x.size()), dx(x.size(), Real(0));
        tx::cpu::rope_forward(out.data(), x.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(matches(out, p + ".out"));
        tx::cpu::rope_backward(dx.data(), g.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(matches(dx, p + ".dinp"));
    }
}

}  // namespace
