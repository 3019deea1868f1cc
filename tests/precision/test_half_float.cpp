// BF16/FP16 conversions (tx/half_float.h) against a reference written from the formats'
// definitions and nothing else: every finite half value decoded from its fields in double, and
// float -> half as "the nearer of the two neighbouring half values, ties to the even code, and
// beyond the largest finite value as if the next one were 2^16 (FP16) or 2^128 (BF16)", IEEE
// 754's overflow rule. Every array form runs on every path (tests/support/every_path.h) at odd lengths.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "support/every_path.h"
#include "tx/half_float.h"

namespace {

// A half format's finite non-negative codes 0..max_code increase with their value.
struct HalfFormat {
    int mantissa_bits, exponent_bias;
    uint16_t max_code, inf_code;
    double overflow_next;   // the value a code after max_code would have
    double value(uint16_t code) const {   // code without sign, finite
        const int e = code >> mantissa_bits;
        const int m = code & ((1 << mantissa_bits) - 1);
        if (e == 0) return std::ldexp(static_cast<double>(m), 1 - exponent_bias - mantissa_bits);
        return std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -mantissa_bits), e - exponent_bias);
    }
};
const HalfFormat FP16{10, 15, 0x7BFF, 0x7C00, 65536.0};
const HalfFormat BF16{7, 127, 0x7F7F, 0x7F80, std::ldexp(1.0, 128)};

// The reference rounding of a finite or infinite x (NaN is checked separately).
uint16_t reference_round(const HalfFormat& f, float x) {
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(static_cast<double>(x));
    if (std::isinf(a)) return sign | f.inf_code;
    uint32_t lo = 0, hi = f.max_code;   // largest code with value <= a
    if (a >= f.value(f.max_code)) lo = f.max_code;
    else {
        while (lo < hi) {
            const uint32_t mid = (lo + hi + 1) / 2;
            if (f.value(static_cast<uint16_t>(mid)) <= a) lo = mid;
            else hi = mid - 1;
        }
    }
    const double below = f.value(static_cast<uint16_t>(lo));
    const double above = lo == f.max_code ? f.overflow_next : f.value(static_cast<uint16_t>(lo + 1));
    if (a == below) return static_cast<uint16_t>(sign | lo);
    const double to_below = a - below, to_above = above - a;
    uint32_t code = to_below < to_above ? lo : to_below > to_above ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1);
    if (code > f.max_code) code = f.inf_code;
    return static_cast<uint16_t>(sign | code);
}

// NaN: quiet, sign and the top of the payload kept.
uint16_t reference_nan(const HalfFormat& f, float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint16_t sign = (bits >> 31) ? 0x8000 : 0;
    const int dropped = 23 - f.mantissa_bits;
    const uint16_t payload = static_cast<uint16_t>((bits & 0x7FFFFF) >> dropped);
    return static_cast<uint16_t>(sign | f.inf_code | payload | (1u << (f.mantissa_bits - 1)));
}

uint16_t reference(const HalfFormat& f, float x) { return std::isnan(x) ? reference_nan(f, x) : reference_round(f, x); }

float bits_float(uint32_t b) { return std::bit_cast<float>(b); }

// Edge cases, every midpoint between neighbouring halves (the ties) and a float step either side,
// and random bit patterns; both signs.
std::vector<float> inputs(const HalfFormat& f) {
    std::vector<float> v = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(), 65504.0f, 65519.0f, 65520.0f, 65536.0f, 1e6f,
                            std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), std::ldexp(3.0f, -26), std::ldexp(3.0f, -25), std::ldexp(1.0f, -14),
                            128.0f, 128.5f, 129.5f, 1.00390625f, 1.01171875f, 3.14159265f,
                            bits_float(0x7FC00000), bits_float(0xFFC00001), bits_float(0x7F800001),   // quiet, signalling NaNs
                            bits_float(0x7FA00000), bits_float(0xFF812345), bits_float(0x7FFFFFFF)};
    for (uint32_t code = 0; code < f.max_code; ++code) {
        const double mid = (f.value(static_cast<uint16_t>(code)) + f.value(static_cast<uint16_t>(code + 1))) / 2;
        const float m = static_cast<float>(mid);
        if (static_cast<double>(m) != mid) continue;   // a tie that float cannot hold (none for these formats)
        if (f.mantissa_bits == 7 && code % 7 != 0) continue;   // BF16: a sample of its 32639 ties
        v.insert(v.end(), {m, std::nextafter(m, 0.0f), std::nextafter(m, INFINITY)});
    }
    const double top = (f.value(f.max_code) + f.overflow_next) / 2;   // the tie at the overflow
    v.insert(v.end(), {static_cast<float>(top), std::nextafter(static_cast<float>(top), 0.0f)});
    std::mt19937 rng(7);
    for (int i = 0; i < 100000; ++i) v.push_back(bits_float(static_cast<uint32_t>(rng())));
    const size_t n = v.size();
    for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
    if (v.size() % 8 == 0) v.push_back(1.5f);   // an odd length: the kernels' tail runs too
    return v;
}

TEST(HalfFloat, ScalarFp16RoundsAsSpecified) {
    for (float x : inputs(FP16)) ASSERT_EQ(tx::float_to_fp16_bits(x), reference(FP16, x)) << "x = " << x << " bits " << std::hex << std::bit_cast<uint32_t>(x);
}

TEST(HalfFloat, ScalarBf16RoundsAsSpecified) {
    for (float x : inputs(BF16)) ASSERT_EQ(tx::float_to_bf16_bits(x), reference(BF16, x)) << "x = " << x << " bits " << std::hex << std::bit_cast<uint32_t>(x);
}

TEST(HalfFloat, NamedValues) {
    EXPECT_EQ(tx::float_to_bf16_bits(128.5f), tx::float_to_bf16_bits(128.0f));     // 8 mantissa bits: steps of 1 at 128
    EXPECT_EQ(tx::bf16_bits_to_float(tx::float_to_bf16_bits(129.5f)), 130.0f);     // the tie goes to the even 130
    EXPECT_EQ(tx::fp16_bits_to_float(tx::float_to_fp16_bits(65504.0f)), 65504.0f);
    EXPECT_EQ(tx::fp16_bits_to_float(tx::float_to_fp16_bits(65519.0f)), 65504.0f);
    EXPECT_TRUE(std::isinf(tx::fp16_bits_to_float(tx::float_to_fp16_bits(65520.0f))));
    EXPECT_EQ(tx::float_to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000);             // half the smallest subnormal: to even 0
    EXPECT_EQ(tx::float_to_fp16_bits(std::ldexp(3.0f, -26)), 0x0001);             // 0.75 of a 2^-24 step: 1 step
    EXPECT_EQ(tx::float_to_fp16_bits(std::ldexp(3.0f, -25)), 0x0002);             // 1.5 steps, a tie: to even 2
    EXPECT_EQ(tx::float_to_fp16_bits(-0.0f), 0x8000);
    EXPECT_EQ(tx::float_to_bf16_bits(-0.0f), 0x8000);
    EXPECT_EQ(tx::float_to_bf16_bits(std::numeric_limits<float>::max()), 0x7F80);  // beyond BF16's largest: inf
}

TEST(HalfFloat, DecodingEveryHalfIsExact) {
    for (uint32_t code = 0; code < 0x10000; ++code) {
        const auto h = static_cast<uint16_t>(code);
        for (const HalfFormat* f : {&FP16, &BF16}) {
            const float got = f == &FP16 ? tx::fp16_bits_to_float(h) : tx::bf16_bits_to_float(h);
            const uint16_t magnitude = h & 0x7FFF;
            const bool negative = h & 0x8000;
            if (magnitude > f->inf_code) {
                ASSERT_TRUE(std::isnan(got)) << std::hex << code;
                ASSERT_EQ(std::signbit(got), negative);
                ASSERT_EQ(reference_nan(*f, got), h | (1u << (f->mantissa_bits - 1))) << std::hex << code;   // round trip
                continue;
            }
            const double ref = magnitude == f->inf_code ? INFINITY : f->value(magnitude);
            ASSERT_EQ(static_cast<double>(got), negative ? -ref : ref) << std::hex << code;
            ASSERT_EQ(std::signbit(got), negative) << std::hex << code;
        }
    }
}

TEST(HalfFloat, ArraysGiveTheScalarBitsOnEveryPath) {
    for (const HalfFormat* f : {&FP16, &BF16}) {
        const bool fp16 = f == &FP16;
        const std::vector<float> x = inputs(*f);
        const auto n = static_cast<int64_t>(x.size());
        std::vector<uint16_t> expected(x.size());
        for (size_t i = 0; i < x.size(); ++i) expected[i] = reference(*f, x[i]);
        tx::test::on_every_path([&] {
            std::vector<uint16_t> halves(x.size());
            if (fp16) tx::floats_to_fp16(halves.data(), x.data(), n);
            else tx::floats_to_bf16(halves.data(), x.data(), n);
            for (size_t i = 0; i < x.size(); ++i)
                ASSERT_EQ(halves[i], expected[i]) << (fp16 ? "fp16" : "bf16") << " x = " << x[i] << " at " << i;
            std::vector<float> back(x.size()), rounded(x.size());
            if (fp16) tx::fp16_to_floats(back.data(), halves.data(), n);
            else tx::bf16_to_floats(back.data(), halves.data(), n);
            tx::round_floats(rounded.data(), x.data(), n, fp16 ? tx::Precision::Fp16 : tx::Precision::Bf16);
            for (size_t i = 0; i < x.size(); ++i) {
                const float scalar = fp16 ? tx::fp16_bits_to_float(halves[i]) : tx::bf16_bits_to_float(halves[i]);
                ASSERT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(scalar)) << i;
                ASSERT_EQ(std::bit_cast<uint32_t>(rounded[i]), std::bit_cast<uint32_t>(scalar)) << i;
            }
            // Every length up to 19 from an odd offset: the tails write exactly their n values.
            for (int len = 0; len <= 19; ++len) {
                std::vector<float> out(32, -7.0f);
                tx::round_floats(out.data() + 3, x.data() + 5, len, fp16 ? tx::Precision::Fp16 : tx::Precision::Bf16);
                for (int i = 0; i < 32; ++i) {
                    if (i >= 3 && i < 3 + len)
                        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(rounded[i - 3 + 5]));
                    else
                        ASSERT_EQ(out[i], -7.0f) << "length " << len << " wrote outside at " << i;
                }
            }
            // In place (out == in), as the precision backend rounds step outputs.
            std::vector<float> in_place = x;
            tx::round_floats(in_place.data(), in_place.data(), n, fp16 ? tx::Precision::Fp16 : tx::Precision::Bf16);
            for (size_t i = 0; i < x.size(); ++i)
                ASSERT_EQ(std::bit_cast<uint32_t>(in_place[i]), std::bit_cast<uint32_t>(rounded[i]));
        });
    }
}

TEST(HalfFloat, Fp16DecodesEveryCodeTheSameOnEveryPath) {
    std::vector<uint16_t> codes(0x10001);   // one more than 2^16: an odd tail
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint16_t>(i);
    tx::test::on_every_path([&] {
        std::vector<float> out(codes.size()), bf(codes.size());
        tx::fp16_to_floats(out.data(), codes.data(), static_cast<int64_t>(codes.size()));
        tx::bf16_to_floats(bf.data(), codes.data(), static_cast<int64_t>(codes.size()));
        for (size_t i = 0; i < codes.size(); ++i) {
            ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(tx::fp16_bits_to_float(codes[i]))) << std::hex << i;
            ASSERT_EQ(std::bit_cast<uint32_t>(bf[i]), std::bit_cast<uint32_t>(tx::bf16_bits_to_float(codes[i]))) << std::hex << i;
        }
    });
}

}  // namespace
