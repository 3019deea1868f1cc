// txcli average: the parameter-wise mean of checkpoints saved along one training run
// (tx/checkpoint_average.h, docs/models.md); written to a temporary name and renamed into place.
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "args.h"
#include "parameter_dtype.h"
#include "tx/checkpoint_average.h"

namespace tx::cli {

int cmd_average(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli average --out OUT [--dtype f32|bf16|f16] IN IN [IN ...]\n\n"
                    "Writes to OUT the checkpoint whose every parameter is the mean of that parameter in the INs:\n"
                    "checkpoints of one model saved a few thousand steps apart late in one training run (copy the\n"
                    "--save file aside as it goes). Once the run has settled, the mean may score a little better than\n"
                    "any one of them; while it still improves, the latest alone may be better: measure both.\n"
                    "The INs must share the config, the vocabulary and the tokenizer; the training settings are\n"
                    "the first one's. --dtype is how OUT stores the parameters (default f32).\n");
        return 0;
    }
    Argv options;
    const Argv paths = split_positional(argv, {"dtype", "out"}, options);
    const Args args(options, {"dtype", "out"}, {});
    const std::string out = args.get("out");
    if (paths.size() < 2)
        throw CliError("average takes two or more checkpoints to average; got " + std::to_string(paths.size()));
    const std::string dtype = parameter_dtype(args.get_or("dtype", "f32"));

    std::vector<Checkpoint> checkpoints;
    for (const std::string& path : paths) checkpoints.push_back(load_checkpoint(path));
    Checkpoint mean;
    try {
        mean = average_checkpoints(checkpoints);
    } catch (const std::invalid_argument& e) {
        std::string inputs;
        for (const std::string& p : paths) inputs += (inputs.empty() ? "" : ", ") + p;
        throw CliError(std::string(e.what()) + " (the inputs in order: " + inputs + ")");
    }
    check_fits_dtype(mean, dtype);
    save_checkpoint(out, mean, dtype);
    std::printf("wrote %s: the mean of %zu checkpoints (%s parameters, %lld bytes)\n", out.c_str(), paths.size(),
                dtype.c_str(), static_cast<long long>(std::filesystem::file_size(out)));
    return 0;
}

}  // namespace tx::cli
