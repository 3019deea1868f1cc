// Golden forward: our CPU model against an independent PyTorch reference. The fixtures come from
// tests/gen_golden_forward.py (a functional float64 model checked there against torch.nn's
// Transformer layers): golden_<norm>.ckpt.safetensors is a checkpoint in our format,
// golden_<norm>.trace.safetensors holds the inputs, the masks, every step output under its step
// name, and a greedy decode. Tolerance |got - ref| <= 1e-5 + 1e-4·|ref| (float32 against float64);
// -inf must be -inf.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/decoding.h"
#include "tx/safetensors.h"
#include "tx/transformer.h"
#include "support/fixtures.h"

namespace {

using tx::test::fixture;
using tx::test::rows_of;

constexpr double ATOL = 1e-5;
constexpr double RTOL = 1e-4;

// Trace tensors that are not step outputs: the inputs, the masks and the greedy decode.
const std::set<std::string> TRACE_EXTRAS = {"src_ids", "tgt_ids", "src_mask", "tgt_mask", "greedy.ids"};

bool close(float got, float ref) {
    if (!std::isfinite(ref)) return got == ref;   // -inf where masked must stay -inf (NaN never matches)
    return std::isfinite(got) && std::fabs(static_cast<double>(got) - ref) <= ATOL + RTOL * std::fabs(ref);
}

class GoldenForward : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        const std::string norm = GetParam();
        m_checkpoint = tx::load_checkpoint(fixture("golden_" + norm + ".ckpt.safetensors"));
        m_trace = tx::read_safetensors(fixture("golden_" + norm + ".trace.safetensors"));
        ASSERT_NE(m_trace.find("src_ids"), nullptr);
        ASSERT_NE(m_trace.find("tgt_ids"), nullptr);
        m_src = rows_of(*m_trace.find("src_ids"), m_checkpoint.config.special.pad);
        m_tgt = rows_of(*m_trace.find("tgt_ids"), m_checkpoint.config.special.pad);
    }

    // A model with the checkpoint's parameters and the trace's batch, on its own CPU backend.
    std::unique_ptr<tx::Transformer> make_model() {
        auto model = std::make_unique<tx::Transformer>(m_checkpoint.config, *m_backend);
        model->set_parameters(m_checkpoint.parameters);
        model->set_batch(m_src, m_tgt);
        return model;
    }

    std::unique_ptr<tx::Backend> m_backend = tx::make_cpu_backend();
    tx::Checkpoint m_checkpoint;
    tx::SafetensorsFile m_trace;
    std::vector<std::vector<int>> m_src, m_tgt;
};

TEST_P(GoldenForward, CheckpointHasTheFixtureConfig) {
    const tx::ModelConfig& c = m_checkpoint.config;
    EXPECT_EQ(c.norm, std::string(GetParam()) == "pre" ? tx::NormPlacement::Pre : tx::NormPlacement::Post);
    EXPECT_EQ(c.d_model, 16);
    EXPECT_EQ(c.heads, 4);
    EXPECT_EQ(c.d_ff, 32);
    EXPECT_EQ(c.encoder_layers, 2);
    EXPECT_EQ(c.decoder_layers, 2);
    EXPECT_EQ(c.max_len, 32);
    EXPECT_EQ(c.src_vocab, 13);
    EXPECT_EQ(c.tgt_vocab, 13);
    EXPECT_EQ(m_checkpoint.vocabulary.size(), 13u);
    EXPECT_EQ(m_checkpoint.vocabulary.at(0), "<pad>");
    EXPECT_EQ(static_cast<int64_t>(m_checkpoint.parameters.size()), tx::ParameterTable(c).total());
}

TEST_P(GoldenForward, EveryStepMatchesTheReference) {
    auto model = make_model();
    model->forward();
    for (size_t i = 0; i < model->step_count(); ++i) {
        const tx::StepInfo& step = model->steps()[i];
        const tx::NamedTensor* ref = m_trace.find(step.name);
        if (!ref) continue;   // reported by StepNamesMatchTheTrace
        SCOPED_TRACE(step.name);
        ASSERT_EQ(step.shape.dims, ref->shape) << "shape " << step.shape.str();
        const std::vector<float> got = model->step_output(i);
        ASSERT_EQ(got.size(), ref->data.size());
        size_t bad = 0, first_bad = 0;
        double worst = 0.0;
        for (size_t j = 0; j < got.size(); ++j) {
            if (close(got[j], ref->data[j])) continue;
            if (bad++ == 0) first_bad = j;
            if (std::isfinite(ref->data[j])) worst = std::max(worst, std::fabs(double(got[j]) - ref->data[j]));
        }
        EXPECT_EQ(bad, 0u) << bad << " of " << got.size() << " values differ; first at flat index " << first_bad
                           << ": got " << got[first_bad] << ", reference " << ref->data[first_bad]
                           << "; largest finite |diff| " << worst;
    }
}

TEST_P(GoldenForward, StepNamesMatchTheTrace) {
    auto model = make_model();
    std::set<std::string> ours, theirs;
    for (const auto& step : model->steps()) {
        EXPECT_TRUE(ours.insert(step.name).second) << "duplicate step name " << step.name;
        EXPECT_NE(m_trace.find(step.name), nullptr) << "step " << step.name << " is not in the reference trace";
    }
    for (const auto& t : m_trace.tensors) {
        theirs.insert(t.name);
        if (!TRACE_EXTRAS.count(t.name)) {
            EXPECT_TRUE(ours.count(t.name)) << "reference tensor " << t.name << " is not a step of ours";
        }
    }
    for (const auto& extra : TRACE_EXTRAS) EXPECT_TRUE(theirs.count(extra)) << extra << " missing from the trace";
}

TEST_P(GoldenForward, MasksMatchTheReference) {
    auto model = make_model();
    const tx::NamedTensor* src_mask = m_trace.find("src_mask");
    const tx::NamedTensor* tgt_mask = m_trace.find("tgt_mask");
    ASSERT_NE(src_mask, nullptr);
    ASSERT_NE(tgt_mask, nullptr);
    EXPECT_EQ(model->src_mask(), src_mask->data);
    EXPECT_EQ(model->tgt_mask(), tgt_mask->data);
}

// docs/design.md §5: running all steps equals one forward call, bit for bit.
TEST_P(GoldenForward, RunningStepByStepEqualsForwardBitForBit) {
    auto whole = make_model();
    whole->forward();
    auto stepped = make_model();
    for (size_t i = 0; i < stepped->step_count(); ++i) stepped->run_step(i);
    ASSERT_EQ(whole->step_count(), stepped->step_count());
    for (size_t i = 0; i < whole->step_count(); ++i) {
        const std::vector<float> a = whole->step_output(i), b = stepped->step_output(i);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << whole->steps()[i].name;
    }
    // encode() then decode() is the same split of the same steps.
    auto split = make_model();
    split->encode();
    split->decode();
    for (size_t i = 0; i < whole->step_count(); ++i) {
        const std::vector<float> a = whole->step_output(i), b = split->step_output(i);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << whole->steps()[i].name;
    }
}

TEST_P(GoldenForward, GreedyDecodeMatchesPyTorch) {
    const tx::NamedTensor* expected = m_trace.find("greedy.ids");
    ASSERT_NE(expected, nullptr);
    const auto B = static_cast<size_t>(expected->shape.at(0));
    const int max_new = static_cast<int>(expected->shape.at(1));
    ASSERT_EQ(B, m_src.size());
    auto model = make_model();
    const auto decoded = tx::greedy_decode(*model, m_src, max_new);
    ASSERT_EQ(decoded.size(), B);
    for (size_t b = 0; b < B; ++b) {
        std::vector<int> want;
        for (int j = 0; j < max_new; ++j) {
            const int id = static_cast<int>(expected->data[b * max_new + j]);
            if (id < 0) break;   // the row produced EOS
            want.push_back(id);
        }
        EXPECT_EQ(decoded[b], want) << "row " << b;
    }
}

INSTANTIATE_TEST_SUITE_P(PostAndPreLN, GoldenForward, ::testing::Values("post", "pre"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
