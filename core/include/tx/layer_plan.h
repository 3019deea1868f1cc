// The plan of one Transformer layer: its sublayers in order, and the norm and residual step that
// wrap each. One plan drives the full model (Transformer::build), the KV-cached decoder
// (IncrementalDecoder) and the Generate panel's step list, so the three cannot drift apart.
//
// Encoder layer: self-attention, FFN. Decoder layer: masked self-attention, cross-attention over
// the encoder's output (encoder-decoder only; a decoder-only layer has none), FFN. Sublayer K of a
// layer (K = 1, 2, 3) is wrapped by normK: Post-LN x = normK(x + sublayer(x)); Pre-LN
// x = x + sublayer(normK(x)), the addition being the step residualK.
#pragma once

#include <string>
#include <vector>

#include "tx/config.h"

namespace tx {

enum class SublayerKind { SelfAttention, CrossAttention, FeedForward };

struct SublayerPlan {
    SublayerKind kind;
    std::string name;       // the sublayer's step prefix within its layer: "self_attn", "cross_attn", "ffn"
    std::string norm;       // the norm that wraps it: "norm1", "norm2", "norm3"
    std::string residual;   // Pre-LN's residual step: "residual1", ...
};

// The sublayers of every encoder layer (encoder = true) or decoder layer of a model with this config.
std::vector<SublayerPlan> layer_plan(const ModelConfig& config, bool encoder);

// Where the token positions enter the model, in one line for the learner: added to the embeddings
// (sinusoidal or learned table), rotating each head's q and k (RoPE), a bias on the scores
// (ALiBi), or nowhere.
std::string positions_enter(const ModelConfig& config);

}  // namespace tx
