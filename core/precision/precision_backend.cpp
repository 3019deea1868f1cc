// make_precision_cpu_backend(PrecisionMode) (backend.h, docs/precision.md): the CPU backend with the matrix
// products of the model in a lower precision. The products are the linear layers, the attention
// scores q·kᵀ and the context P·V. The linear layers run from weights stored in the format once per
// parameter change (lowp_weight.h: BF16/FP16 bits, or INT8 steps and a scale per row), widened to
// FP32 as the kernels read them (kernels/gemm_lowp_kernels.h), or, for BF16 where the CPU has
// AVX512_BF16, multiplied in pairs by vdpbf16ps (kernels/gemm_bf16_kernels.h). BF16 and FP16 autocast, as
// PyTorch's CPU autocast policy: each product's inputs are rounded to the format, the sums run in
// FP32 (exact products of the rounded values), and the output is rounded to the format; every
// other op (softmax, LayerNorm/RMSNorm, log-softmax, residuals, activations) reads those rounded
// values and computes in FP32. The attention products still round FP32 copies of their operands
// and run the FP32 kernels. INT8 weight-only: the linear layers sum x·q in FP32 and multiply by
// the row's scale (int8_quantize.h), and everything else stays FP32. "Everything low"
// (mode.all_low) also rounds each step's output (round_step_output, called by the model). Its
// backward ops are FP32; mixed-precision training (core/train/mixed_precision_backend.cpp) derives
// from it and rounds the backward products, on the stored weights widened to FP32.
#include <stdexcept>

#include "precision/precision_cpu_backend.h"

namespace tx {

std::unique_ptr<Backend> make_precision_cpu_backend(PrecisionMode mode) {
    if (auto error = validate(mode)) throw std::invalid_argument(*error);
    if (mode.format == Precision::Fp32) return make_cpu_backend();
    return std::make_unique<PrecisionCpuBackend>(mode);
}

}  // namespace tx
