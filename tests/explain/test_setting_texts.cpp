// The panels' settings-dependent sentences (explain/setting_texts.h), generated under every
// setting that changes their truth: the position switch and scheme, the architecture, the
// sliding window, the norm placement and kind, the masks and the scaling. Each check is a claim a
// learner reads; the kind of drift it catches is a text written for the default settings only.
#include <gtest/gtest.h>

#include <string>

#include "neuron_trace.h"
#include "setting_texts.h"

namespace tx::explain {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ModelConfig config(Arch arch = Arch::EncoderDecoder, PositionalKind positional = PositionalKind::Sinusoidal, int window = 0) {
    ModelConfig c;
    c.arch = arch;
    c.encoder_layers = arch == Arch::EncoderDecoder ? 2 : 0;
    c.positional = positional;
    c.window = window;
    return c;
}

StepInfo step(const std::string& name, StepKind kind, Stack stack, int layer = -1) {
    StepInfo s;
    s.name = name;
    s.kind = kind;
    s.stack = stack;
    s.layer = layer;
    return s;
}

RunOptions positions_off() {
    RunOptions o;
    o.positional_encoding = false;
    return o;
}

TEST(SettingTexts, AFinalNormIsNamedByItsPlacement) {
    const StepInfo final_norm = step("encoder.norm.out", StepKind::Norm, Stack::Encoder);
    ModelConfig c = config();
    c.final_norm = true;   // an imported nn.Transformer: Post-LN with a final norm
    EXPECT_EQ(step_group_name(final_norm, c), "Encoder: final LayerNorm (after Post-LN layers)");
    c.norm_kind = NormKind::RmsNorm;
    EXPECT_FALSE(has(step_group_name(final_norm, c), "pre-norm")) << step_group_name(final_norm, c);
    c.norm = NormPlacement::Pre;
    EXPECT_EQ(step_group_name(final_norm, c), "Encoder: final RMSNorm (pre-norm)");
    c.norm_kind = NormKind::LayerNorm;
    EXPECT_EQ(step_group_name(step("decoder.norm.out", StepKind::Norm, Stack::Decoder), c), "Decoder: final LayerNorm (Pre-LN)");
    EXPECT_EQ(step_group_name(step("src_embed.out", StepKind::Embed, Stack::Encoder), c), "Encoder: embedding");
    EXPECT_EQ(step_group_name(step("encoder.layers.1.norm1.out", StepKind::Norm, Stack::Encoder, 1), c), "Encoder layer 1");
}

// With positions off the encoder sees a bag (unless a window lets order through), while the
// decoder keeps the order its causal mask implies: the note never says the decoder is orderless.
TEST(SettingTexts, ThePositionsOffNoteFollowsTheStackAndTheWindow) {
    const StepInfo src = step("src_pos.out", StepKind::Positional, Stack::Encoder);
    const StepInfo tgt = step("tgt_pos.out", StepKind::Positional, Stack::Decoder);
    const std::string encoder = step_toggle_note(src, positions_off(), config());
    EXPECT_TRUE(has(encoder, "bag")) << encoder;
    EXPECT_FALSE(has(encoder, "causal")) << encoder;
    const std::string decoder = step_toggle_note(tgt, positions_off(), config());
    EXPECT_TRUE(has(decoder, "causal mask implies")) << decoder;
    EXPECT_FALSE(has(decoder, "cannot tell word order")) << decoder;
    EXPECT_FALSE(has(decoder, "bag")) << decoder;
    const std::string windowed = step_toggle_note(src, positions_off(), config(Arch::EncoderDecoder, PositionalKind::Sinusoidal, 4));
    EXPECT_TRUE(has(windowed, "sliding window")) << windowed;
    EXPECT_FALSE(has(windowed, "bag")) << windowed;
    const std::string gpt = step_toggle_note(tgt, positions_off(), config(Arch::DecoderOnly, PositionalKind::Learned));
    EXPECT_TRUE(has(gpt, "The model keeps only the order its causal mask implies")) << gpt;
    RunOptions nothing = positions_off();
    nothing.causal_mask = false;
    EXPECT_TRUE(has(step_toggle_note(tgt, nothing, config()), "no order at all"));
    // Positions on: no note; the embedding step says that nothing will be added when they are off.
    EXPECT_EQ(step_toggle_note(src, RunOptions{}, config()), "");
    const StepInfo embed = step("src_embed.out", StepKind::Embed, Stack::Encoder);
    EXPECT_TRUE(has(step_toggle_note(embed, positions_off(), config()), "nothing is added"));
    EXPECT_EQ(step_toggle_note(embed, RunOptions{}, config()), "");
    EXPECT_EQ(step_toggle_note(embed, positions_off(), config(Arch::EncoderDecoder, PositionalKind::Rope)), "");
}

TEST(SettingTexts, RotationAndAlibiNotesFollowTheSwitch) {
    const StepInfo rot = step("encoder.layers.0.self_attn.q_rot", StepKind::Positional, Stack::Encoder, 0);
    EXPECT_TRUE(has(step_toggle_note(rot, positions_off(), config(Arch::EncoderDecoder, PositionalKind::Rope)), "unrotated"));
    const StepInfo scores = step("encoder.layers.0.self_attn.scores", StepKind::Scores, Stack::Encoder, 0);
    EXPECT_TRUE(has(step_toggle_note(scores, positions_off(), config(Arch::EncoderDecoder, PositionalKind::Alibi)), "no ALiBi bias"));
    EXPECT_EQ(step_toggle_note(scores, RunOptions{}, config(Arch::EncoderDecoder, PositionalKind::Alibi)), "");
}

TEST(SettingTexts, MaskNotesFollowTheToggles) {
    const StepInfo dec = step("decoder.layers.0.self_attn.masked_scores", StepKind::Mask, Stack::Decoder, 0);
    RunOptions o;
    EXPECT_EQ(step_toggle_note(dec, o, config()), "");
    o.causal_mask = false;
    EXPECT_TRUE(has(step_toggle_note(dec, o, config()), "later positions are visible"));
    o.causal_mask = true;
    o.padding_mask = false;
    EXPECT_TRUE(has(step_toggle_note(dec, o, config()), "only the causal mask applies"));
    EXPECT_TRUE(has(step_toggle_note(dec, o, config(Arch::EncoderDecoder, PositionalKind::Sinusoidal, 4)), "sliding window still masks"));
}

TEST(SettingTexts, TheLabelSmoothingNoteNeedsASmoothedModel) {
    const StepInfo log_probs = step("generator.log_probs", StepKind::LogSoftmax, Stack::Output);
    const std::string smoothed = step_training_note(log_probs, 0.1f);
    EXPECT_TRUE(has(smoothed, "0.1")) << smoothed;
    EXPECT_TRUE(has(smoothed, "below 1")) << smoothed;
    EXPECT_EQ(step_training_note(log_probs, 0.0f), "");
    EXPECT_EQ(step_training_note(step("generator.logits", StepKind::Generator, Stack::Output), 0.1f), "");
}

// The Positional panel's switch: the decoder keeps its causal mask's order, and an encoder
// window keeps some, so "cannot depend" is said only of a windowless encoder.
TEST(SettingTexts, ThePositionalSwitchTooltipIsTrueForEveryArchitecture) {
    const std::string plain = positional_off_text(config());
    EXPECT_TRUE(has(plain, "cannot depend on it")) << plain;
    EXPECT_TRUE(has(plain, "decoder keeps some order through its causal mask")) << plain;
    EXPECT_FALSE(has(plain, "(encoder and decoder)")) << plain;
    const std::string windowed = positional_off_text(config(Arch::EncoderDecoder, PositionalKind::Sinusoidal, 4));
    EXPECT_FALSE(has(windowed, "cannot depend")) << windowed;
    EXPECT_TRUE(has(windowed, "sliding window")) << windowed;
    const std::string gpt = positional_off_text(config(Arch::DecoderOnly, PositionalKind::Learned));
    EXPECT_TRUE(has(gpt, "causal mask")) << gpt;
    EXPECT_FALSE(has(gpt, "encoder")) << gpt;
}

TEST(SettingTexts, TheRawScoresTooltipNamesWhatTheScoresStepAdds) {
    const std::string plain = raw_scores_text(config(), RunOptions{});
    EXPECT_TRUE(has(plain, "/ \xE2\x88\x9A" "d_k")) << plain;
    EXPECT_FALSE(has(plain, "RoPE") || has(plain, "ALiBi")) << plain;
    const std::string rope = raw_scores_text(config(Arch::EncoderDecoder, PositionalKind::Rope), RunOptions{});
    EXPECT_TRUE(has(rope, "rotated")) << rope;
    const std::string alibi = raw_scores_text(config(Arch::EncoderDecoder, PositionalKind::Alibi), RunOptions{});
    EXPECT_TRUE(has(alibi, "m_h")) << alibi;
    EXPECT_FALSE(has(raw_scores_text(config(Arch::EncoderDecoder, PositionalKind::Alibi), positions_off()), "m_h"));
    EXPECT_FALSE(has(raw_scores_text(config(Arch::EncoderDecoder, PositionalKind::Rope), positions_off()), "rotated"));
    ModelConfig unscaled = config();
    unscaled.scale_attention = false;
    EXPECT_TRUE(has(raw_scores_text(unscaled, RunOptions{}), "unscaled"));
}

// The causal and target-padding maps are drawn from their definitions whatever the toggles: the
// titles say so, and a switched-off mask is marked as not applied.
TEST(SettingTexts, DefinitionMapsSayWhenTheModelDoesNotApplyThem) {
    EXPECT_TRUE(has(causal_map_title(), "definition"));
    EXPECT_TRUE(has(target_padding_map_title(false), "definition"));
    EXPECT_TRUE(has(target_padding_map_title(true), "definition"));
    RunOptions o;
    EXPECT_EQ(causal_map_note(o), "");
    EXPECT_EQ(target_padding_map_note(o), "");
    o.causal_mask = false;
    EXPECT_TRUE(has(causal_map_note(o), "not applied"));
    o.padding_mask = false;
    EXPECT_TRUE(has(target_padding_map_note(o), "not applied"));
}

// The Neuron view: with RoPE on, q and k are the rotated ones; both carry their bias; the √dk
// note promises no spread of 1 for a trained row, and says when the scaling is off.
TEST(SettingTexts, TheNeuronViewSaysWhichQAndKItShows) {
    NeuronTrace t;
    t.kind = AttentionKind::EncoderSelf;
    const std::string plain = qk_source_text(t);
    EXPECT_TRUE(has(plain, "plus b_Q")) << plain;
    EXPECT_FALSE(has(plain, "rotated")) << plain;
    t.rotated = true;
    EXPECT_TRUE(has(qk_source_text(t), "q_rot")) << qk_source_text(t);
    t.kind = AttentionKind::Cross;
    t.rotated = false;
    EXPECT_TRUE(has(qk_source_text(t), "encoder's output")) << qk_source_text(t);
    t.scaled = true;
    EXPECT_FALSE(has(scaling_text(t), "does not saturate")) << scaling_text(t);
    EXPECT_TRUE(has(scaling_text(t), "one-hot")) << scaling_text(t);
    t.scaled = false;
    EXPECT_TRUE(has(scaling_text(t), "switched off")) << scaling_text(t);
}

}  // namespace
}  // namespace tx::explain
