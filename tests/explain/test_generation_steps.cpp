// The Generate panel's step list (explain/generation_trace.h) follows the model's layer plan and
// says truthfully where positions enter: no "add the positional encoding" for RoPE, ALiBi or no
// positions, nor when the Positional panel's switch is off; Pre-LN normalises before each sublayer;
// a decoder-only layer has no cross-attention.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generation_trace.h"
#include "tx/layer_plan.h"

namespace tx::explain {
namespace {

ModelConfig config(Arch arch, NormPlacement norm, PositionalKind positional) {
    ModelConfig c;
    c.d_model = 16;
    c.heads = 2;
    c.decoder_layers = 2;
    c.encoder_layers = arch == Arch::EncoderDecoder ? 2 : 0;
    c.arch = arch;
    c.norm = norm;
    c.positional = positional;
    return c;
}

TEST(GenerationSteps, OneStepPerSublayerInThePlansOrder) {
    for (Arch arch : {Arch::EncoderDecoder, Arch::DecoderOnly}) {
        const ModelConfig c = config(arch, NormPlacement::Post, PositionalKind::Sinusoidal);
        const std::vector<GenerationStep> steps = generation_steps(c, true);
        const std::vector<SublayerPlan> plan = layer_plan(c, false);
        ASSERT_EQ(steps.size(), 1 + c.decoder_layers * plan.size() + 2);
        EXPECT_EQ(steps.front().kind, GenerationStepKind::Embed);
        for (int l = 0; l < c.decoder_layers; ++l)
            for (size_t s = 0; s < plan.size(); ++s) {
                const GenerationStep& step = steps[1 + l * plan.size() + s];
                EXPECT_EQ(step.layer, l);
                EXPECT_EQ(step.name, "decoder.layers." + std::to_string(l) + "." + plan[s].name);
                EXPECT_NE(step.what.find("add & " + plan[s].norm), std::string::npos) << step.what;
            }
        bool cross = false;
        for (const GenerationStep& s : steps) cross = cross || s.kind == GenerationStepKind::CrossAttention;
        EXPECT_EQ(cross, arch == Arch::EncoderDecoder);
    }
}

TEST(GenerationSteps, PreNormNormalisesFirst) {
    const ModelConfig c = config(Arch::EncoderDecoder, NormPlacement::Pre, PositionalKind::Sinusoidal);
    const std::vector<GenerationStep> steps = generation_steps(c, true);
    EXPECT_EQ(steps[1].what.rfind("norm1, then ", 0), 0u) << steps[1].what;
    EXPECT_EQ(steps[3].what.rfind("norm3, then ", 0), 0u) << steps[3].what;
    EXPECT_NE(steps[steps.size() - 2].what.find("decoder.norm"), std::string::npos);
}

TEST(GenerationSteps, TheEmbedStepSaysWherePositionsEnter) {
    const std::string sinusoidal =
        generation_steps(config(Arch::EncoderDecoder, NormPlacement::Post, PositionalKind::Sinusoidal), true)[0].what;
    EXPECT_NE(sinusoidal.find("add the sinusoidal positional encoding"), std::string::npos) << sinusoidal;
    for (PositionalKind kind : {PositionalKind::Rope, PositionalKind::Alibi, PositionalKind::None}) {
        const GenerationStep embed = generation_steps(config(Arch::DecoderOnly, NormPlacement::Pre, kind), true)[0];
        EXPECT_EQ(embed.what.find("add the"), std::string::npos) << embed.what;
        EXPECT_EQ(embed.name, "tgt_embed");
    }
}

// The Positional panel's switch: off, no scheme adds, rotates or biases anything, and the embed
// step must not say that it does.
TEST(GenerationSteps, TheEmbedStepFollowsThePositionalSwitch) {
    for (PositionalKind kind : {PositionalKind::Sinusoidal, PositionalKind::Learned, PositionalKind::Rope,
                                PositionalKind::Alibi, PositionalKind::None})
        for (Arch arch : {Arch::EncoderDecoder, Arch::DecoderOnly}) {
            const ModelConfig c = config(arch, arch == Arch::EncoderDecoder ? NormPlacement::Post : NormPlacement::Pre, kind);
            const GenerationStep off = generation_steps(c, false)[0];
            EXPECT_EQ(off.what.find("add the"), std::string::npos) << off.what;
            EXPECT_EQ(off.what.find("rotates"), std::string::npos) << off.what;
            EXPECT_EQ(off.what.find("distance penalty"), std::string::npos) << off.what;
            EXPECT_NE(off.what.find("no position"), std::string::npos) << off.what;
            EXPECT_EQ(off.name, "tgt_embed");
            // Switched on, the text is the scheme's own: only the table schemes add something.
            const GenerationStep on = generation_steps(c, true)[0];
            const bool table = kind == PositionalKind::Sinusoidal || kind == PositionalKind::Learned;
            EXPECT_EQ(on.what.find("add the") != std::string::npos, table) << on.what;
            EXPECT_EQ(on.name, table ? "tgt_embed + tgt_pos" : "tgt_embed");
        }
}

}  // namespace
}  // namespace tx::explain
