// txcli's commands: each takes the arguments after its name and returns the exit code. Each has one
// row (name, summary, function) in COMMANDS (txcli.cpp), which the usage text and the dispatch read.
// Errors are thrown (CliError or the core's exceptions) and printed by main as one line.
#pragma once
#include <string>
#include <vector>

#include "args.h"
#include "tx/checkpoint.h"
#include "tx/precision.h"
#include "tx/session.h"

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
int cmd_speculative(const Argv& argv);

// forward --compare (precision_report.cpp): FP32 against `mode` on the --src sentences.
int forward_compare_precision(const Args& args, const Checkpoint& checkpoint, PrecisionMode mode);

// Shared by decode and speculative (session_input.cpp): the session of the command's model
// (--checkpoint or the model options, --backend, --precision, --no-positional); each --src's ids
// + EOS, refused with its number when it does not fit max_len; a decoder-only model's prompts
// (each source's ids without EOS), else none.
Session open_session(const Args& args);
std::vector<std::vector<int>> source_rows(const Session& session, const std::vector<std::string>& sources);
std::vector<std::vector<int>> prompt_rows(const Session& session, const std::vector<std::vector<int>>& src);

// Shared by the commands: the help text printed for --help, and whether argv asks for it.
bool wants_help(const Argv& argv);

}  // namespace tx::cli
