// txcli's commands: each takes the arguments after its name and returns the exit code. Each has one
// row (name, summary, function) in COMMANDS (txcli.cpp), which the usage text and the dispatch read.
// Errors are thrown (CliError or the core's exceptions) and printed by main as one line.
#pragma once
#include <string>
#include <vector>

#include "args.h"
#include "tx/checkpoint.h"
#include "tx/precision.h"

namespace tx::cli {

using Argv = std::vector<std::string>;

int cmd_init(const Argv& argv);
int cmd_info(const Argv& argv);
int cmd_forward(const Argv& argv);
int cmd_decode(const Argv& argv);
int cmd_train(const Argv& argv);
int cmd_bench(const Argv& argv);
int cmd_evaluate(const Argv& argv);
int cmd_score(const Argv& argv);
int cmd_compare_variants(const Argv& argv);
int cmd_convert(const Argv& argv);
int cmd_average(const Argv& argv);
int cmd_inspect(const Argv& argv);

// forward --compare (precision_report.cpp): FP32 against `mode` on the --src sentences.
int forward_compare_precision(const Args& args, const Checkpoint& checkpoint, PrecisionMode mode);

// Shared by the commands: the help text printed for --help, and whether argv asks for it.
bool wants_help(const Argv& argv);

}  // namespace tx::cli
