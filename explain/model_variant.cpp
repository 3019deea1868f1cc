// Model variants for the lessons (model_variant.h).
#include "model_variant.h"

#include "tx/attention_window.h"

namespace tx::explain {

ModelConfig apply_variant(ModelConfig config, const ModelVariant& variant) {
    if (variant.positional) config.positional = *variant.positional;
    if (variant.ffn) config.ffn = *variant.ffn;
    if (variant.norm_kind) config.norm_kind = *variant.norm_kind;
    if (variant.kv_heads) config.kv_heads = *variant.kv_heads;
    if (variant.window) config.window = *variant.window;
    if (variant.window_dilation) config.window_dilation = *variant.window_dilation;
    if (variant.global_positions) config.global_positions = *variant.global_positions;
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
        case PositionalKind::Relative: return "T5 relative position bias";
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
    if (variant.window) add(*variant.window == 0 ? std::string("full attention") : "a window of " + std::to_string(*variant.window) + " keys");
    if (variant.window_dilation) add("dilation " + std::to_string(*variant.window_dilation));
    if (variant.global_positions) {
        ModelConfig c;
        c.global_positions = *variant.global_positions;
        const size_t n = c.global_positions.size();
        add(n == 0 ? std::string("no global positions")
                   : (n == 1 ? "global position " : "global positions ") + global_positions_text(c));
    }
    return out;
}

}  // namespace tx::explain
