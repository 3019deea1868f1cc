// A number's bits in FP32 / BF16 / FP16 (bit_layout.h). The rounding is half_float.h's, the one
// the low-precision runs use, so the value shown is the value those runs compute with.
#include "bit_layout.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "tx/half_float.h"

namespace tx::explain {

namespace {

// `count` bits of `bits` from bit `from` (its least significant) upward, most significant first.
std::string bit_text(uint32_t bits, int from, int count) {
    std::string out;
    for (int i = from + count - 1; i >= from; --i) out += ((bits >> i) & 1u) ? '1' : '0';
    return out;
}

}  // namespace

BitLayout bit_layout(float x, Precision format) {
    BitLayout b;
    b.format = format;
    int exponent_bits = 0, mantissa_bits = 0;
    switch (format) {
        case Precision::Fp32:
            std::memcpy(&b.bits, &x, sizeof b.bits);
            exponent_bits = 8, mantissa_bits = 23;
            b.value = x;
            break;
        case Precision::Bf16:
            b.bits = float_to_bf16_bits(x);
            exponent_bits = 8, mantissa_bits = 7;
            b.value = bf16_bits_to_float(static_cast<uint16_t>(b.bits));
            break;
        case Precision::Fp16:
            b.bits = float_to_fp16_bits(x);
            exponent_bits = 5, mantissa_bits = 10;
            b.value = fp16_bits_to_float(static_cast<uint16_t>(b.bits));
            break;
        case Precision::Int8: throw std::invalid_argument("INT8 is not a floating-point format: it has no sign | exponent | mantissa layout");
    }
    b.exponent_bias = (1 << (exponent_bits - 1)) - 1;
    b.sign = bit_text(b.bits, exponent_bits + mantissa_bits, 1);
    b.exponent = bit_text(b.bits, mantissa_bits, exponent_bits);
    b.mantissa = bit_text(b.bits, 0, mantissa_bits);
    const uint32_t field = (b.bits >> mantissa_bits) & ((1u << exponent_bits) - 1u);
    const uint32_t fraction = b.bits & ((1u << mantissa_bits) - 1u);
    b.special = field == (1u << exponent_bits) - 1u;
    b.subnormal = field == 0 && fraction != 0;
    b.power = field == 0 ? 1 - b.exponent_bias : static_cast<int>(field) - b.exponent_bias;
    return b;
}

}  // namespace tx::explain
