// txcli convert: rewrites a checkpoint with its parameters stored as F32, BF16 or F16
// (docs/precision.md, docs/design.md §6); written to a temporary name and renamed into place.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "args.h"
#include "tx/checkpoint.h"

namespace tx::cli {

int cmd_convert(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli convert --dtype bf16|f16|f32 IN OUT\n\n"
                    "Writes the checkpoint IN to OUT with every parameter stored in that dtype: bf16 and f16 halve the\n"
                    "file, each value rounded to the nearest (ties to even); f16 turns magnitudes from 65520 up into\n"
                    "inf (its largest value is 65504) and is refused then. Loading converts the values back to float\n"
                    "exactly. OUT is written to a temporary name and renamed, and may be IN.\n");
        return 0;
    }
    Argv options, paths;
    for (size_t i = 0; i < argv.size(); ++i) {
        if (argv[i].rfind("--", 0) != 0) {
            paths.push_back(argv[i]);
            continue;
        }
        options.push_back(argv[i]);
        if (argv[i] == "--dtype" && i + 1 < argv.size()) options.push_back(argv[++i]);
    }
    const Args args(options, {"dtype"}, {});
    if (paths.size() != 2)
        throw CliError("convert takes two paths, IN and OUT; got " + std::to_string(paths.size()));
    const std::string dtype_name = args.get("dtype");
    std::string dtype;
    if (dtype_name == "bf16") dtype = "BF16";
    else if (dtype_name == "f16" || dtype_name == "fp16") dtype = "F16";
    else if (dtype_name == "f32" || dtype_name == "fp32") dtype = "F32";
    else throw CliError("--dtype must be bf16, f16 or f32, got '" + dtype_name + "'");

    const Checkpoint checkpoint = load_checkpoint(paths[0]);
    if (dtype == "F16") {   // inf would poison every product it meets: refuse rather than store it
        for (size_t i = 0; i < checkpoint.parameters.size(); ++i)
            if (!(std::abs(checkpoint.parameters[i]) < 65520.0f))
                throw CliError("parameter value " + std::to_string(checkpoint.parameters[i]) + " at flat index " +
                               std::to_string(i) + " does not fit f16 (largest 65504); use bf16");
    }
    save_checkpoint(paths[1], checkpoint, dtype);
    std::printf("wrote %s (%s parameters, %lld bytes)\n", paths[1].c_str(), dtype.c_str(),
                static_cast<long long>(std::filesystem::file_size(paths[1])));
    return 0;
}

}  // namespace tx::cli
