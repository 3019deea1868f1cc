// A seeded random walk of the explorer's commands (app/command.h) on a Workbench with no window:
// thousands of commands a learner could send, bad ones included (empty, very long, unicode and
// broken text, steps and heads out of range, missing and corrupt checkpoints, invalid configs),
// and after EACH one the invariants every panel relies on: nothing is thrown out of apply(), a
// model is open with at least one sentence, every finished attention row sums to 1 (or is all
// zero), the selections lie inside the model, the cursors inside their ranges.
// TX_RANDOM_WALK_COMMANDS sets the commands per seed; TX_RANDOM_WALK_TRACE=1 names each command
// on stderr as it starts (to find one that hangs).
#include <cxxabi.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <typeinfo>
#include <vector>

#include "command.h"
#include "tx/training_config.h"
#include "workbench.h"
#include "support/fixtures.h"

namespace fs = std::filesystem;
using namespace tx;
using namespace tx::app;

namespace {

using tx::test::ASSETS;

int commands_per_seed() {
    if (const char* n = std::getenv("TX_RANDOM_WALK_COMMANDS"); n && std::atoi(n) > 0) return std::atoi(n);
    return 2000;
}

// The command's struct name ("tx::app::SetInput"), for failure messages.
std::string name_of(const Command& c) {
    return std::visit(
        [](const auto& x) {
            int status = 0;
            char* name = abi::__cxa_demangle(typeid(x).name(), nullptr, nullptr, &status);
            std::string out = status == 0 && name ? name : typeid(x).name();
            std::free(name);
            return out;
        },
        c);
}

// Draws commands: the distribution leans on what a learner does most (typing, stepping,
// toggling), with the rarer and slower ones (training, Look inside, other models) now and then.
class CommandDraw {
public:
    CommandDraw(uint64_t seed, fs::path dir) : m_rng(seed), m_dir(std::move(dir)) {
        // A file that is not a checkpoint, and one whose header promises more bytes than it holds.
        std::ofstream(m_dir / "corrupt.safetensors") << "not a safetensors file at all";
        std::ofstream truncated(m_dir / "truncated.safetensors", std::ios::binary);
        const uint64_t header = 1000;
        truncated.write(reinterpret_cast<const char*>(&header), 8);
        truncated << "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
    }

    Command next(const Workbench& wb) {
        const explain::SessionView& v = wb.view();
        switch (pick(41)) {
            case 0: case 1: case 2: case 3: return SetInput{sentences(v), target()};
            case 4: {   // one more sentence, or one fewer (down to none: refused)
                std::vector<std::string> s = v.sentences;
                if (coin() && !s.empty()) s.pop_back();
                else s.push_back(sentence());
                return SetInput{s, std::nullopt};
            }
            case 5: case 6: return StepForward{};
            case 7: return StepBack{};
            case 8: return NextLayer{};
            case 9: return PreviousLayer{};
            case 10: return coin() ? Command(RunToEnd{}) : Command(Restart{});
            case 11: return RunTo{static_cast<size_t>(pick(static_cast<int>(v.steps.size()) + 5))};
            case 12: {
                const bool numbered = coin();
                std::string step = v.steps.empty() || pick(4) == 0 ? "no.such.step" : v.steps[pick(static_cast<int>(v.steps.size()))].name;
                if (numbered) step = std::to_string(pick(static_cast<int>(v.steps.size()) + 3));
                return GoToStep{step, numbered};
            }
            case 13: return SetCausalMask{coin()};
            case 14: return SetPaddingMask{coin()};
            case 15: return SetPositionalEncoding{coin()};
            case 16: return SetAttentionScaling{coin()};
            case 17: case 18: return SetHeadEnabled{prefix(v), pick(v.config.heads + 2) - 1, coin()};
            case 19: return pick(3) == 0 ? Command(EnableAllHeads{}) : Command(SetFusedAttention{coin()});
            case 20: return SetDecoding{pick(7), pick(4) == 0 ? -1.0 : 0.6};
            case 21: case 22: return SelectAttention{prefix(v), pick(v.config.heads + 2) - 1, coin()};
            case 23: return OpenNeuronView{pick(v.S + 3) - 1, pick(v.S + 3) - 1};
            case 24: return pick(3) == 0 ? Command(HighlightPanel{coin() ? "attention" : "nope"})
                                         : Command(ShowPanel{coin() ? "steps" : "masks"});
            case 25: return model_command(v);
            case 26: {
                explain::GenerationSettings g;
                g.sample = coin();
                g.sampling.temperature = pick(5) == 0 ? 0.0 : 0.5 + pick(3);
                g.sampling.top_k = pick(4);
                g.sampling.seed = static_cast<uint64_t>(pick(1000));
                g.compare_full = coin();
                return SetGeneration{g, coin()};
            }
            case 27: return coin() ? Command(UpdateGeneration{}) : Command(SetGenerationCursor{pick(40) - 2, pick(12) - 2});
            case 28: return RandomTestSentence{};
            case 29: return ExportCsv{"walk", "a,b\n1,2\n"};
            case 30: return ExportRegionPng{{0, 0, 10, 10}, "walk", ""};
            case 31: return SetBackend{std::vector<std::string>{"cpu", "cuda", "nope"}[pick(3)]};
            case 32: return training_command();
            case 33: return training_command();
            case 34: {
                if (pick(8) == 0) return ComputeLookInside{};
                if (pick(6) == 0) {   // the patching settings: none, this sentence, another, a metric
                    PatchingSettings p;
                    p.corrupted = std::vector<std::string>{"", first(v), "the cat sat", "x"}[pick(4)];
                    if (coin()) p.metric_position = pick(6) - 1;
                    if (coin()) p.metric_token = coin() ? "cansado" : "#3";
                    if (coin()) p.metric_versus = "nope";
                    return SetPatching{p};
                }
                return StepForward{};
            }
            case 35: {
                if (pick(3) == 0) {   // the Precision panel's settings, INT8 everything-low (refused) among them
                    const Precision format = std::vector<Precision>{Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Int8}[pick(4)];
                    return SetPrecision{PrecisionMode{format, coin()}, pick(2) == 0 ? 1.0f : 100.0f};
                }
                if (pick(6) != 0) return StepBack{};
                return ComputePrecision{};
            }
            case 36: return pick(10) == 0 ? Command(MeasureGeneration{}) : Command(CompareBackends{});
            case 37: return PickAttentionCell{pick(v.config.heads + 2) - 1, pick(v.S + 2) - 1, pick(v.S + 2) - 1};
            case 39: {   // the Decoding panel's speculative section, settings out of range among them
                if (pick(3) == 0) return UpdateSpeculative{};
                return SetSpeculative{pick(10) - 1, pick(6) - 1, pick(4) != 0};
            }
            case 38: return LoadGenerationBench{coin() ? (m_dir / "missing.json").string() : (m_dir / "corrupt.safetensors").string()};
            default: return RunTo{0};
        }
    }

private:
    int pick(int n) { return n <= 0 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(m_rng); }
    bool coin() { return pick(2) == 0; }

    std::string sentence() {
        static const std::vector<std::string> plain = {
            "The cat sat.", "The red car is big.", "I see the dog.", "3 1 4 1 5 9 2 6 5", "5 12 3 17 8 1 5 12 3",
            "The small white dogs will not sleep in the old house.", "Seven quiet foxes jumped over two lazy dogs.",
            "The animal didn't cross the street because it was too tired."};
        switch (pick(10)) {
            case 0: return "";
            case 1: return "   \t ";
            case 2: {   // far longer than any model's max_len
                std::string s;
                for (int i = 0; i < 400; ++i) s += "the dog ";
                return s;
            }
            case 3: return "Zyxwv \xD0\xB6 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x99\x82 caf\xC3\xA9.";   // Cyrillic, CJK, emoji
            case 4: return "broken \xFF\xFE utf-8 \xC3 and \x01 control\n chars";
            default: return plain[pick(static_cast<int>(plain.size()))];
        }
    }
    std::vector<std::string> sentences(const explain::SessionView&) {
        std::vector<std::string> s;
        const int n = pick(7) == 0 ? pick(7) : 1 + pick(2);   // now and then none, or more than a batch holds
        for (int i = 0; i < n; ++i) s.push_back(sentence());
        return s;
    }
    std::optional<std::string> target() {
        if (pick(6) != 0) return std::nullopt;
        return coin() ? std::string("El perro.") : sentence();
    }
    std::string prefix(const explain::SessionView& v) {
        if (v.attention.empty() || pick(5) == 0) return "decoder.layers.9.nope";
        return v.attention[pick(static_cast<int>(v.attention.size()))].prefix;
    }
    static std::string first(const explain::SessionView& v) { return v.sentences.empty() ? std::string() : v.sentences.front(); }

    Command model_command(const explain::SessionView& v) {
        switch (pick(9)) {
            case 0: case 1: {
                // The shipped models of max_len <= 128. Not everyday (54 MB; its corpus takes seconds
                // to read) nor grammar (max_len 1024: rebuilt with fresh weights it never says EOS,
                // and greedy decoding re-runs the decoder for each of 1024 tokens, minutes per input).
                static const std::vector<std::string> keys = {"copy", "reverse", "sort", "induction", "lm", "nope"};
                return OpenModel{keys[pick(static_cast<int>(keys.size()))]};
            }
            case 2: return LoadCheckpoint{(m_dir / "missing.safetensors").string()};
            case 3: return LoadCheckpoint{(m_dir / (coin() ? "corrupt.safetensors" : "truncated.safetensors")).string()};
            case 4: return SaveCheckpoint{(m_dir / "saved.safetensors").string()};
            case 5: return LoadCheckpoint{(m_dir / "saved.safetensors").string()};   // missing until saved
            case 6: {
                ModelConfig c = v.config;
                c.heads = 1 + pick(4);   // 3 does not divide d_model 64: refused
                c.encoder_layers = c.arch == Arch::DecoderOnly ? 0 : pick(3);
                c.decoder_layers = pick(3);
                c.d_model = std::min(c.d_model, 64);
                c.d_ff = std::min(c.d_ff, 128);
                c.max_len = std::min(c.max_len, 64);
                c.window = pick(3) == 0 ? pick(5) : 0;
                c.window_dilation = pick(4) == 0 ? pick(4) : 1;   // 0, or one without a window: refused
                c.global_positions.clear();
                if (pick(4) == 0) c.global_positions = {pick(3)};   // without a window: refused
                c.kv_heads = pick(3) == 0 ? pick(5) : 0;   // grouped-query; one that does not divide heads: refused
                c.ffn_rank = pick(4) == 0 ? pick(60) : 0;   // low-rank FFN; one past max_ffn_rank(): refused
                c.seed = static_cast<uint64_t>(1 + pick(5));
                return RebuildModel{c};
            }
            case 7: {
                explain::ModelVariant variant;
                if (coin()) variant.positional = static_cast<PositionalKind>(pick(6));
                if (coin()) variant.ffn = static_cast<FfnKind>(pick(3));
                if (coin()) variant.norm_kind = static_cast<NormKind>(pick(2));
                return RebuildVariant{variant};
            }
            default: return SaveCheckpoint{(m_dir / "no-such-folder" / "x.safetensors").string()};
        }
    }

    Command training_command() {
        switch (pick(10)) {
            case 0: {
                TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
                t.max_steps = 40;   // the trainer's thread ends soon, so it does not slow the walk
                if (pick(4) == 0) t.batch = 0;   // refused: not a usable setting
                return ConfigureTrainer{Preset::Tiny, t};
            }
            case 1: case 2: return StepTraining{};
            case 3: return StartTraining{};
            case 4: case 5: return PauseTraining{};
            case 6: return ResetTrainer{};
            case 7: return SaveTrainedModel{(m_dir / "trained.safetensors").string()};
            case 8: return UseTrainedModel{};
            default: return TrainComparisonRow{"no-such-row"};
        }
    }

    std::mt19937_64 m_rng;
    fs::path m_dir;
};

// The invariants every panel relies on; "" when they hold, else the first one broken.
std::string broken_invariant(const Workbench& wb) {
    const explain::SessionView& v = wb.view();
    if (!v.valid) return "no valid model state";
    if (v.sentences.empty()) return "no sentence";
    if (v.B != static_cast<int>(v.sentences.size())) return "B " + std::to_string(v.B) + " != sentences " + std::to_string(v.sentences.size());
    if (v.cursor > v.steps.size()) return "cursor past the last step";
    if (v.outputs.size() > v.steps.size()) return "more outputs than steps";
    const Selection& s = wb.selection();
    if (!v.attention.empty() && (s.attention_block < 0 || s.attention_block >= static_cast<int>(v.attention.size())))
        return "selected attention block " + std::to_string(s.attention_block) + " of " + std::to_string(v.attention.size());
    if (s.head < 0 || s.head >= v.config.heads) return "selected head " + std::to_string(s.head) + " of " + std::to_string(v.config.heads);
    if (s.batch_row < 0 || s.batch_row >= v.B) return "selected batch row " + std::to_string(s.batch_row);
    if (const auto problem = validate(wb.precision_settings().mode)) return "the Precision settings hold an invalid mode: " + *problem;
    const explain::GenerationTrace& g = v.generation;
    if (!g.tokens.empty() && (g.token < 1 || g.token > static_cast<int>(g.tokens.size())))
        return "generation cursor at token " + std::to_string(g.token) + " of " + std::to_string(g.tokens.size());
    // Derived results (app/derived.h) are of the input shown: never another sentence's.
    if (!g.stale && g.sentence != v.sentences.front()) return "the generation trace is of '" + g.sentence + "'";
    if (v.look_inside && v.look_inside->request.source != v.sentences.front())
        return "the Look inside views are of '" + v.look_inside->request.source + "'";
    if (v.look_inside_current && !(v.look_inside->request == wb.look_inside_request()))
        return "Look inside views of other settings count as current";
    if (v.precision && v.precision->request.source != v.sentences.front())
        return "the Precision views are of '" + v.precision->request.source + "'";
    if (v.precision_current && !(v.precision->request == wb.precision_request()))
        return "a Precision result of other settings counts as current";
    // The speculative rounds shown: of the settings shown, and (when they ran) the model's greedy output.
    if (v.speculative) {
        const explain::SpeculativeView& sv = *v.speculative;
        if (!(sv.settings == explain::SpeculativeSettings{v.speculative_k, v.speculative_draft_layers}))
            return "speculative rounds of other settings are shown";
        if (sv.error.empty() && sv.result.tokens != sv.greedy) return "speculative decoding's output is not greedy's";
    }
    // Every finished attention row: a probability distribution over the keys, or all zero.
    for (const AttentionBlock& a : v.attention) {
        const std::vector<float>* p = v.finished(a.probs) ? v.output(a.probs) : nullptr;
        if (!p) continue;
        const TensorShape& shape = v.steps[a.probs].shape;
        if (shape.dims.size() != 4) return a.prefix + ".probs is not [B, H, rows, keys]";
        const int64_t keys = shape.dims[3];
        if (keys <= 0 || static_cast<int64_t>(p->size()) != shape.numel()) return a.prefix + ".probs has the wrong size";
        for (size_t row = 0; row * keys < p->size(); ++row) {
            double sum = 0.0;
            bool all_zero = true;
            for (int64_t k = 0; k < keys; ++k) {
                const float x = (*p)[row * keys + k];
                if (!std::isfinite(x) || x < 0.0f || x > 1.0f + 1e-5f)
                    return a.prefix + ".probs row " + std::to_string(row) + " holds " + std::to_string(x);
                sum += x;
                all_zero = all_zero && x == 0.0f;
            }
            if (!all_zero && std::abs(sum - 1.0) > 1e-4)
                return a.prefix + ".probs row " + std::to_string(row) + " sums to " + std::to_string(sum);
        }
    }
    return "";
}

class CommandRandomWalk : public testing::TestWithParam<uint64_t> {};

TEST_P(CommandRandomWalk, InvariantsHoldAfterEveryCommand) {
    const uint64_t seed = GetParam();
    const fs::path dir = fs::temp_directory_path() / ("tx-random-walk-" + std::to_string(seed) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "exports");
    {
        Workbench wb(ASSETS, /*headless=*/true);
        wb.seed_random(seed);
        wb.print_errors(false);   // hundreds of refusals, on purpose
        wb.remembered().export_dir = (dir / "exports").string();
        wb.open_first_model(ASSETS + "/models/reverse.safetensors", {});
        ASSERT_EQ(broken_invariant(wb), "") << "after opening the first model";
        CommandDraw draw(seed, dir);
        const int n = commands_per_seed();
        const bool trace = std::getenv("TX_RANDOM_WALK_TRACE") != nullptr;   // each command on stderr as it starts
        int errors_before = wb.error_count();
        int refused = 0;
        std::set<std::string> models;   // the model sources the walk reached
        int64_t trained_steps = 0;
        for (int i = 0; i < n; ++i) {
            const Command c = draw.next(wb);
            if (trace) std::fprintf(stderr, "%d %s\n", i, name_of(c).c_str());
            ASSERT_NO_THROW(wb.apply(c)) << "seed " << seed << ", command " << i << ": " << name_of(c);
            wb.tick();
            const std::string why = broken_invariant(wb);
            ASSERT_EQ(why, "") << "seed " << seed << ", command " << i << ": " << name_of(c) << " broke an invariant";
            refused += wb.error_count() > errors_before;
            errors_before = wb.error_count();
            models.insert(wb.model_source());
            trained_steps = std::max<int64_t>(trained_steps, wb.training().step);
        }
        std::printf("seed %llu: %d commands, %d refused with a message, %zu models seen, trainer reached step %lld\n",
                    static_cast<unsigned long long>(seed), n, refused, models.size(), static_cast<long long>(trained_steps));
        // The walk reaches both sides: commands carried out, and bad ones refused with a message.
        EXPECT_GT(refused, n / 50) << "too few refusals: the bad inputs are not reaching apply()";
        EXPECT_LT(refused, n / 2) << "most commands were refused: the walk tests little";
        EXPECT_FALSE(fs::is_empty(dir / "exports")) << "no export was written";
        wb.apply(PauseTraining{});
    }
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CommandRandomWalk, testing::Values(1u, 2u, 3u, 4u, 5u, 6u));

}  // namespace
