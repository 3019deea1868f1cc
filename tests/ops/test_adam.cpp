// The Adam update (core/ops/ops_adam.cpp) against steps worked by hand and against the paper's
// Algorithm 1 (Kingma & Ba 2015, bias-corrected moments) in double on every instruction-set path,
// at lengths that cut the vectors anywhere, and 1 thread = 2 threads bit for bit. Flat tensors of n
// parameters, moments and gradients. CUDA twin: tests/gpu/test_adam_cuda.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/every_path.h"
#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using std::vector;
using Floats = std::vector<float>;
using namespace tx::test;

// Three Adam steps from the paper's Algorithm 1 in double (bias-corrected moments).
void adam_reference(std::vector<double>& p, std::vector<double>& m, std::vector<double>& v, const Floats& g,
                    double lr, double b1, double b2, double eps, int t) {
    for (size_t i = 0; i < p.size(); ++i) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        const double mhat = m[i] / (1 - std::pow(b1, t)), vhat = v[i] / (1 - std::pow(b2, t));
        p[i] -= lr * mhat / (std::sqrt(vhat) + eps);
    }
}

// ---- by hand ----

// lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8; parameter 1.0 with gradient 0.5 then -1.0.
// step 1: m = 0.05, v = 0.00025, m̂ = 0.05/0.1 = 0.5, v̂ = 0.00025/0.001 = 0.25,
//         p = 1 - 0.1 * 0.5/(0.5 + 1e-8) = 0.900000002
// step 2: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975,
//         m̂ = -0.055/0.19 = -0.2894736842, v̂ = 0.00124975/0.001999 = 0.6251875938, √v̂ = 0.7906880509,
//         p = 0.900000002 + 0.1 * 0.2894736842/(0.7906880509 + 1e-8) = 0.9366103542
// A second parameter with gradient 0 stays where it is.
TEST(Adam, OneAndTwoStepsByHand) {
    vector<double> p = {1.0, -2.0}, m(2, 0.0), v(2, 0.0);
    vector<double> g = {0.5, 0.0};
    tx::cpu::adam_update(p.data(), m.data(), v.data(), g.data(), 2, 0.1, 0.9, 0.999, 1e-8, 1);
    EXPECT_NEAR(m[0], 0.05, 1e-15);
    EXPECT_NEAR(v[0], 0.00025, 1e-15);
    EXPECT_NEAR(p[0], 0.900000002, 1e-12);
    EXPECT_EQ(p[1], -2.0);
    g = {-1.0, 0.0};
    tx::cpu::adam_update(p.data(), m.data(), v.data(), g.data(), 2, 0.1, 0.9, 0.999, 1e-8, 2);
    EXPECT_NEAR(m[0], -0.055, 1e-15);
    EXPECT_NEAR(v[0], 0.00124975, 1e-15);
    EXPECT_NEAR(p[0], 0.9366103542405654, 1e-12);
    EXPECT_EQ(p[1], -2.0);

    vector<float> pf = {1.0f}, mf = {0.0f}, vf = {0.0f};
    const float g1 = 0.5f, g2 = -1.0f;
    tx::cpu::adam_update(pf.data(), mf.data(), vf.data(), &g1, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 1);
    tx::cpu::adam_update(pf.data(), mf.data(), vf.data(), &g2, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 2);
    EXPECT_NEAR(pf[0], 0.9366103542405654, 1e-6);
}

// ---- every instruction-set path ----

TEST(ElementwiseKernels, AdamMatchesTheDefinitionOnEveryPathAndLength) {
    on_every_path([] {
        for (int n : {1, 7, 15, 16, 17, 33, 1000, 1025}) {
            SCOPED_TRACE("n = " + std::to_string(n));
            const size_t N = static_cast<size_t>(n);
            Floats p = random_floats(N, 21u + static_cast<unsigned>(n), -2.0f, 2.0f), m(N + 1, 0.0f), v(N + 1, 0.0f);
            std::vector<double> pd(p.begin(), p.end()), md(N, 0.0), vd(N, 0.0);
            p.push_back(99.0f);   // guard values past the end
            for (int t = 1; t <= 3; ++t) {
                const Floats g = random_floats(N, 100u * static_cast<unsigned>(t) + static_cast<unsigned>(n), -2.0f, 2.0f);
                tx::cpu::adam_update<float>(p.data(), m.data(), v.data(), g.data(), n, 1e-2f, 0.9f, 0.98f, 1e-9f, t);
                adam_reference(pd, md, vd, g, 1e-2, 0.9f, 0.98f, 1e-9f, t);
            }
            for (size_t i = 0; i < N; ++i) {
                EXPECT_NEAR(p[i], pd[i], 1e-6 + 1e-5 * std::fabs(pd[i])) << "i = " << i;
                EXPECT_NEAR(m[i], md[i], 1e-6 + 1e-5 * std::fabs(md[i])) << "i = " << i;
                EXPECT_NEAR(v[i], vd[i], 1e-7 + 1e-5 * std::fabs(vd[i])) << "i = " << i;
            }
            EXPECT_EQ(p[N], 99.0f);
            EXPECT_EQ(m[N], 0.0f);
            EXPECT_EQ(v[N], 0.0f);
        }
    });
}

TEST(ElementwiseKernels, AdamGivesTheSameBitsOnOneAndTwoThreads) {
    const int n = 40001;   // 40 chunks of 1024 and a partial one: shared between two threads
    const size_t N = static_cast<size_t>(n);
    const Floats g = random_floats(N, 31, -2.0f, 2.0f), start = random_floats(N, 32, -2.0f, 2.0f);
    const int before = tx::cpu_threads();
    on_every_path([&] {
        // the same buffers for both runs: Eigen's generic code rounds an unaligned start differently
        Floats p(N), m(N), v(N), result[2][3];
        for (int threads : {1, 2}) {
            tx::set_cpu_threads(threads);
            p = start;
            std::fill(m.begin(), m.end(), 0.0f);
            std::fill(v.begin(), v.end(), 0.0f);
            for (int t = 1; t <= 2; ++t)
                tx::cpu::adam_update<float>(p.data(), m.data(), v.data(), g.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, t);
            result[threads - 1][0] = p;
            result[threads - 1][1] = m;
            result[threads - 1][2] = v;
        }
        for (int k = 0; k < 3; ++k) EXPECT_EQ(result[0][k], result[1][k]) << "buffer " << k;
    });
    tx::set_cpu_threads(before);
}

}  // namespace
