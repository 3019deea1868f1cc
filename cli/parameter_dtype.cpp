// parameter_dtype and check_fits_dtype: see parameter_dtype.h.
#include "parameter_dtype.h"

#include <cmath>

#include "args.h"

namespace tx::cli {

std::string parameter_dtype(const std::string& name) {
    if (name == "bf16") return "BF16";
    if (name == "f16" || name == "fp16") return "F16";
    if (name == "f32" || name == "fp32") return "F32";
    throw CliError("--dtype must be bf16, f16 or f32, got '" + name + "'");
}

void check_fits_dtype(const Checkpoint& checkpoint, const std::string& dtype) {
    if (dtype != "F16") return;
    for (size_t i = 0; i < checkpoint.parameters.size(); ++i)
        if (!(std::abs(checkpoint.parameters[i]) < 65520.0f))
            throw CliError("parameter value " + std::to_string(checkpoint.parameters[i]) + " at flat index " +
                           std::to_string(i) + " does not fit f16 (largest 65504); use bf16");
}

}  // namespace tx::cli
