// LowpWeight: a linear layer's weight (OC, C) stored in a low format, as the precision backend
// (precision_cpu_backend.h) keeps it for its products: BF16 or FP16 bits (uint16, rounded to
// nearest-even by half_float.h, so that widening gives back exactly round_floats' values), or INT8
// with one FP32 scale per output row (int8_quantize.h). lowp_linear_forward multiplies from it
// without an FP32 copy of the weight (core/kernels/gemm_lowp_kernels.h on the AVX2 and AVX-512
// paths, a plain loop on the generic one; BF16 by vdpbf16ps where cpu_isa.h's bf16_path() is
// Dpbf16, core/kernels/gemm_bf16_kernels.h). Internal to core/.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tx/precision.h"

namespace tx {

struct LowpWeight {
    Precision format = Precision::Fp32;   // Bf16, Fp16 or Int8 once built
    int C = 0, OC = 0;
    std::vector<uint16_t> halves;         // (OC, C): BF16 or FP16 bits, row-major, or:
    bool pairs = false;                   // BF16 in the pair layout of gemm_bf16_kernels.h (OC × Cp values,
                                          // Cp = C rounded up to even), for the vdpbf16ps product
    std::vector<int8_t> q;                // (OC, C): INT8 steps
    std::vector<float> scale;             // (OC): INT8 step per output row

    // The bytes the stored weight holds (the low-format values and the INT8 scales).
    size_t bytes() const { return halves.size() * sizeof(uint16_t) + q.size() + scale.size() * sizeof(float); }
};

// weight (OC, C), finite, stored in `format` (Bf16, Fp16 or Int8; FP32 has no low form). BF16 is
// stored in the pair layout where lowp_uses_pairs(Bf16) (the same values, in another order).
LowpWeight make_lowp_weight(const float* weight, int C, int OC, Precision format);
// The layout make_lowp_weight gives `format` now: true for BF16 while bf16_path() is Dpbf16. A
// weight stored in the other layout still multiplies correctly, through an FP32 copy (slow): the
// precision backend stores its weights again when the path has changed (tests switch it).
bool lowp_uses_pairs(Precision format);
// The same into w, reusing its buffers (no allocation where they are large enough already, as when a
// weight of the same shape is stored again after a training step).
void store_lowp_weight(LowpWeight& w, const float* weight, int C, int OC, Precision format);
// w = in (K, M) transposed and stored as the BF16 weight (M, K) in the pair layout, for the
// products whose second operand is transposed (mixed-precision training's backward on the
// vdpbf16ps path: dX = dY · W reads Wᵀ's rows, dW = dYᵀ · X reads Xᵀ's). in is rounded to BF16
// (nearest even; FP32 subnormals become 0, as vdpbf16ps reads them anyway). Reuses w's buffer, so
// a w kept from call to call allocates nothing once it is large enough. Only where
// lowp_uses_pairs(Precision::Bf16).
void store_transposed_bf16_pairs(LowpWeight& w, const float* in, int K, int M);
// out (OC, C) = the stored weight widened to FP32: round_floats' values for BF16/FP16, q·scale
// (dequantize_int8_rows) for INT8. For the products that still run in FP32 (the backward).
void widen_lowp_weight(float* out, const LowpWeight& w);
// out (N, OC) = inp (N, C) · w (OC, C)ᵀ + bias (OC, or null), sums in FP32. Below 32 rows each
// weight is widened as it is read and an INT8 row's sum multiplied by its scale at the end
// (gemm_lowp_kernels.h); from 32 rows on, the FP32 GEMM runs on the whole weight widened once
// (q·scale for INT8), which gives the bits of the FP32 product over the rounded weights.
// A BF16 weight in the pair layout (vdpbf16ps path), at every N: inp is rounded to BF16 as it is
// read (nearest even; FP32 subnormals become 0), which changes nothing where inp holds BF16 values
// already, as the precision backend's inputs do; the pairs of exact products are summed in FP32
// by vdpbf16ps (round to nearest even, subnormal inputs and results flushed to 0), in an order of
// the kernel's own: a sum of C + 1 terms, not the bits of the FP32 GEMM.
void lowp_linear_forward(float* out, const float* inp, const LowpWeight& w, const float* bias, int N);

}  // namespace tx
