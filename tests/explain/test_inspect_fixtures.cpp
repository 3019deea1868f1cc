// The look-inside views (explain/logit_lens.h, activation_patching.h, head_importance.h,
// attention_rollout.h, logit_attribution.h) against tests/gen_inspect_fixtures.py: NumPy in float64,
// its own forward of the golden models (itself checked there against the PyTorch golden trace).
// Fixtures: tests/fixtures/inspect_{post,pre}.safetensors. Tolerance |got − ref| <= atol + rtol·|ref|
// (float32 model against float64; sums of several log-probs get a wider atol).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "activation_patching.h"
#include "attention_rollout.h"
#include "head_importance.h"
#include "inspect_model.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "tx/checkpoint.h"
#include "tx/safetensors.h"
#include "support/fixtures.h"

namespace tx::explain {
namespace {

using test::fixture;

class InspectFixture : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        const std::string norm = GetParam();
        m_model = std::make_unique<InspectModel>(load_checkpoint(fixture("golden_" + norm + ".ckpt.safetensors")));
        m_ref = read_safetensors(fixture("inspect_" + norm + ".safetensors"));
        m_clean.src = nlohmann::json::parse(m_ref.metadata.at("clean_src")).get<std::vector<int>>();
        m_corrupted.src = nlohmann::json::parse(m_ref.metadata.at("corrupt_src")).get<std::vector<int>>();
        m_clean.tgt = m_corrupted.tgt = nlohmann::json::parse(m_ref.metadata.at("tgt")).get<std::vector<int>>();
    }
    const std::vector<float>& ref(const std::string& name) const {
        const NamedTensor* t = m_ref.find(name);
        if (!t) throw std::runtime_error("fixture tensor " + name + " is missing");
        return t->data;
    }
    // Every value of `got` against the fixture tensor `name`.
    template <typename Got>
    void expect_close(const Got& got, const std::string& name, double atol, double rtol = 1e-3) const {
        const std::vector<float>& r = ref(name);
        ASSERT_EQ(got.size(), r.size()) << name;
        int bad = 0;
        for (size_t i = 0; i < r.size() && bad < 5; ++i)
            if (!(std::fabs(static_cast<double>(got[i]) - r[i]) <= atol + rtol * std::fabs(r[i]))) {
                ADD_FAILURE() << name << "[" << i << "]: got " << got[i] << ", NumPy " << r[i];
                ++bad;
            }
    }
    std::unique_ptr<InspectModel> m_model;
    SafetensorsFile m_ref;
    InspectInput m_clean, m_corrupted;
};

TEST_P(InspectFixture, LogitLensMatchesNumPy) {
    const LogitLens lens = logit_lens(*m_model, m_clean, 3);
    ASSERT_TRUE(lens.error.empty()) << lens.error;
    EXPECT_FALSE(lens.caveat.empty());
    expect_close(lens.log_probs, "lens.log_probs", 2e-5, 1e-4);
}

TEST_P(InspectFixture, ActivationPatchingMatchesNumPy) {
    const std::vector<float>& m = ref("patch.metric");   // position, token, versus, clean, corrupted
    PatchMetric metric{static_cast<int>(m[0]), static_cast<int>(m[1]), static_cast<int>(m[2])};
    const ActivationPatching r = activation_patching(*m_model, m_clean, m_corrupted, metric);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_NEAR(r.clean, m[3], 1e-4);
    EXPECT_NEAR(r.corrupted, m[4], 1e-4);
    ASSERT_EQ(r.grids.size(), 10u);   // encoder 3 + decoder 4 position grids, 3 head grids
    for (const PatchGrid& g : r.grids) {
        SCOPED_TRACE(g.name);
        expect_close(g.metric, g.heads ? "patch_heads." + g.name.substr(6) : "patch." + g.name, 1e-4);
        for (size_t i = 0; i < g.metric.size(); ++i)
            EXPECT_NEAR(g.normalised[i], (g.metric[i] - r.corrupted) / (r.clean - r.corrupted), 1e-9);
    }
}

TEST_P(InspectFixture, HeadImportanceMatchesNumPy) {
    const HeadImportance r = head_importance(*m_model, m_clean);
    ASSERT_TRUE(r.error.empty()) << r.error;
    expect_close(r.chosen, "heads.chosen", 0.0, 0.0);
    ASSERT_EQ(r.grids.size(), 3u);
    for (const HeadGrid& g : r.grids) expect_close(g.delta, "heads." + g.name, 2e-4);
}

TEST_P(InspectFixture, RolloutAndEntropyMatchNumPy) {
    const AttentionRollout r = attention_rollout(*m_model, m_clean);
    ASSERT_TRUE(r.error.empty()) << r.error;
    const size_t NN = static_cast<size_t>(r.positions) * r.positions;
    ASSERT_EQ(r.per_layer.size(), r.layers * NN);
    for (int l = 0; l < r.layers; ++l)
        expect_close(std::vector<double>(r.per_layer.begin() + l * NN, r.per_layer.begin() + (l + 1) * NN),
                     "rollout.encoder." + std::to_string(l), 1e-5);
    expect_close(r.cross, "rollout.cross", 1e-5);
    const AttentionEntropy e = attention_entropy(*m_model, m_clean);
    ASSERT_TRUE(e.error.empty()) << e.error;
    ASSERT_EQ(e.grids.size(), 3u);
    for (const EntropyGrid& g : e.grids) {
        expect_close(g.entropy, "entropy." + g.name, 1e-5);
        expect_close(std::vector<double>{g.max_entropy}, "entropy_max." + g.name, 1e-9);
    }
}

TEST_P(InspectFixture, LogitAttributionMatchesNumPy) {
    const std::vector<float>& s = ref("attribution.scalars");   // position, token, remainder, logit
    const LogitAttribution r = logit_attribution(*m_model, m_clean);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.position, static_cast<int>(s[0]));
    EXPECT_EQ(r.token, static_cast<int>(s[1]));
    const auto names = nlohmann::json::parse(m_ref.metadata.at("attribution.names")).get<std::vector<std::string>>();
    ASSERT_EQ(r.parts.size(), names.size());
    std::vector<double> values;
    for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(r.parts[i].name, names[i]);
        values.push_back(r.parts[i].value);
    }
    expect_close(values, "attribution.values", 1e-4);
    EXPECT_NEAR(r.remainder, s[2], 1e-4);
    EXPECT_NEAR(r.logit, s[3], 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Inspect, InspectFixture, ::testing::Values("post", "pre"));

}  // namespace
}  // namespace tx::explain
