// The model's parameters: their names, shapes and offsets in one flat float buffer, in the
// order and layout of docs/design.md §4 (row-major, linear weights [out, in], y = x·Wᵀ + b).
// Parameters, gradients and Adam moments share this layout, so Adam is one loop and a
// checkpoint is one pass.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tx/config.h"

namespace tx {

struct ParameterInfo {
    std::string name;            // e.g. "encoder.layers.0.self_attn.q_proj.weight"
    std::vector<int64_t> shape;  // e.g. {D, D}
    int64_t offset = 0;          // in floats, into the flat buffer
    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
    bool is_matrix() const { return shape.size() == 2; }
    // The weight [out, in] of a linear layer (y = x·Wᵀ + b): every matrix but the embedding tables,
    // the learned position tables and T5's relative bias tables, which are looked up, not multiplied.
    // These are what INT8 weight-only quantisation and quantization-aware training act on.
    bool is_linear_weight() const;
};

class ParameterTable {
public:
    explicit ParameterTable(const ModelConfig& config);
    const std::vector<ParameterInfo>& entries() const { return m_entries; }
    int64_t total() const { return m_total; }
    // Throws std::out_of_range with the name when absent.
    const ParameterInfo& at(const std::string& name) const;
    const ParameterInfo* find(const std::string& name) const;

private:
    void add(std::string name, std::vector<int64_t> shape);
    std::vector<ParameterInfo> m_entries;
    int64_t m_total = 0;
};

// Xavier-uniform weight matrices (Glorot & Bengio 2010: U(±sqrt(6/(fan_in+fan_out)))), as the
// Annotated Transformer, with q, k and v counted as one stacked [3D, D] matrix; the biases as
// PyTorch's modules: FFN and generator biases U(±1/√fan_in) (nn.Linear), attention projection
// biases 0 (nn.MultiheadAttention); LayerNorm weight 1 and bias 0, RMSNorm weight 1. Learned
// position tables [max_len, D] and SwiGLU's three bias-free matrices are Xavier matrices like the
// rest. Same seed, same weights on every machine (a fixed 64-bit generator, not std::uniform_real_distribution).
std::vector<float> init_parameters(const ParameterTable& table, uint64_t seed);

}  // namespace tx
