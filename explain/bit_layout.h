// One number's bits in FP32, BF16 or FP16: sign | exponent | mantissa, and the value those bits
// hold. The Precision panel draws them for one real weight of the model; the lesson "Numbers have
// precision" reads them. Pure: no ImGui.
//   FP32: 1 sign, 8 exponent (bias 127), 23 mantissa bits.
//   BF16: 1 sign, 8 exponent (bias 127),  7 mantissa bits (FP32's top 16 bits, rounded).
//   FP16: 1 sign, 5 exponent (bias 15),  10 mantissa bits.
#pragma once
#include <cstdint>
#include <string>

#include "tx/precision.h"

namespace tx::explain {

struct BitLayout {
    Precision format = Precision::Fp32;
    uint32_t bits = 0;          // the encoding, in the low 32 / 16 bits
    std::string sign;           // "0" or "1"
    std::string exponent;       // 8 or 5 characters '0'/'1', most significant first
    std::string mantissa;       // 23, 7 or 10 characters
    int exponent_bias = 0;      // 127 or 15
    int power = 0;              // the unbiased exponent: value = ±1.mantissa · 2^power (normal values)
    bool subnormal = false;     // exponent field 0, mantissa not 0: ±0.mantissa · 2^(1 − bias)
    bool special = false;       // exponent field all ones: inf or NaN
    double value = 0.0;         // what the bits hold: x rounded to the format (nearest, ties to even)
};

// x written in `format` (Fp32, Bf16 or Fp16; throws std::invalid_argument for Int8, which is not
// a floating-point format).
BitLayout bit_layout(float x, Precision format);

}  // namespace tx::explain
