// The feed-forward activations (core/ops/ops_activation.cpp: GELU and SwiGLU; ReLU lives with the
// elementwise ops, test_elementwise.cpp): forwards against the papers' formulas written here by
// another route, backwards against central finite differences in double and the += rule, and the
// PyTorch fixture. Flat tensors of N values. CUDA twin: tests/gpu/test_activation_cuda.cpp.
#include "tx/ops.h"

#include "support/compare.h"
#include "support/finite_differences.h"
#include "support/variant_op_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace tx::test;

// ---- forward ----

TEST(Gelu, ForwardMatchesTheNormalCdfForm) {
    // Hendrycks & Gimpel: GELU(x) = x·Φ(x); Φ written here with erfc (another route than the op's erf)
    Vec x = random_vec(200, 160, -6.0, 6.0);
    x.insert(x.end(), {0.0, 1.0, -1.0, 40.0, -40.0});
    Vec ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = x[i] * 0.5 * std::erfc(-x[i] / std::sqrt(2.0));
    Vec out(x.size(), std::nan(""));
    tx::cpu::gelu_forward(out.data(), x.data(), static_cast<int>(x.size()));
    EXPECT_TRUE(close(out, ref, 1e-15, 1e-14));
    // printed values of torch.nn.functional.gelu (float64): gelu(1), gelu(-1)
    EXPECT_NEAR(out[201], 0.8413447460685429, 1e-15);
    EXPECT_NEAR(out[202], -0.15865525393145707, 1e-15);
    EXPECT_EQ(out[200], 0.0);
    EXPECT_EQ(out[203], 40.0);
    EXPECT_EQ(out[204], -0.0);
    std::vector<float> xf = to_float(x), of(x.size(), NAN);
    tx::cpu::gelu_forward(of.data(), xf.data(), static_cast<int>(x.size()));
    EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
    tx::cpu::gelu_forward(xf.data(), xf.data(), static_cast<int>(x.size()));   // in place
    EXPECT_TRUE(close(xf, of, 0.0, 0.0));
}

TEST(Swiglu, ForwardMatchesSiluTimesUp) {
    Vec gate = random_vec(100, 170, -8.0, 8.0), up = random_vec(100, 171, -2.0, 2.0);
    gate.insert(gate.end(), {0.0, 100.0, -100.0, -800.0});
    up.insert(up.end(), {1.5, 2.0, 3.0, 4.0});
    Vec ref(gate.size());
    for (size_t i = 0; i < gate.size(); ++i) ref[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
    const int N = static_cast<int>(gate.size());
    Vec out(gate.size(), std::nan(""));
    tx::cpu::swiglu_forward(out.data(), gate.data(), up.data(), N);
    EXPECT_TRUE(close(out, ref, 1e-15, 1e-14));
    EXPECT_EQ(out[100], 0.0);
    EXPECT_EQ(out[101], 200.0);
    EXPECT_EQ(out[103], -0.0);   // exp(800) overflows: σ = 0, no NaN
    std::vector<float> gf = to_float(gate), uf = to_float(up), of(gate.size(), NAN);
    tx::cpu::swiglu_forward(of.data(), gf.data(), uf.data(), N);
    EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
    tx::cpu::swiglu_forward(gf.data(), gf.data(), uf.data(), N);   // out == gate
    EXPECT_TRUE(close(gf, of, 0.0, 0.0));
}

// ---- backward ----

TEST(Backward, Gelu) {
    Vec x = random_vec(40, 180, -4.0, 4.0);
    const Vec g = random_vec(x.size(), 181);
    const int N = static_cast<int>(x.size());
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::gelu_forward(out.data(), x.data(), N);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::gelu_backward(dx.data(), g.data(), x.data(), N);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::gelu_backward(d[0].data(), g.data(), x.data(), N);
    });
}

TEST(Backward, Swiglu) {
    Vec gate = random_vec(40, 190, -6.0, 6.0), up = random_vec(40, 191, -2.0, 2.0);
    const Vec g = random_vec(gate.size(), 192);
    const int N = static_cast<int>(gate.size());
    Vec out(gate.size());
    auto forward = [&] {
        tx::cpu::swiglu_forward(out.data(), gate.data(), up.data(), N);
        return out;
    };
    Vec dgate(gate.size(), 0.0), dup(up.size(), 0.0);
    tx::cpu::swiglu_backward(dgate.data(), dup.data(), g.data(), gate.data(), up.data(), N);
    EXPECT_TRUE(gradients_match(dgate, numeric_grad(gate, g, forward)));
    EXPECT_TRUE(gradients_match(dup, numeric_grad(up, g, forward)));
    check_accumulates({gate.size(), up.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::swiglu_backward(d[0].data(), d[1].data(), g.data(), gate.data(), up.data(), N);
    });
}

// ---- against PyTorch ----

TYPED_TEST(VariantOpFixtures, GeluAndSwiglu) {
    using Real = TypeParam;
    const std::vector<Real> x = values<Real>("gelu.inp"), gx = values<Real>("gelu.dout");
    const int N = static_cast<int>(x.size());
    std::vector<Real> out(x.size()), dx(x.size(), Real(0));
    tx::cpu::gelu_forward(out.data(), x.data(), N);
    EXPECT_TRUE(matches(out, "gelu.out"));
    tx::cpu::gelu_backward(dx.data(), gx.data(), x.data(), N);
    EXPECT_TRUE(matches(dx, "gelu.dinp"));

    const std::vector<Real> gate = values<Real>("swiglu.gate"), up = values<Real>("swiglu.up");
    const std::vector<Real> g = values<Real>("swiglu.dout");
    const int M = static_cast<int>(gate.size());
    std::vector<Real> hidden(gate.size()), dgate(gate.size(), Real(0)), dup(up.size(), Real(0));
    tx::cpu::swiglu_forward(hidden.data(), gate.data(), up.data(), M);
    EXPECT_TRUE(matches(hidden, "swiglu.out"));
    tx::cpu::swiglu_backward(dgate.data(), dup.data(), g.data(), gate.data(), up.data(), M);
    EXPECT_TRUE(matches(dgate, "swiglu.dgate"));
    EXPECT_TRUE(matches(dup, "swiglu.dup"));
}

}  // namespace
