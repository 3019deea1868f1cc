// The settings-dependent panel texts (setting_texts.h). Every branch names the setting it
// depends on; the claims are those of transformer.cpp (where the toggles act) and ops_alibi.cpp.
#include "setting_texts.h"

#include <cstdio>

namespace tx::explain {

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::string step_group_name(const StepInfo& s, const ModelConfig& c) {
    if (s.layer >= 0) return std::string(s.stack == Stack::Encoder ? "Encoder" : "Decoder") + " layer " + std::to_string(s.layer);
    // A stack's own final norm (encoder.norm, decoder.norm): Pre-LN always has one; a Post-LN model
    // has one when imported from torch.nn.Transformer (config final_norm).
    const bool final_norm = starts_with(s.name, "encoder.norm") || starts_with(s.name, "decoder.norm");
    const bool rms = c.norm_kind == NormKind::RmsNorm;
    const std::string norm = c.norm == NormPlacement::Post
                                 ? (rms ? "final RMSNorm (after post-norm layers)" : "final LayerNorm (after Post-LN layers)")
                                 : (rms ? "final RMSNorm (pre-norm)" : "final LayerNorm (Pre-LN)");
    if (s.stack == Stack::Encoder) return final_norm ? "Encoder: " + norm : "Encoder: embedding";
    if (s.stack == Stack::Decoder) return final_norm ? "Decoder: " + norm : "Decoder: embedding";
    return "Output: generator";
}

std::string step_toggle_note(const StepInfo& s, const RunOptions& o, const ModelConfig& c) {
    const bool decoder_self = starts_with(s.name, "decoder.") && s.name.find(".self_attn.") != std::string::npos;
    const bool self = s.name.find(".self_attn.") != std::string::npos;
    const bool source_side = starts_with(s.name, "src_");
    const bool decoder_only = c.arch == Arch::DecoderOnly;
    // The sliding window masks self-attention whatever the toggles say.
    if (s.kind == StepKind::Mask && self && c.window > 0 && (!o.padding_mask || (decoder_self && !o.causal_mask)))
        return std::string("Now: ") + (!o.padding_mask ? "the padding mask is off" : "the causal mask is off") +
               (decoder_self && !o.causal_mask && !o.padding_mask ? " and so is the causal mask" : "") +
               "; the sliding window still masks keys outside it.";
    if (s.kind == StepKind::Scores && self && c.positional == PositionalKind::Alibi && !o.positional_encoding)
        return "Now: positions are off, so no ALiBi bias is added here.";
    if (s.kind == StepKind::Scores && self && c.positional == PositionalKind::Relative && !o.positional_encoding)
        return "Now: positions are off, so no relative bias is added here.";
    if (s.kind == StepKind::Positional && !o.positional_encoding && s.name.find("_rot") != std::string::npos)
        return "Now: positions are off, so this step passes its input through unrotated.";
    if (s.kind == StepKind::Mask) {
        if (decoder_self && !o.causal_mask && !o.padding_mask) return "Now: the causal and padding masks are off, so nothing is set to \xE2\x88\x92\xE2\x88\x9E here.";
        if (decoder_self && !o.causal_mask) return "Now: the causal mask is off, so later positions are visible; only PAD keys are masked.";
        if (!o.padding_mask) return decoder_self ? "Now: the padding mask is off; only the causal mask applies."
                                                 : "Now: the padding mask is off, so nothing is set to \xE2\x88\x92\xE2\x88\x9E here.";
    }
    if (s.kind == StepKind::Embed && !o.positional_encoding &&
        (c.positional == PositionalKind::Sinusoidal || c.positional == PositionalKind::Learned))
        return "Now: positional encoding is off, so nothing is added to these embeddings in the next step.";
    if (s.kind == StepKind::Positional && !o.positional_encoding) {
        std::string note = "Now: positional encoding is off, so this step passes X through unchanged. ";
        if (source_side)
            note += c.window > 0 ? "The encoder cannot tell word order apart, except for what its sliding window lets "
                                   "through (a position outside the global ones sees only the keys its window reaches)."
                                 : "The encoder cannot tell word order: it sees a bag of tokens.";
        else
            note += std::string("The ") + (decoder_only ? "model" : "decoder") +
                    " keeps only the order its causal mask implies: position t averages over t + 1 tokens" +
                    (o.causal_mask ? "." : ", and that mask is off too, so it has no order at all.");
        return note;
    }
    return "";
}

std::string step_training_note(const StepInfo& s, float label_smoothing) {
    if (s.name != "generator.log_probs" || label_smoothing <= 0.0f) return "";
    char eps[32];
    std::snprintf(eps, sizeof eps, "%g", static_cast<double>(label_smoothing));
    return std::string("This model was trained with label smoothing \xCE\xB5 = ") + eps +
           (label_smoothing == 0.1f ? " (the paper's value)" : "") +
           ": its training target put 1 \xE2\x88\x92 \xCE\xB5 on the right token and spread \xCE\xB5 over the others, "
           "so its top probability stays below 1 even when it is right (it can still exceed 1 \xE2\x88\x92 \xCE\xB5: "
           "training moves each prediction toward that target without reaching it exactly).";
}

std::string positional_off_text(const ModelConfig& c) {
    if (c.arch == Arch::DecoderOnly)
        return "Off: no position is added anywhere, so no token's vector or score depends on where it stands except "
               "through the causal mask: position t attends over t + 1 tokens. Try it, then swap two words of the "
               "prompt.";
    std::string text = "Off: no position is added anywhere. ";
    text += c.window > 0
                ? "The encoder's self-attention is left with its sliding window, which lets some order through (a "
                  "position outside the global ones sees only the keys its window reaches), so the source word order "
                  "can still change the encoder's outputs."
                : "The encoder's self-attention then treats its keys as a bag (order lost, repeats kept), so the "
                  "encoder's outputs are the same vectors whatever the source word order, and the translation cannot "
                  "depend on it.";
    text += " The decoder keeps some order through its causal mask. Try it, then swap two words of the sentence.";
    return text;
}

std::string raw_scores_text(const ModelConfig& c, const RunOptions& o) {
    const bool positions = o.positional_encoding;
    std::string text = c.scale_attention ? "Q\xC2\xB7K\xE1\xB5\x80 / \xE2\x88\x9A" "d_k"
                                         : "Q\xC2\xB7K\xE1\xB5\x80 (unscaled: the 1/\xE2\x88\x9A" "d_k scaling is off)";
    if (c.positional == PositionalKind::Rope && positions) text += " (self-attention: Q and K rotated by position, RoPE)";
    if (c.positional == PositionalKind::Alibi && positions)
        text += " \xE2\x88\x92 m_h\xC2\xB7|i \xE2\x88\x92 j| (self-attention: ALiBi's distance bias)";
    if (c.positional == PositionalKind::Relative && positions)
        text += " + b[bucket(j \xE2\x88\x92 i), h] (self-attention: T5's learned relative bias)";
    text += " before masking: any real number. Softmax turns each row into weights.";
    return text;
}

const char* causal_map_title() { return "decoder: causal (definition)"; }

std::string target_padding_map_title(bool decoder_only) {
    return decoder_only ? "decoder: padding, right (definition)" : "decoder: target padding (definition)";
}

std::string causal_map_note(const RunOptions& o) {
    return o.causal_mask ? "" : "off: not applied; see combined";
}

std::string target_padding_map_note(const RunOptions& o) {
    return o.padding_mask ? "" : "off: not applied; see combined";
}

}  // namespace tx::explain
