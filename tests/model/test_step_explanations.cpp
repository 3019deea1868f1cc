// The steps' teaching texts (core/model/step_explanations.h) under each setting that changes
// their truth: the position scheme (what is added after the embedding, ALiBi's slopes and its
// symmetric encoder form, RoPE's offset), the 1/√dk scaling, and the two reasons for the causal
// mask. Also the texts the model's own step list carries, so the wiring passes the config on.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model/step_explanations.h"
#include "tx/backend.h"
#include "tx/transformer.h"

namespace tx {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ModelConfig config(PositionalKind positional) {
    ModelConfig c;
    c.positional = positional;
    return c;
}

TEST(StepExplanations, TheEmbeddingTextSaysWhatIsAddedNext) {
    const std::string sinusoidal = embed_text(config(PositionalKind::Sinusoidal), "source").explanation;
    EXPECT_TRUE(has(sinusoidal, "positional encoding added next")) << sinusoidal;
    EXPECT_TRUE(has(sinusoidal, "[−1, 1]")) << sinusoidal;
    const std::string learned = embed_text(config(PositionalKind::Learned), "source").explanation;
    EXPECT_TRUE(has(learned, "learned position rows added next")) << learned;
    EXPECT_FALSE(has(learned, "[−1, 1]")) << learned;   // a learned table is not bounded
    for (PositionalKind kind : {PositionalKind::Rope, PositionalKind::Alibi, PositionalKind::None}) {
        const std::string text = embed_text(config(kind), "target").explanation;
        EXPECT_TRUE(has(text, "Nothing is added to the embeddings")) << text;
        EXPECT_FALSE(has(text, "added next")) << text;
    }
    EXPECT_TRUE(has(embed_text(config(PositionalKind::Rope), "target").explanation, "RoPE rotates q and k"));
    EXPECT_TRUE(has(embed_text(config(PositionalKind::None), "target").explanation, "no positional encoding at all"));
}

// Heads are numbered from 0 everywhere in the app; the op's slopes are 2^(−8(h+1)/H).
TEST(StepExplanations, AlibiSlopesAndFormFollowTheOpAndTheStack) {
    const ModelConfig c = config(PositionalKind::Alibi);
    const std::string encoder = scores_text(c, AttentionKind::EncoderSelf).explanation;
    EXPECT_TRUE(has(encoder, "2^(−8(h+1)/H) for heads h = 0 … H−1")) << encoder;
    EXPECT_TRUE(has(encoder, "1/4, 1/16, 1/64, 1/256")) << encoder;
    EXPECT_FALSE(has(encoder, "2^(−8h/H)")) << encoder;
    EXPECT_TRUE(has(encoder, "symmetric")) << encoder;
    EXPECT_TRUE(has(encoder, "encoder's only sense of position")) << encoder;
    const std::string decoder = scores_text(c, AttentionKind::DecoderSelf).explanation;
    EXPECT_TRUE(has(decoder, "causal mask also gives the decoder")) << decoder;
    EXPECT_FALSE(has(decoder, "only sense of position")) << decoder;
    EXPECT_FALSE(has(scores_text(c, AttentionKind::Cross).formula, "m_h")) << scores_text(c, AttentionKind::Cross).formula;
}

TEST(StepExplanations, TheScalingTextPromisesNoSpreadOfOne) {
    ModelConfig c = config(PositionalKind::Sinusoidal);
    const std::string scaled = scores_text(c, AttentionKind::EncoderSelf).explanation;
    EXPECT_FALSE(has(scaled, "spread back to 1")) << scaled;
    EXPECT_TRUE(has(scaled, "can still make rows one-hot")) << scaled;
    c.scale_attention = false;
    const StepText unscaled = scores_text(c, AttentionKind::EncoderSelf);
    EXPECT_TRUE(has(unscaled.formula, "(unscaled)")) << unscaled.formula;
    EXPECT_TRUE(has(unscaled.explanation, "same q and k every score is √dk times larger")) << unscaled.explanation;
}

// Under ALiBi the bias is added after the scaling (transformer.cpp's scores step), so switching the
// scaling off multiplies only the q·k part: the text must not say every score grows √dk times.
TEST(StepExplanations, UnscaledAlibiScoresKeepTheirBias) {
    ModelConfig c = config(PositionalKind::Alibi);
    c.scale_attention = false;
    const StepText t = scores_text(c, AttentionKind::EncoderSelf);
    EXPECT_TRUE(has(t.formula, "Q·Kᵀ (unscaled) − m_h·|i − j|")) << t.formula;
    EXPECT_FALSE(has(t.explanation, "same q and k every score is")) << t.explanation;
    EXPECT_TRUE(has(t.explanation, "the q·k part of every score is √dk times larger")) << t.explanation;
    EXPECT_TRUE(has(t.explanation, "unchanged")) << t.explanation;
    // Cross-attention has no ALiBi bias: there every score is √dk times larger.
    EXPECT_TRUE(has(scores_text(c, AttentionKind::Cross).explanation, "same q and k every score is √dk times larger"));
}

TEST(StepExplanations, RopeDependsOnTheOffsetAndTheContent) {
    const std::string text = rotation_text('q').explanation;
    EXPECT_TRUE(has(text, "offset i − j")) << text;
    EXPECT_TRUE(has(text, "content of q and k still matters")) << text;
    EXPECT_FALSE(has(text, "the angle between them")) << text;
}

TEST(StepExplanations, TheCausalMaskGivesBothReasons) {
    const std::string text = mask_text(config(PositionalKind::Sinusoidal), AttentionKind::DecoderSelf).explanation;
    EXPECT_TRUE(has(text, "in training")) << text;
    EXPECT_TRUE(has(text, "at generation time")) << text;
}

// The model's step list carries the config's texts: a RoPE model's src_embed.out says nothing is
// added, a sinusoidal one's says the encoding is added next.
TEST(StepExplanations, TheModelsEmbeddingStepFollowsItsConfig) {
    for (PositionalKind kind : {PositionalKind::Sinusoidal, PositionalKind::Rope}) {
        ModelConfig c = config(kind);
        c.src_vocab = c.tgt_vocab = 12;
        c.d_model = 16;
        c.heads = 2;
        c.d_ff = 32;
        c.encoder_layers = c.decoder_layers = 1;
        c.max_len = 16;
        const std::unique_ptr<Backend> backend = make_cpu_backend();
        Transformer model(c, *backend);
        bool found = false;
        for (const StepInfo& s : model.steps())
            if (s.name == "src_embed.out") {
                found = true;
                EXPECT_EQ(has(s.explanation, "added next"), kind == PositionalKind::Sinusoidal) << s.explanation;
            }
        EXPECT_TRUE(found);
    }
}

}  // namespace
}  // namespace tx
