// The op tests' gradient checker (support/finite_differences.h) itself: it passes a right gradient
// (a linear layer's weight gradient) and catches a scaled one, one wrong element and a NaN.
#include "tx/ops.h"

#include "support/finite_differences.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace {

using namespace tx::test;

TEST(GradCheck, CatchesAWrongGradient) {
    const int N = 3, C = 4, OC = 2;
    Vec x = random_vec(N * C, 1), w = random_vec(OC * C, 2);
    const Vec g = random_vec(N * OC, 3);
    Vec out(N * OC);
    auto forward = [&] {
        tx::cpu::linear_forward(out.data(), x.data(), w.data(), static_cast<const double*>(nullptr), N, C, OC);
        return out;
    };
    Vec dw(w.size(), 0.0);
    tx::cpu::linear_backward<double>(nullptr, dw.data(), nullptr, g.data(), x.data(), w.data(), N, C, OC);
    const Vec numeric = numeric_grad(w, g, forward);
    EXPECT_TRUE(gradients_match(dw, numeric));

    Vec scaled = dw;
    for (double& d : scaled) d *= 1.01;
    EXPECT_FALSE(gradients_match(scaled, numeric));
    Vec perturbed = dw;
    perturbed[5] += 1e-4;
    EXPECT_FALSE(gradients_match(perturbed, numeric));
    Vec nan_grad = dw;
    nan_grad[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(gradients_match(nan_grad, numeric));
}

}  // namespace
