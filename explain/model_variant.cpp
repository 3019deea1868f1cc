// Model variants for the lessons (model_variant.h).
#include "model_variant.h"

namespace tx::explain {

ModelConfig apply_variant(ModelConfig config, const ModelVariant& variant) {
    if (variant.positional) config.positional = *variant.positional;
    if (variant.ffn) config.ffn = *variant.ffn;
    if (variant.norm_kind) config.norm_kind = *variant.norm_kind;
    if (variant.kv_heads) config.kv_heads = *variant.kv_heads;
    return config;
}

namespace {

const char* positions_in_words(PositionalKind kind) {
    switch (kind) {
        case PositionalKind::Sinusoidal: return "sinusoidal positions";
        case PositionalKind::Learned: return "learned positions";
        case PositionalKind::Rope: return "RoPE positions";
        case PositionalKind::Alibi: return "ALiBi positions";
        case PositionalKind::None: return "no positions";
    }
    return "";
}

const char* ffn_in_words(FfnKind kind) {
    switch (kind) {
        case FfnKind::Relu: return "ReLU feed-forward";
        case FfnKind::Gelu: return "GELU feed-forward";
        case FfnKind::SwiGlu: return "SwiGLU feed-forward";
    }
    return "";
}

}  // namespace

std::string describe(const ModelVariant& variant) {
    std::string out;
    const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    if (variant.positional) add(positions_in_words(*variant.positional));
    if (variant.ffn) add(ffn_in_words(*variant.ffn));
    if (variant.norm_kind) add(*variant.norm_kind == NormKind::RmsNorm ? "RMSNorm" : "LayerNorm");
    if (variant.kv_heads)
        add(*variant.kv_heads == 0 ? std::string("a key/value head per query head")
                                   : std::to_string(*variant.kv_heads) + " shared key/value head" + (*variant.kv_heads == 1 ? "" : "s"));
    return out;
}

}  // namespace tx::explain
