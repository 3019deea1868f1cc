// Teaching text of the model's steps: each step's one-line formula and its one-to-three-sentence
// explanation, kept apart from the wiring in transformer.cpp. Every text is built from the
// config (√dk scaling, norm placement and kind, position scheme, FFN kind, window), so what the
// step panel says follows the current settings. Shape letters as in transformer.h.
#pragma once
#include <string>

#include "tx/config.h"
#include "tx/transformer.h"

namespace tx {

struct StepText {
    std::string formula;       // one line, e.g. "P = softmax(masked) along each query row"
    std::string explanation;   // what the step computes and why
};

StepText embed_text(const ModelConfig& c, const char* side);   // side: "source" or "target"
StepText positional_text(const ModelConfig& c);             // positions added to the embeddings
StepText projection_text(const ModelConfig& c, AttentionKind kind, char role);   // role 'q', 'k' or 'v'
StepText rotation_text(char role);                          // RoPE of q or k
StepText repeat_heads_text(const ModelConfig& c, char role);  // grouped-query attention: k or v repeated to H heads
StepText scores_text(const ModelConfig& c, AttentionKind kind);
StepText mask_text(const ModelConfig& c, AttentionKind kind);
StepText probs_text();
StepText context_text();
StepText attention_out_text(AttentionKind kind);
StepText add_norm_text(const ModelConfig& c);               // Post: norm(x + sublayer(x))
StepText norm_text(const ModelConfig& c, bool final_norm);  // Pre: the sublayer's normalised input
StepText residual_text(const ModelConfig& c);               // Pre: x + sublayer(norm(x))
StepText ffn_hidden_text(const ModelConfig& c);
StepText ffn_gate_text();                                   // SwiGLU's two input projections
StepText ffn_up_text();
StepText ffn_out_text(const ModelConfig& c);
// Low-rank FFN (ModelConfig::ffn_rank): the step x·Vᵀ before matrix linear<index>, and a matrix
// step's text with W<index> read as U·V (unchanged without a rank).
StepText ffn_rank_text(const ModelConfig& c, int index);
StepText with_low_rank(StepText text, const ModelConfig& c, int index);
StepText logits_text();
StepText log_probs_text();

}  // namespace tx
