// The modern variants' ops against an independent PyTorch reference: tests/gen_variant_op_fixtures.py
// writes fixtures/variant_ops.safetensors (inputs rounded to float32, forward and autograd gradients of
// a fixed upstream gradient in float64, stored as F32) from the papers' formulas. Each op runs in
// float (the model's type) and in double on the same inputs (the typed suite VariantOpFixtures, whose
// tests sit in each op's file); backwards start from zero buffers.
// Tolerance atol + rtol·|ref|: the stored references carry one float rounding (6e-8 relative).
#pragma once
#include "tx/safetensors.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tx::test {

inline const tx::SafetensorsFile& fixture() {
    static const tx::SafetensorsFile file =
        tx::read_safetensors(std::string(TX_SOURCE_DIR) + "/tests/fixtures/variant_ops.safetensors");
    return file;
}

inline const nlohmann::json& params() {
    static const nlohmann::json p = nlohmann::json::parse(fixture().metadata.at("params"));
    return p;
}

inline const tx::NamedTensor& tensor(const std::string& name) {
    const tx::NamedTensor* t = fixture().find(name);
    if (!t) throw std::runtime_error("variant_ops.safetensors has no tensor " + name);
    return *t;
}

template <typename Real>
std::vector<Real> values(const std::string& name) {
    const std::vector<float>& d = tensor(name).data;
    return std::vector<Real>(d.begin(), d.end());
}

inline int dim(const std::string& name, int axis) { return static_cast<int>(tensor(name).shape.at(axis)); }

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

// One fixture type for the suite's tests in every op file (GoogleTest requires one class per suite).
template <typename Real>
class VariantOpFixtures : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VariantOpFixtures, Reals);

}  // namespace tx::test
