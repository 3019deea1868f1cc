// The variant comparison's rows and settings (see variant_comparison.h).
#include "tx/variant_comparison.h"

#include "tx/attention_window.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tx {

namespace {

struct Variant {
    PositionalKind positional;
    FfnKind ffn;
    int kv_heads = 0;
    int ffn_rank = 0;
    int window = 0, window_dilation = 1, global_position = -1;   // -1: no global position
};
constexpr Variant VARIANTS[] = {
    {PositionalKind::Sinusoidal, FfnKind::Relu}, {PositionalKind::Learned, FfnKind::Relu},
    {PositionalKind::Rope, FfnKind::Relu},       {PositionalKind::Alibi, FfnKind::Relu},
    {PositionalKind::None, FfnKind::Relu},       {PositionalKind::Relative, FfnKind::Relu},
    {PositionalKind::Sinusoidal, FfnKind::Gelu},
    {PositionalKind::Sinusoidal, FfnKind::SwiGlu},
    {PositionalKind::Sinusoidal, FfnKind::Relu, 2}, {PositionalKind::Sinusoidal, FfnKind::Relu, 1},
    {PositionalKind::Sinusoidal, FfnKind::Relu, 0, 4},
    {PositionalKind::Sinusoidal, FfnKind::Relu, 0, 0, 4},
    {PositionalKind::Sinusoidal, FfnKind::Relu, 0, 0, 4, 2},
    {PositionalKind::Sinusoidal, FfnKind::Relu, 0, 0, 4, 2, 0},
};

// "-kv2", "-r4", "-w4d2g0": only the rows that set a field say it, so the earlier rows keep their ids.
std::string variant_suffix(const Variant& v) {
    // append(), not "-kv" + std::to_string(): GCC 12 warns (-Wrestrict) about the latter here.
    std::string s;
    if (v.kv_heads > 0) s.append("-kv").append(std::to_string(v.kv_heads));
    if (v.ffn_rank > 0) s.append("-r").append(std::to_string(v.ffn_rank));
    if (v.window > 0) s.append("-w").append(std::to_string(v.window));
    if (v.window_dilation > 1) s.append("d").append(std::to_string(v.window_dilation));
    if (v.global_position >= 0) s.append("g").append(std::to_string(v.global_position));
    return s;
}

std::vector<ComparisonRow> make_rows() {
    std::vector<ComparisonRow> rows;
    for (TaskKind task : {TaskKind::Copy, TaskKind::Induction})
        for (const Variant& v : VARIANTS)
            for (uint64_t seed : COMPARISON_SEEDS) {
                ComparisonRow r;
                r.task = task;
                r.positional = v.positional;
                r.ffn = v.ffn;
                r.kv_heads = v.kv_heads;
                r.ffn_rank = v.ffn_rank;
                r.window = v.window;
                r.window_dilation = v.window_dilation;
                if (v.global_position >= 0) r.global_positions = {v.global_position};
                r.seed = seed;
                r.id = std::string(to_string(task)) + "-" + to_string(v.positional) + "-" + to_string(v.ffn) +
                       variant_suffix(v) + "-s" + std::to_string(seed);
                rows.push_back(std::move(r));
            }
    return rows;
}

}  // namespace

const std::vector<ComparisonRow>& comparison_rows() {
    static const std::vector<ComparisonRow> rows = make_rows();
    return rows;
}

const ComparisonRow* find_comparison_row(const std::string& id) {
    for (const ComparisonRow& r : comparison_rows())
        if (r.id == id) return &r;
    return nullptr;
}

ModelConfig comparison_model(const ComparisonRow& row) {
    ModelConfig m = model_for_task(preset_model(Preset::Tiny), row.task);
    m.positional = row.positional;
    m.ffn = row.ffn;
    m.kv_heads = row.kv_heads;
    m.ffn_rank = row.ffn_rank;
    m.window = row.window;
    m.window_dilation = row.window_dilation;
    m.global_positions = row.global_positions;
    m.seed = row.seed;
    return m;
}

std::string comparison_other_fields(const ComparisonRow& row) {
    const ModelConfig m = comparison_model(row);
    std::string text;
    if (m.ffn_rank > 0) text = "FFN rank " + std::to_string(m.ffn_rank);
    if (m.window > 0) text += (text.empty() ? "window " : ", window ") + window_summary(m);
    return text;
}

TrainingConfig comparison_training(const ComparisonRow& row) {
    TrainingConfig t = preset_training(Preset::Tiny, row.task);
    t.seed = row.seed;
    t.max_steps = COMPARISON_STEPS;
    if (row.task == TaskKind::Copy) {
        // The schedule the table was measured with (assets/compare/results.json), kept when the
        // tiny preset's own schedule moved to a lower rate.
        t.base_lr = 1.0f;
        t.warmup = 100;
        t.length = 16;
        t.target_exact = 1.0;
        t.eval_every = 50;   // each evaluation decodes 200 sequences greedily
    } else {
        // Every first half has 8 symbols. With lengths drawn from 4..8 (the preset), the first
        // symbol of the repeat cannot be predicted (the model cannot know the first half has
        // ended), which puts a floor of ~0.14 under the second-half loss: 0.1 would be out of
        // reach for every model. The length-32 column tells a head that looks 8 back from one
        // that matches content.
        t.min_length = 0;
        t.target_loss = 0.1;
        t.eval_every = 25;   // teacher-forced: cheap, and the target is reached in a few hundred steps
    }
    return t;
}

int comparison_test_length(TaskKind task) { return task == TaskKind::Copy ? 32 : 16; }

std::string comparison_target(TaskKind task) {
    return task == TaskKind::Copy ? "100% held-out exact match" : "second-half loss < 0.1";
}

std::vector<std::pair<std::string, ComparisonResult>> load_comparison_results(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ConfigError("comparison results: cannot read '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::pair<std::string, ComparisonResult>> out;
    try {
        const nlohmann::json j = nlohmann::json::parse(text.str());
        for (const auto& [id, r] : j.at("rows").items()) {
            ComparisonResult c;
            if (!r.at("steps").is_null()) c.steps = r.at("steps").get<int64_t>();
            c.budget = r.at("budget").get<int64_t>();
            c.at_train_length = r.at("at_train_length").get<std::string>();
            c.at_test_length = r.at("at_test_length").get<std::string>();
            out.emplace_back(id, std::move(c));
        }
    } catch (const nlohmann::json::exception& e) {
        throw ConfigError("comparison results '" + path + "': " + e.what());
    }
    return out;
}

}  // namespace tx
