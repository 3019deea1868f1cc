// The decoder's steps of transformer.cpp for n new query rows per batch row (step(): n = 1 for each
// of B rows; extend(): n rows of a one-row batch), with the same backend ops in the same order, so
// its log-probabilities match Transformer::decode() at the new positions. Keys are the whole capacity C: positions not yet written (and PAD inputs,
// when the padding mask is on) are masked, so they get exactly zero weight and the ops keep their
// contiguous [B,H,keys,dk] layout while the cache grows in place.
#include "tx/incremental_decoder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tx/attention_window.h"
#include "tx/layer_plan.h"

namespace tx {

bool IncrementalDecoder::supports(const RunOptions& options) { return options.causal_mask && !options.training; }

bool IncrementalDecoder::supports(const Transformer& model) {
    return supports(model.options()) && !model.backend().precision().all_low;
}

IncrementalDecoder::IncrementalDecoder(Transformer& model, int capacity)
    : m_model(model), m_backend(model.backend()), m_config(model.config()) {
    const ModelConfig& c = m_config;
    if (!supports(model))
        throw std::invalid_argument("the KV cache needs the causal mask on, evaluation mode, and a backend that does not round every step");
    if (capacity < 1 || capacity > c.max_len)
        throw std::invalid_argument("KV cache capacity " + std::to_string(capacity) + " outside 1.." +
                                    std::to_string(c.max_len));
    m_B = model.batch_size();
    m_S = model.src_len();
    m_C = capacity;
    if (m_B == 0) throw std::invalid_argument("the KV cache needs a batch (set_batch and encode first)");
    const int B = m_B, S = m_S, C = m_C, D = c.d_model, dk = c.d_k();
    const int G = c.kv_head_count(), KV = G * dk;   // grouped-query attention caches G heads, not H
    m_scale = c.scale_attention ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;

    auto array = [this](int64_t n) { return Array(m_backend, static_cast<size_t>(n)); };
    reserve_rows(1);
    m_ids_host.assign(static_cast<size_t>(B) * C, c.special.pad);

    // The source keys each row may attend to: the full path's cross mask, one row per query.
    m_cross_keep_host = model.src_mask();
    upload_cross_keep();

    // Cross-attention K and V depend only on the encoder memory: project them once per source.
    // A decoder-only model has neither.
    m_cross = c.arch == Arch::EncoderDecoder;
    const float* memory = m_cross ? model.step_data(model.first_decoder_step() - 1) : nullptr;   // [B,S,D]
    Array flat = array(m_cross ? int64_t{B} * S * D : 0);
    m_layers.resize(static_cast<size_t>(c.decoder_layers));
    for (int l = 0; l < c.decoder_layers; ++l) {
        Layer& layer = m_layers[static_cast<size_t>(l)];
        const std::string p = "decoder.layers." + std::to_string(l) + ".cross_attn";
        layer.self_k = array(int64_t{B} * G * C * dk);
        layer.self_v = array(int64_t{B} * G * C * dk);
        if (!m_cross) continue;
        layer.cross_k = array(int64_t{B} * G * S * dk);
        layer.cross_v = array(int64_t{B} * G * S * dk);
        m_model.linear_forward(flat.data(), memory, model.parameter(p + ".k_proj.weight"),
                                 model.parameter(p + ".k_proj.bias"), B * S, D, KV);
        m_backend.split_heads_forward(layer.cross_k.data(), flat.data(), B, S, G, dk);
        m_model.linear_forward(flat.data(), memory, model.parameter(p + ".v_proj.weight"),
                                 model.parameter(p + ".v_proj.bias"), B * S, D, KV);
        m_backend.split_heads_forward(layer.cross_v.data(), flat.data(), B, S, G, dk);
    }
}

void IncrementalDecoder::reserve_rows(int n) {
    const ModelConfig& c = m_config;
    m_n = n;
    m_rows = m_B * n;
    if (n <= m_reserved_n) return;
    m_reserved_n = n;
    const int64_t R = m_rows, H = c.heads, keys = std::max(m_C, m_S);
    auto array = [this](int64_t count) { return Array(m_backend, static_cast<size_t>(count)); };
    m_ids = BackendArray<int32_t>(m_backend, static_cast<size_t>(R));
    m_self_keep = array(R * m_C);
    m_cross_keep = array(R * m_S);
    for (Array* a : {&m_x, &m_sum, &m_normed, &m_proj, &m_qh, &m_ctx, &m_merged, &m_attn, &m_ffn})
        *a = array(R * c.d_model);
    m_mean = array(R);
    m_rstd = array(R);
    m_scores = array(R * H * keys);
    m_masked = array(R * H * keys);
    m_probs = array(R * H * keys);
    m_hidden = array(R * c.ffn_width());
    if (c.ffn == FfnKind::Gelu) m_ffn_pre = array(R * c.ffn_width());
    if (c.ffn == FfnKind::SwiGlu) {
        m_gate = array(R * c.ffn_width());
        m_up = array(R * c.ffn_width());
    }
    if (c.ffn_rank > 0) m_rank = array(R * c.ffn_rank);
    m_logits = array(R * c.tgt_vocab);
    m_log_probs = array(R * c.tgt_vocab);
    m_cross_keep_n = 0;   // the new buffer holds no mask yet
}

void IncrementalDecoder::upload_cross_keep() {
    // [B,n,S]: each of a row's n query rows sees the same source keys
    std::vector<float> keep(static_cast<size_t>(m_rows) * m_S);
    for (int b = 0; b < m_B; ++b)
        for (int i = 0; i < m_n; ++i)
            std::copy_n(m_cross_keep_host.begin() + static_cast<size_t>(b) * m_S, m_S,
                        keep.begin() + (static_cast<size_t>(b) * m_n + i) * m_S);
    m_backend.upload(m_cross_keep.data(), keep.data(), keep.size() * sizeof(float));
    m_cross_keep_n = m_n;
}

void IncrementalDecoder::check_ids(const std::vector<int>& tokens, const char* what) const {
    for (int id : tokens)
        if (id < 0 || id >= m_config.tgt_vocab)
            throw std::invalid_argument(std::string(what) + ": id " + std::to_string(id) + " outside the vocabulary");
}

std::vector<float> IncrementalDecoder::step(const std::vector<int>& tokens) {
    const int B = m_B;
    if (static_cast<int>(tokens.size()) != B)
        throw std::invalid_argument("KV cache step: " + std::to_string(tokens.size()) + " ids for " +
                                    std::to_string(B) + " rows");
    if (m_t >= m_C)
        throw std::invalid_argument("KV cache step: the cache holds " + std::to_string(m_C) + " positions, all used");
    check_ids(tokens, "KV cache step");
    return run(std::vector<int32_t>(tokens.begin(), tokens.end()), 1);
}

std::vector<float> IncrementalDecoder::extend(const std::vector<int>& tokens) {
    const int n = static_cast<int>(tokens.size());
    if (m_B != 1)
        throw std::invalid_argument("KV cache extend: needs a batch of one row, not " + std::to_string(m_B));
    if (n == 0) throw std::invalid_argument("KV cache extend: no ids");
    if (m_t + n > m_C)
        throw std::invalid_argument("KV cache extend: " + std::to_string(n) + " ids after " + std::to_string(m_t) +
                                    " cached positions, but the cache holds " + std::to_string(m_C));
    check_ids(tokens, "KV cache extend");
    return run(std::vector<int32_t>(tokens.begin(), tokens.end()), n);
}

void IncrementalDecoder::truncate(int length) {
    if (length < 0 || length > m_t)
        throw std::invalid_argument("KV cache truncate: length " + std::to_string(length) + " outside 0.." +
                                    std::to_string(m_t));
    for (int b = 0; b < m_B; ++b)
        std::fill(m_ids_host.begin() + static_cast<size_t>(b) * m_C + length,
                  m_ids_host.begin() + static_cast<size_t>(b + 1) * m_C, m_config.special.pad);
    m_t = length;
    m_attention_kept = false;
}

std::vector<float> IncrementalDecoder::run(const std::vector<int32_t>& ids, int n) {
    const ModelConfig& c = m_config;
    const int B = m_B, D = c.d_model, V = c.tgt_vocab;
    reserve_rows(n);
    const int R = m_rows;
    // ids are [B,n]: row b's n new positions in order (n = 1: one per row)
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < n; ++i)
            m_ids_host[static_cast<size_t>(b) * m_C + m_t + i] = ids[static_cast<size_t>(b) * n + i];
    m_backend.upload(m_ids.data(), ids.data(), ids.size() * sizeof(int32_t));
    upload_self_keep();
    if (m_cross && m_cross_keep_n != n) upload_cross_keep();
    m_attention_kept = false;

    // Embedding and, where positions are added to the embeddings, the positions' rows of the
    // sinusoidal or learned table (tgt_embed.out, tgt_pos.out). RoPE and ALiBi act in
    // self_attention and attention at positions t..t+n-1.
    m_backend.embedding_forward(m_sum.data(), m_ids.data(), m_model.parameter("tgt_embed.weight"), R, D,
                                std::sqrt(static_cast<float>(D)));
    const bool table = c.positional == PositionalKind::Sinusoidal || c.positional == PositionalKind::Learned;
    if (table && m_model.options().positional_encoding) {
        const float* rows = c.positional == PositionalKind::Learned ? m_model.parameter("tgt_pos.weight")
                                                                    : m_model.positional_table();
        m_backend.positional_forward(m_x.data(), m_sum.data(), rows + static_cast<size_t>(m_t) * D, B, n, D);
    } else {
        m_backend.copy(m_x.data(), m_sum.data(), static_cast<size_t>(R) * D * sizeof(float));
    }

    // Each layer's sublayers in the plan's order (layer_plan.h), as Transformer::build runs them.
    const std::vector<SublayerPlan> plan = layer_plan(c, false);
    for (int l = 0; l < c.decoder_layers; ++l) {
        const std::string p = "decoder.layers." + std::to_string(l);
        for (const SublayerPlan& s : plan) {
            const bool post = c.norm == NormPlacement::Post;
            const float* input = m_x.data();
            if (!post) {
                norm(p + "." + s.norm, m_x.data(), m_normed.data());
                input = m_normed.data();
            }
            const float* out = m_attn.data();
            switch (s.kind) {
                case SublayerKind::SelfAttention: self_attention(l, input); break;
                case SublayerKind::CrossAttention: cross_attention(l, input); break;
                case SublayerKind::FeedForward:
                    feed_forward(l, input);
                    out = m_ffn.data();
                    break;
            }
            if (post) add_and_norm(p + "." + s.norm, out);
            else add(out);
        }
    }
    const float* y = m_x.data();
    if (c.has_final_norm()) {
        norm("decoder.norm", m_x.data(), m_normed.data());
        y = m_normed.data();
    }
    m_model.linear_forward(m_logits.data(), y, m_model.parameter("generator.weight"),
                             m_model.parameter("generator.bias"), R, D, V);
    m_backend.log_softmax_forward(m_log_probs.data(), m_logits.data(), R, V);
    m_attention_kept = m_keep_attention && n == 1 && !m_model.options().fused_attention;
    m_t += n;
    std::vector<float> host(static_cast<size_t>(R) * V);
    m_backend.download(host.data(), m_log_probs.data(), host.size() * sizeof(float));
    return host;
}

void IncrementalDecoder::upload_self_keep() {
    // Query row i (position q = t + i) of row b may attend to key j when it is written (j <= q),
    // inside the sliding window (tx/attention_window.h: the last W keys, d apart, and the global
    // positions) and, with the padding mask on, not PAD: row q of the full path's mask. [B,n,C]
    const bool padding = m_model.options().padding_mask;
    std::vector<float> keep(static_cast<size_t>(m_rows) * m_C, 0.0f);
    for (int b = 0; b < m_B; ++b)
        for (int i = 0; i < m_n; ++i) {
            const int q = m_t + i;
            float* row = keep.data() + (static_cast<size_t>(b) * m_n + i) * m_C;
            for (int j = 0; j <= q; ++j) {
                const int32_t id = m_ids_host[static_cast<size_t>(b) * m_C + j];
                row[j] = decoder_window_keeps(m_config, q, j) && (!padding || id != m_config.special.pad) ? 1.0f : 0.0f;
            }
        }
    m_backend.upload(m_self_keep.data(), keep.data(), keep.size() * sizeof(float));
}

void IncrementalDecoder::self_attention(int layer, const float* input) {
    const ModelConfig& c = m_config;
    const int B = m_B, n = m_n, D = c.d_model, G = c.kv_head_count(), dk = c.d_k();
    const std::string p = "decoder.layers." + std::to_string(layer) + ".self_attn";
    Layer& cache = m_layers[static_cast<size_t>(layer)];
    // The new positions' keys and values, [B,n,G·dk] split into [B,G,n,dk] (with n = 1 the two
    // layouts are the same), written at rows t..t+n-1 of each of the G key/value heads (G = H but
    // with grouped-query attention); with RoPE the keys are rotated to their positions first.
    for (auto [proj, target] : {std::pair{".k_proj", &cache.self_k}, std::pair{".v_proj", &cache.self_v}}) {
        m_model.linear_forward(m_proj.data(), input, m_model.parameter(p + proj + ".weight"),
                                 m_model.parameter(p + proj + ".bias"), m_rows, D, G * dk);
        float* heads = m_proj.data();
        if (n > 1) {
            m_backend.split_heads_forward(m_merged.data(), m_proj.data(), B, n, G, dk);
            heads = m_merged.data();
        }
        if (target == &cache.self_k && rotates()) m_backend.rope_forward(heads, heads, B, G, n, dk, m_t);
        for (int bh = 0; bh < B * G; ++bh)
            m_backend.copy(target->data() + (static_cast<size_t>(bh) * m_C + m_t) * dk,
                           heads + static_cast<size_t>(bh) * n * dk, static_cast<size_t>(n) * dk * sizeof(float));
    }
    attention(p, input, cache.self_k.data(), cache.self_v.data(), m_self_keep.data(), m_C, true,
              m_keep_attention ? &cache.self_probs : nullptr);
}

void IncrementalDecoder::cross_attention(int layer, const float* input) {
    Layer& cache = m_layers[static_cast<size_t>(layer)];
    attention("decoder.layers." + std::to_string(layer) + ".cross_attn", input, cache.cross_k.data(),
              cache.cross_v.data(), m_cross_keep.data(), m_S, false, m_keep_attention ? &cache.cross_probs : nullptr);
}

bool IncrementalDecoder::rotates() const {
    return m_config.positional == PositionalKind::Rope && m_model.options().positional_encoding;
}

void IncrementalDecoder::attention(const std::string& prefix, const float* input, const float* k, const float* v,
                                   const float* keep, int keys, bool self, Array* kept_probs) {
    const ModelConfig& c = m_config;
    const int B = m_B, n = m_n, D = c.d_model, H = c.heads, dk = c.d_k(), G = c.kv_head_count(), group = H / G;
    const RunOptions& options = m_model.options();
    m_model.linear_forward(m_proj.data(), input, m_model.parameter(prefix + ".q_proj.weight"),
                             m_model.parameter(prefix + ".q_proj.bias"), m_rows, D, D);
    m_backend.split_heads_forward(m_qh.data(), m_proj.data(), B, n, H, dk);   // [B,H,n,dk]
    // Self-attention's position terms at the queries' positions t..t+n-1: RoPE on q, ALiBi on
    // the scores (key j gets −m_h·|q − j|; keys after q are masked). Cross-attention has none.
    if (self && rotates()) m_backend.rope_forward(m_qh.data(), m_qh.data(), B, H, n, dk, m_t);
    const bool alibi = self && c.positional == PositionalKind::Alibi && options.positional_encoding;
    // T5's relative bias: the decoder's table, causal, at query positions t..t+n-1.
    const bool relative = self && c.positional == PositionalKind::Relative && options.positional_encoding;
    const bool score_bias = c.positional == PositionalKind::Alibi || c.positional == PositionalKind::Relative;
    // Where small calls are cheap (the CPU), one new query's self-attention reads only the t + 1
    // written slots of each head's [C,dk] block: the masked rest adds exactly zero weight, and at
    // C = 512 it was half of the attention's work. A call per head (the slots of a head are
    // contiguous, the heads C·dk apart); on a device each call is a launch, so there the ops run
    // once over all C slots. ALiBi's and T5's biases are per head: they keep the full-width path,
    // as do several new queries (extend()).
    const int written = m_t + 1;
    // a row's n queries share their head's rows: head h of row b is block b·H + h of n rows
    const size_t block = static_cast<size_t>(n);
    if (self && n == 1 && written < keys && !score_bias && m_backend.small_calls_are_cheap()) {
        written_self_attention(k, v, keep, written, options.fused_attention ? nullptr : kept_probs,
                               options.fused_attention);
    } else if (options.fused_attention && !score_bias) {
        if (group == 1) {
            m_backend.fused_attention_forward(m_ctx.data(), m_qh.data(), k, v, keep, B, H, n, keys, dk, m_scale);
        } else {   // one call per query head, on its group's key/value head
            for (int b = 0; b < B; ++b)
                for (int h = 0; h < H; ++h) {
                    const size_t bh = static_cast<size_t>(b) * H + h, kv = (static_cast<size_t>(b) * G + h / group) * keys * dk;
                    m_backend.fused_attention_forward(m_ctx.data() + bh * block * dk, m_qh.data() + bh * block * dk,
                                                      k + kv, v + kv, keep + static_cast<size_t>(b) * block * keys, 1, 1,
                                                      n, keys, dk, m_scale);
                }
        }
    } else {
        // Grouped-query: the query heads of a group are consecutive blocks of [B,H,n,dk], so each
        // group is a [group·n, dk] block of queries against its one [keys, dk] key head.
        if (group == 1)
            m_backend.scores_forward(m_scores.data(), m_qh.data(), k, B, H, n, keys, dk, m_scale);
        else
            for (int bg = 0; bg < B * G; ++bg)
                m_backend.scores_forward(m_scores.data() + static_cast<size_t>(bg) * group * block * keys,
                                         m_qh.data() + static_cast<size_t>(bg) * group * block * dk,
                                         k + static_cast<size_t>(bg) * keys * dk, 1, 1, group * n, keys, dk, m_scale);
        if (alibi) m_backend.alibi_forward(m_scores.data(), m_scores.data(), B, H, n, keys, m_t);
        if (relative)
            m_backend.relative_bias_forward(m_scores.data(), m_scores.data(),
                                            m_model.parameter("decoder.relative_bias.weight"), B, H, n, keys, m_t, false);
        m_backend.attention_mask_forward(m_masked.data(), m_scores.data(), keep, B, H, n, keys);
        m_backend.softmax_forward(m_probs.data(), m_masked.data(), m_rows * H, keys);
        if (group == 1)
            m_backend.context_forward(m_ctx.data(), m_probs.data(), v, B, H, n, keys, dk);
        else
            for (int bg = 0; bg < B * G; ++bg)
                m_backend.context_forward(m_ctx.data() + static_cast<size_t>(bg) * group * block * dk,
                                          m_probs.data() + static_cast<size_t>(bg) * group * block * keys,
                                          v + static_cast<size_t>(bg) * keys * dk, 1, 1, group * n, keys, dk);
        // [B,H,1,keys] is contiguous: one copy keeps the whole row set (one new query only).
        if (kept_probs && n == 1)
            m_backend.copy(kept_probs->data(), m_probs.data(), static_cast<size_t>(B) * H * keys * sizeof(float));
    }
    // Head ablation, as the full path's context step: a switched-off head contributes nothing.
    const auto off = options.disabled_heads.find(prefix);
    if (off != options.disabled_heads.end())
        for (int h : off->second)
            if (h >= 0 && h < H)
                for (int b = 0; b < B; ++b)
                    m_backend.fill_zero(m_ctx.data() + (static_cast<size_t>(b) * H + h) * block * dk,
                                        block * dk * sizeof(float));
    m_backend.merge_heads_forward(m_merged.data(), m_ctx.data(), B, n, H, dk);
    m_model.linear_forward(m_attn.data(), m_merged.data(), m_model.parameter(prefix + ".out_proj.weight"),
                             m_model.parameter(prefix + ".out_proj.bias"), m_rows, D, D);
}

void IncrementalDecoder::written_self_attention(const float* k, const float* v, const float* keep, int written,
                                                Array* kept_probs, bool fused) {
    const int B = m_B, H = m_config.heads, dk = m_config.d_k(), C = m_C;
    const int G = m_config.kv_head_count(), group = H / G;
    // Query head h of row b reads key/value head h / group (grouped-query attention; else h).
    auto kv_head = [&](size_t bh) { return (bh / H * G + bh % H / group) * C * dk; };
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t bh = static_cast<size_t>(b) * H + h;
            const float* kb = k + kv_head(bh);   // [written,dk] of this head's [C,dk]
            const float* vb = v + kv_head(bh);
            float* ctx = m_ctx.data() + bh * dk;
            if (fused)
                m_backend.fused_attention_forward(ctx, m_qh.data() + bh * dk, kb, vb, keep + static_cast<size_t>(b) * C,
                                                  1, 1, 1, written, dk, m_scale);
            else
                m_backend.scores_forward(m_scores.data() + bh * written, m_qh.data() + bh * dk, kb, 1, 1, 1, written,
                                         dk, m_scale);
        }
    if (fused) return;
    // [B,H,1,written] rows: the key mask of row b is shared by its H heads
    for (int b = 0; b < B; ++b) {
        const size_t row = static_cast<size_t>(b) * H * written;
        m_backend.attention_mask_forward(m_masked.data() + row, m_scores.data() + row,
                                         keep + static_cast<size_t>(b) * C, 1, H, 1, written);
    }
    m_backend.softmax_forward(m_probs.data(), m_masked.data(), B * H, written);
    for (size_t bh = 0; bh < static_cast<size_t>(B) * H; ++bh)
        m_backend.context_forward(m_ctx.data() + bh * dk, m_probs.data() + bh * written, v + kv_head(bh), 1, 1, 1,
                                  written, dk);
    if (!kept_probs) return;
    // the viewer's [B,H,C] layout: slots not yet written have weight 0
    m_backend.fill_zero(kept_probs->data(), kept_probs->size() * sizeof(float));
    for (size_t bh = 0; bh < static_cast<size_t>(B) * H; ++bh)
        m_backend.copy(kept_probs->data() + bh * C, m_probs.data() + bh * written, written * sizeof(float));
}

// out [B, out_dim] = in [B, in_dim]·Wᵀ (+ b) for the FFN matrix `matrix` ("….ffn.linear1"); with a
// low-rank FFN W = U·V, so in·Vᵀ [B, r] first and then ·Uᵀ, as the full path's _rank step and the
// step after it.
void IncrementalDecoder::ffn_matrix(float* out, const float* in, const std::string& matrix, bool bias, int in_dim,
                                    int out_dim) {
    const float* b = bias ? m_model.parameter(matrix + ".bias") : nullptr;
    const int r = m_config.ffn_rank;
    if (r == 0) {
        m_model.linear_forward(out, in, m_model.parameter(matrix + ".weight"), b, m_rows, in_dim, out_dim);
        return;
    }
    m_model.linear_forward(m_rank.data(), in, m_model.parameter(matrix + ".v.weight"), nullptr, m_rows, in_dim, r);
    m_model.linear_forward(out, m_rank.data(), m_model.parameter(matrix + ".u.weight"), b, m_rows, r, out_dim);
}

void IncrementalDecoder::feed_forward(int layer, const float* input) {
    const ModelConfig& c = m_config;
    const std::string p = "decoder.layers." + std::to_string(layer) + ".ffn";
    const int F = c.ffn_width(), D = c.d_model;
    if (c.ffn == FfnKind::SwiGlu) {   // no biases (the full path's gate, up, hidden and out steps)
        ffn_matrix(m_gate.data(), input, p + ".linear1", false, D, F);
        ffn_matrix(m_up.data(), input, p + ".linear3", false, D, F);
        m_backend.swiglu_forward(m_hidden.data(), m_gate.data(), m_up.data(), m_rows * F);
        ffn_matrix(m_ffn.data(), m_hidden.data(), p + ".linear2", false, F, D);
        return;
    }
    if (c.ffn == FfnKind::Gelu) {
        ffn_matrix(m_ffn_pre.data(), input, p + ".linear1", true, D, F);
        m_backend.gelu_forward(m_hidden.data(), m_ffn_pre.data(), m_rows * F);
    } else {
        ffn_matrix(m_hidden.data(), input, p + ".linear1", true, D, F);
        m_backend.relu_forward(m_hidden.data(), m_hidden.data(), m_rows * F);
    }
    ffn_matrix(m_ffn.data(), m_hidden.data(), p + ".linear2", true, F, D);
}

void IncrementalDecoder::add_and_norm(const std::string& name, const float* sublayer) {
    // Post-LN: x = LayerNorm(x + sublayer(x)), the full path's AddNorm step.
    m_backend.residual_forward(m_sum.data(), m_x.data(), sublayer, m_rows * m_config.d_model);
    norm(name, m_sum.data(), m_x.data());
}

void IncrementalDecoder::add(const float* sublayer) {
    // Pre-LN: x = x + sublayer(LayerNorm(x)), the full path's Residual step.
    m_backend.residual_forward(m_sum.data(), m_x.data(), sublayer, m_rows * m_config.d_model);
    m_x.swap(m_sum);
}

void IncrementalDecoder::norm(const std::string& name, const float* input, float* out) {
    if (m_config.norm_kind == NormKind::RmsNorm)
        m_backend.rmsnorm_forward(out, m_rstd.data(), input, m_model.parameter(name + ".weight"), m_rows,
                                  m_config.d_model, m_config.ln_eps);
    else
        m_backend.layernorm_forward(out, m_mean.data(), m_rstd.data(), input, m_model.parameter(name + ".weight"),
                                    m_model.parameter(name + ".bias"), m_rows, m_config.d_model, m_config.ln_eps);
}

void IncrementalDecoder::gather(Array& rows, Array& spare, size_t row_floats, const std::vector<int>& parents) {
    if (spare.size() < rows.size()) spare = Array(m_backend, rows.size());
    for (int b = 0; b < m_B; ++b)
        m_backend.copy(spare.data() + static_cast<size_t>(b) * row_floats,
                       rows.data() + static_cast<size_t>(parents[static_cast<size_t>(b)]) * row_floats,
                       row_floats * sizeof(float));
    rows.swap(spare);   // the spare now holds the old rows: the next gather's target
}

void IncrementalDecoder::keep_attention(bool on) {
    m_keep_attention = on;
    if (!on) return;
    const size_t BH = static_cast<size_t>(m_B) * m_config.heads;
    for (Layer& layer : m_layers) {
        if (layer.self_probs.size() != BH * m_C) layer.self_probs = Array(m_backend, BH * m_C);
        if (layer.cross_probs.size() != BH * m_S) layer.cross_probs = Array(m_backend, BH * m_S);
    }
}

std::vector<float> IncrementalDecoder::attention_probs(int layer, bool cross) const {
    if (!m_attention_kept)
        throw std::logic_error("no attention kept: keep_attention(true) before a step, with step-by-step attention");
    const Layer& l = m_layers.at(static_cast<size_t>(layer));
    const Array& probs = cross ? l.cross_probs : l.self_probs;
    std::vector<float> host(probs.size());
    m_backend.download(host.data(), probs.data(), host.size() * sizeof(float));
    return host;
}

void IncrementalDecoder::reorder(const std::vector<int>& parents) {
    if (static_cast<int>(parents.size()) != m_B)
        throw std::invalid_argument("KV cache reorder: " + std::to_string(parents.size()) + " parents for " +
                                    std::to_string(m_B) + " rows");
    for (int p : parents)
        if (p < 0 || p >= m_B)
            throw std::invalid_argument("KV cache reorder: parent row " + std::to_string(p) + " outside 0.." +
                                        std::to_string(m_B - 1));
    // A row's cache: its G key/value heads (H but with grouped-query attention).
    const size_t G = static_cast<size_t>(m_config.kv_head_count()), dk = static_cast<size_t>(m_config.d_k());
    for (Layer& layer : m_layers) {
        gather(layer.self_k, m_spare_self, G * m_C * dk, parents);
        gather(layer.self_v, m_spare_self, G * m_C * dk, parents);
        if (!m_cross) continue;
        gather(layer.cross_k, m_spare_cross, G * m_S * dk, parents);
        gather(layer.cross_v, m_spare_cross, G * m_S * dk, parents);
    }
    const std::vector<int32_t> ids = m_ids_host;
    const std::vector<float> cross = m_cross_keep_host;
    for (int b = 0; b < m_B; ++b) {
        const auto from = static_cast<size_t>(parents[static_cast<size_t>(b)]);
        std::copy_n(ids.begin() + from * m_C, m_C, m_ids_host.begin() + static_cast<size_t>(b) * m_C);
        std::copy_n(cross.begin() + from * m_S, m_S, m_cross_keep_host.begin() + static_cast<size_t>(b) * m_S);
    }
    upload_cross_keep();
    m_attention_kept = false;   // the kept rows belong to the rows before the gather
}

}  // namespace tx
