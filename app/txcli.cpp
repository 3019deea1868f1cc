// txcli: the headless command line of Transformer Explorer (docs/design.md §13 lists the commands).
// Every error ends as one line on stderr and a non-zero exit; nothing is left half-written.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "tx/memory_reuse.h"
#include "tx/threads.h"

namespace {

constexpr const char* USAGE =
    "usage: txcli <command> [options]   (txcli <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  init      write a freshly initialised checkpoint\n"
    "  info      show a checkpoint's config, parameter count and tensors\n"
    "  convert   rewrite a checkpoint with its parameters as bf16, f16 or f32\n"
    "  average   the parameter-wise mean of checkpoints saved along one training run\n"
    "  forward   run sentences through the model step by step; --dump writes the trace\n"
    "  decode    decode sentences: greedy, beam search or sampling\n"
    "  train     train a model on a task (copy, copy-text, reverse, sort, translate)\n"
    "  evaluate  BLEU, chrF and exact match of a model on sentence pairs (the test split by default)\n"
    "  score     BLEU and chrF of translations in a file against the target side of sentence pairs\n"
    "  bench     time the forward pass per step\n"
    "  compare-variants  the rows of the variant comparison (txcli train --compare-row ID trains one)\n"
    "  inspect   look inside one run: logit lens, activation patching, head importance, rollout, entropy,\n"
    "            logit attribution\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace tx::cli;
    if (argc < 2) {
        std::fputs(USAGE, stderr);
        return 2;
    }
    const std::string command = argv[1];
    const Argv rest(argv + 2, argv + argc);
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(USAGE, stdout);
        return 0;
    }
    tx::keep_freed_memory_for_reuse();
    tx::set_cpu_threads(1);   // the stable baseline (docs/design.md §10); bench and train take --threads
    try {
        if (command == "init") return cmd_init(rest);
        if (command == "info") return cmd_info(rest);
        if (command == "forward") return cmd_forward(rest);
        if (command == "decode") return cmd_decode(rest);
        if (command == "train") return cmd_train(rest);
        if (command == "bench") return cmd_bench(rest);
        if (command == "evaluate") return cmd_evaluate(rest);
        if (command == "score") return cmd_score(rest);
        if (command == "compare-variants") return cmd_compare_variants(rest);
        if (command == "convert") return cmd_convert(rest);
        if (command == "average") return cmd_average(rest);
        if (command == "inspect") return cmd_inspect(rest);
        std::fprintf(stderr, "txcli: unknown command '%s'\n%s", command.c_str(), USAGE);
        return 2;
    } catch (const CliError& e) {
        std::fprintf(stderr, "txcli %s: %s\n", command.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "txcli %s: %s\n", command.c_str(), e.what());
        return 1;
    }
}
