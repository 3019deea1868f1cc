// The precision modes of the CPU backend (tx/precision.h, docs/precision.md): INT8 per-channel
// quantisation, FP32 unchanged, the BF16/FP16 autocast policy (products' inputs and outputs
// rounded, softmax and norms in FP32), "everything low", and the FP32-vs-low comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <cmath>
#include <random>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/decoding.h"
#include "tx/half_float.h"
#include "tx/int8_quantize.h"
#include "tx/ops.h"
#include "tx/parameters.h"
#include "tx/precision_comparison.h"
#include "tx/transformer.h"

namespace {

float round_to(float x, tx::Precision p) {
    float y;
    tx::round_floats(&y, &x, 1, p);
    return y;
}

bool representable(const std::vector<float>& v, tx::Precision p) {
    for (float x : v)
        if (std::isfinite(x) && round_to(x, p) != x) return false;
    return true;
}

TEST(Int8Quantize, PerChannelScaleAndHalfAStep) {
    const int OC = 7, C = 13;
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 0.5f);
    std::vector<float> w(OC * C);
    for (float& x : w) x = normal(rng);
    for (int c = 0; c < C; ++c) w[3 * C + c] = 0.0f;   // a row of zeros
    w[5 * C + 4] = -9.0f;                               // an outlier sets its own row's scale only
    std::vector<int8_t> q(w.size());
    std::vector<float> scale(OC), back(w.size());
    tx::quantize_int8_rows(q.data(), scale.data(), w.data(), OC, C);
    tx::dequantize_int8_rows(back.data(), q.data(), scale.data(), OC, C);
    for (int o = 0; o < OC; ++o) {
        double largest = 0.0;
        for (int c = 0; c < C; ++c) largest = std::max(largest, std::fabs(static_cast<double>(w[o * C + c])));
        EXPECT_EQ(scale[o], static_cast<float>(largest) / 127.0f) << "row " << o;
        bool reaches_127 = false;
        for (int c = 0; c < C; ++c) {
            const int i = o * C + c;
            EXPECT_LE(std::abs(q[i]), 127);
            reaches_127 |= std::abs(q[i]) == 127;
            // |q·s − w| ≤ s/2, up to the FP32 roundings of w/s and q·s (a few ulps of w)
            EXPECT_LE(std::fabs(static_cast<double>(back[i]) - w[i]), scale[o] / 2.0 * (1 + 1e-6) + 1e-7 * std::fabs(w[i]))
                << "row " << o << " col " << c;
            EXPECT_EQ(back[i], static_cast<float>(q[i]) * scale[o]);
        }
        if (o == 3) EXPECT_EQ(scale[o], 0.0f);
        else EXPECT_TRUE(reaches_127) << "the largest |w| of row " << o << " maps to ±127";
    }
    EXPECT_EQ(q[5 * C + 4], -127);
    // Fake quantisation (quantization-aware training) is this round trip in place, and a weight
    // already on the grid stays where it is.
    std::vector<float> fake = w;
    tx::fake_quantize_int8_rows(fake.data(), OC, C);
    EXPECT_EQ(fake, back);
    tx::fake_quantize_int8_rows(fake.data(), OC, C);
    EXPECT_EQ(fake, back);
}

TEST(Int8Quantize, RoundsTiesToEven) {
    // scale 1 (max 127): 2.5 -> 2, 3.5 -> 4, -2.5 -> -2
    const std::vector<float> w = {127.0f, 2.5f, 3.5f, -2.5f, 0.49f};
    std::vector<int8_t> q(w.size());
    float scale;
    tx::quantize_int8_rows(q.data(), &scale, w.data(), 1, static_cast<int>(w.size()));
    EXPECT_EQ(scale, 1.0f);
    EXPECT_EQ(q, (std::vector<int8_t>{127, 2, 4, -2, 0}));
}

// A small encoder-decoder with fixed weights and a batch of two rows of odd lengths.
struct SmallModel {
    tx::ModelConfig config;
    std::vector<float> params;
    std::vector<std::vector<int>> src = {{5, 6, 7, 8, 2}, {9, 10, 2}}, tgt = {{1, 11, 12, 13}, {1, 14}};
    SmallModel() {
        config.src_vocab = config.tgt_vocab = 24;
        config.d_model = 16;
        config.heads = 2;
        config.d_ff = 24;
        config.encoder_layers = config.decoder_layers = 1;
        config.max_len = 16;
        config.dropout = 0.0f;
        params = tx::init_parameters(tx::ParameterTable(config), 11);
    }
    tx::Checkpoint checkpoint() const {
        tx::Checkpoint c;
        c.config = config;
        c.parameters = params;
        c.vocabulary = {"<pad>", "<bos>", "<eos>", "<unk>"};
        for (int i = 4; i < config.src_vocab; ++i) c.vocabulary.push_back("w" + std::to_string(i));
        return c;
    }
};

// Every step's output of a forward pass of m on `backend`; the model is kept in *keep when given
// (it must go before the backend does).
std::vector<std::vector<float>> run_steps(const SmallModel& m, tx::Backend& backend,
                                          std::unique_ptr<tx::Transformer>* keep = nullptr) {
    auto model = std::make_unique<tx::Transformer>(m.config, backend);
    model->set_parameters(m.params);
    model->set_batch(m.src, m.tgt);
    model->forward();
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < model->step_count(); ++i) out.push_back(model->step_output(i));
    if (keep) *keep = std::move(model);
    return out;
}

TEST(PrecisionModes, Fp32ModeGivesTheSameBits) {
    const SmallModel m;
    auto plain = tx::make_cpu_backend();
    auto fp32 = tx::make_precision_cpu_backend({tx::Precision::Fp32, false});
    const auto a = run_steps(m, *plain), b = run_steps(m, *fp32);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < a[i].size(); ++j)
            ASSERT_EQ(std::bit_cast<uint32_t>(a[i][j]), std::bit_cast<uint32_t>(b[i][j])) << "step " << i;
}

TEST(PrecisionModes, RefusesAllLowWithoutAHalfFormat) {
    EXPECT_THROW(tx::make_precision_cpu_backend({tx::Precision::Int8, true}), std::invalid_argument);
    EXPECT_THROW(tx::make_precision_cpu_backend({tx::Precision::Fp32, true}), std::invalid_argument);
}

class Autocast : public ::testing::TestWithParam<tx::Precision> {};

// PyTorch's CPU autocast policy: the products' outputs in the low format, softmax and the norms in
// FP32 on those values.
TEST_P(Autocast, ProductsAreRoundedAndSoftmaxAndNormsStayFp32) {
    const tx::Precision p = GetParam();
    const SmallModel m;
    auto backend = tx::make_precision_cpu_backend({p, false});
    std::unique_ptr<tx::Transformer> model;
    const auto out = run_steps(m, *backend, &model);
    bool some_softmax_value_not_representable = false, some_norm_value_not_representable = false;
    for (size_t i = 0; i < model->step_count(); ++i) {
        const tx::StepInfo& s = model->steps()[i];
        SCOPED_TRACE(s.name);
        if (s.kind == tx::StepKind::Scores || s.kind == tx::StepKind::Projection || s.kind == tx::StepKind::Generator ||
            s.kind == tx::StepKind::Context || s.kind == tx::StepKind::OutputProjection || s.kind == tx::StepKind::FfnOut) {
            EXPECT_TRUE(representable(out[i], p));
        }
        if (s.kind == tx::StepKind::Softmax) {
            // exactly FP32 softmax of the rounded-product scores (the masked scores step before it)
            const size_t masked = i - 1;
            ASSERT_EQ(model->steps()[masked].kind, tx::StepKind::Mask);
            std::vector<float> ref(out[i].size());
            const int C = static_cast<int>(s.shape.dims.back());
            tx::cpu::softmax_forward<float>(ref.data(), out[masked].data(), static_cast<int>(ref.size()) / C, C);
            for (size_t j = 0; j < ref.size(); ++j) ASSERT_EQ(out[i][j], ref[j]) << j;
            some_softmax_value_not_representable |= !representable(out[i], p);
        }
        if (s.kind == tx::StepKind::AddNorm) some_norm_value_not_representable |= !representable(out[i], p);
        if (s.kind == tx::StepKind::LogSoftmax) {
            std::vector<float> ref(out[i].size());
            const int V = static_cast<int>(s.shape.dims.back());
            tx::cpu::log_softmax_forward<float>(ref.data(), out[i - 1].data(), static_cast<int>(ref.size()) / V, V);
            for (size_t j = 0; j < ref.size(); ++j) ASSERT_EQ(out[i][j], ref[j]) << j;
        }
    }
    EXPECT_TRUE(some_softmax_value_not_representable) << "softmax output looks rounded: it must stay FP32";
    EXPECT_TRUE(some_norm_value_not_representable) << "norm output looks rounded: it must stay FP32";
}

// The first query projection against its definition: round(round(x)·round(W)ᵀ + round(b)),
// summed in double here (the kernel sums in FP32, so one step of the format may separate them).
TEST_P(Autocast, ALinearLayerRoundsItsOperands) {
    const tx::Precision p = GetParam();
    const SmallModel m;
    auto backend = tx::make_precision_cpu_backend({p, false});
    std::unique_ptr<tx::Transformer> model;
    const auto out = run_steps(m, *backend, &model);
    const size_t q = model->find_step("encoder.layers.0.self_attn.q");
    const size_t x = model->find_step("src_pos.out");
    ASSERT_LT(q, model->step_count());
    ASSERT_LT(x, model->step_count());
    const tx::ParameterTable table(m.config);
    const float* W = m.params.data() + table.find("encoder.layers.0.self_attn.q_proj.weight")->offset;
    const float* bias = m.params.data() + table.find("encoder.layers.0.self_attn.q_proj.bias")->offset;
    const int D = m.config.d_model, H = m.config.heads, dk = D / H, S = model->src_len(), B = 2;
    const double step = p == tx::Precision::Bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < S; ++t)
            for (int o = 0; o < D; ++o) {
                double sum = round_to(bias[o], p);
                for (int c = 0; c < D; ++c)
                    sum += static_cast<double>(round_to(out[x][(b * S + t) * D + c], p)) * round_to(W[o * D + c], p);
                const float got = out[q][((b * H + o / dk) * S + t) * dk + o % dk];   // [B,H,S,dk]
                EXPECT_NEAR(got, sum, step * std::fabs(sum) + 1e-6) << b << " " << t << " " << o;
            }
}

TEST_P(Autocast, EverythingLowRoundsEveryStep) {
    const tx::Precision p = GetParam();
    const SmallModel m;
    auto backend = tx::make_precision_cpu_backend({p, true});
    std::unique_ptr<tx::Transformer> model;
    const auto out = run_steps(m, *backend, &model);
    for (size_t i = 0; i < out.size(); ++i) EXPECT_TRUE(representable(out[i], p)) << model->steps()[i].name;
}

INSTANTIATE_TEST_SUITE_P(PrecisionModes, Autocast, ::testing::Values(tx::Precision::Bf16, tx::Precision::Fp16),
                         [](const auto& info) { return std::string(tx::to_string(info.param)); });

TEST(PrecisionModes, Int8UsesTheDequantisedWeightsAndFp32Activations) {
    SmallModel m;
    auto int8 = tx::make_precision_cpu_backend({tx::Precision::Int8, false});
    const auto got = run_steps(m, *int8);
    // The same model with every linear weight replaced by q·scale, on the FP32 backend.
    const tx::ParameterTable table(m.config);
    SmallModel dequantised = m;
    for (const tx::ParameterInfo& info : table.entries()) {
        const bool linear = info.shape.size() == 2 && info.name.find("embed") == std::string::npos &&
                            info.name.find("_pos.") == std::string::npos;
        if (!linear) continue;
        const int OC = static_cast<int>(info.shape[0]), C = static_cast<int>(info.shape[1]);
        std::vector<int8_t> q(static_cast<size_t>(OC) * C);
        std::vector<float> scale(OC);
        float* w = dequantised.params.data() + info.offset;
        tx::quantize_int8_rows(q.data(), scale.data(), w, OC, C);
        tx::dequantize_int8_rows(w, q.data(), scale.data(), OC, C);
    }
    auto fp32 = tx::make_cpu_backend();
    const auto ref = run_steps(dequantised, *fp32);
    // The INT8 product sums x·q in FP32 and multiplies by the scale once (gemm_lowp_kernels.h), the
    // FP32 one sums x·(q·scale rounded): a few FP32 roundings per sum of 16–24 terms apart, some
    // 1e-7 of a step's largest value, grown by the layers after. Activations rounded to BF16 would
    // be 4e-3 apart, and FP32 weights instead of q·scale up to 1/254 of a row's largest weight.
    for (size_t i = 0; i < ref.size(); ++i) {
        double largest = 1.0;
        for (float v : ref[i])
            if (std::isfinite(v)) largest = std::max(largest, std::fabs(static_cast<double>(v)));
        for (size_t j = 0; j < ref[i].size(); ++j) {
            if (!std::isfinite(ref[i][j])) ASSERT_EQ(got[i][j], ref[i][j]) << "step " << i << " value " << j;   // masked: -inf
            else ASSERT_NEAR(got[i][j], ref[i][j], 1e-5 * largest) << "step " << i << " value " << j;
        }
    }
}

TEST(PrecisionModes, ChangedParametersAreConvertedAgain) {
    SmallModel m;
    auto backend = tx::make_precision_cpu_backend({tx::Precision::Bf16, false});
    tx::Transformer model(m.config, *backend);
    model.set_parameters(m.params);
    model.set_batch(m.src, m.tgt);
    model.forward();
    for (float& x : m.params) x *= 0.5f;
    model.set_parameters(m.params);
    model.forward();
    auto fresh = tx::make_precision_cpu_backend({tx::Precision::Bf16, false});
    const auto ref = run_steps(m, *fresh);
    EXPECT_EQ(model.step_output(model.step_count() - 1), ref.back());
}

// FP16's 65504: embeddings of 1e5 overflow to inf when every step is rounded; the run reports
// the non-finite values and decoding still returns.
TEST(PrecisionModes, Fp16OverflowIsReportedNotFatal) {
    SmallModel m;
    const tx::ParameterTable table(m.config);
    for (const char* name : {"src_embed.weight", "tgt_embed.weight"}) {
        const tx::ParameterInfo* info = table.find(name);
        for (int64_t i = 0; i < info->numel(); ++i) m.params[info->offset + i] *= 1e5f;
    }
    const tx::PrecisionComparison r =
        tx::compare_precision(m.checkpoint(), {tx::Precision::Fp16, true}, m.src, 6);
    int64_t nonfinite = 0;
    bool a_step_has_nothing_to_compare = false;   // all inf/NaN: the views show "–", not a 0 difference
    for (const auto& s : r.steps) {
        nonfinite += s.nonfinite;
        if (s.materialised && s.finite_pairs == 0) {
            EXPECT_GT(s.nonfinite, 0) << s.name;
            EXPECT_EQ(s.max_abs, 0.0) << s.name;
            a_step_has_nothing_to_compare = true;
        }
    }
    EXPECT_GT(nonfinite, 0);
    EXPECT_TRUE(a_step_has_nothing_to_compare);
    EXPECT_EQ(r.low_output.size(), 2u);
}

TEST(PrecisionModes, ComparisonOfBf16AgainstFp32) {
    const SmallModel m;
    const tx::PrecisionComparison r = tx::compare_precision(m.checkpoint(), {tx::Precision::Bf16, false}, m.src, 6);
    ASSERT_FALSE(r.steps.empty());
    EXPECT_EQ(r.steps.front().max_abs, 0.0);   // the embedding lookup is not a product: FP32 in both
    EXPECT_GT(r.logits_max_abs, 0.0);
    EXPECT_LT(r.logits_relative, 0.05);        // a few BF16 steps (2^-8 each) over two layers
    for (const auto& s : r.steps) {
        EXPECT_EQ(s.nonfinite, 0) << s.name;
        if (s.materialised) {
            EXPECT_GT(s.finite_pairs, 0) << s.name;   // every value compared
        }
    }
    ASSERT_EQ(r.first_change.size(), 2u);
    for (size_t b = 0; b < 2; ++b) {
        if (r.first_change[b] < 0) {
            EXPECT_EQ(r.fp32_output[b], r.low_output[b]);
        }
    }
}

// docs/precision.md's example: 128 and 128.5 are one BF16 value, so their softmax goes from
// 0.38/0.62 to 0.5/0.5.
TEST(PrecisionModes, TheDocsSoftmaxExample) {
    const float scores[2] = {128.0f, 128.5f};
    float fp32[2], rounded[2], bf16[2];
    tx::cpu::softmax_forward<float>(fp32, scores, 1, 2);
    tx::round_floats(rounded, scores, 2, tx::Precision::Bf16);
    tx::cpu::softmax_forward<float>(bf16, rounded, 1, 2);
    EXPECT_NEAR(fp32[0], 0.3775, 5e-5);
    EXPECT_NEAR(fp32[1], 0.6225, 5e-5);
    EXPECT_EQ(bf16[0], 0.5f);
    EXPECT_EQ(bf16[1], 0.5f);
}

}  // namespace
