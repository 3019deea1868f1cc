// Low-rank FFN (ModelConfig::ffn_rank): checked against an independent reference, the model with
// full FFN matrices W = U·V multiplied out here in double. Forward: the same outputs, and the
// rank steps hold x·Vᵀ. Backward: by the chain rule through W = U·V, dL/dU = dL/dW·V and
// dL/dV = Uᵀ·dL/dW, with dL/dW the reference's gradient. The KV cache (its own FFN code) decodes
// as the full recompute does. Finite differences: test_model_gradient's variants.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/plain_greedy.h"
#include "support/small_models.h"
#include "support/temp_path.h"
#include "support/variant_reference.h"
#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/config.h"
#include "tx/decoding.h"
#include "tx/model_on_backend.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

// A namespace of its own: in a unity build this file shares a translation unit with others that
// have their own Pair, Case and CASES (test_grouped_query.cpp).
namespace tx::low_rank_ffn_test {

ModelConfig low_rank_config(int rank, FfnKind ffn, Arch arch) {
    ModelConfig c = test::small_config(23, 5);
    c.d_model = 24;
    c.d_ff = 48;
    c.ffn = ffn;
    c.ffn_rank = rank;
    c.arch = arch;
    if (arch == Arch::DecoderOnly) c.encoder_layers = 0;
    c.dropout = 0.0f;
    return c;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "….linear1.weight" of the full model is "….linear1.u.weight" · "….linear1.v.weight" of the
// low-rank one; every other parameter is the same.
std::vector<float> multiplied_out(const ModelConfig& low, const std::vector<float>& p, const ModelConfig& full) {
    const ParameterTable from(low), to(full);
    const int64_t r = low.ffn_rank;
    std::vector<float> out(static_cast<size_t>(to.total()));
    for (const auto& e : to.entries()) {
        if (!ends_with(e.name, ".weight") || !from.find(e.name.substr(0, e.name.size() - 6) + "u.weight")) {
            const ParameterInfo& src = from.at(e.name);
            std::copy_n(p.begin() + src.offset, e.numel(), out.begin() + e.offset);
            continue;
        }
        const std::string stem = e.name.substr(0, e.name.size() - 6);
        const ParameterInfo &u = from.at(stem + "u.weight"), &v = from.at(stem + "v.weight");
        const int64_t rows = e.shape[0], cols = e.shape[1];
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                double w = 0.0;
                for (int64_t k = 0; k < r; ++k)
                    w += static_cast<double>(p[static_cast<size_t>(u.offset + i * r + k)]) * p[static_cast<size_t>(v.offset + k * cols + j)];
                out[static_cast<size_t>(e.offset + i * cols + j)] = static_cast<float>(w);
            }
    }
    return out;
}

test::VariantPair make_pair(int rank, FfnKind ffn, Arch arch) {
    const ModelConfig low = low_rank_config(rank, ffn, arch);
    ModelConfig full = low;
    full.ffn_rank = 0;
    return test::variant_pair(low, full, [&](const std::vector<float>& p) { return multiplied_out(low, p, full); });
}

using test::largest_difference;
const std::vector<std::vector<int>>& SRC = test::VARIANT_SRC;
const std::vector<std::vector<int>>& TGT = test::VARIANT_TGT;

struct Case {
    const char* name;
    int rank;
    FfnKind ffn;
    Arch arch;
};
const Case CASES[] = {
    {"ReLU, rank 4", 4, FfnKind::Relu, Arch::EncoderDecoder},
    {"GELU, rank 1", 1, FfnKind::Gelu, Arch::EncoderDecoder},
    {"SwiGLU, rank 6", 6, FfnKind::SwiGlu, Arch::EncoderDecoder},
    {"decoder-only ReLU, rank 8", 8, FfnKind::Relu, Arch::DecoderOnly},
};

TEST(LowRankFfn, ForwardEqualsTheFullMatrixUTimesV) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.rank, k.ffn, k.arch);
        for (Transformer* m : {p.v.model.get(), p.r.model.get()}) {
            m->set_batch(SRC, TGT);
            m->forward();
        }
        EXPECT_LT(largest_difference(p.v->step_output(p.v->find_step("generator.logits")),
                                     p.r->step_output(p.r->find_step("generator.logits"))), 1e-5);
        // Each FFN's hidden and out steps equal the reference's; rank1 holds x·V1ᵀ, r wide.
        const std::string ffn = "decoder.layers.1.ffn";
        EXPECT_LT(largest_difference(p.v->step_output(p.v->find_step(ffn + ".hidden")),
                                     p.r->step_output(p.r->find_step(ffn + ".hidden"))), 1e-5);
        EXPECT_LT(largest_difference(p.v->step_output(p.v->find_step(ffn + ".out")),
                                     p.r->step_output(p.r->find_step(ffn + ".out"))), 1e-5);
        const size_t rank1 = p.v->find_step(ffn + ".rank1");
        ASSERT_LT(rank1, p.v->step_count()) << "no rank1 step";
        const StepInfo& info = p.v->steps()[rank1];
        EXPECT_EQ(info.shape.dims.back(), k.rank);
        EXPECT_EQ(info.shape.names.back(), "r");
        EXPECT_NE(info.formula.find("V1"), std::string::npos) << info.formula;
        // rank1 = x·V1ᵀ, x the step before it (the layer's normalised input or the stream).
        const ParameterTable table(p.variant);
        const ParameterInfo& v = table.at(ffn + ".linear1.v.weight");
        const std::vector<float> x = p.v->step_output(rank1 - 1), got = p.v->step_output(rank1);
        const int64_t D = p.variant.d_model, rows = static_cast<int64_t>(x.size()) / D;
        double worst = 0.0;
        for (int64_t i = 0; i < rows; ++i)
            for (int k2 = 0; k2 < k.rank; ++k2) {
                double want = 0.0;
                for (int64_t d = 0; d < D; ++d)
                    want += static_cast<double>(x[static_cast<size_t>(i * D + d)]) * p.params[static_cast<size_t>(v.offset + k2 * D + d)];
                worst = std::max(worst, std::fabs(want - got[static_cast<size_t>(i * k.rank + k2)]));
            }
        EXPECT_LT(worst, 1e-5);
        if (k.ffn == FfnKind::SwiGlu) {
            EXPECT_LT(p.v->find_step(ffn + ".rank3"), p.v->step_count()) << "SwiGLU's up projection has a rank step";
        }
    }
}

TEST(LowRankFfn, TheFactorsGradientsAreTheChainRuleOfTheFullMatrixs) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.rank, k.ffn, k.arch);
        const std::vector<float> gl = test::batch_gradients(*p.v), gf = test::batch_gradients(*p.r);
        const ParameterTable tl(p.variant), tf(p.reference);
        const int64_t r = k.rank;
        double worst = 0.0, largest = 0.0;
        auto compare = [&](double got, double want) {
            worst = std::max(worst, std::fabs(got - want));
            largest = std::max(largest, std::fabs(want));
        };
        for (const auto& e : tl.entries()) {
            const bool u = ends_with(e.name, ".u.weight"), v = ends_with(e.name, ".v.weight");
            if (!u && !v) {
                const ParameterInfo& f = tf.at(e.name);
                for (int64_t i = 0; i < e.numel(); ++i)
                    compare(gl[static_cast<size_t>(e.offset + i)], gf[static_cast<size_t>(f.offset + i)]);
                continue;
            }
            const std::string stem = e.name.substr(0, e.name.size() - 8);   // "….linear1."
            const ParameterInfo &w = tf.at(stem + "weight"), &U = tl.at(stem + "u.weight"), &V = tl.at(stem + "v.weight");
            const int64_t rows = w.shape[0], cols = w.shape[1];
            auto dw = [&](int64_t i, int64_t j) { return static_cast<double>(gf[static_cast<size_t>(w.offset + i * cols + j)]); };
            if (u) {   // dU[i][k] = Σ_j dW[i][j]·V[k][j]
                for (int64_t i = 0; i < rows; ++i)
                    for (int64_t k2 = 0; k2 < r; ++k2) {
                        double want = 0.0;
                        for (int64_t j = 0; j < cols; ++j) want += dw(i, j) * p.params[static_cast<size_t>(V.offset + k2 * cols + j)];
                        compare(gl[static_cast<size_t>(U.offset + i * r + k2)], want);
                    }
            } else {   // dV[k][j] = Σ_i U[i][k]·dW[i][j]
                for (int64_t k2 = 0; k2 < r; ++k2)
                    for (int64_t j = 0; j < cols; ++j) {
                        double want = 0.0;
                        for (int64_t i = 0; i < rows; ++i) want += p.params[static_cast<size_t>(U.offset + i * r + k2)] * dw(i, j);
                        compare(gl[static_cast<size_t>(V.offset + k2 * cols + j)], want);
                    }
            }
        }
        EXPECT_GT(largest, 1e-3) << "no gradient to compare";
        EXPECT_LT(worst, 1e-5 * std::max(1.0, largest));
    }
}

TEST(LowRankFfn, TheKeyValueCacheDecodesAsTheFullRecompute) {
    for (const Case& k : CASES) {
        SCOPED_TRACE(k.name);
        test::VariantPair p = make_pair(k.rank, k.ffn, k.arch);
        if (k.arch == Arch::DecoderOnly) {
            const std::vector<int> prompt = {7, 8, 9};
            EXPECT_EQ(greedy_decode(*p.v, {{2}}, 8, nullptr, {prompt}).front(), test::plain_greedy(*p.v, prompt, 8));
            continue;
        }
        EXPECT_EQ(greedy_decode(*p.v, SRC, 9), greedy_decode(*p.r, SRC, 9));
    }
}

TEST(LowRankFfn, ARankTooLargeToSaveAnythingIsRefusedWithItsBound) {
    ModelConfig c = low_rank_config(0, FfnKind::Relu, Arch::EncoderDecoder);   // D 24, F 48: bound 16
    EXPECT_EQ(c.max_ffn_rank(), 16);
    c.ffn_rank = 16;
    const auto why = validate(c);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("ffn_rank (16)"), std::string::npos) << *why;
    EXPECT_NE(why->find("below 16"), std::string::npos) << *why;
    c.ffn_rank = -2;
    EXPECT_TRUE(validate(c).has_value());
    c.ffn_rank = 15;
    EXPECT_FALSE(validate(c).has_value());
    EXPECT_LT(ParameterTable(c).total(), ParameterTable(low_rank_config(0, FfnKind::Relu, Arch::EncoderDecoder)).total());
}

TEST(LowRankFfn, TheFactorsShapesAndTheCheckpointRoundTrips) {
    const ModelConfig c = low_rank_config(4, FfnKind::Relu, Arch::EncoderDecoder);
    const ParameterTable table(c);
    EXPECT_EQ(table.at("encoder.layers.0.ffn.linear1.u.weight").shape, (std::vector<int64_t>{48, 4}));
    EXPECT_EQ(table.at("encoder.layers.0.ffn.linear1.v.weight").shape, (std::vector<int64_t>{4, 24}));
    EXPECT_EQ(table.at("decoder.layers.1.ffn.linear2.u.weight").shape, (std::vector<int64_t>{24, 4}));
    EXPECT_EQ(table.at("decoder.layers.1.ffn.linear2.v.weight").shape, (std::vector<int64_t>{4, 48}));
    EXPECT_EQ(table.find("encoder.layers.0.ffn.linear1.weight"), nullptr);
    EXPECT_EQ(config_from_json(to_json(c)).ffn_rank, 4);
    EXPECT_EQ(to_json(low_rank_config(0, FfnKind::Relu, Arch::EncoderDecoder)).find("ffn_rank"), std::string::npos)
        << "a config with full matrices writes no ffn_rank (older checkpoints stay byte for byte)";

    Checkpoint ck;
    ck.config = c;
    const char* const specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int i = 0; i < 23; ++i) ck.vocabulary.push_back(i < 4 ? std::string(specials[i]) : std::string("w").append(std::to_string(i)));
    ck.parameters = test::random_parameters(ck.config, 1u, 0.4f);
    const std::string path = test::unique_temp_path("low-rank.safetensors");
    save_checkpoint(path, ck);
    const Checkpoint back = load_checkpoint(path);
    std::filesystem::remove(path);
    EXPECT_EQ(back.config.ffn_rank, 4);
    EXPECT_EQ(back.parameters, ck.parameters);
}

}  // namespace tx::low_rank_ffn_test
