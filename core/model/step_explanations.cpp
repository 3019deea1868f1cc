// The steps' formulas and explanations (see step_explanations.h). The 2017 model's texts cite
// the paper's sections; the variants cite theirs (RoFormer, ALiBi, GELU, GLU variants, RMSNorm,
// Longformer, Mistral). Texts say what the current config computes, never what it could.
#include "model/step_explanations.h"

#include "tx/attention_window.h"

namespace tx {

namespace {

const char* norm_name(const ModelConfig& c) { return c.norm_kind == NormKind::RmsNorm ? "RMSNorm" : "LayerNorm"; }

std::string norm_formula_text(const ModelConfig& c) {
    return c.norm_kind == NormKind::RmsNorm
               ? "γ ⊙ x / √(mean(x²) + ε) over each row's d_model features (no mean subtracted, no β; Zhang & "
                 "Sennrich 2019), ε = 1e-5"
               : "γ ⊙ (x − μ) / √(σ² + ε) + β over each row's d_model features (biased variance, ε = 1e-5)";
}

bool self_attention(AttentionKind kind) { return kind != AttentionKind::Cross; }

}  // namespace

StepText embed_text(const ModelConfig& c, const char* side) {
    const std::string lookup = std::string("Each ") + side + " token id picks its row of the embedding table, "
                               "multiplied by √d_model (paper §3.4). ";
    switch (c.positional) {
        case PositionalKind::Sinusoidal:
            return {"X = E[ids] · √d_model",
                    lookup + "The paper gives no reason; a common reading is that it lifts the embeddings to a size "
                             "comparable to the positional encoding added next, whose entries lie in [−1, 1]."};
        case PositionalKind::Learned:
            return {"X = E[ids] · √d_model",
                    lookup + "The paper gives no reason; a common reading is that it lifts the embeddings to a size "
                             "comparable to the learned position rows added next."};
        case PositionalKind::Rope:
        case PositionalKind::Alibi:
        case PositionalKind::Relative:
        case PositionalKind::None: break;
    }
    const char* where = c.positional == PositionalKind::Rope       ? "positions enter inside attention, where RoPE rotates q and k"
                        : c.positional == PositionalKind::Alibi    ? "positions enter inside attention, where ALiBi biases the "
                                                                     "self-attention scores"
                        : c.positional == PositionalKind::Relative ? "positions enter inside attention, where T5's learned "
                                                                     "relative bias is added to the self-attention scores"
                                                                   : "this model has no positional encoding at all";
    return {"X = E[ids] · √d_model",
            lookup + "Nothing is added to the embeddings in this model: " + where +
                ". The ×√d_model is kept from the 2017 model."};
}

StepText positional_text(const ModelConfig& c) {
    if (c.positional == PositionalKind::Learned)
        return {"X + P[pos],  P a learned [max_len, d_model] table",
                "Each position has a row of its own in a table trained with the rest of the model (as BERT and "
                "GPT-2). It can learn any code for order, but only for positions seen in training: beyond them "
                "the rows stay at their random start."};
    return {"X + PE,  PE[p,2i] = sin(p/10000^(2i/D)),  PE[p,2i+1] = cos(p/10000^(2i/D))",
            "Attention alone ignores order, so a fixed sinusoidal code of each position is added (paper §3.5). "
            "For a fixed offset k, PE(p+k) is a fixed linear map of PE(p): each (sin, cos) pair is rotated by k "
            "times its frequency. The paper hypothesised that this lets the model attend by relative position."};
}

StepText projection_text(const ModelConfig& c, AttentionKind kind, char role) {
    const std::string upper(1, static_cast<char>(role - 'a' + 'A'));
    std::string explanation =
        role == 'q'   ? "Queries: what each position is looking for. Each head gets its own dk columns."
        : role == 'k' ? "Keys: what each position offers to be found by. Each head gets its own dk columns."
                      : "Values: what each position passes on when it is attended to.";
    if (kind == AttentionKind::Cross && role != 'q')
        explanation += " In cross-attention keys and values come from the encoder's output (the memory).";
    explanation += " W is stored [out, in] as in PyTorch's nn.Linear, so X·Wᵀ here is the paper's X·W.";
    const int heads = role == 'q' ? c.heads : c.kv_head_count();
    if (heads < c.heads)
        explanation += " Grouped-query attention: only " + std::to_string(heads) + " " + (role == 'k' ? "key" : "value") +
                       " head" + (heads == 1 ? "" : "s") + " for " + std::to_string(c.heads) +
                       " query heads, so W_" + upper + " has " + std::to_string(heads * c.d_k()) + " rows instead of " +
                       std::to_string(c.d_model) + ", and a KV cache holds " + std::to_string(c.heads / heads) +
                       " times less.";
    return {upper + " = X·W_" + upper + "ᵀ + b_" + upper + ", split into " + std::to_string(heads) + " head" +
                (heads == 1 ? "" : "s"),
            explanation};
}

StepText repeat_heads_text(const ModelConfig& c, char role) {
    const std::string upper(1, static_cast<char>(role - 'a' + 'A'));
    const int G = c.kv_head_count(), group = c.heads / G;
    return {upper + "_repeat[h] = " + upper + "[⌊h / " + std::to_string(group) + "⌋] for each of the " +
                std::to_string(c.heads) + " query heads",
            "Grouped-query attention (Ainslie et al., 2023): " +
                (G == 1 ? std::string("the one shared ") + (role == 'k' ? "key" : "value") + " head serves all "
                        : "each of the " + std::to_string(G) + " shared " + (role == 'k' ? "key" : "value") + " heads serves ") +
                std::to_string(group) + " query heads, so it is repeated " + std::to_string(group) +
                " times here (LLaMA's repeat_kv). The copies are identical: heads of one group differ only in their "
                "queries." +
                (G == 1 ? " One shared head for all is multi-query attention (Shazeer, 2019)." : "")};
}

StepText rotation_text(char role) {
    const std::string upper(1, static_cast<char>(role - 'a' + 'A'));
    return {upper + "_rot[p] = R(p·θ)·" + upper + "[p],  θ_i = 10000^(−2i/dk) on pairs (2i, 2i+1)",
            std::string("RoPE (Su et al., RoFormer §3.2): each pair of the head's ") +
                (role == 'q' ? "query" : "key") +
                " dimensions is rotated by its position times the pair's frequency. After rotation "
                "q_i·k_j = q·R((j − i)θ)·k: positions enter the score only through the offset i − j (pair k turned "
                "by (i − j)·θ_k), while the content of q and k still matters. No position is added to the "
                "embeddings."};
}

StepText scores_text(const ModelConfig& c, AttentionKind kind) {
    const std::string scale_text = c.scale_attention ? " / √dk" : " (unscaled)";
    const bool alibi = c.positional == PositionalKind::Alibi && self_attention(kind);
    const bool relative = c.positional == PositionalKind::Relative && self_attention(kind);
    StepText t{"scores = Q·Kᵀ" + scale_text + (alibi ? " − m_h·|i − j|" : relative ? " + b[bucket(j − i), h]" : "") +
                   "   (query rows × key columns)",
               c.scale_attention
                   ? "How well each query matches each key. If the components of q and k were independent with "
                     "mean 0 and variance 1 (the paper's assumption, §3.2.1), q·k would have variance dk; dividing "
                     "by √dk cancels that growth, so at the start of training softmax is not pushed into one-hot "
                     "rows by the size of dk alone. A trained model can still make rows one-hot when it needs to."
                   : std::string("How well each query matches each key. Scaling by 1/√dk is switched off: for the "
                                 "same q and k ") +
                         (alibi || relative ? std::string("the q·k part of every score is √dk times larger (the ") +
                                                  (alibi ? "ALiBi" : "relative") +
                                                  " bias below is added after the scaling and is unchanged)"
                                            : std::string("every score is √dk times larger")) +
                         ", so softmax rows are more peaked; the paper suspected that with large dk this pushes "
                         "softmax into near one-hot rows, where training's gradients are tiny."};
    if (alibi)
        t.explanation += std::string(" ALiBi (Press et al. 2022) then subtracts a penalty that grows with distance, with "
                         "one fixed slope per head, a geometric sequence: m_h = 2^(−8(h+1)/H) for heads h = 0 … H−1 "
                         "when H is a power of two (1/4, 1/16, 1/64, 1/256 for 4 heads), so some heads look far and "
                         "others near. ") +
                         (kind == AttentionKind::EncoderSelf
                              ? "The paper defines it for causal attention (−m_h·(i − j) for keys j ≤ i); in the "
                                "encoder this app uses the symmetric −m_h·|i − j|, a common extension that cannot tell "
                                "a key on the left from one at the same distance on the right. It is the encoder's "
                                "only sense of position."
                              : "In the decoder, where the causal mask keeps only keys j ≤ i, it is the paper's "
                                "−m_h·(i − j); the causal mask also gives the decoder some sense of position.");
    else if (c.positional == PositionalKind::Alibi)
        t.explanation += " Cross-attention gets no ALiBi bias: a source and a target position have no distance.";
    if (relative)
        t.explanation += std::string(" T5 (Raffel et al. 2020, §2.1) then adds a learned scalar per head for the key's "
                                     "offset from the query, one table of 32 buckets × heads per stack, shared by its "
                                     "layers: offsets below ") +
                         (kind == AttentionKind::EncoderSelf ? "8" : "16") +
                         " get a bucket each, longer ones share log-spaced buckets up to 128 positions. " +
                         (kind == AttentionKind::EncoderSelf
                              ? "The encoder's buckets are bidirectional: keys before and after the query have buckets "
                                "of their own (16 each)."
                              : "The decoder's are causal: every later key shares bucket 0, and the causal mask hides "
                                "them anyway.");
    else if (c.positional == PositionalKind::Relative)
        t.explanation += " Cross-attention gets no relative bias: a source and a target position have no offset.";
    return t;
}

StepText mask_text(const ModelConfig& c, AttentionKind kind) {
    std::string text =
        kind == AttentionKind::EncoderSelf ? "Padding mask: PAD keys are set to −∞ so they get zero weight."
        : kind == AttentionKind::DecoderSelf
            ? "Causal (look-ahead) mask: position t may only see positions ≤ t: in training the whole target is "
              "fed at once and t must not read the token it has to predict, and at generation time later tokens "
              "do not exist yet. PAD keys are masked too. Masked scores are −∞."
            : "Padding mask on the source: the decoder never attends to PAD positions of the input sentence.";
    const std::string W = std::to_string(c.window), d = std::to_string(c.window_dilation);
    if (c.window > 0 && kind == AttentionKind::DecoderSelf)
        text += c.window_dilation == 1
                    ? " Sliding window: position i sees only the last " + W + " positions, i − W < j ≤ i (W = " + W +
                          ", as Mistral); stacked layers still pass information further back."
                    : " Dilated sliding window: position i sees " + W + " keys spaced d = " + d +
                          " apart, j = i − k·d for k < W (W = " + W +
                          ", as Longformer's dilated heads): the same number of keys reaches d times as far back.";
    else if (c.window > 0 && kind == AttentionKind::EncoderSelf)
        text += c.window_dilation == 1
                    ? " Sliding window: position i sees only |i − j| ≤ " + std::to_string(c.window / 2) +
                          " (⌊W/2⌋ on each side, W = " + W + ", as Longformer)."
                    : " Dilated sliding window: position i sees |i − j| = k·d for k ≤ " + std::to_string(c.window / 2) +
                          " (⌊W/2⌋ on each side, W = " + W + ", d = " + d + ", as Longformer's dilated heads).";
    if (c.window > 0 && self_attention(kind) && !c.global_positions.empty())
        text += " Global position" + std::string(c.global_positions.size() > 1 ? "s " : " ") + global_positions_text(c) +
                " (Longformer): such a query sees every key and every query sees such a key, outside the window" +
                (kind == AttentionKind::DecoderSelf ? " (the causal and padding masks still apply)."
                                                    : " (the padding mask still applies).");
    return {"masked = keep ? scores : −∞", text};
}

StepText probs_text() {
    return {"P = softmax(masked) along each query row",
            "Each query row becomes a probability distribution over the keys: the attention weights. Rows sum to "
            "1; a row with every key masked is all zeros."};
}

StepText context_text() {
    return {"context = P·V",
            "Each query position receives the attention-weighted average of the value vectors, per head."};
}

StepText attention_out_text(AttentionKind kind) {
    const char* what = kind == AttentionKind::Cross ? "cross-attention" : "self-attention";
    return {"out = concat(heads)·W_Oᵀ + b_O",
            std::string("The heads' contexts are concatenated back to d_model columns and mixed by the output "
                        "projection: the ") + what + " sublayer's result."};
}

StepText add_norm_text(const ModelConfig& c) {
    if (c.norm_kind == NormKind::RmsNorm)
        return {"out = RMSNorm(x + sublayer(x))",
                "Add & norm: the residual connection adds the sublayer's result to its input, so information and "
                "gradients can bypass the sublayer. RMSNorm then rescales each position: " + norm_formula_text(c) +
                ", γ learned. It keeps LayerNorm's rescaling and drops its re-centring, which the RMSNorm paper "
                "found to matter little while costing a second pass over the row."};
    return {"out = LayerNorm(x + sublayer(x))",
            "Add & norm: the residual connection adds the sublayer's result to its input, so information and "
            "gradients can bypass the sublayer. LayerNorm then normalises each position over its d_model "
            "features: γ ⊙ (x − μ) / √(σ² + ε) + β, with μ and σ² the mean and biased variance of that row, "
            "ε = 1e-5, γ and β learned."};
}

StepText norm_text(const ModelConfig& c, bool final_norm) {
    const std::string name = norm_name(c);
    if (final_norm && c.norm == NormPlacement::Post)
        return {"out = " + name + "(x)",
                "Final norm after Post-LN layers, as torch.nn.Transformer builds its stacks: the last layer's "
                "output, already normalised, is normalised once more with this norm's own γ" +
                    std::string(c.norm_kind == NormKind::LayerNorm ? " and β" : "") + ": " + norm_formula_text(c) + "."};
    if (c.norm_kind == NormKind::LayerNorm)
        return {"out = LayerNorm(x)",
                final_norm ? "Pre-LN: the final LayerNorm of the stack normalises the residual stream, which is never "
                             "normalised inside the layers. LayerNorm = γ ⊙ (x − μ) / √(σ² + ε) + β over each row's "
                             "d_model features (biased variance, ε = 1e-5)."
                           : "Pre-LN: the sublayer sees a normalised copy of the residual stream, γ ⊙ (x − μ) / "
                             "√(σ² + ε) + β over each row's d_model features; the stream itself is left "
                             "unnormalised, which keeps gradients well-behaved in deep stacks."};
    return {"out = " + name + "(x)",
            final_norm ? "Pre-norm: the final RMSNorm of the stack rescales the residual stream, which is never "
                         "normalised inside the layers. RMSNorm = " + norm_formula_text(c) + "."
                       : "Pre-norm: the sublayer sees a rescaled copy of the residual stream, " + norm_formula_text(c) +
                             "; the stream itself is left unnormalised, which keeps gradients well-behaved in deep "
                             "stacks."};
}

StepText residual_text(const ModelConfig& c) {
    return {std::string("out = x + sublayer(") + norm_name(c) + "(x))",
            "Pre-LN residual: the sublayer's result is added to the unnormalised stream."};
}

StepText ffn_hidden_text(const ModelConfig& c) {
    switch (c.ffn) {
        case FfnKind::Gelu:
            return {"h = GELU(x·W1ᵀ + b1),  GELU(u) = u·Φ(u)",
                    "The position-wise feed-forward network widens each position to d_ff features and applies GELU "
                    "(Hendrycks & Gimpel 2016, the exact erf form): each value is weighted by the probability Φ(u) "
                    "that a standard normal lies below it, a smooth ReLU that lets small negatives through."};
        case FfnKind::SwiGlu:
            return {"h = SiLU(gate) ⊙ up,  SiLU(u) = u·σ(u)",
                    "SwiGLU (Shazeer 2020): the gate, through SiLU, decides per feature how much of the up "
                    "projection passes. The hidden width is " + std::to_string(c.ffn_width()) +
                        ", about 2/3 of d_ff = " + std::to_string(c.d_ff) +
                        ", so the three matrices hold about as many weights as the two of a ReLU FFN."};
        case FfnKind::Relu: break;
    }
    return {"h = ReLU(x·W1ᵀ + b1)",
            "The position-wise feed-forward network widens each position to d_ff features and applies ReLU; it "
            "works on every position separately, with the same weights."};
}

StepText ffn_gate_text() {
    return {"gate = x·W1ᵀ", "SwiGLU's gate projection (ffn.linear1, no bias): it decides how much of each hidden "
                            "feature passes, after SiLU."};
}

StepText ffn_up_text() {
    return {"up = x·W3ᵀ", "SwiGLU's up projection (ffn.linear3, no bias): the values that the gate lets through."};
}

StepText ffn_out_text(const ModelConfig& c) {
    if (c.ffn == FfnKind::SwiGlu)
        return {"ffn = h·W2ᵀ",
                "The down projection (ffn.linear2, no bias) brings each position back to d_model features."};
    return {"ffn = h·W2ᵀ + b2",
            "The second linear layer of the feed-forward network brings each position back to d_model features."};
}

StepText ffn_rank_text(const ModelConfig& c, int index) {
    const std::string i = std::to_string(index), r = std::to_string(c.ffn_rank);
    const bool out = index == 2;   // linear2 reads the hidden features, linear1 and 3 the input
    const std::string in = out ? "h" : "x", in_width = out ? "the FFN's " + std::to_string(c.ffn_width()) + " hidden features" : "d_model features";
    return {"rank" + i + " = " + in + "·V" + i + "ᵀ   (r = " + r + ")",
            "Low-rank FFN: the matrix W" + i + " is stored as a product U" + i + "·V" + i + " of rank " + r +
                ". This step is the first factor, which squeezes " + in_width + " into r = " + r +
                " numbers per position; the next step multiplies them by U" + i + ". The two factors hold r·(in + out) "
                "weights instead of in·out, at the price of a matrix that can only have rank " + r + "."};
}

StepText with_low_rank(StepText text, const ModelConfig& c, int index) {
    if (c.ffn_rank == 0) return text;
    const std::string i = std::to_string(index);
    for (const std::string& in : {std::string("x"), std::string("h")}) {
        const std::string product = in + "·W" + i + "ᵀ";
        const size_t at = text.formula.find(product);
        if (at == std::string::npos) continue;
        text.formula.replace(at, product.size(), "rank" + i + "·U" + i + "ᵀ");
        text.explanation += " Here W" + i + " = U" + i + "·V" + i + " (rank " + std::to_string(c.ffn_rank) +
                            "): the step before this one computed rank" + i + " = " + in + "·V" + i + "ᵀ.";
        break;
    }
    return text;
}

StepText logits_text() {
    return {"logits = Y · W_genᵀ + b_gen",
            "Each decoder position is projected onto the target vocabulary: one score per token for the next "
            "token after that position."};
}

StepText log_probs_text() {
    return {"log P(next token) = log_softmax(logits)",
            "Log-softmax turns the scores into log-probabilities of the next token; greedy decoding takes the "
            "largest one at the last position."};
}

}  // namespace tx
