// make_precision_cpu_backend(PrecisionMode) (backend.h, docs/precision.md): the CPU backend with the matrix
// products of the model in a lower precision, emulated on the FP32 kernels. The products are the
// linear layers (weights rounded or quantised once per parameter change, kept here by address),
// the attention scores q·kᵀ and the context P·V. BF16 and FP16 autocast, as PyTorch's CPU autocast
// policy: each product's inputs are rounded to the format, the sums run in FP32 (exact products of
// the rounded values, summed as the FP32 kernels sum), and the output is rounded to the format;
// every other op (softmax, LayerNorm/RMSNorm, log-softmax, residuals, activations) reads those
// rounded values and computes in FP32. INT8 weight-only: the linear weights become q·scale
// (int8_quantize.h), and everything else stays FP32. "Everything low" (mode.all_low) also rounds
// each step's output (round_step_output, called by the model). Its backward ops are FP32; mixed-precision
// training (core/train/mixed_precision_backend.cpp) derives from it and rounds the backward products.
#include <stdexcept>

#include "precision/precision_cpu_backend.h"

namespace tx {

std::unique_ptr<Backend> make_precision_cpu_backend(PrecisionMode mode) {
    if (auto error = validate(mode)) throw std::invalid_argument(*error);
    if (mode.format == Precision::Fp32) return make_cpu_backend();
    return std::make_unique<PrecisionCpuBackend>(mode);
}

}  // namespace tx
