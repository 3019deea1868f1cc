// The softmax kernels' vector exp (core/kernels/softmax_kernels.h) on every instruction-set path
// this CPU can run (cpu_isa.h) against double exp: its error over the normal range, special values
// and the subnormal range, and each lane's result independent of its neighbours. The softmax ops
// built on it are tested with their ops: test_attention.cpp, test_softmax_fused.cpp, test_loss.cpp.
#include "tx/cpu_isa.h"
#include "kernels/softmax_kernels.h"

#include <gtest/gtest.h>

#include "support/every_path.h"
#include "support/softmax_rows.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using std::vector;
using tx::cpu::Isa;
using tx::test::NEG_INF;
using tx::test::PathGuard;

TEST(VectorExp, Within2e7RelativeOfDoubleExpOverTheNormalRange) {
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        if (isa == Isa::Generic) {
            EXPECT_EQ(k, nullptr) << "the generic path keeps the Eigen code";
            continue;
        }
        ASSERT_NE(k, nullptr);
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        // Every 61st float from -87.33 (e^x still normal) to 88.72 (e^x < FLT_MAX): ~21 M values,
        // negatives and positives alike, an odd stride so as not to fall on the same mantissas.
        vector<float> x, y;
        for (float v = -87.33f; v < 0.0f;) {
            x.push_back(v);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            bits -= 61;
            std::memcpy(&v, &bits, 4);
        }
        for (float v = 1e-30f; v < 88.72f;) {
            x.push_back(v);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            bits += 61;
            std::memcpy(&v, &bits, 4);
        }
        y.resize(x.size());
        k->exp(y.data(), x.data(), static_cast<int>(x.size()));
        double worst = 0;
        float worst_x = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double want = std::exp(static_cast<double>(x[i]));
            const double rel = std::fabs(y[i] - want) / want;
            if (rel > worst) {
                worst = rel;
                worst_x = x[i];
            }
        }
        // Measured 1.19e-7 on both paths: one ulp (2^-23) at the bottom of a binade. 2e-7 leaves room
        // for values between the samples, not for a wrong coefficient (that costs 1e-6 or more).
        EXPECT_LE(worst, 2e-7) << "at x = " << worst_x;
        std::printf("[ %s ] vector exp: max relative error %.3g (%.2f ulp of 2^-23) at x = %.9g over %zu values\n",
                    tx::cpu::isa_name(isa), worst, worst / 0x1p-23, worst_x, x.size());
    }
}

TEST(VectorExp, SpecialValuesAndTheSubnormalRange) {
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        if (isa == Isa::Generic) continue;
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        const float inf = std::numeric_limits<float>::infinity();
        const vector<float> x = {0.0f, -0.0f, NEG_INF, -104.5f, -1e30f, inf, 88.8f, 1e30f, std::nanf(""), 1.0f};
        vector<float> y(x.size());
        k->exp(y.data(), x.data(), static_cast<int>(x.size()));
        EXPECT_EQ(y[0], 1.0f);   // the row max's own term in softmax: exactly 1
        EXPECT_EQ(y[1], 1.0f);
        EXPECT_EQ(y[2], 0.0f);   // masked keys get exactly nothing
        EXPECT_EQ(y[3], 0.0f);
        EXPECT_EQ(y[4], 0.0f);
        EXPECT_EQ(y[5], inf);
        EXPECT_EQ(y[6], inf);
        EXPECT_EQ(y[7], inf);
        EXPECT_TRUE(std::isnan(y[8]));
        EXPECT_NEAR(y[9], 2.718281828, 3e-7);
        // Below -87.34 e^x is subnormal: within one subnormal step (2^-149) of the truth.
        vector<float> sub;
        for (float v = -103.9f; v < -87.34f; v += 0.00137f) sub.push_back(v);
        vector<float> ys(sub.size());
        k->exp(ys.data(), sub.data(), static_cast<int>(sub.size()));
        for (size_t i = 0; i < sub.size(); ++i)
            ASSERT_LE(std::fabs(ys[i] - std::exp(static_cast<double>(sub[i]))), 0x1p-149) << "x = " << sub[i];
    }
}

// The AVX2 exp gives lanes whose result rounds to 0 (masked keys) their 0 from a blend, and takes
// a slower route for vectors holding a true subnormal result; neither may change another lane's
// bits. Each value's exp in vectors mixed every way equals its exp computed alone.
TEST(VectorExp, ALanesResultDoesNotDependOnItsNeighbours) {
    PathGuard guard;
    const vector<float> kinds = {NEG_INF, -1e30f, -120.0f, -104.2f, -103.6f, -95.3f, -87.5f, -86.3f,
                                 -86.0f,  -50.0f, -3.25f,  0.0f,    0.3f,    1.5f,   88.5f};
    std::mt19937 rng(7);
    vector<float> x(4000);
    for (float& v : x) v = kinds[rng() % kinds.size()] * (1.0f + 1e-4f * static_cast<float>(rng() % 7));
    for (Isa isa : tx::cpu::supported_isas()) {
        if (isa == Isa::Generic) continue;
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        vector<float> together(x.size()), alone(x.size());
        k->exp(together.data(), x.data(), static_cast<int>(x.size()));
        for (size_t i = 0; i < x.size(); ++i) k->exp(&alone[i], &x[i], 1);
        for (size_t i = 0; i < x.size(); ++i)
            ASSERT_EQ(std::memcmp(&together[i], &alone[i], 4), 0)
                << "x = " << x[i] << ": " << together[i] << " beside others, " << alone[i] << " alone";
    }
}

}  // namespace
