// txcli: the headless command line of Transformer Explorer (docs/cli.md; docs/design.md §13 lists the
// commands). COMMANDS below is the one list of commands: the usage text and the dispatch both read it.
// Every error ends as one line on stderr and a non-zero exit; nothing is left half-written.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "args.h"
#include "commands.h"
#include "tx/memory_reuse.h"
#include "tx/threads.h"

namespace {

using namespace tx::cli;

struct CommandEntry {
    std::string_view name;
    std::string_view summary;   // one line; the usage text wraps it at USAGE_WIDTH
    int (*run)(const Argv& argv);
};

// In the order `txcli --help` lists them.
constexpr CommandEntry COMMANDS[] = {
    {"init", "write a freshly initialised checkpoint", cmd_init},
    {"info", "show a checkpoint's config, parameter count and tensors", cmd_info},
    {"convert", "rewrite a checkpoint with its parameters as bf16, f16 or f32", cmd_convert},
    {"average", "the parameter-wise mean of checkpoints saved along one training run", cmd_average},
    {"forward", "run sentences through the model step by step; --dump writes the trace", cmd_forward},
    {"decode", "decode sentences: greedy, beam search or sampling", cmd_decode},
    {"speculative", "speculative decoding: a draft proposes k tokens, the model keeps the ones it agrees with",
     cmd_speculative},
    {"train", "train a model on a task (copy, copy-text, reverse, sort, translate)", cmd_train},
    {"evaluate", "BLEU, chrF and exact match of a model on sentence pairs (the test split by default)", cmd_evaluate},
    {"score", "BLEU and chrF of translations in a file against the target side of sentence pairs", cmd_score},
    {"bench", "time the forward pass per step", cmd_bench},
    {"compare-variants", "the rows of the variant comparison (txcli train --compare-row ID trains one)",
     cmd_compare_variants},
    {"inspect",
     "look inside one run: logit lens, activation patching, head importance, rollout, entropy, logit attribution",
     cmd_inspect},
};

constexpr std::size_t NAME_WIDTH = 8;     // "  init      write…": names padded to 8, then two spaces
constexpr std::size_t USAGE_WIDTH = 100;  // a longer summary goes on at the summary's column

std::string usage() {
    std::string text =
        "usage: txcli <command> [options]   (txcli <command> --help for its options)\n"
        "\n"
        "commands:\n";
    const std::string indent(2 + NAME_WIDTH + 2, ' ');
    for (const CommandEntry& c : COMMANDS) {
        std::string line = "  " + std::string(c.name);
        if (c.name.size() < NAME_WIDTH) line.append(NAME_WIDTH - c.name.size(), ' ');
        line += "  ";
        std::string_view words = c.summary;
        while (line.size() + words.size() > USAGE_WIDTH) {
            const std::size_t room = USAGE_WIDTH - line.size();
            const std::size_t cut = words.rfind(' ', room);
            if (cut == std::string_view::npos || cut == 0) break;   // one long word: keep it whole
            text += line + std::string(words.substr(0, cut)) + "\n";
            line = indent;
            words.remove_prefix(cut + 1);
        }
        text += line + std::string(words) + "\n";
    }
    return text;
}

const CommandEntry* find_command(std::string_view name) {
    for (const CommandEntry& c : COMMANDS)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(usage().c_str(), stderr);
        return 2;
    }
    const std::string command = argv[1];
    const Argv rest(argv + 2, argv + argc);
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    const CommandEntry* entry = find_command(command);
    if (!entry) {
        std::fprintf(stderr, "txcli: unknown command '%s'\n%s", command.c_str(), usage().c_str());
        return 2;
    }
    tx::keep_freed_memory_for_reuse();
    tx::set_cpu_threads(1);   // the stable baseline (docs/design.md §10); bench and train take --threads
    try {
        return entry->run(rest);
    } catch (const CliError& e) {
        std::fprintf(stderr, "txcli %s: %s\n", command.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "txcli %s: %s\n", command.c_str(), e.what());
        return 1;
    }
}
