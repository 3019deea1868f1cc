// Parameter table in docs/design.md §4 order, and the seeded Xavier-uniform initialisation.
#include "tx/parameters.h"

#include <cmath>
#include <stdexcept>

#include "tx/ops.h"

namespace tx {

ParameterTable::ParameterTable(const ModelConfig& c) {
    const int64_t D = c.d_model, F = c.ffn_width();
    const int64_t KV = static_cast<int64_t>(c.kv_head_count()) * c.d_k();   // G·dk: D unless grouped-query
    auto attention = [&](const std::string& prefix) {
        for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
            const bool kv = proj[0] == 'k' || proj[0] == 'v';
            add(prefix + "." + proj + ".weight", {kv ? KV : D, D});
            add(prefix + "." + proj + ".bias", {kv ? KV : D});
        }
    };
    auto norm = [&](const std::string& prefix) {
        add(prefix + ".weight", {D});
        if (c.norm_kind == NormKind::LayerNorm) add(prefix + ".bias", {D});   // RMSNorm has a gain only
    };
    // An FFN matrix [out, in]: one weight, or with a low-rank FFN its factors u [out, r] and v [r, in].
    auto matrix = [&](const std::string& name, int64_t out, int64_t in) {
        if (c.ffn_rank == 0) {
            add(name + ".weight", {out, in});
            return;
        }
        add(name + ".u.weight", {out, c.ffn_rank});
        add(name + ".v.weight", {c.ffn_rank, in});
    };
    auto ffn = [&](const std::string& prefix) {
        if (c.ffn == FfnKind::SwiGlu) {   // gate, up and down without biases, as LLaMA
            matrix(prefix + ".linear1", F, D);
            matrix(prefix + ".linear3", F, D);
            matrix(prefix + ".linear2", D, F);
            return;
        }
        matrix(prefix + ".linear1", F, D);
        add(prefix + ".linear1.bias", {F});
        matrix(prefix + ".linear2", D, F);
        add(prefix + ".linear2.bias", {D});
    };
    // Decoder-only (GPT) models have no source side: no src_embed, src_pos, encoder or cross_attn.
    const bool encoder = c.arch == Arch::EncoderDecoder;
    if (encoder) add("src_embed.weight", {c.src_vocab, D});
    add("tgt_embed.weight", {c.tgt_vocab, D});
    if (c.positional == PositionalKind::Learned) {
        if (encoder) add("src_pos.weight", {c.max_len, D});
        add("tgt_pos.weight", {c.max_len, D});
    }
    // T5's relative bias: one learned table of buckets × heads per stack, shared by its layers.
    if (c.positional == PositionalKind::Relative) {
        if (encoder) add("encoder.relative_bias.weight", {cpu::RELATIVE_BUCKETS, c.heads});
        add("decoder.relative_bias.weight", {cpu::RELATIVE_BUCKETS, c.heads});
    }
    for (int i = 0; i < c.encoder_layers; ++i) {
        const std::string p = "encoder.layers." + std::to_string(i);
        attention(p + ".self_attn");
        norm(p + ".norm1");
        norm(p + ".norm2");
        ffn(p + ".ffn");
    }
    for (int i = 0; i < c.decoder_layers; ++i) {
        const std::string p = "decoder.layers." + std::to_string(i);
        attention(p + ".self_attn");
        if (encoder) attention(p + ".cross_attn");
        norm(p + ".norm1");
        norm(p + ".norm2");
        if (encoder) norm(p + ".norm3");
        ffn(p + ".ffn");
    }
    if (c.has_final_norm()) {
        if (encoder) norm("encoder.norm");
        norm("decoder.norm");
    }
    add("generator.weight", {c.tgt_vocab, D});
    add("generator.bias", {c.tgt_vocab});
}

void ParameterTable::add(std::string name, std::vector<int64_t> shape) {
    ParameterInfo info{std::move(name), std::move(shape), m_total};
    m_total += info.numel();
    m_entries.push_back(std::move(info));
}

const ParameterInfo* ParameterTable::find(const std::string& name) const {
    for (const auto& e : m_entries)
        if (e.name == name) return &e;
    return nullptr;
}

const ParameterInfo& ParameterTable::at(const std::string& name) const {
    if (const auto* e = find(name)) return *e;
    throw std::out_of_range("no parameter named '" + name + "'");
}

namespace {

// splitmix64 (Steele, Lea & Flood 2014): a fixed generator, so the same seed gives the same
// weights with every compiler and standard library.
struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // uniform in [0, 1) with 53 random bits
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool ParameterInfo::is_linear_weight() const {
    return is_matrix() && name.find("_embed.") == std::string::npos && name.find("_pos.") == std::string::npos &&
           name.find(".relative_bias.") == std::string::npos;
}

std::vector<float> init_parameters(const ParameterTable& table, uint64_t seed) {
    std::vector<float> values(static_cast<size_t>(table.total()), 0.0f);
    SplitMix64 rng{seed};
    auto fill_uniform = [&rng](float* p, int64_t n, double bound) {   // U(-bound, bound)
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>((2.0 * rng.uniform() - 1.0) * bound);
    };
    for (const auto& e : table.entries()) {
        float* p = values.data() + e.offset;
        if (e.is_matrix()) {
            // fan_out = shape[0], fan_in = shape[1] for [out, in] (torch.nn.init.xavier_uniform_).
            // The q, k and v projections count as one stacked [3D, D] matrix (3D whatever the
            // grouped-query k and v widths, so their bound is q's), the way
            // torch.nn.MultiheadAttention initialises its in_proj_weight: bound √(6 / 4D)
            // instead of √(6 / 2D). On the annotated copy task (400 steps, seeds 1–3) held-out
            // exact match went from 0.85 / 0.815 / 0.765 to 0.96 / 0.80 / 0.92 (PyTorch's
            // nn.Transformer: 0.825–0.91); smaller q and k keep the first attention logits small.
            const bool qkv = ends_with(e.name, "q_proj.weight") || ends_with(e.name, "k_proj.weight") ||
                             ends_with(e.name, "v_proj.weight");
            const int64_t fan_out = qkv ? 3 * e.shape[1] : e.shape[0];
            fill_uniform(p, e.numel(), std::sqrt(6.0 / static_cast<double>(fan_out + e.shape[1])));
        } else if (ends_with(e.name, ".weight")) {   // LayerNorm gain
            for (int64_t i = 0; i < e.numel(); ++i) p[i] = 1.0f;
        } else if (ends_with(e.name, "linear1.bias") || ends_with(e.name, "linear2.bias") || e.name == "generator.bias") {
            // As torch.nn.Linear: U(-1/√fan_in, 1/√fan_in). Attention projection biases stay 0
            // (as nn.MultiheadAttention's), LayerNorm biases 0. On the annotated copy task (400
            // steps, seeds 1-5) held-out exact match went from 0.96/0.80/0.92/0.815/0.79 (all
            // biases 0; mean 0.857) to 0.89/0.85/0.865/0.845/0.89 (mean 0.868), a third of the spread.
            // fan_in is the matrix's input width; a low-rank FFN's matrix is u·v, with v [r, in].
            const std::string stem = e.name.substr(0, e.name.size() - 4);
            const ParameterInfo* weight = table.find(stem + "weight");
            if (!weight) weight = table.find(stem + "v.weight");
            fill_uniform(p, e.numel(), 1.0 / std::sqrt(static_cast<double>(weight->shape[1])));
        }
    }
    return values;
}

}  // namespace tx
