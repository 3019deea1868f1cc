// The layer plan (core/include/tx/layer_plan.h): the sublayers of each layer in order, with their norms, and
// the model's own step list following it for every architecture and norm placement.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/layer_plan.h"
#include "tx/transformer.h"

namespace tx {
namespace {

std::vector<std::string> names(const std::vector<SublayerPlan>& plan) {
    std::vector<std::string> out;
    for (const SublayerPlan& s : plan) out.push_back(s.name + "/" + s.norm + "/" + s.residual);
    return out;
}

ModelConfig config(Arch arch, NormPlacement norm) {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = 20;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 32;
    c.encoder_layers = arch == Arch::EncoderDecoder ? 2 : 0;
    c.decoder_layers = 2;
    c.max_len = 12;
    c.arch = arch;
    c.norm = norm;
    return c;
}

TEST(LayerPlan, SublayersInOrderWithTheirNorms) {
    const ModelConfig ed = config(Arch::EncoderDecoder, NormPlacement::Post);
    EXPECT_EQ(names(layer_plan(ed, true)),
              (std::vector<std::string>{"self_attn/norm1/residual1", "ffn/norm2/residual2"}));
    EXPECT_EQ(names(layer_plan(ed, false)), (std::vector<std::string>{"self_attn/norm1/residual1",
                                                                      "cross_attn/norm2/residual2", "ffn/norm3/residual3"}));
    // A decoder-only layer has no cross-attention: its FFN's norm is norm2.
    const ModelConfig gpt = config(Arch::DecoderOnly, NormPlacement::Pre);
    EXPECT_EQ(names(layer_plan(gpt, false)),
              (std::vector<std::string>{"self_attn/norm1/residual1", "ffn/norm2/residual2"}));
}

// The index of the first step whose name starts with prefix (step_count() when none does).
size_t first_step(const Transformer& model, const std::string& prefix) {
    for (size_t i = 0; i < model.step_count(); ++i)
        if (model.steps()[i].name.compare(0, prefix.size(), prefix) == 0) return i;
    return model.step_count();
}

TEST(LayerPlan, TheModelsStepsFollowIt) {
    for (Arch arch : {Arch::EncoderDecoder, Arch::DecoderOnly})
        for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
            const ModelConfig c = config(arch, norm);
            const std::unique_ptr<Backend> backend = make_cpu_backend();
            const Transformer model(c, *backend);
            for (bool encoder : {true, false}) {
                const int layers = encoder ? c.encoder_layers : c.decoder_layers;
                for (int l = 0; l < layers; ++l) {
                    const std::string p = std::string(encoder ? "encoder" : "decoder") + ".layers." + std::to_string(l) + ".";
                    size_t previous = 0;
                    for (const SublayerPlan& s : layer_plan(c, encoder)) {
                        const size_t sub = first_step(model, p + s.name + ".");
                        const size_t wrap = first_step(model, p + (norm == NormPlacement::Post ? s.norm : s.residual));
                        ASSERT_LT(sub, model.step_count()) << p + s.name;
                        ASSERT_LT(wrap, model.step_count()) << p + s.norm;
                        EXPECT_GT(sub, previous) << p + s.name << " comes after the sublayer before it";
                        EXPECT_GT(wrap, sub) << "the sublayer " << p + s.name << " is added (and normed) after it runs";
                        if (norm == NormPlacement::Pre) {
                            EXPECT_LT(first_step(model, p + s.norm), sub) << "Pre-LN normalises the sublayer's input";
                        }
                        previous = wrap;
                    }
                }
            }
        }
}

TEST(LayerPlan, SaysWherePositionsEnter) {
    ModelConfig c = config(Arch::EncoderDecoder, NormPlacement::Post);
    std::vector<std::string> texts;
    for (PositionalKind kind : {PositionalKind::Sinusoidal, PositionalKind::Learned, PositionalKind::Rope,
                                PositionalKind::Alibi, PositionalKind::None}) {
        c.positional = kind;
        texts.push_back(positions_enter(c));
    }
    EXPECT_NE(texts[0].find("add the sinusoidal"), std::string::npos);
    EXPECT_NE(texts[1].find("add the learned"), std::string::npos);
    for (int i : {2, 3, 4}) EXPECT_EQ(texts[i].find("add the"), std::string::npos) << texts[i];
    EXPECT_NE(texts[2].find("RoPE rotates"), std::string::npos);
    EXPECT_NE(texts[3].find("ALiBi"), std::string::npos);
}

}  // namespace
}  // namespace tx
