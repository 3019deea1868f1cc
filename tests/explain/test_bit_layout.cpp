// bit_layout (explain/bit_layout.h) against encodings worked out by hand from the formats'
// definitions (IEEE 754 binary32 / binary16, bfloat16 = binary32's top 16 bits, rounded to
// nearest with ties to even); the working is in each comment.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "bit_layout.h"

namespace tx::explain {
namespace {

TEST(BitLayout, PointOneInEachFormat) {
    // 0.1 = 1.6 · 2^-4. FP32: exponent 123 = 01111011, mantissa 0.6·2^23 = 5033164.8 -> 5033165
    // = 10011001100110011001101 (0x3DCCCCCD).
    const BitLayout f = bit_layout(0.1f, Precision::Fp32);
    EXPECT_EQ(f.bits, 0x3DCCCCCDu);
    EXPECT_EQ(f.sign, "0");
    EXPECT_EQ(f.exponent, "01111011");
    EXPECT_EQ(f.mantissa, "10011001100110011001101");
    EXPECT_EQ(f.power, -4);
    EXPECT_EQ(f.exponent_bias, 127);
    EXPECT_EQ(f.value, static_cast<double>(0.1f));
    // BF16: 0.6·2^7 = 76.8 -> 77 = 1001101 (0x3DCD); value (1 + 77/128)/16 = 205/2048.
    const BitLayout b = bit_layout(0.1f, Precision::Bf16);
    EXPECT_EQ(b.bits, 0x3DCDu);
    EXPECT_EQ(b.exponent, "01111011");
    EXPECT_EQ(b.mantissa, "1001101");
    EXPECT_EQ(b.power, -4);
    EXPECT_EQ(b.value, 205.0 / 2048.0);
    // FP16: exponent −4 + 15 = 11 = 01011, mantissa 0.6·2^10 = 614.4 -> 614 = 1001100110 (0x2E66);
    // value (1 + 614/1024)/16 = 1638/16384.
    const BitLayout h = bit_layout(0.1f, Precision::Fp16);
    EXPECT_EQ(h.bits, 0x2E66u);
    EXPECT_EQ(h.sign, "0");
    EXPECT_EQ(h.exponent, "01011");
    EXPECT_EQ(h.mantissa, "1001100110");
    EXPECT_EQ(h.exponent_bias, 15);
    EXPECT_EQ(h.power, -4);
    EXPECT_EQ(h.value, 1638.0 / 16384.0);
    EXPECT_FALSE(h.subnormal || h.special);
}

TEST(BitLayout, ANegativeNumberExactInEveryFormat) {
    // −2.5 = −1.25 · 2^1: sign 1, mantissa .01.
    const BitLayout f = bit_layout(-2.5f, Precision::Fp32);
    EXPECT_EQ(f.bits, 0xC0200000u);
    EXPECT_EQ(f.sign, "1");
    EXPECT_EQ(f.exponent, "10000000");   // 1 + 127 = 128
    EXPECT_EQ(f.power, 1);
    const BitLayout b = bit_layout(-2.5f, Precision::Bf16);
    EXPECT_EQ(b.bits, 0xC020u);
    EXPECT_EQ(b.mantissa, "0100000");
    EXPECT_EQ(b.value, -2.5);
    const BitLayout h = bit_layout(-2.5f, Precision::Fp16);
    EXPECT_EQ(h.bits, 0xC100u);           // 1 10000 0100000000
    EXPECT_EQ(h.exponent, "10000");       // 1 + 15 = 16
    EXPECT_EQ(h.mantissa, "0100000000");
    EXPECT_EQ(h.value, -2.5);
}

TEST(BitLayout, TiesRoundToEven) {
    // 1 + 2^-8 is halfway between BF16's 1 and 1 + 2^-7: to the even mantissa, 1.
    EXPECT_EQ(bit_layout(1.0f + std::ldexp(1.0f, -8), Precision::Bf16).value, 1.0);
    // 1 + 3·2^-8 is halfway between 1 + 2^-7 (mantissa 1, odd) and 1 + 2·2^-7 (mantissa 2, even).
    const BitLayout b = bit_layout(1.0f + 3.0f * std::ldexp(1.0f, -8), Precision::Bf16);
    EXPECT_EQ(b.mantissa, "0000010");
    EXPECT_EQ(b.value, 1.0 + 2.0 / 128.0);
}

TEST(BitLayout, Fp16SubnormalsAndOverflow) {
    // 2^-20 is below FP16's smallest normal 2^-14: exponent field 0, mantissa 2^-20 / 2^-24 = 16.
    const BitLayout s = bit_layout(std::ldexp(1.0f, -20), Precision::Fp16);
    EXPECT_TRUE(s.subnormal);
    EXPECT_EQ(s.exponent, "00000");
    EXPECT_EQ(s.mantissa, "0000010000");
    EXPECT_EQ(s.power, -14);
    EXPECT_EQ(s.value, std::ldexp(1.0, -20));
    // 65520 rounds up past 65504 (FP16's largest): inf, exponent all ones, mantissa 0.
    const BitLayout o = bit_layout(65520.0f, Precision::Fp16);
    EXPECT_TRUE(o.special);
    EXPECT_EQ(o.exponent, "11111");
    EXPECT_EQ(o.mantissa, "0000000000");
    EXPECT_TRUE(std::isinf(o.value));
    // BF16 keeps FP32's exponent: 65520 is an ordinary number there (65536 after rounding).
    EXPECT_EQ(bit_layout(65520.0f, Precision::Bf16).value, 65536.0);
}

TEST(BitLayout, Int8HasNoLayout) { EXPECT_THROW(bit_layout(1.0f, Precision::Int8), std::invalid_argument); }

}  // namespace
}  // namespace tx::explain
