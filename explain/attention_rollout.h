// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3) and
// per-head attention entropy. Rollout: per layer A_l = the heads' mean attention, Â_l = 0.5·A_l +
// 0.5·I (the residual connection), rows renormalised, rollout = Â_L ··· Â_1: how much each
// position's last-layer state draws on each input token if attention were the only mixing. It
// rolls out the encoder's self-attention (decoder-only: the decoder's). Shapes row-major: N
// positions of the rolled stack (S, or T decoder-only), T decoder positions, H heads.
#pragma once
#include <string>
#include <vector>

#include "inspect_model.h"

namespace tx::explain {

struct AttentionRollout {
    std::string error;                 // why there is no result; the rest is empty then
    std::string method;                // what was rolled out, and through what
    std::string stack;                 // "encoder self-attention" or "decoder self-attention"
    int layers = 0, positions = 0;     // L and N of the rolled stack
    std::vector<std::string> tokens;   // [N]
    std::vector<double> per_layer;     // [L, N, N]: Â_l ··· Â_1 after each layer; the last is the rollout
    // Encoder-decoder: decoder positions over source tokens, per decoder layer d: the head-averaged
    // cross-attention of layer d [T, S] times the encoder rollout [S, S]. Empty for decoder-only.
    int cross_layers = 0, target_positions = 0;
    std::vector<std::string> target_tokens;   // [T]
    std::vector<double> cross;                // [Ld, T, S]
};

AttentionRollout attention_rollout(InspectModel& model, const InspectInput& in);

struct EntropyGrid {
    std::string name;                  // "encoder.self_attn", "decoder.self_attn", "decoder.cross_attn"
    AttentionKind kind = AttentionKind::EncoderSelf;
    int layers = 0, heads = 0;
    std::vector<double> entropy;       // [layers, heads] mean over query rows of −Σ_j p_ij·ln p_ij (nats)
    double max_entropy = 0.0;          // mean over the same rows of ln(unmasked keys): uniform attention
};

struct AttentionEntropy {
    std::string error;
    std::string note;
    std::vector<EntropyGrid> grids;
};

// Masked keys (padding, causal, window) carry probability 0 and add nothing; the maximum counts
// only the keys the row may attend to; a row with every key masked is left out.
AttentionEntropy attention_entropy(InspectModel& model, const InspectInput& in);

}  // namespace tx::explain
