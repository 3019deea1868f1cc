// The storage dtype of a checkpoint's parameters as txcli's --dtype names it (convert, average).
#pragma once
#include <set>
#include <string>

#include "tx/checkpoint.h"

namespace tx::cli {

// "bf16" -> "BF16", "f16"/"fp16" -> "F16", "f32"/"fp32" -> "F32"; anything else is a CliError.
std::string parameter_dtype(const std::string& name);
// Throws a CliError naming the first parameter that F16 would turn into inf (|x| >= 65520):
// inf would poison every product it meets, so refuse rather than store it. stored_low, when not
// empty, names the only parameters stored in dtype (save_checkpoint's); the rest stay F32.
void check_fits_dtype(const Checkpoint& checkpoint, const std::string& dtype, const std::set<std::string>& stored_low = {});

}  // namespace tx::cli
