// parameter_dtype and check_fits_dtype: see parameter_dtype.h.
#include "parameter_dtype.h"

#include <cmath>

#include "args.h"
#include "tx/parameters.h"

namespace tx::cli {

std::string parameter_dtype(const std::string& name) {
    if (name == "bf16") return "BF16";
    if (name == "f16" || name == "fp16") return "F16";
    if (name == "f32" || name == "fp32") return "F32";
    throw CliError("--dtype must be bf16, f16 or f32, got '" + name + "'");
}

void check_fits_dtype(const Checkpoint& checkpoint, const std::string& dtype, const std::set<std::string>& stored_low) {
    if (dtype != "F16") return;
    const ParameterTable table(checkpoint.config);   // named: a temporary's entries() would dangle in the loop
    for (const ParameterInfo& p : table.entries()) {
        if (!stored_low.empty() && !stored_low.count(p.name)) continue;
        for (int64_t i = p.offset; i < p.offset + p.numel(); ++i)
            if (!(std::abs(checkpoint.parameters[static_cast<size_t>(i)]) < 65520.0f))
                throw CliError("parameter value " + std::to_string(checkpoint.parameters[static_cast<size_t>(i)]) + " at flat index " +
                               std::to_string(i) + " (" + p.name + ") does not fit f16 (largest 65504); use bf16");
    }
}

}  // namespace tx::cli
