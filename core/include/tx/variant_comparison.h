// The variant comparison (docs/variants.md, "Comparing the variants"): one table of rows, each a task
// (copy: encoder-decoder; induction: decoder-only), a position scheme, an FFN and a seed, all
// trained with the same model size, schedule and step budget. txcli (train --compare-row,
// compare-variants --list), tools/compare_variants.sh and the app's Training panel all read the
// rows from here, so a row rerun anywhere is the row docs/variants.md reports.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tx/config.h"
#include "tx/training_config.h"

namespace tx {

struct ComparisonRow {
    std::string id;    // "copy-rope-relu-s1": task, positions, FFN, seed
    TaskKind task = TaskKind::Copy;
    PositionalKind positional = PositionalKind::Sinusoidal;
    FfnKind ffn = FfnKind::Relu;
    int kv_heads = 0;  // grouped-query attention's key/value heads; 0: one per query head
    int ffn_rank = 0;  // low-rank FFN; 0: full matrices
    int window = 0, window_dilation = 1;   // the sliding window (tx/attention_window.h); 0: full
    std::vector<int> global_positions;
    uint64_t seed = 1;
};

// The budget every row trains within, and the seeds every variant is trained with.
constexpr int64_t COMPARISON_STEPS = 2000;
constexpr uint64_t COMPARISON_SEEDS[] = {1, 2};

// Copy and induction; for each, the six position schemes with ReLU, then GELU and SwiGLU with
// sinusoidal positions, then with sinusoidal positions and ReLU: 2 and 1 key/value heads
// (grouped-query, multi-query), a rank-4 FFN, a window of 4 keys, dilated by 2, and with global
// position 0; for each, every seed.
const std::vector<ComparisonRow>& comparison_rows();
const ComparisonRow* find_comparison_row(const std::string& id);   // nullptr: no such row

// The row's model and training settings: the tiny preset's model (64/4/256, 2 layers; decoder-only
// for induction) with the row's positions, FFN and seed; the task's schedule; the stopping target
// (copy: 100% held-out exact match; induction: second-half loss < 0.1); COMPARISON_STEPS at most.
ModelConfig comparison_model(const ComparisonRow& row);
// The row's fields beyond positions, FFN and key/value heads, in words: "FFN rank 4",
// "window 4 (dilation 2; global 0)"; empty for the other rows.
std::string comparison_other_fields(const ComparisonRow& row);
TrainingConfig comparison_training(const ComparisonRow& row);
// The length-generalisation test: `length` for the held-out sequences after training (copy: 32
// symbols; induction: 16 symbols repeated, 32 tokens), twice the training length.
int comparison_test_length(TaskKind task);
// "100% held-out exact match" / "second-half loss < 0.1", for tables and the app.
std::string comparison_target(TaskKind task);

// What docs/variants.md's table reports for one row (tools/compare_variants.sh writes these to
// assets/compare/results.json). steps is empty when the row did not reach its target in budget.
struct ComparisonResult {
    std::optional<int64_t> steps;
    int64_t budget = 0;
    std::string at_train_length;   // "100% exact" / "loss 0.012, 99%"
    std::string at_test_length;    // "0% exact, 51% tokens" / "loss 8.1, 6%"
};
// Reads the results file: row id -> result. Throws ConfigError naming the file and the problem.
std::vector<std::pair<std::string, ComparisonResult>> load_comparison_results(const std::string& path);

}  // namespace tx
