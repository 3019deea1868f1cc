// txcli compare-variants: lists the rows of the variant comparison (core/include/tx/variant_comparison.h),
// one a line, for tools/compare_variants.sh and for people: each row is trained with
// `txcli train --compare-row ID`.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "tx/variant_comparison.h"

namespace tx::cli {

namespace {

constexpr const char* COMPARE_HELP =
    "usage: txcli compare-variants --list [--json]\n"
    "\n"
    "The rows of the variant comparison: copy (encoder-decoder) and induction (decoder-only), each with\n"
    "sinusoidal, learned, RoPE, ALiBi, T5 relative and no positions (ReLU FFN), with GELU and SwiGLU FFNs\n"
    "(sinusoidal positions), and with sinusoidal positions and ReLU: 2 and 1 key/value heads\n"
    "(grouped-query, multi-query attention), a rank-4 FFN, and a window of 4 keys, dilated by 2, and\n"
    "with global position 0; every one with each seed. All rows share the tiny model's size and the\n"
    "task's schedule and step budget. Train one with: txcli train --compare-row ID\n"
    "\n"
    "  --list   one row a line: id, task, positions, FFN, seed, step budget, test length, target,\n"
    "           key/value heads, the other variant fields (\"-\" when none)\n"
    "  --json   the same as one JSON object per line, with the row's model and training settings\n";

}  // namespace

int cmd_compare_variants(const Argv& argv) {
    if (wants_help(argv)) {
        std::fputs(COMPARE_HELP, stdout);
        return 0;
    }
    const Args args(argv, {}, {"list", "json"});
    if (!args.flag("list")) throw CliError("say --list (txcli compare-variants --help)");
    for (const ComparisonRow& row : comparison_rows()) {
        const ModelConfig m = comparison_model(row);
        const TrainingConfig t = comparison_training(row);
        const std::string other = comparison_other_fields(row);
        if (args.flag("json")) {
            nlohmann::json j;
            j["id"] = row.id;
            j["task"] = to_string(row.task);
            j["positional"] = to_string(row.positional);
            j["ffn"] = to_string(row.ffn);
            j["kv_heads"] = m.kv_head_count();
            j["other"] = other;
            j["seed"] = row.seed;
            j["budget"] = t.total_steps();
            j["test_length"] = comparison_test_length(row.task);
            j["target"] = comparison_target(row.task);
            j["model"] = nlohmann::json::parse(to_json(m));
            // The vocabulary comes from the task when the trainer is made (symbols + specials).
            j["model"].erase("src_vocab");
            j["model"].erase("tgt_vocab");
            j["training"] = nlohmann::json::parse(to_json(t));
            std::printf("%s\n", j.dump().c_str());
        } else {
            std::printf("%s\t%s\t%s\t%s\t%llu\t%lld\t%d\t%s\t%d\t%s\n", row.id.c_str(), to_string(row.task),
                        to_string(row.positional), to_string(row.ffn), static_cast<unsigned long long>(row.seed),
                        static_cast<long long>(t.total_steps()), comparison_test_length(row.task),
                        comparison_target(row.task).c_str(), m.kv_head_count(), other.empty() ? "-" : other.c_str());
        }
    }
    return 0;
}

}  // namespace tx::cli
