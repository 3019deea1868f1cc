// The op tests' gradient check, shared by the op files of tests/ops/: random inputs, dL/dx by
// central differences of L(x) = Σ g·forward(x) in double, the comparison, and the += rule.
// With h = 1e-6 the truncation error (~h²) and the rounding error (~1e-16·|L|/h) both sit far
// below the tolerance 1e-6·max(1, |ref|).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace tx::test {

using Vec = std::vector<double>;
constexpr double H_STEP = 1e-6;
constexpr double RTOL = 1e-6;

inline Vec random_vec(size_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Vec v(n);
    for (double& x : v) x = dist(rng);
    return v;
}

inline double dot(const Vec& a, const Vec& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

// dL/dx by central differences; forward() reads x (it captures it by reference) and returns the
// op's output. x is restored afterwards.
template <typename Forward>
Vec numeric_grad(Vec& x, const Vec& g, Forward forward) {
    Vec grad(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double saved = x[i];
        x[i] = saved + H_STEP;
        const double plus = dot(g, forward());
        x[i] = saved - H_STEP;
        const double minus = dot(g, forward());
        x[i] = saved;
        grad[i] = (plus - minus) / (2 * H_STEP);
    }
    return grad;
}

inline ::testing::AssertionResult gradients_match(const Vec& analytic, const Vec& numeric) {
    if (analytic.size() != numeric.size()) return ::testing::AssertionFailure() << "size mismatch";
    for (size_t i = 0; i < analytic.size(); ++i) {
        const double err = std::abs(analytic[i] - numeric[i]);
        if (!(err <= RTOL * std::max(1.0, std::abs(numeric[i]))))
            return ::testing::AssertionFailure() << "element " << i << ": analytic " << analytic[i]
                                                 << ", numeric " << numeric[i] << ", error " << err;
    }
    return ::testing::AssertionSuccess();
}

// Backward run twice gives twice the gradient: the += rule of ops.h.
inline void expect_twice(const Vec& once, const Vec& twice) {
    ASSERT_EQ(once.size(), twice.size());
    for (size_t i = 0; i < once.size(); ++i)
        EXPECT_NEAR(twice[i], 2 * once[i], 1e-12 * std::max(1.0, std::abs(once[i]))) << "at " << i;
}

// Runs backward(grads) once into zeroed buffers and twice into others: twice must give twice.
inline void check_accumulates(const std::vector<size_t>& sizes,
                              const std::function<void(std::vector<Vec>&)>& backward) {
    std::vector<Vec> once, twice;
    for (size_t n : sizes) {
        once.emplace_back(n, 0.0);
        twice.emplace_back(n, 0.0);
    }
    backward(once);
    backward(twice);
    backward(twice);
    for (size_t k = 0; k < sizes.size(); ++k) expect_twice(once[k], twice[k]);
}

}  // namespace tx::test
