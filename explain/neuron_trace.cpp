// Neuron trace (see neuron_trace.h). Sums run in double so that the recomputed numbers are a
// reference for the backend's float results, not a second float rounding of them.
#include "neuron_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tx/attention_window.h"
#include "tx/ops.h"

namespace tx::explain {

int neuron_rows(const SessionView& view, const AttentionBlock& block) {
    return block.kind == AttentionKind::EncoderSelf ? view.S : view.T;
}

int neuron_cols(const SessionView& view, const AttentionBlock& block) {
    return block.kind == AttentionKind::DecoderSelf ? view.T : view.S;
}

namespace {

// Row `r` of a [B,H,rows,width] step output for (batch row b, head h), or empty when missing.
std::vector<float> row_of(const SessionView& view, size_t step, int b, int h, int rows, int r, int width) {
    const std::vector<float>* out = view.output(step);
    const size_t offset = ((static_cast<size_t>(b) * view.config.heads + h) * rows + r) * width;
    if (!out || out->size() < offset + width) return {};
    return std::vector<float>(out->begin() + static_cast<std::ptrdiff_t>(offset),
                              out->begin() + static_cast<std::ptrdiff_t>(offset + width));
}

std::string mask_explanation(const NeuronTrace& t) {
    const bool decoder_keys = t.kind == AttentionKind::DecoderSelf;
    const std::string key = "key " + std::to_string(t.cell.key);
    std::string text;
    if (t.masked) {
        std::vector<std::string> why;
        if (decoder_keys && t.key_is_future && t.causal_on)
            why.push_back("causal mask: " + key + " comes after query " + std::to_string(t.cell.query) +
                          "; in training the model may not look ahead, and at generation time that token does not "
                          "exist yet");
        if (t.key_is_pad && t.padding_on) why.push_back("padding mask: " + key + " is PAD");
        if (!t.window_reason.empty()) why.push_back(t.window_reason);
        for (size_t n = 0; n < why.size(); ++n) text += (n ? "; " : "") + why[n];
        text += ". Its score becomes \xE2\x88\x92\xE2\x88\x9E, so its weight is exactly 0.";
    } else {
        text = "Not masked (adds 0): " + key + " is " +
               (t.key_is_pad ? std::string("PAD")
                             : decoder_keys ? "at or before query " + std::to_string(t.cell.query)
                                            : std::string(t.kind == AttentionKind::Cross ? "a real source token"
                                                                                          : "a real token")) +
               ".";
        if (decoder_keys && t.key_is_future && !t.causal_on)
            text += " It comes after the query, but the causal mask is off: the query sees the future.";
        if (t.key_is_pad && !t.padding_on) text += " The padding mask is off, so this PAD key takes weight like a word.";
    }
    if (decoder_keys && !t.causal_on && !t.key_is_future) text += " The causal mask is off (it would keep this cell anyway).";
    if (!t.padding_on && !t.key_is_pad) text += " The padding mask is off (it would keep this cell anyway).";
    return text;
}

}  // namespace

NeuronTrace trace_neuron(const SessionView& view, const NeuronCell& cell) {
    NeuronTrace t;
    t.cell = cell;
    if (!view.valid) {
        t.error = "no model is loaded";
        return t;
    }
    if (cell.block < 0 || cell.block >= static_cast<int>(view.attention.size())) {
        t.error = "no attention block " + std::to_string(cell.block) + " (the model has " +
                  std::to_string(view.attention.size()) + ")";
        return t;
    }
    const AttentionBlock& a = view.attention[static_cast<size_t>(cell.block)];
    const int H = view.config.heads, dk = view.d_k();
    const int R = neuron_rows(view, a), C = neuron_cols(view, a);
    t.kind = a.kind;
    t.layer = a.layer;
    t.prefix = a.prefix;
    t.rows = R;
    t.cols = C;
    t.dk = dk;
    if (cell.batch_row < 0 || cell.batch_row >= view.B) {
        t.error = "no batch row " + std::to_string(cell.batch_row) + " (the batch has " + std::to_string(view.B) + ")";
        return t;
    }
    if (cell.head < 0 || cell.head >= H) {
        t.error = "no head " + std::to_string(cell.head) + " (the model has " + std::to_string(H) + ", 0 to " +
                  std::to_string(H - 1) + ")";
        return t;
    }
    if (cell.query < 0 || cell.query >= R || cell.key < 0 || cell.key >= C) {
        t.error = "no cell (" + std::to_string(cell.query) + ", " + std::to_string(cell.key) + ") in " + a.prefix +
                  ": queries are 0 to " + std::to_string(R - 1) + ", keys 0 to " + std::to_string(C - 1);
        return t;
    }
    const int b = cell.batch_row, h = cell.head, i = cell.query, j = cell.key;
    const bool decoder_queries = a.kind != AttentionKind::EncoderSelf;
    const bool decoder_keys = a.kind == AttentionKind::DecoderSelf;
    t.query_tokens = decoder_queries ? view.tgt_labels(b) : view.src_labels(b);
    t.key_tokens = decoder_keys ? view.tgt_labels(b) : view.src_labels(b);
    const int pad = view.config.special.pad;
    const auto& query_ids = decoder_queries ? view.tgt_ids : view.src_ids;
    const auto& key_ids = decoder_keys ? view.tgt_ids : view.src_ids;
    t.query_is_pad = query_ids[static_cast<size_t>(b) * R + i] == pad;
    if (decoder_queries && !t.query_is_pad) {
        const std::vector<float>* log_probs = view.output(view.steps.size() - 1);   // generator.log_probs [B,T,V]
        if (i + 1 < view.T && view.tgt_ids[static_cast<size_t>(b) * view.T + i + 1] != pad) {
            t.query_writes = t.query_tokens[static_cast<size_t>(i) + 1];
        } else if (log_probs && log_probs->size() >= (static_cast<size_t>(b) * view.T + i + 1) * view.vocab_size) {
            const float* lp = log_probs->data() + (static_cast<size_t>(b) * view.T + i) * view.vocab_size;
            t.query_writes = view.token_text(static_cast<int>(std::max_element(lp, lp + view.vocab_size) - lp));
        }
    }
    if (auto off = view.options.disabled_heads.find(a.prefix); off != view.options.disabled_heads.end())
        t.head_disabled = std::find(off->second.begin(), off->second.end(), h) != off->second.end();

    t.complete = true;
    for (size_t step : {a.scores_q, a.scores_k, a.v, a.scores, a.masked_scores, a.probs, a.context})
        if (!view.output(step)) {
            t.complete = false;
            t.missing_step = step;
            t.missing_is_fused = view.finished(step) && step < view.steps.size() && !view.steps[step].materialised;
            break;
        }

    // 1–3. q_i · k_j, scaled.
    t.q = row_of(view, a.scores_q, b, h, R, i, dk);   // rotated by RoPE where it is on
    t.k = row_of(view, a.scores_k, b, h, C, j, dk);
    t.have_qk = !t.q.empty() && !t.k.empty();
    t.scaled = view.config.scale_attention;
    t.sqrt_dk = std::sqrt(static_cast<double>(dk));
    if (t.have_qk) {
        t.product.resize(static_cast<size_t>(dk));
        for (int d = 0; d < dk; ++d) {
            const double p = static_cast<double>(t.q[static_cast<size_t>(d)]) * t.k[static_cast<size_t>(d)];
            t.product[static_cast<size_t>(d)] = static_cast<float>(p);
            t.dot += p;
            t.dot_abs += std::fabs(p);
        }
        t.score = t.scaled ? t.dot / t.sqrt_dk : t.dot;
        // ALiBi adds its distance bias inside the scores step (self-attention only, positions on).
        t.alibi = a.kind != AttentionKind::Cross && view.config.positional == PositionalKind::Alibi &&
                  view.options.positional_encoding;
        t.rotated = a.kind != AttentionKind::Cross && view.config.positional == PositionalKind::Rope &&
                    view.options.positional_encoding;
        if (t.alibi) {
            std::vector<float> slopes(static_cast<size_t>(view.config.heads));
            cpu::alibi_slopes<float>(slopes.data(), view.config.heads);
            t.position_bias = -static_cast<double>(slopes[static_cast<size_t>(h)]) * std::abs(i - j);
            t.score += t.position_bias;
        }
        // T5's relative bias: the stack's table at the key's bucket (the view's copy of the weights).
        const bool bidirectional = a.kind == AttentionKind::EncoderSelf;
        const std::vector<float>& table = bidirectional ? view.relative_encoder_bias : view.relative_decoder_bias;
        t.relative = a.kind != AttentionKind::Cross && view.config.positional == PositionalKind::Relative &&
                     view.options.positional_encoding && !table.empty();
        if (t.relative) {
            t.relative_bucket = cpu::relative_bucket(i, j, bidirectional);
            t.position_bias = table[static_cast<size_t>(t.relative_bucket) * view.config.heads + h];
            t.score += t.position_bias;
        }
    }
    t.scores_row = row_of(view, a.scores, b, h, R, i, C);
    t.have_scores = !t.scores_row.empty();
    if (t.have_scores) t.traced_score = t.scores_row[static_cast<size_t>(j)];

    // 4. Mask: the keep matrices the model used (SessionView::src_mask, tgt_mask), and why.
    t.causal_on = view.options.causal_mask;
    t.window_reason = a.kind == AttentionKind::Cross ? "" : window_mask_reason(view.config, decoder_keys, i, j);
    t.padding_on = view.options.padding_mask;
    t.keep_row.resize(static_cast<size_t>(C));
    for (int c = 0; c < C; ++c) {
        const float keep = decoder_keys ? view.tgt_mask[(static_cast<size_t>(b) * view.T + i) * view.T + c]
                           : a.kind == AttentionKind::EncoderSelf
                               ? view.src_self_mask[(static_cast<size_t>(b) * view.S + i) * view.S + c]
                               : view.src_mask[static_cast<size_t>(b) * view.S + c];
        t.keep_row[static_cast<size_t>(c)] = keep != 0.0f ? 1 : 0;
    }
    t.key_is_pad = key_ids[static_cast<size_t>(b) * C + j] == pad;
    t.key_is_future = decoder_keys && j > i;
    t.masked = t.keep_row[static_cast<size_t>(j)] == 0;
    t.mask_text = mask_explanation(t);
    t.masked_row = row_of(view, a.masked_scores, b, h, R, i, C);
    t.have_masked = !t.masked_row.empty();
    if (t.have_masked) t.traced_masked = t.masked_row[static_cast<size_t>(j)];

    // 5. Softmax of the masked row, with the row's max subtracted (the same value, no overflow).
    t.fully_masked = std::none_of(t.keep_row.begin(), t.keep_row.end(), [](char k) { return k != 0; });
    t.probs_row = row_of(view, a.probs, b, h, R, i, C);
    t.have_probs = t.have_masked && !t.probs_row.empty();
    if (t.have_probs) {
        t.traced_prob = t.probs_row[static_cast<size_t>(j)];
        t.probs_recomputed.assign(static_cast<size_t>(C), 0.0f);
        double m = -std::numeric_limits<double>::infinity();
        for (float s : t.masked_row)
            if (std::isfinite(s)) m = std::max(m, static_cast<double>(s));
        if (std::isfinite(m)) {
            t.row_max = m;
            std::vector<double> e(static_cast<size_t>(C), 0.0);
            for (int c = 0; c < C; ++c) {
                const float s = t.masked_row[static_cast<size_t>(c)];
                e[static_cast<size_t>(c)] = std::isfinite(s) ? std::exp(static_cast<double>(s) - m) : 0.0;
                t.exp_sum += e[static_cast<size_t>(c)];
            }
            t.exp_j = e[static_cast<size_t>(j)];
            for (int c = 0; c < C; ++c)
                t.probs_recomputed[static_cast<size_t>(c)] = static_cast<float>(e[static_cast<size_t>(c)] / t.exp_sum);
        }
    }

    // 6. The weighted sum of the value rows.
    const std::vector<float>* v = view.output(a.v);
    t.traced_context = row_of(view, a.context, b, h, R, i, dk);
    t.have_context = t.have_probs && v && !t.traced_context.empty() &&
                     v->size() >= ((static_cast<size_t>(b) * H + h) * C + C) * dk;
    if (t.have_context) {
        t.values.resize(static_cast<size_t>(C) * dk);
        t.weighted.resize(static_cast<size_t>(C) * dk);
        std::vector<double> sum(static_cast<size_t>(dk), 0.0), abs_sum(static_cast<size_t>(dk), 0.0);
        const float* v_head = v->data() + (static_cast<size_t>(b) * H + h) * C * dk;
        for (int c = 0; c < C; ++c) {
            const double p = t.probs_row[static_cast<size_t>(c)];
            for (int d = 0; d < dk; ++d) {
                const size_t at = static_cast<size_t>(c) * dk + d;
                t.values[at] = v_head[at];
                const double w = p * v_head[at];
                t.weighted[at] = static_cast<float>(w);
                sum[static_cast<size_t>(d)] += w;
                abs_sum[static_cast<size_t>(d)] += std::fabs(w);
            }
        }
        t.context_sum.assign(sum.begin(), sum.end());
        t.context_abs.assign(abs_sum.begin(), abs_sum.end());
    }
    return t;
}

std::string qk_source_text(const NeuronTrace& t) {
    std::string text = "q is the query position's input times W_Q plus b_Q (the q step)";
    if (t.rotated) text += ", then rotated by its position (the q_rot step, RoPE)";
    text += ", and likewise k from the key position's input with W_K and b_K";
    if (t.rotated) text += ", rotated by the key's position (k_rot)";
    if (t.kind == AttentionKind::Cross) text += " (keys come from the encoder's output)";
    return text + "; both cut to this head's dk columns. One bar per dimension: up positive, down negative, on a "
                  "common scale. Hover a bar for its value.";
}

std::string scaling_text(const NeuronTrace& t) {
    if (!t.scaled)
        return "Not divided by \xE2\x88\x9A" "d\xE2\x82\x96: this model's 1/\xE2\x88\x9A" "d\xE2\x82\x96 scaling is switched off "
               "(scale_attention = false), so the score is the dot product itself.";
    return "Dividing by \xE2\x88\x9A" "d\xE2\x82\x96 undoes the growth of q\xC2\xB7k with d\xE2\x82\x96: for random q and k with "
           "unit-variance components the scores would have a spread of about 1 whatever d\xE2\x82\x96 is. A trained head "
           "can still make a row almost one-hot when one key is what it needs.";
}

}  // namespace tx::explain
