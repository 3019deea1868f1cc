// The modern variants' ops against an independent PyTorch reference: tests/gen_variant_op_fixtures.py
// writes fixtures/variant_ops.safetensors (inputs rounded to float32, forward and autograd gradients of
// a fixed upstream gradient in float64, stored as F32) from the papers' formulas. Each op runs here in
// float (the model's type) and in double on the same inputs; backwards start from zero buffers.
// Tolerance atol + rtol·|ref|: the stored references carry one float rounding (6e-8 relative).
#include "tx/ops.h"
#include "tx/safetensors.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

const tx::SafetensorsFile& fixture() {
    static const tx::SafetensorsFile file =
        tx::read_safetensors(std::string(TX_SOURCE_DIR) + "/tests/fixtures/variant_ops.safetensors");
    return file;
}

const nlohmann::json& params() {
    static const nlohmann::json p = nlohmann::json::parse(fixture().metadata.at("params"));
    return p;
}

const tx::NamedTensor& tensor(const std::string& name) {
    const tx::NamedTensor* t = fixture().find(name);
    if (!t) throw std::runtime_error("variant_ops.safetensors has no tensor " + name);
    return *t;
}

template <typename Real>
std::vector<Real> values(const std::string& name) {
    const std::vector<float>& d = tensor(name).data;
    return std::vector<Real>(d.begin(), d.end());
}

int dim(const std::string& name, int axis) { return static_cast<int>(tensor(name).shape.at(axis)); }

template <typename Real>
::testing::AssertionResult matches(const std::vector<Real>& got, const std::string& ref_name) {
    // float ops: their own roundings on top of the reference's; double ops: the reference's rounding only
    const double tol = sizeof(Real) == 4 ? 2e-6 : 2e-7;
    const std::vector<float>& ref = tensor(ref_name).data;
    if (got.size() != ref.size())
        return ::testing::AssertionFailure() << ref_name << ": " << got.size() << " values vs " << ref.size();
    for (size_t i = 0; i < ref.size(); ++i) {
        const double g = got[i], r = ref[i];
        if (!(std::abs(g - r) <= tol + tol * std::abs(r)))
            return ::testing::AssertionFailure() << ref_name << "[" << i << "]: got " << g << ", PyTorch " << r;
    }
    return ::testing::AssertionSuccess();
}

template <typename Real>
class VariantOpFixtures : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VariantOpFixtures, Reals);

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

TYPED_TEST(VariantOpFixtures, LearnedPositions) {
    using Real = TypeParam;
    const int B = dim("learned.inp", 0), T = dim("learned.inp", 1), D = dim("learned.inp", 2);
    const std::vector<Real> x = values<Real>("learned.inp"), table = values<Real>("learned.table");
    const std::vector<Real> g = values<Real>("learned.dout");
    std::vector<Real> out(x.size()), dx(x.size(), Real(0)), dtable(table.size(), Real(0));
    tx::cpu::positional_forward(out.data(), x.data(), table.data(), B, T, D);
    EXPECT_TRUE(matches(out, "learned.out"));
    tx::cpu::positional_backward(dx.data(), g.data(), B, T, D);
    EXPECT_TRUE(matches(dx, "learned.dinp"));
    tx::cpu::learned_positional_backward(dtable.data(), g.data(), B, T, D);
    EXPECT_TRUE(matches(dtable, "learned.dtable"));
}

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

TYPED_TEST(VariantOpFixtures, RmsNorm) {
    using Real = TypeParam;
    for (const std::string p : {"rmsnorm", "rmsnorm_eps"}) {
        SCOPED_TRACE(p);
        const int N = dim(p + ".inp", 0), C = dim(p + ".inp", 1);
        const Real eps = static_cast<Real>(params().at(p).at("eps").get<double>());
        const std::vector<Real> x = values<Real>(p + ".inp"), w = values<Real>(p + ".weight");
        const std::vector<Real> g = values<Real>(p + ".dout");
        std::vector<Real> out(x.size()), rstd(N), dx(x.size(), Real(0)), dw(w.size(), Real(0));
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        EXPECT_TRUE(matches(out, p + ".out"));
        EXPECT_TRUE(matches(rstd, p + ".rstd"));
        tx::cpu::rmsnorm_backward(dx.data(), dw.data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
        EXPECT_TRUE(matches(dx, p + ".dinp"));
        EXPECT_TRUE(matches(dw, p + ".dweight"));
    }
}

}  // namespace
