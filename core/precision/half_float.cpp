// half_float.h: the scalar conversions, written from the formats' definitions (IEEE 754-2008
// binary16; bfloat16 = the upper half of binary32), and the array forms' choice of path: the
// AVX2 + F16C kernels (half_convert_avx2.cpp) where the active path is AVX2 or AVX-512 and the CPU
// has F16C, else these scalar loops.
#include "tx/half_float.h"

#include <bit>
#include <cmath>

#include "tx/cpu_isa.h"
#include "kernels/half_convert_kernels.h"

namespace tx {

namespace {

bool use_kernels() { return cpu::cpu_has_f16c() && cpu::active_isa() != cpu::Isa::Generic; }

}  // namespace

uint16_t float_to_bf16_bits(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    if (std::isnan(x)) return static_cast<uint16_t>((bits >> 16) | 0x0040);   // quiet, sign and top payload kept
    // Adding 0x7FFF plus the kept lowest bit carries into bit 16 exactly when the dropped half is
    // above one half, or one half with an odd kept part: round to nearest, ties to even. A carry
    // out of the largest finite values gives inf, as it should.
    const uint32_t lsb = (bits >> 16) & 1u;
    return static_cast<uint16_t>((bits + 0x7FFFu + lsb) >> 16);
}

float bf16_bits_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

uint16_t float_to_fp16_bits(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t a = bits & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));   // NaN, quiet
    if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);   // ≥ 65520 (65504 + half a step): inf
    if (a < 0x38800000u) {   // below 2^-14: a subnormal, in steps of 2^-24
        if (a <= 0x33000000u) return sign;   // ≤ 2^-25, half the smallest subnormal (a tie goes to even 0)
        const uint32_t exponent = a >> 23;                    // 102..112
        const uint32_t mantissa = (a & 0x7FFFFFu) | 0x800000u;
        const uint32_t shift = 126 - exponent;                // value / 2^-24 = mantissa / 2^shift
        uint32_t q = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (q & 1u))) ++q;   // may reach 0x400, the smallest normal
        return static_cast<uint16_t>(sign | q);
    }
    // Normal: rebias the exponent (127 → 15) and round away the 13 low mantissa bits as for BF16.
    const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float fp16_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0x1F)   // inf, or NaN made quiet with its payload (as VCVTPH2PS)
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u));
    if (exponent == 0) {   // zero or subnormal: mantissa · 2^-24, exact in float
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

void floats_to_bf16(uint16_t* out, const float* in, int64_t n) {
    if (use_kernels()) return cpu::kernels::floats_to_bf16_avx2(out, in, n);
    for (int64_t i = 0; i < n; ++i) out[i] = float_to_bf16_bits(in[i]);
}

void bf16_to_floats(float* out, const uint16_t* in, int64_t n) {
    if (use_kernels()) return cpu::kernels::bf16_to_floats_avx2(out, in, n);
    for (int64_t i = 0; i < n; ++i) out[i] = bf16_bits_to_float(in[i]);
}

void floats_to_fp16(uint16_t* out, const float* in, int64_t n) {
    if (use_kernels()) return cpu::kernels::floats_to_fp16_avx2(out, in, n);
    for (int64_t i = 0; i < n; ++i) out[i] = float_to_fp16_bits(in[i]);
}

void fp16_to_floats(float* out, const uint16_t* in, int64_t n) {
    if (use_kernels()) return cpu::kernels::fp16_to_floats_avx2(out, in, n);
    for (int64_t i = 0; i < n; ++i) out[i] = fp16_bits_to_float(in[i]);
}

void round_floats(float* out, const float* in, int64_t n, Precision format) {
    switch (format) {
        case Precision::Bf16:
            if (use_kernels()) return cpu::kernels::round_to_bf16_avx2(out, in, n);
            for (int64_t i = 0; i < n; ++i) out[i] = bf16_bits_to_float(float_to_bf16_bits(in[i]));
            return;
        case Precision::Fp16:
            if (use_kernels()) return cpu::kernels::round_to_fp16_avx2(out, in, n);
            for (int64_t i = 0; i < n; ++i) out[i] = fp16_bits_to_float(float_to_fp16_bits(in[i]));
            return;
        case Precision::Fp32:
        case Precision::Int8:
            break;
    }
    if (out != in)
        for (int64_t i = 0; i < n; ++i) out[i] = in[i];
}

}  // namespace tx
