// The precision backend's stored weights (core/precision/precision_cpu_backend.h): a linear weight
// is held in the format, not as an FP32 copy (2 bytes a value for BF16 and FP16, half of FP32's 4;
// 1 byte a value and a 4-byte scale per row for INT8, about a quarter), reused until
// parameters_changed(), and rebuilt from the weight's new values after it. Through a model: every
// linear weight is held once in the format.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "precision/precision_cpu_backend.h"
#include "support/random_floats.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace {

using tx::Precision;

class StoredWeights : public ::testing::TestWithParam<Precision> {};

// out (N, OC) of the backend's linear layer.
std::vector<float> linear(tx::PrecisionCpuBackend& backend, const std::vector<float>& x, const std::vector<float>& w,
                          int N, int C, int OC) {
    std::vector<float> out(static_cast<size_t>(N) * OC);
    backend.linear_forward(out.data(), x.data(), w.data(), nullptr, N, C, OC);
    return out;
}

TEST_P(StoredWeights, HoldTheFormatsBytesAndAreRebuiltAfterParametersChange) {
    const Precision format = GetParam();
    const int N = 2, C = 40, OC = 6;
    tx::PrecisionCpuBackend backend({format, false});
    std::vector<float> w = tx::test::random_floats(static_cast<size_t>(OC) * C, 1);
    const std::vector<float> x = tx::test::random_floats(static_cast<size_t>(N) * C, 2);
    EXPECT_EQ(backend.stored_weight_bytes(), 0u);
    const std::vector<float> first = linear(backend, x, w, N, C, OC);
    const size_t fp32_bytes = static_cast<size_t>(OC) * C * sizeof(float);
    const size_t expected = format == Precision::Int8 ? static_cast<size_t>(OC) * C + OC * sizeof(float)
                                                      : fp32_bytes / 2;
    EXPECT_EQ(backend.stored_weight_count(), 1u);
    EXPECT_EQ(backend.stored_weight_bytes(), expected);
    if (format == Precision::Int8) EXPECT_LT(backend.stored_weight_bytes(), fp32_bytes / 3);

    // New values at the same address: the stored copy is still the old one until told.
    for (float& v : w) v = -2.0f * v;
    EXPECT_EQ(linear(backend, x, w, N, C, OC), first);
    EXPECT_EQ(backend.stored_weight_count(), 1u);
    backend.parameters_changed();
    EXPECT_EQ(backend.stored_weight_count(), 0u);
    EXPECT_EQ(backend.stored_weight_bytes(), 0u);
    const std::vector<float> second = linear(backend, x, w, N, C, OC);
    EXPECT_EQ(backend.stored_weight_bytes(), expected);
    // A fresh backend, which never saw the old values, agrees with the rebuilt copy bit for bit;
    // and -2·w gives -2 times the first outputs (exact in each format, up to the output's rounding).
    tx::PrecisionCpuBackend fresh({format, false});
    EXPECT_EQ(linear(fresh, x, w, N, C, OC), second);
    for (size_t i = 0; i < first.size(); ++i) EXPECT_NEAR(second[i], -2.0f * first[i], 1e-2 * std::fabs(first[i]) + 1e-6);
}

// A model's forward in the format stores each linear weight it multiplies once, at the format's
// bytes: the encoder's and decoder's projections and feed-forward layers and the generator.
TEST_P(StoredWeights, AModelStoresEveryLinearWeightInTheFormat) {
    const Precision format = GetParam();
    tx::ModelConfig config;
    config.src_vocab = config.tgt_vocab = 20;
    config.d_model = 16;
    config.heads = 2;
    config.d_ff = 24;
    config.encoder_layers = config.decoder_layers = 1;
    config.max_len = 8;
    const tx::ParameterTable table(config);
    tx::PrecisionCpuBackend backend({format, false});
    tx::Transformer model(config, backend);
    model.set_parameters(tx::init_parameters(table, 3));
    model.set_batch({{5, 6, 2}}, {{1, 7}});
    model.forward();
    size_t linear_weights = 0, low_bytes = 0;
    for (const tx::ParameterInfo& info : table.entries()) {
        if (info.shape.size() != 2 || info.name.find("embed") != std::string::npos || info.name.find("_pos.") != std::string::npos)
            continue;
        ++linear_weights;
        const size_t values = static_cast<size_t>(info.numel());
        low_bytes += format == Precision::Int8 ? values + static_cast<size_t>(info.shape[0]) * sizeof(float) : 2 * values;
    }
    EXPECT_EQ(backend.stored_weight_count(), linear_weights);
    EXPECT_EQ(backend.stored_weight_bytes(), low_bytes);
}

INSTANTIATE_TEST_SUITE_P(Precision, StoredWeights, ::testing::Values(Precision::Bf16, Precision::Fp16, Precision::Int8),
                         [](const auto& info) { return std::string(tx::to_string(info.param)); });

}  // namespace
