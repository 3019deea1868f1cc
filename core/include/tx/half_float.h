// BF16 and FP16 (IEEE 754 binary16) conversions, one value and whole arrays (docs/precision.md).
// Float to half rounds to nearest, ties to even. BF16 keeps FP32's exponent (8 mantissa bits
// left: 128 and 128.5 both become 128). FP16 overflows to ±inf from 65520 up (its largest value is
// 65504), and below 2^-14 gives subnormals down to 2^-24. NaN stays NaN with its sign: quiet, with
// the top of its payload (as F16C's VCVTPS2PH does). The array forms run F16C and AVX2 where the
// active path (cpu_isa.h) has them, else these scalar ones, with the same bits on every path.
#pragma once
#include <cstdint>

#include "tx/precision.h"

namespace tx {

uint16_t float_to_bf16_bits(float x);
float bf16_bits_to_float(uint16_t h);
uint16_t float_to_fp16_bits(float x);
float fp16_bits_to_float(uint16_t h);

// out (n) = the halves of in (n), and back.
void floats_to_bf16(uint16_t* out, const float* in, int64_t n);
void bf16_to_floats(float* out, const uint16_t* in, int64_t n);
void floats_to_fp16(uint16_t* out, const float* in, int64_t n);
void fp16_to_floats(float* out, const uint16_t* in, int64_t n);
// out (n) = in (n) rounded to `format` and back to float (BF16, FP16); a copy for FP32 and INT8
// (INT8 quantises weights per channel instead, int8_quantize.h). out may be in.
void round_floats(float* out, const float* in, int64_t n, Precision format);

}  // namespace tx
