// The array conversions of half_float.h for AVX2 + F16C (half_convert_avx2.cpp, compiled with
// its own -m flags): 8 floats a register, and a row's last n % 8 values through a register-sized
// buffer, so the tail takes the same instructions. They give the bits of half_float.h's scalar
// conversions (tests/precision/test_half_float.cpp checks every path). Internal to core/.
#pragma once
#include <cstdint>

namespace tx::cpu::kernels {

void floats_to_bf16_avx2(uint16_t* out, const float* in, int64_t n);
void bf16_to_floats_avx2(float* out, const uint16_t* in, int64_t n);
void floats_to_fp16_avx2(uint16_t* out, const float* in, int64_t n);
void fp16_to_floats_avx2(float* out, const uint16_t* in, int64_t n);
// out (n) = in rounded to BF16 / FP16 and back; out may be in.
void round_to_bf16_avx2(float* out, const float* in, int64_t n);
void round_to_fp16_avx2(float* out, const float* in, int64_t n);

}  // namespace tx::cpu::kernels
