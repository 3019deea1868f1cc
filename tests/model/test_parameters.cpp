// Parameter initialisation: same seed same weights; every matrix Xavier-uniform with the bound
// of its fans (q, k, v as one stacked [3D, D] matrix); biases and LayerNorm as documented in
// parameters.h. Bounds are checked both ways: nothing outside the bound, and a spread (maximum
// and variance) that only the right bound gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tx/parameters.h"

namespace tx {
namespace {

ModelConfig small_config() {
    ModelConfig c;
    c.src_vocab = 40;
    c.tgt_vocab = 30;
    c.d_model = 64;
    c.heads = 4;
    c.d_ff = 128;
    c.encoder_layers = 2;
    c.decoder_layers = 2;
    return c;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Checks that the values look drawn from U(-bound, bound): none outside, the largest near the
// bound, and (for enough values) the variance near bound²/3.
void expect_uniform(const float* p, int64_t n, double bound, const std::string& name) {
    double max_abs = 0.0, sum_sq = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        max_abs = std::max(max_abs, static_cast<double>(std::fabs(p[i])));
        sum_sq += static_cast<double>(p[i]) * p[i];
    }
    EXPECT_LE(max_abs, bound * (1 + 1e-6)) << name;
    if (n >= 30) {
        EXPECT_GE(max_abs, 0.8 * bound) << name << ": values never come near the bound " << bound;
    }
    if (n >= 1000) {
        const double variance = sum_sq / static_cast<double>(n), expected = bound * bound / 3.0;
        EXPECT_NEAR(variance, expected, 0.1 * expected) << name;
    }
}

TEST(Parameters, SameSeedSameWeightsOtherSeedOtherWeights) {
    const ParameterTable table(small_config());
    const std::vector<float> a = init_parameters(table, 7), b = init_parameters(table, 7), c = init_parameters(table, 8);
    ASSERT_EQ(a.size(), static_cast<size_t>(table.total()));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(Parameters, MatricesAreXavierUniformWithQkvStacked) {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        ModelConfig config = small_config();
        config.norm = norm;
        const ParameterTable table(config);
        const std::vector<float> p = init_parameters(table, 3);
        int matrices = 0;
        for (const ParameterInfo& e : table.entries()) {
            if (!e.is_matrix()) continue;
            ++matrices;
            const bool qkv = ends_with(e.name, "q_proj.weight") || ends_with(e.name, "k_proj.weight") ||
                             ends_with(e.name, "v_proj.weight");
            const double fan_out = static_cast<double>(qkv ? 3 * e.shape[0] : e.shape[0]);
            const double bound = std::sqrt(6.0 / (fan_out + static_cast<double>(e.shape[1])));
            expect_uniform(p.data() + e.offset, e.numel(), bound, e.name);
        }
        EXPECT_EQ(matrices, 2 + 6 * 2 + 10 * 2 + 1);   // embeddings, encoder and decoder layers, generator
    }
}

TEST(Parameters, BiasesAndLayerNormAsNnLinearAndNnMultiheadAttention) {
    ModelConfig config = small_config();
    config.norm = NormPlacement::Pre;   // adds the final encoder/decoder norms
    const ParameterTable table(config);
    const std::vector<float> p = init_parameters(table, 5);
    for (const ParameterInfo& e : table.entries()) {
        if (e.is_matrix()) continue;
        const float* v = p.data() + e.offset;
        const bool norm = e.name.find("norm") != std::string::npos;
        if (norm && ends_with(e.name, ".weight")) {
            EXPECT_TRUE(std::all_of(v, v + e.numel(), [](float x) { return x == 1.0f; })) << e.name;
        } else if (ends_with(e.name, "linear1.bias") || ends_with(e.name, "linear2.bias") || e.name == "generator.bias") {
            // nn.Linear's default: U(±1/√fan_in), fan_in = the weight's second dimension.
            const ParameterInfo& weight = table.at(e.name.substr(0, e.name.size() - 4) + "weight");
            expect_uniform(v, e.numel(), 1.0 / std::sqrt(static_cast<double>(weight.shape[1])), e.name);
        } else {
            // LayerNorm biases and the attention projections' biases (nn.MultiheadAttention: 0).
            EXPECT_TRUE(std::all_of(v, v + e.numel(), [](float x) { return x == 0.0f; })) << e.name;
        }
    }
}

}  // namespace
}  // namespace tx
