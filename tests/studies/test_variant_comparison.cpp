// The variant comparison's rows (core/include/tx/variant_comparison.h): every position scheme and FFN for
// both tasks with every seed, each row changing only its own fields from one shared setting; the
// length-generalisation test really reaches positions training never saw; and the figures file
// the app shows (assets/compare/results.json) covers every row and is read as written.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "tx/tasks.h"
#include "tx/variant_comparison.h"
#include "support/temp_path.h"

namespace tx {
namespace {

TEST(VariantComparison, RowsCoverEverySchemeAndFfnForBothTasksAndSeeds) {
    const auto& rows = comparison_rows();
    ASSERT_EQ(rows.size(), 2u * 14u * std::size(COMPARISON_SEEDS));
    std::set<std::string> ids;
    std::set<std::tuple<TaskKind, PositionalKind, FfnKind, int, uint64_t>> combos;
    for (const ComparisonRow& r : rows) {
        EXPECT_TRUE(ids.insert(r.id).second) << r.id;
        combos.insert({r.task, r.positional, r.ffn, r.kv_heads, r.seed});
        EXPECT_EQ(find_comparison_row(r.id), &r);
        // Positions vary with ReLU, FFNs with sinusoidal positions, key/value heads, the FFN's rank
        // and the window with both of the paper's: one change per row (a window with its dilation
        // and global position counts as one).
        const int changes = (r.positional != PositionalKind::Sinusoidal) + (r.ffn != FfnKind::Relu) + (r.kv_heads != 0) +
                            (r.ffn_rank != 0) + (r.window != 0);
        EXPECT_LE(changes, 1) << r.id;
        EXPECT_TRUE(r.window > 0 || (r.window_dilation == 1 && r.global_positions.empty())) << r.id;
    }
    for (TaskKind task : {TaskKind::Copy, TaskKind::Induction})
        for (uint64_t seed : COMPARISON_SEEDS) {
            for (PositionalKind p : {PositionalKind::Sinusoidal, PositionalKind::Learned, PositionalKind::Rope,
                                     PositionalKind::Alibi, PositionalKind::None, PositionalKind::Relative})
                EXPECT_EQ(combos.count({task, p, FfnKind::Relu, 0, seed}), 1u);
            for (FfnKind f : {FfnKind::Gelu, FfnKind::SwiGlu})
                EXPECT_EQ(combos.count({task, PositionalKind::Sinusoidal, f, 0, seed}), 1u);
            for (int kv : {2, 1}) EXPECT_EQ(combos.count({task, PositionalKind::Sinusoidal, FfnKind::Relu, kv, seed}), 1u);
            for (const char* variant : {"-r4", "-w4", "-w4d2", "-w4d2g0"}) {
                const std::string id = std::string(to_string(task)) + "-sinusoidal-relu" + variant + "-s" + std::to_string(seed);
                EXPECT_NE(find_comparison_row(id), nullptr) << id;
            }
        }
    const ComparisonRow* windowed = find_comparison_row("induction-sinusoidal-relu-w4d2g0-s1");
    ASSERT_NE(windowed, nullptr);
    EXPECT_EQ(comparison_other_fields(*windowed), "window 4 (dilation 2; global 0)");
    EXPECT_EQ(comparison_model(*windowed).global_positions, std::vector<int>{0});
    EXPECT_EQ(comparison_other_fields(*find_comparison_row("copy-sinusoidal-relu-r4-s2")), "FFN rank 4");
    EXPECT_NE(find_comparison_row("copy-sinusoidal-relu-kv1-s1"), nullptr);
    EXPECT_EQ(find_comparison_row("copy-rope-relu-s9"), nullptr);
    EXPECT_EQ(find_comparison_row(""), nullptr);
}

TEST(VariantComparison, RowsShareOneSettingAndDifferOnlyInTheirOwnFields) {
    for (const ComparisonRow& r : comparison_rows()) {
        const ModelConfig m = comparison_model(r);
        const TrainingConfig t = comparison_training(r);
        // The baseline of the same task and seed: the row's config with its variant fields reset.
        ComparisonRow base = r;
        base.positional = PositionalKind::Sinusoidal;
        base.ffn = FfnKind::Relu;
        base.kv_heads = 0;
        base.ffn_rank = 0;
        base.window = 0;
        base.window_dilation = 1;
        base.global_positions.clear();
        ModelConfig mb = comparison_model(base);
        mb.positional = r.positional;
        mb.ffn = r.ffn;
        mb.kv_heads = r.kv_heads;
        mb.ffn_rank = r.ffn_rank;
        mb.window = r.window;
        mb.window_dilation = r.window_dilation;
        mb.global_positions = r.global_positions;
        EXPECT_EQ(to_json(m), to_json(mb)) << r.id;
        EXPECT_EQ(to_json(t), to_json(comparison_training(base))) << r.id;
        EXPECT_EQ(m.positional, r.positional);
        EXPECT_EQ(m.ffn, r.ffn);
        EXPECT_EQ(m.kv_heads, r.kv_heads);
        EXPECT_EQ(m.seed, r.seed);
        EXPECT_EQ(t.seed, r.seed);
        EXPECT_EQ(t.task, r.task);
        EXPECT_EQ(t.total_steps(), COMPARISON_STEPS);
        EXPECT_EQ(m.arch, r.task == TaskKind::Copy ? Arch::EncoderDecoder : Arch::DecoderOnly) << r.id;
        EXPECT_EQ(m.decoder_layers, 2);
        EXPECT_FALSE(validate(t).has_value()) << r.id << ": " << validate(t).value_or("");
        if (r.task == TaskKind::Copy) {
            EXPECT_EQ(t.target_exact, 1.0);
            EXPECT_EQ(t.target_loss, 0.0);
        } else {
            EXPECT_EQ(t.target_exact, 0.0);
            EXPECT_EQ(t.target_loss, 0.1);
        }
    }
}

// Training sequences are exactly the training length (BOS + 16 decoder positions for both tasks),
// so positions 17..32 of the test are never trained; the model's max_len holds the test length.
TEST(VariantComparison, TestLengthReachesPositionsTrainingNeverSaw) {
    for (TaskKind task : {TaskKind::Copy, TaskKind::Induction}) {
        const ComparisonRow* row = nullptr;
        for (const ComparisonRow& r : comparison_rows())
            if (r.task == task) row = &r;
        ASSERT_NE(row, nullptr);
        const ModelConfig m = comparison_model(*row);
        const TrainingConfig t = comparison_training(*row);
        Task train(t, m.max_len);
        size_t longest_train = 0, shortest_train = 1000;
        for (int i = 0; i < 100; ++i) {
            const Batch b = train.next_batch(t.batch);
            for (const auto& r : b.tgt) {
                longest_train = std::max(longest_train, r.size());
                shortest_train = std::min(shortest_train, r.size());
            }
            for (const auto& r : b.src) longest_train = std::max(longest_train, r.size());
        }
        EXPECT_EQ(longest_train, 17u) << to_string(task);
        EXPECT_EQ(shortest_train, 17u) << to_string(task) << ": every training sequence has the same length";
        TrainingConfig tt = t;
        tt.length = comparison_test_length(task);
        tt.min_length = 0;
        const Task test(tt, m.max_len);
        const Batch b = test.batch_of(test.held_out());
        for (const auto& r : b.tgt) EXPECT_EQ(r.size(), 33u) << to_string(task) << ": 32 tokens after BOS";
        EXPECT_GE(m.max_len, 33);
    }
}

TEST(VariantComparison, ResultsFileCoversEveryRow) {
    const std::string path = std::string(TX_SOURCE_DIR) + "/assets/compare/results.json";
    const auto results = load_comparison_results(path);
    std::set<std::string> ids;
    for (const auto& [id, r] : results) {
        ids.insert(id);
        EXPECT_EQ(r.budget, COMPARISON_STEPS) << id;
        if (r.steps) {
            EXPECT_GT(*r.steps, 0) << id;
            EXPECT_LE(*r.steps, r.budget) << id;
        }
        EXPECT_FALSE(r.at_train_length.empty()) << id;
        EXPECT_FALSE(r.at_test_length.empty()) << id;
    }
    for (const ComparisonRow& row : comparison_rows()) EXPECT_EQ(ids.count(row.id), 1u) << row.id << " has no figure";
}

TEST(VariantComparison, ResultsLoaderReadsNullStepsAndRefusesBadFiles) {
    const std::string path = tx::test::unique_temp_path("compare-results-test.json");
    {
        std::ofstream f(path);
        f << R"({"rows": {"copy-none-relu-s1": {"steps": null, "budget": 2000, "at_train_length": "3% exact",)"
          << R"( "at_test_length": "0% exact, 9% tokens"}, "copy-sinusoidal-relu-s1": {"steps": 850, "budget": 2000,)"
          << R"( "at_train_length": "100% exact", "at_test_length": "0% exact, 51% tokens"}}})";
    }
    const auto results = load_comparison_results(path);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& [id, r] : results) {
        if (id == "copy-none-relu-s1") {
            EXPECT_FALSE(r.steps.has_value());
            EXPECT_EQ(r.at_test_length, "0% exact, 9% tokens");
        } else {
            ASSERT_TRUE(r.steps.has_value());
            EXPECT_EQ(*r.steps, 850);
        }
    }
    {
        std::ofstream f(path);
        f << R"({"rows": {"copy-none-relu-s1": {"budget": 2000}}})";
    }
    EXPECT_THROW(load_comparison_results(path), ConfigError);
    std::remove(path.c_str());
    EXPECT_THROW(load_comparison_results(path), ConfigError);
}

}  // namespace
}  // namespace tx
