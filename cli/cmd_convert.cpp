// txcli convert: rewrites a checkpoint with its parameters stored as F32, BF16 or F16
// (docs/precision.md, docs/design.md §6); written to a temporary name and renamed into place.
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "args.h"
#include "parameter_dtype.h"
#include "tx/checkpoint.h"
#include "tx/parameters.h"

namespace tx::cli {

int cmd_convert(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli convert --dtype bf16|f16|f32 [--only NAME ...] IN OUT\n\n"
                    "Writes the checkpoint IN to OUT with every parameter stored in that dtype: bf16 and f16 halve the\n"
                    "file, each value rounded to the nearest (ties to even); f16 turns magnitudes from 65520 up into\n"
                    "inf (its largest value is 65504) and is refused then. Loading converts the values back to float\n"
                    "exactly. OUT is written to a temporary name and renamed, and may be IN.\n\n"
                    "  --only NAME   store only this parameter in the dtype (repeat it for more; the rest are f32).\n"
                    "                The everyday model stores src_embed.weight, tgt_embed.weight and\n"
                    "                generator.weight in bf16 and its layers in f32.\n");
        return 0;
    }
    Argv options;
    const Argv paths = split_positional(argv, {"dtype", "only"}, options);
    const Args args(options, {"dtype", "only"}, {});
    if (paths.size() != 2)
        throw CliError("convert takes two paths, IN and OUT; got " + std::to_string(paths.size()));
    const std::string dtype = parameter_dtype(args.get("dtype"));
    const Checkpoint checkpoint = load_checkpoint(paths[0]);
    const std::vector<std::string> only = args.all("only");
    const std::set<std::string> stored_low(only.begin(), only.end());
    for (const std::string& name : stored_low)
        if (!ParameterTable(checkpoint.config).find(name)) throw CliError("--only " + name + ": " + paths[0] + " has no parameter of that name");
    check_fits_dtype(checkpoint, dtype, stored_low);
    save_checkpoint(paths[1], checkpoint, dtype, stored_low);
    std::printf("wrote %s (%s parameters%s, %lld bytes)\n", paths[1].c_str(), dtype.c_str(),
                stored_low.empty() ? "" : (", " + std::to_string(stored_low.size()) + " of them; the rest F32").c_str(),
                static_cast<long long>(std::filesystem::file_size(paths[1])));
    return 0;
}

}  // namespace tx::cli
