// A model variant as a lesson asks for it: some of the open model's variant fields (positions,
// feed-forward, norm kind, key/value heads, window) changed, everything else (sizes, vocabulary, seed) kept. Applying one
// builds a model with fresh weights, as the Model panel's "Rebuild" does, so the lesson and its
// tests agree on the config the screen shows.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tx/config.h"

namespace tx::explain {

struct ModelVariant {
    std::optional<PositionalKind> positional;   // unset: the open model's
    std::optional<FfnKind> ffn;
    std::optional<NormKind> norm_kind;
    std::optional<int> kv_heads;                // grouped-query attention's key/value heads
    std::optional<int> window;                  // the sliding window, its dilation and global positions
    std::optional<int> window_dilation;
    std::optional<std::vector<int>> global_positions;
    bool empty() const {
        return !positional && !ffn && !norm_kind && !kv_heads && !window && !window_dilation && !global_positions;
    }
};

// `config` with the variant's fields set; the others as they are.
ModelConfig apply_variant(ModelConfig config, const ModelVariant& variant);

// "RoPE positions, SwiGLU feed-forward": the fields set, in words for "Do it".
std::string describe(const ModelVariant& variant);

}  // namespace tx::explain
