// Comparing an op's output with its reference: element by element within atol + rtol·|ref|, or bit
// for bit. Non-finite references are compared as such, never skipped. Shared by the op tests in
// tests/ops/ (one file per op of core/ops/).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tx::test {

inline std::vector<double> to_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }
inline std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// One EXPECT per element, naming its index; a non-finite reference must be matched exactly.
inline void expect_close(const std::vector<float>& got, const std::vector<double>& ref, double atol, double rtol) {
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(ref[i])) {
            EXPECT_EQ(static_cast<double>(got[i]), ref[i]) << "at " << i;
            continue;
        }
        EXPECT_NEAR(got[i], ref[i], atol + rtol * std::abs(ref[i])) << "at " << i;
    }
}

// |got - ref| <= atol + rtol·|ref| everywhere; non-finite references must be matched exactly.
template <typename A, typename B>
::testing::AssertionResult close(const std::vector<A>& got, const std::vector<B>& ref, double atol, double rtol) {
    if (got.size() != ref.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << ref.size();
    for (size_t i = 0; i < ref.size(); ++i) {
        const double g = got[i], r = ref[i];
        const bool ok = std::isfinite(r) ? std::abs(g - r) <= atol + rtol * std::abs(r) : g == r;
        if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << r;
    }
    return ::testing::AssertionSuccess();
}

// One value: |got − want| ≤ atol + rtol·|want|; -inf, inf and NaN must match as such.
inline ::testing::AssertionResult close(float got, double want, double atol, double rtol) {
    if (std::isnan(want)) {
        if (std::isnan(got)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", want NaN";
    }
    if (std::isinf(want)) {
        if (static_cast<double>(got) == want) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", want " << want;
    }
    if (std::fabs(got - want) <= atol + rtol * std::fabs(want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (off by " << got - want << ")";
}

// A float's bit pattern, for bit-for-bit checks that tell -0 from +0.
inline uint32_t bits(float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

}  // namespace tx::test
