// Quantization-aware training (TrainingConfig::quantization_aware, docs/precision.md): the
// weights it rounds are the linear layers' (the fake quantisation itself is checked with INT8's
// round trip in tests/precision/test_precision_modes.cpp); a step takes its
// gradient at the rounded weights and applies it to the FP32 weights (the straight-through
// estimator), which a plain step from the rounded weights checks; evaluation sees the rounded
// weights and leaves the FP32 ones; the setting round-trips through the JSON and refuses bf16/fp16.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tx/evaluation.h"
#include "tx/int8_quantize.h"
#include "tx/parameters.h"
#include "tx/trainer.h"
#include "tx/training_config.h"

namespace tx::qat_test {
namespace {

TEST(ParameterInfo, LinearWeightsAreTheMultipliedMatrices) {
    ModelConfig c = preset_model(Preset::Tiny);
    c.src_vocab = c.tgt_vocab = 14;
    c.positional = PositionalKind::Relative;
    const ParameterTable table(c);
    for (const ParameterInfo& p : table.entries()) {
        const bool looked_up = p.name.find("embed") != std::string::npos || p.name.find("relative_bias") != std::string::npos;
        EXPECT_EQ(p.is_linear_weight(), p.is_matrix() && !looked_up) << p.name;
    }
}

std::vector<float> rounded(const TrainingRun& run, std::vector<float> p) {
    const ParameterTable table(run.model_config());
    for (const ParameterInfo& info : table.entries())
        if (info.is_linear_weight())
            fake_quantize_int8_rows(p.data() + info.offset, static_cast<int>(info.shape[0]), static_cast<int>(info.shape[1]));
    return p;
}

// One QAT step from weights w changes them by exactly what one plain step from the rounded
// weights changes those by: Adam's update depends on the gradient alone, and QAT's gradient is
// the gradient at the rounded weights.
TEST(QuantizationAwareTraining, AStepAppliesTheRoundedWeightsGradientToTheFp32Weights) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    t.max_steps = 1;
    t.quantization_aware = true;
    TrainingRun qat(preset_model(Preset::Tiny), t);
    const std::vector<float> w = qat.parameters();
    Checkpoint start = qat.checkpoint();
    start.parameters = rounded(qat, w);
    ASSERT_NE(start.parameters, w);
    t.quantization_aware = false;
    TrainingRun plain(preset_model(Preset::Tiny), t, make_cpu_backend, &start);
    const auto a = qat.train_step(), b = plain.train_step();
    EXPECT_EQ(a.loss, b.loss);   // the same forward: the rounded weights
    const std::vector<float> after_qat = qat.parameters(), after_plain = plain.parameters();
    double largest = 0.0;
    for (size_t i = 0; i < w.size(); ++i) {
        const double moved_qat = static_cast<double>(after_qat[i]) - w[i];
        const double moved_plain = static_cast<double>(after_plain[i]) - start.parameters[i];
        largest = std::max(largest, std::abs(moved_qat - moved_plain));
    }
    EXPECT_LT(largest, 1e-6) << "the two updates differ";
    EXPECT_NE(after_qat, rounded(qat, after_qat));   // the FP32 weights, not their rounding, are kept
}

TEST(QuantizationAwareTraining, EvaluationSeesTheRoundedWeightsAndKeepsTheFp32Ones) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    t.max_steps = 2;
    t.quantization_aware = true;
    TrainingRun qat(preset_model(Preset::Tiny), t);
    qat.train_step();
    const std::vector<float> w = qat.parameters();
    const EvalResult seen = qat.evaluate(false);
    EXPECT_EQ(qat.parameters(), w);
    Checkpoint same = qat.checkpoint();
    same.parameters = rounded(qat, w);
    t.quantization_aware = false;
    TrainingRun plain(preset_model(Preset::Tiny), t, make_cpu_backend, &same);
    EXPECT_EQ(plain.evaluate(false).loss, seen.loss);
}

TEST(QuantizationAwareTraining, TheSettingIsSavedAndRefusesLowPrecision) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    EXPECT_EQ(to_json(t).find("quantization_aware"), std::string::npos);   // off: the JSON as before
    t.quantization_aware = true;
    EXPECT_TRUE(training_config_from_json(to_json(t)).quantization_aware);
    t.precision = Precision::Bf16;
    const auto error = validate(t);
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->find("quantization-aware"), std::string::npos) << *error;
    EXPECT_NE(error->find("bf16"), std::string::npos) << *error;
    EXPECT_THROW(training_config_from_json(R"({"task":"copy","quantization_aware":1})"), ConfigError);
}

}  // namespace
}  // namespace tx::qat_test
