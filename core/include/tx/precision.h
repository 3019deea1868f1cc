// Precision modes of the CPU backend (docs/precision.md): FP32 (the reference), BF16 and FP16
// autocast (the linear layers' weights and the matrix products' inputs and outputs rounded to the
// format, sums in FP32; softmax, norms and log-softmax in FP32, as PyTorch's CPU autocast), the
// teaching switch "everything in low precision" (every step's output rounded too), and INT8
// weight-only (the linear layers' weights quantised per output channel, activations in FP32).
#pragma once
#include <optional>
#include <string>

namespace tx {

enum class Precision { Fp32, Bf16, Fp16, Int8 };

const char* to_string(Precision precision);   // "fp32", "bf16", "fp16", "int8"
// The precision a name spells ("fp32", "bf16", "fp16", "int8"); nullopt for anything else.
std::optional<Precision> precision_from_string(const std::string& text);

struct PrecisionMode {
    Precision format = Precision::Fp32;
    // The teaching switch: every step's output is rounded to `format` as well (BF16 or FP16 only).
    bool all_low = false;
};

// "fp32", "bf16 autocast", "fp16 everything low", "int8 weight-only".
std::string describe(PrecisionMode mode);
// Why a mode cannot run (all_low needs BF16 or FP16), or nullopt.
std::optional<std::string> validate(PrecisionMode mode);

}  // namespace tx
