// The sublayers of a layer and where positions enter; see layer_plan.h.
#include "tx/layer_plan.h"

namespace tx {

std::vector<SublayerPlan> layer_plan(const ModelConfig& config, bool encoder) {
    std::vector<SublayerKind> kinds{SublayerKind::SelfAttention};
    if (!encoder && config.arch == Arch::EncoderDecoder) kinds.push_back(SublayerKind::CrossAttention);
    kinds.push_back(SublayerKind::FeedForward);
    std::vector<SublayerPlan> plan;
    for (size_t k = 0; k < kinds.size(); ++k) {
        const std::string n = std::to_string(k + 1);
        const char* name = kinds[k] == SublayerKind::SelfAttention    ? "self_attn"
                           : kinds[k] == SublayerKind::CrossAttention ? "cross_attn"
                                                                      : "ffn";
        plan.push_back({kinds[k], name, "norm" + n, "residual" + n});
    }
    return plan;
}

std::string positions_enter(const ModelConfig& config) {
    switch (config.positional) {
        case PositionalKind::Sinusoidal: return "add the sinusoidal positional encoding of its position";
        case PositionalKind::Learned: return "add the learned position embedding of its position";
        case PositionalKind::Rope: return "no position added here: RoPE rotates each head's q and k by their position";
        case PositionalKind::Alibi: return "no position added here: ALiBi adds a distance penalty to the attention scores";
        case PositionalKind::None: return "no positional encoding anywhere in this model";
        case PositionalKind::Relative: return "no position added here: T5's learned relative bias is added to the attention scores";
    }
    return "";
}

}  // namespace tx
