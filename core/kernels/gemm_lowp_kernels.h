// The linear layer's product from a weight stored in a low format (core/precision/lowp_weight.h):
// out (N,OC) = inp (N,C) · W (OC,C)ᵀ + bias, W held as BF16 or FP16 (uint16 bits) or as INT8 with
// one FP32 scale per output row, inp and bias FP32. Each weight is widened to FP32 exactly as it is
// read, the products are FMAs into FP32 sums, and an INT8 row's sum is multiplied by its scale once
// at the end: out[n,o] = scale[o] · Σ_c inp[n,c]·q[o,c] + bias[o]. The order of the sums is the
// kernel's own (not the FP32 GEMM's), so results may differ from a product over the widened FP32
// weight in the last bits. One table per instruction set (gemm_lowp_avx2.cpp, gemm_lowp_avx512.cpp,
// the body gemm_lowp_body.h); the generic path's loop is in core/precision/lowp_weight.cpp.
// N, C, OC ≥ 1; bias may be null. fp16 needs F16C as well as the table's set (the caller checks).
// Internal to core/.
#pragma once
#include <cstdint>

namespace tx::cpu::kernels {

struct LowpGemmKernels {
    void (*bf16)(float* out, const float* inp, const uint16_t* weight, const float* bias, int N, int C, int OC);
    void (*fp16)(float* out, const float* inp, const uint16_t* weight, const float* bias, int N, int C, int OC);
    void (*int8)(float* out, const float* inp, const int8_t* weight, const float* scale, const float* bias, int N,
                 int C, int OC);
};

extern const LowpGemmKernels LOWP_GEMM_AVX2;
extern const LowpGemmKernels LOWP_GEMM_AVX512;

}  // namespace tx::cpu::kernels
