// Mixed-precision training on the CPU (docs/precision.md, "Training in mixed precision"): the
// backend a TrainingRun uses for --precision bf16|fp16. Its forward is the precision backend's
// autocast (make_precision_cpu_backend); its backward rounds the same matrix products the same way:
// the linear layers (dX = dY·W, dW = dYᵀ·X, db = Σ dY), the scores q·kᵀ (dq, dk) and the context
// P·V (dP, dV) read their operands rounded to the format (the incoming gradient dY as well), sum in
// FP32, and each gradient they produce is rounded to the format before it is added (in FP32) into
// the gradient buffer. Everything else (softmax, norms, log-softmax and the loss, residuals,
// activations, dropout, embeddings) runs its FP32 backward. The weights the optimiser updates (the
// master weights), their accumulated gradients and Adam's moments stay FP32.
#pragma once
#include <cstdint>
#include <memory>

#include "tx/backend.h"

namespace tx {

// Gradient values rounded to the format by the low-precision backward products: how many were
// non-zero in FP32 and how many of those the rounding turned into 0 (underflow) or into ±inf
// (overflow). Rounded are each product's incoming gradient dY (cast to the format; a no-op for one
// that another product produced) and each gradient it produces (the FP32 sum of the rounded
// operands' products, rounded).
struct GradientRounding {
    int64_t nonzero = 0, underflowed = 0, overflowed = 0;
    // underflowed / nonzero, 0 when nothing was non-zero.
    double underflow_share() const { return nonzero > 0 ? static_cast<double>(underflowed) / nonzero : 0.0; }
    GradientRounding& operator+=(const GradientRounding& o) {
        nonzero += o.nonzero;
        underflowed += o.underflowed;
        overflowed += o.overflowed;
        return *this;
    }
};

struct GradientRoundingCounts {
    GradientRounding parameters;    // dW and db of the linear layers: what reaches the master weights
    GradientRounding activations;   // dY cast, and dX, dq, dk, dP, dV: what flows on to earlier layers
};

// The training side of the mixed-precision backend.
class MixedPrecisionTraining {
public:
    virtual ~MixedPrecisionTraining() = default;
    // The loss's gradient is multiplied by `scale` (loss scaling: the backward of scale · loss).
    virtual void set_loss_scale(float scale) = 0;
    // The counts since the last call, and restart them.
    virtual GradientRoundingCounts take_gradient_rounding() = 0;
};

// The CPU backend training in `format` (Bf16 or Fp16): autocast forward, rounded backward products.
// Throws std::invalid_argument for Fp32 or Int8.
std::unique_ptr<Backend> make_mixed_precision_training_backend(Precision format);
// The training side of a backend made by make_mixed_precision_training_backend, else nullptr.
MixedPrecisionTraining* mixed_precision_training(Backend& backend);

}  // namespace tx
