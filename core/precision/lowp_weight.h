// LowpWeight: a linear layer's weight (OC, C) stored in a low format, as the precision backend
// (precision_cpu_backend.h) keeps it for its products: BF16 or FP16 bits (uint16, rounded to
// nearest-even by half_float.h, so that widening gives back exactly round_floats' values), or INT8
// with one FP32 scale per output row (int8_quantize.h). lowp_linear_forward multiplies from it
// without an FP32 copy of the weight (core/kernels/gemm_lowp_kernels.h on the AVX2 and AVX-512
// paths, a plain loop on the generic one). Internal to core/.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tx/precision.h"

namespace tx {

struct LowpWeight {
    Precision format = Precision::Fp32;   // Bf16, Fp16 or Int8 once built
    int C = 0, OC = 0;
    std::vector<uint16_t> halves;         // (OC, C): BF16 or FP16 bits
    std::vector<int8_t> q;                // (OC, C): INT8 steps
    std::vector<float> scale;             // (OC): INT8 step per output row

    // The bytes the stored weight holds (the low-format values and the INT8 scales).
    size_t bytes() const { return halves.size() * sizeof(uint16_t) + q.size() + scale.size() * sizeof(float); }
};

// weight (OC, C), finite, stored in `format` (Bf16, Fp16 or Int8; FP32 has no low form).
LowpWeight make_lowp_weight(const float* weight, int C, int OC, Precision format);
// out (OC, C) = the stored weight widened to FP32: round_floats' values for BF16/FP16, q·scale
// (dequantize_int8_rows) for INT8. For the products that still run in FP32 (the backward).
void widen_lowp_weight(float* out, const LowpWeight& w);
// out (N, OC) = inp (N, C) · w (OC, C)ᵀ + bias (OC, or null), sums in FP32. Below 32 rows each
// weight is widened as it is read and an INT8 row's sum multiplied by its scale at the end
// (gemm_lowp_kernels.h); from 32 rows on, the FP32 GEMM runs on the whole weight widened once
// (q·scale for INT8), which gives the bits of the FP32 product over the rounded weights.
void lowp_linear_forward(float* out, const float* inp, const LowpWeight& w, const float* bias, int N);

}  // namespace tx
