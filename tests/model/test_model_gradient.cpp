// Whole-model gradient check (docs/design.md §11): a 1-layer, 2-head model (d_model 8,
// d_ff 16, vocabulary 9) on a padded batch of 2, Post-LN and Pre-LN, label smoothing on.
// backward()'s gradients against central finite differences of loss() on a sample of every
// tensor's elements; a deliberately wrong gradient must fail the same comparison. The model is
// float, so the differences use h = 3e-3 and the loss accumulated in double: h = 1e-2 steps
// over ReLU kinks of the FFN and misses by up to 20%, while at h = 1e-3 float rounding of the
// loss reached 12% on small gradients in the portable (SSE2, no FMA) build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "tx/backend.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace tx {
namespace {

ModelConfig tiny_config(NormPlacement norm, float dropout = 0.0f) {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = 9;
    c.d_model = 8;
    c.heads = 2;
    c.d_ff = 16;
    c.encoder_layers = c.decoder_layers = 1;
    c.max_len = 16;
    c.dropout = dropout;
    c.norm = norm;
    c.seed = 7;
    return c;
}

// Padding on both sides: row 1 is shorter in the source and in the target.
const std::vector<std::vector<int>> SRC = {{4, 5, 6, 7, 2}, {8, 4, 2}};
const std::vector<std::vector<int>> TGT = {{1, 4, 5, 6, 7}, {1, 8, 4}};
const std::vector<int32_t> TARGETS = {4, 5, 6, 7, 2, 8, 4, 2, 0, 0};   // [B=2, T=5], PAD 0
constexpr float SMOOTHING = 0.1f;

struct Fixture {
    explicit Fixture(const ModelConfig& c) : backend(make_cpu_backend()), model(c, *backend) {
        // Xavier weights, and biases / LayerNorm gains moved off 0 and 1 so that every tensor's
        // gradient is generic (a bias gradient that only works at bias = 0 would slip through).
        std::vector<float> p = init_parameters(model.table(), c.seed);
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> u(-0.2f, 0.2f);
        for (float& x : p) x += u(rng);
        params = p;
        model.set_parameters(p);
        model.set_batch(SRC, TGT);
    }
    double loss_at(const std::vector<float>& p) {
        model.set_parameters(p);
        model.forward();
        return model.loss(TARGETS, SMOOTHING);
    }
    std::vector<float> analytic() {
        model.set_parameters(params);
        model.zero_gradients();
        model.forward();
        model.loss(TARGETS, SMOOTHING);
        model.backward();
        return model.download_gradients();
    }
    std::unique_ptr<Backend> backend;
    Transformer model;
    std::vector<float> params;
};

struct Sample {
    std::string tensor;
    int64_t index;
    double analytic, numeric;
};

// |a - n| <= ATOL + RTOL·max(|a|, |n|). Float FD noise: the loss (~2) carries a few 1e-7 of
// rounding, over 2h = 6e-3 that is a few 1e-5. RTOL 2% still fails a gradient that is 10% off
// (checked below).
constexpr double ATOL = 1e-4, RTOL = 2e-2;
bool close(double a, double n) { return std::fabs(a - n) <= ATOL + RTOL * std::max(std::fabs(a), std::fabs(n)); }

// The k elements of each tensor with the largest analytic gradient plus k random ones.
std::vector<Sample> finite_differences(Fixture& f, const std::vector<float>& grads, int k) {
    std::vector<Sample> out;
    std::mt19937 rng(3);
    const double h = 3e-3;
    for (const ParameterInfo& e : f.model.table().entries()) {
        std::vector<int64_t> idx(static_cast<size_t>(e.numel()));
        std::iota(idx.begin(), idx.end(), e.offset);
        std::partial_sort(idx.begin(), idx.begin() + std::min<int64_t>(k, e.numel()), idx.end(),
                          [&](int64_t a, int64_t b) { return std::fabs(grads[a]) > std::fabs(grads[b]); });
        std::vector<int64_t> pick(idx.begin(), idx.begin() + std::min<int64_t>(k, e.numel()));
        for (int i = 0; i < k; ++i) pick.push_back(e.offset + static_cast<int64_t>(rng() % e.numel()));
        for (int64_t i : pick) {
            auto central = [&](double step) {
                std::vector<float> p = f.params;
                p[i] = f.params[i] + static_cast<float>(step);
                const double up = f.loss_at(p);
                p[i] = f.params[i] - static_cast<float>(step);
                return (up - f.loss_at(p)) / (2 * step);
            };
            // A ReLU kink or a LayerNorm/softmax curvature spike within ±h makes the central
            // difference meaningless there; it shows as h and h/2 disagreeing, and then the
            // shorter step (which no longer straddles it) is the estimate.
            double numeric = central(h);
            if (const double half = central(h / 2); !close(numeric, half)) numeric = half;
            out.push_back({e.name, i - e.offset, grads[i], numeric});
        }
    }
    return out;
}

void check_model(const ModelConfig& c, bool training) {
    Fixture f(c);
    f.model.options().training = training;
    f.model.options().dropout_seed = 1234;
    const std::vector<float> grads = f.analytic();
    const std::vector<Sample> samples = finite_differences(f, grads, 3);
    std::set<std::string> tensors;
    for (const Sample& s : samples) {
        tensors.insert(s.tensor);
        EXPECT_TRUE(close(s.analytic, s.numeric))
            << s.tensor << "[" << s.index << "]: analytic " << s.analytic << " vs finite difference " << s.numeric;
    }
    EXPECT_EQ(tensors.size(), f.model.table().entries().size());

    // The comparison has teeth: a gradient 10% off fails it, for every tensor whose largest
    // sampled gradient is well above the absolute tolerance.
    std::map<std::string, std::pair<int, int>> caught;   // tensor -> (failures, significant samples)
    for (const Sample& s : samples) {
        if (std::fabs(s.numeric) < 20 * ATOL) continue;
        auto& [failures, significant] = caught[s.tensor];
        ++significant;
        failures += !close(1.1 * s.analytic, s.numeric);
    }
    EXPECT_GE(caught.size(), tensors.size() / 2) << "too few tensors have gradients large enough to test";
    for (const auto& [tensor, counts] : caught)
        EXPECT_GT(counts.first, 0) << tensor << ": a 10% wrong gradient passed the comparison";
}

TEST(ModelGradient, PostLnMatchesFiniteDifferences) { check_model(tiny_config(NormPlacement::Post), false); }

TEST(ModelGradient, PreLnMatchesFiniteDifferences) { check_model(tiny_config(NormPlacement::Pre), false); }

// Dropout masks are a pure function of (dropout_seed, position): with the seed fixed, the
// training-mode loss is a deterministic function of the weights and its gradient checks out.
TEST(ModelGradient, DropoutInTrainingModeMatchesFiniteDifferencesWithTheSameSeed) {
    check_model(tiny_config(NormPlacement::Post, 0.2f), true);
}

// Each variant of docs/design.md §3 on its own, and the LLaMA-like combination, on the same tiny
// model: each adds an op pair and a branch to the step list, and each backward must match.
struct Variant {
    const char* name;
    std::function<void(ModelConfig&)> change;
    // Initialisation seed. With seed 7, RoPE, Post-RMSNorm and decoder-only each put a ReLU
    // unit of an FFN so near its kink that the differences at h = 3e-3 and 1.5e-3 both straddle
    // it (3-15% off); they reach the analytic value only at h = 3e-4 or below, where float
    // rounding of the loss takes over elsewhere. Another seed moves the kink away.
    uint64_t seed = 7;
};
const std::vector<Variant> VARIANTS = {
    {"learned positions", [](ModelConfig& c) { c.positional = PositionalKind::Learned; }},
    {"rope", [](ModelConfig& c) { c.positional = PositionalKind::Rope; }, 8},
    {"alibi", [](ModelConfig& c) { c.positional = PositionalKind::Alibi; }},
    {"t5 relative bias", [](ModelConfig& c) { c.positional = PositionalKind::Relative; }},
    {"t5 relative bias, decoder-only", [](ModelConfig& c) {
         c.positional = PositionalKind::Relative;
         c.arch = Arch::DecoderOnly;
         c.encoder_layers = 0;
     }, 3},
    {"no positions", [](ModelConfig& c) { c.positional = PositionalKind::None; }},
    {"gelu", [](ModelConfig& c) { c.ffn = FfnKind::Gelu; }},
    {"swiglu", [](ModelConfig& c) { c.ffn = FfnKind::SwiGlu; }},
    {"rmsnorm post", [](ModelConfig& c) { c.norm_kind = NormKind::RmsNorm; }, 8},
    {"rmsnorm pre", [](ModelConfig& c) { c.norm_kind = NormKind::RmsNorm; c.norm = NormPlacement::Pre; }},
    {"window 2", [](ModelConfig& c) { c.window = 2; }},
    {"dilated window with a global position", [](ModelConfig& c) {
         c.window = 2;
         c.window_dilation = 2;
         c.global_positions = {1};
     }},
    {"multi-query (kv_heads 1)", [](ModelConfig& c) { c.kv_heads = 1; }},
    {"low-rank ffn (rank 3)", [](ModelConfig& c) { c.ffn_rank = 3; }},
    {"low-rank swiglu (rank 2)", [](ModelConfig& c) {
         c.ffn = FfnKind::SwiGlu;
         c.ffn_rank = 2;
     }},
    {"multi-query rope decoder-only", [](ModelConfig& c) {
         c.kv_heads = 1;
         c.positional = PositionalKind::Rope;
         c.arch = Arch::DecoderOnly;
         c.encoder_layers = 0;
     }, 8},
    {"decoder-only", [](ModelConfig& c) {
         c.arch = Arch::DecoderOnly;
         c.encoder_layers = 0;
     }, 8},
    {"decoder-only rope+swiglu+rmsnorm+pre", [](ModelConfig& c) {
         c.arch = Arch::DecoderOnly;
         c.encoder_layers = 0;
         c.positional = PositionalKind::Rope;
         c.ffn = FfnKind::SwiGlu;
         c.norm_kind = NormKind::RmsNorm;
         c.norm = NormPlacement::Pre;
     }},
    {"rope+swiglu+rmsnorm+pre+window", [](ModelConfig& c) {
         c.positional = PositionalKind::Rope;
         c.ffn = FfnKind::SwiGlu;
         c.norm_kind = NormKind::RmsNorm;
         c.norm = NormPlacement::Pre;
         c.window = 3;
     }},
};

TEST(ModelGradient, EveryVariantMatchesFiniteDifferences) {
    for (const Variant& v : VARIANTS) {
        SCOPED_TRACE(v.name);
        ModelConfig c = tiny_config(NormPlacement::Post);
        c.seed = v.seed;
        v.change(c);
        check_model(c, false);
    }
}

// Dropout on the variants' own steps (SwiGLU's hidden, learned positions, the GELU hidden) in
// training mode, with the seed fixed.
TEST(ModelGradient, VariantsWithDropoutInTrainingModeMatchFiniteDifferences) {
    ModelConfig c = tiny_config(NormPlacement::Pre, 0.2f);
    c.positional = PositionalKind::Learned;
    c.ffn = FfnKind::SwiGlu;
    check_model(c, true);
    c.positional = PositionalKind::Alibi;
    c.ffn = FfnKind::Gelu;
    c.norm_kind = NormKind::RmsNorm;
    check_model(c, true);
}

TEST(ModelGradient, DropoutChangesTheLossWithTheSeedOnly) {
    Fixture f(tiny_config(NormPlacement::Post, 0.2f));
    f.model.options().training = true;
    f.model.options().dropout_seed = 5;
    const double a = f.loss_at(f.params), b = f.loss_at(f.params);
    f.model.options().dropout_seed = 6;
    const double c = f.loss_at(f.params);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

// The accumulate rule at model level: parameter gradients add up over forward/loss/backward
// passes (gradient accumulation), and backward twice after one loss gives twice as well.
TEST(ModelGradient, BackwardTwiceGivesTwiceTheGradient) {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        Fixture f(tiny_config(norm));
        const std::vector<float> once = f.analytic();
        f.model.zero_gradients();
        for (int pass = 0; pass < 2; ++pass) {
            f.model.forward();
            f.model.loss(TARGETS, SMOOTHING);
            f.model.backward();
        }
        const std::vector<float> twice_passes = f.model.download_gradients();
        f.model.zero_gradients();
        f.model.forward();
        f.model.loss(TARGETS, SMOOTHING);
        f.model.backward();
        f.model.backward();
        const std::vector<float> twice_backward = f.model.download_gradients();
        double norm_once = 0;
        for (size_t i = 0; i < once.size(); ++i) {
            norm_once += std::fabs(once[i]);
            ASSERT_NEAR(twice_passes[i], 2 * once[i], 1e-6 + 1e-5 * std::fabs(once[i])) << "passes, element " << i;
            ASSERT_NEAR(twice_backward[i], 2 * once[i], 1e-6 + 1e-5 * std::fabs(once[i])) << "backward, element " << i;
        }
        EXPECT_GT(norm_once, 0.0);
    }
}

}  // namespace
}  // namespace tx
