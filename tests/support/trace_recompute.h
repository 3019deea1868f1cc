// Independent recomputes of two explain results, for the tests that check them (tests/explain):
// every number of a neuron trace (the Neuron view) against the traced tensors of its block, and
// every number of a generation trace (the Generate panel) against one full forward pass of a fresh
// CPU copy of the checkpoint. Each returns what disagrees, each message once (empty: all agree).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generation_trace.h"
#include "neuron_trace.h"
#include "session_view.h"
#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/ops.h"
#include "tx/sampling.h"
#include "tx/transformer.h"

namespace tx::test {

// Every number of a neuron trace against the traced tensors of its block, indexed here afresh:
// q·k/√dk recomputed from the q and k steps vs the scores step, the mask vs the masked_scores
// step, the softmax of the masked row vs the probs step, Σ p·v vs the context step's row.
// |got − ref| ≤ 1e-5·(the sum of the magnitudes that made ref) + 1e-6. Returns what disagrees,
// each message once.
inline std::vector<std::string> neuron_mismatches(const explain::SessionView& v, const explain::NeuronTrace& t) {
    std::vector<std::string> bad;
    auto expect = [&bad](bool ok, const std::string& what) {
        if (!ok && std::find(bad.begin(), bad.end(), what) == bad.end()) bad.push_back(what);
    };
    auto close = [](double got, double ref, double scale) { return std::fabs(got - ref) <= 1e-5 * scale + 1e-6; };
    if (!t.error.empty() || !t.complete) return {"the trace is incomplete: " + t.error};
    const AttentionBlock& a = v.attention.at(static_cast<size_t>(t.cell.block));
    const int H = v.config.heads, dk = v.config.d_model / H, b = t.cell.batch_row, h = t.cell.head;
    const int R = a.kind == AttentionKind::EncoderSelf ? v.S : v.T, C = a.kind == AttentionKind::DecoderSelf ? v.T : v.S;
    const int i = t.cell.query, j = t.cell.key;
    expect(t.rows == R && t.cols == C && t.dk == dk, "sizes");
    const float* q = v.output(a.scores_q)->data() + ((static_cast<size_t>(b) * H + h) * R + i) * dk;
    const float* k_head = v.output(a.scores_k)->data() + (static_cast<size_t>(b) * H + h) * C * dk;
    const float* v_head = v.output(a.v)->data() + (static_cast<size_t>(b) * H + h) * C * dk;
    const float* scores = v.output(a.scores)->data() + ((static_cast<size_t>(b) * H + h) * R + i) * C;
    const float* masked = v.output(a.masked_scores)->data() + ((static_cast<size_t>(b) * H + h) * R + i) * C;
    const float* probs = v.output(a.probs)->data() + ((static_cast<size_t>(b) * H + h) * R + i) * C;
    const float* context = v.output(a.context)->data() + ((static_cast<size_t>(b) * H + h) * R + i) * dk;
    const double scale = v.config.scale_attention ? 1.0 / std::sqrt(static_cast<double>(dk)) : 1.0;
    const int pad = v.config.special.pad;
    // Self-attention's position bias, written out here: ALiBi's −m_h·|i − c| with the paper's
    // slopes for a power-of-two H (2^(−8(h+1)/H)), or T5's table at the key's bucket.
    const bool self = a.kind != AttentionKind::Cross && v.options.positional_encoding;
    const bool encoder_keys = a.kind == AttentionKind::EncoderSelf;
    const std::vector<float>& relative = encoder_keys ? v.relative_encoder_bias : v.relative_decoder_bias;
    auto position_bias = [&](int c) {
        if (self && v.config.positional == PositionalKind::Alibi) return -std::exp2(-8.0 * (h + 1) / H) * std::abs(i - c);
        if (self && v.config.positional == PositionalKind::Relative)
            return static_cast<double>(relative.at(static_cast<size_t>(cpu::relative_bucket(i, c, encoder_keys)) * H + h));
        return 0.0;
    };
    // The scores row from q and every k, and the keep row from the token ids and the toggles.
    for (int c = 0; c < C; ++c) {
        double dot = 0.0, magnitude = 0.0;
        for (int d = 0; d < dk; ++d) {
            dot += static_cast<double>(q[d]) * k_head[static_cast<size_t>(c) * dk + d];
            magnitude += std::fabs(static_cast<double>(q[d]) * k_head[static_cast<size_t>(c) * dk + d]);
        }
        const double score = dot * scale + position_bias(c), size = magnitude * scale + std::fabs(position_bias(c));
        expect(close(score, scores[c], size), "q\xC2\xB7k/\xE2\x88\x9A" "dk (+ position bias) vs the scores step at key " + std::to_string(c));
        if (c == j) {
            expect(close(t.dot, dot, magnitude) && close(t.score, score, size), "the trace's dot and score");
            expect(t.traced_score == scores[c], "the trace's traced score");
        }
        const bool decoder_keys = a.kind == AttentionKind::DecoderSelf;
        const int id = decoder_keys ? v.tgt_ids[static_cast<size_t>(b) * v.T + c] : v.src_ids[static_cast<size_t>(b) * v.S + c];
        const bool keep = (!v.options.padding_mask || id != pad) && (!decoder_keys || !v.options.causal_mask || c <= i);
        expect(keep ? masked[c] == scores[c] : std::isinf(masked[c]) && masked[c] < 0, "the mask at key " + std::to_string(c));
        expect((t.keep_row.at(static_cast<size_t>(c)) != 0) == keep && t.masked_row.at(static_cast<size_t>(c)) == masked[c] &&
                   t.scores_row.at(static_cast<size_t>(c)) == scores[c],
               "the trace's mask and score rows at key " + std::to_string(c));
        if (c == j) expect(t.masked == !keep, "the trace's mask of the cell");
    }
    for (int d = 0; d < dk; ++d)
        expect(t.q.at(static_cast<size_t>(d)) == q[d] && t.k.at(static_cast<size_t>(d)) == k_head[static_cast<size_t>(j) * dk + d] &&
                   close(t.product.at(static_cast<size_t>(d)), static_cast<double>(q[d]) * k_head[static_cast<size_t>(j) * dk + d], 0.0),
               "q, k and their product at d = " + std::to_string(d));
    // Softmax of the masked row.
    double m = -INFINITY;
    for (int c = 0; c < C; ++c)
        if (std::isfinite(masked[c])) m = std::max(m, static_cast<double>(masked[c]));
    double sum = 0.0;
    for (int c = 0; c < C; ++c) sum += std::isfinite(masked[c]) ? std::exp(masked[c] - m) : 0.0;
    for (int c = 0; c < C; ++c) {
        const double p = std::isfinite(masked[c]) ? std::exp(masked[c] - m) / sum : 0.0;
        expect(close(p, probs[c], p), "softmax of the masked row vs the probs step at key " + std::to_string(c));
        expect(close(t.probs_recomputed.at(static_cast<size_t>(c)), p, p) && t.probs_row.at(static_cast<size_t>(c)) == probs[c],
               "the trace's probabilities at key " + std::to_string(c));
    }
    expect(t.traced_prob == probs[j] && (t.masked ? probs[j] == 0.0f : close(t.exp_j / t.exp_sum, probs[j], probs[j])),
           "the trace's exp/sum for the cell");
    // Σ p·v against the context step.
    for (int d = 0; d < dk; ++d) {
        double ctx = 0.0, magnitude = 0.0;
        for (int c = 0; c < C; ++c) {
            const double w = static_cast<double>(probs[c]) * v_head[static_cast<size_t>(c) * dk + d];
            ctx += w;
            magnitude += std::fabs(w);
            expect(close(t.weighted.at(static_cast<size_t>(c) * dk + d), w, std::fabs(w)), "the trace's p\xC2\xB7v");
        }
        if (!t.head_disabled) expect(close(ctx, context[d], magnitude), "\xCE\xA3 p\xC2\xB7v vs the context step at d = " + std::to_string(d));
        expect(close(t.context_sum.at(static_cast<size_t>(d)), ctx, magnitude) && t.traced_context.at(static_cast<size_t>(d)) == context[d],
               "the trace's context at d = " + std::to_string(d));
    }
    return bad;
}

// The Generate panel's numbers against an independent recompute: one full forward pass of a fresh
// CPU copy of the checkpoint over BOS + the generated tokens gives every position's log-probabilities
// at once (the causal mask hides later ones); the sampling transform is written here afresh
// (softmax of log p / T, rank by log p then id, keep top-k, then the shortest prefix reaching top-p).
// Returns what disagrees, each message once.
inline std::vector<std::string> generation_mismatches(const Checkpoint& checkpoint, const std::vector<int>& src,
                                                      const explain::GenerationTrace& g) {
    std::vector<std::string> bad;
    auto expect = [&bad](bool ok, const std::string& what) {
        if (!ok && std::find(bad.begin(), bad.end(), what) == bad.end()) bad.push_back(what);
    };
    if (g.stale || !g.error.empty() || g.tokens.empty()) return {"no generation to check (" + g.error + ")"};
    const ModelConfig& c = checkpoint.config;
    expect(g.src == src, "the generated sentence is the source's ids + EOS");
    std::vector<int> tgt = {c.special.bos};
    for (size_t i = 0; i + 1 < g.tokens.size(); ++i) tgt.push_back(g.tokens[i].chosen);
    auto backend = make_cpu_backend();
    Transformer model(c, *backend);
    model.set_parameters(checkpoint.parameters);
    model.set_batch({src}, {tgt});
    model.forward();
    const std::vector<float> all = model.step_output(model.step_count() - 1);   // [1, T, V]
    const int V = c.tgt_vocab, T = static_cast<int>(g.tokens.size());
    expect(g.finished == (g.tokens.back().chosen == c.special.eos), "finished means the last token is EOS");
    expect(g.finished || T == std::min(c.max_len - 1, 2 * static_cast<int>(src.size()) + 10), "without EOS the output runs to the limit");
    for (int t = 1; t <= T; ++t) {
        const explain::GeneratedToken& k = g.tokens[static_cast<size_t>(t - 1)];
        const std::string at = "token " + std::to_string(t) + ": ";
        const float* lp = all.data() + static_cast<size_t>(t - 1) * V;
        expect(k.input == tgt[static_cast<size_t>(t - 1)], at + "its input is the previous token (BOS first)");
        // The cache holds t positions: every layer's self-attention row has t keys per head, summing to 1.
        for (int l = 0; l < g.L; ++l) {
            expect(k.self_probs.at(static_cast<size_t>(l)).size() == static_cast<size_t>(g.H) * t, at + "the self-attention cache holds t keys");
            expect(k.cross_probs.at(static_cast<size_t>(l)).size() == static_cast<size_t>(g.H) * g.S, at + "cross-attention has S keys");
            for (int h = 0; h < g.H; ++h) {
                double sum = 0.0;
                for (int j = 0; j < t; ++j) sum += k.self_probs[static_cast<size_t>(l)][static_cast<size_t>(h) * t + j];
                expect(std::fabs(sum - 1.0) < 1e-4, at + "each self-attention row sums to 1");
            }
        }
        double largest = -INFINITY;
        for (int i = 0; i < V; ++i) {
            largest = std::max(largest, static_cast<double>(lp[i]));
            expect(std::fabs(k.log_probs.at(static_cast<size_t>(i)) - lp[i]) <= 1e-4, at + "the cached log-probabilities equal the full pass's");
            if (g.settings.compare_full)
                expect(std::fabs(k.full_log_probs.at(static_cast<size_t>(i)) - lp[i]) <= 1e-5, at + "the app's full pass equals this one");
        }
        expect(!g.settings.compare_full || (k.max_diff <= 1e-4 && k.full_ms > 0.0), at + "max |delta| is small and the full pass is timed");
        expect(k.cached_ms > 0.0, at + "the cached step is timed");
        // The independent distribution: the sampling transform of the full pass's log-probabilities.
        std::vector<int> order(static_cast<size_t>(V));
        for (int i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lp[a] > lp[b]; });
        const SamplingOptions& o = g.settings.sampling;
        const double temperature = g.settings.sample ? o.temperature : 1.0;
        std::vector<double> q(static_cast<size_t>(V));
        for (int i = 0; i < V; ++i) q[static_cast<size_t>(i)] = std::exp((lp[i] - largest) / temperature);
        int kept = V;
        if (g.settings.sample) {
            if (o.top_k > 0) kept = std::min(kept, o.top_k);
            double total = 0.0, mass = 0.0;
            for (int r = 0; r < kept; ++r) total += q[static_cast<size_t>(order[static_cast<size_t>(r)])];
            int n = 0;
            while (n < kept && mass < o.top_p * total) mass += q[static_cast<size_t>(order[static_cast<size_t>(n++)])];
            kept = n;
        }
        double sum = 0.0;
        for (int r = 0; r < kept; ++r) sum += q[static_cast<size_t>(order[static_cast<size_t>(r)])];
        expect(k.kept == kept, at + "the number of tokens left after top-k / top-p");
        expect(k.top_ids.size() == static_cast<size_t>(std::min(explain::GENERATION_TOP, V)), at + "the bar chart's size");
        for (size_t r = 0; r < k.top_ids.size(); ++r) {
            const int id = k.top_ids[r];
            // Ranks may swap where two log-probabilities differ by rounding only.
            expect(std::fabs(lp[id] - lp[order[r]]) <= 1e-5, at + "the bar chart ranks tokens most probable first");
            const bool cut = g.settings.sample && static_cast<int>(r) >= kept;
            const double want = cut ? 0.0 : q[static_cast<size_t>(id)] / sum;
            expect(k.top_cut[r] == cut || std::fabs(lp[id] - lp[order[static_cast<size_t>(std::max(kept - 1, 0))]]) <= 1e-5,
                   at + "cut tokens are the ones top-k / top-p remove");
            expect(std::fabs(k.top_probs[r] - want) <= 1e-5 + 1e-4 * want, at + "the bars are exp(log p) after the sampling transform");
            expect(std::fabs(k.top_model_probs[r] - std::exp(static_cast<double>(lp[id]))) <= 1e-5, at + "the model's p beside the bars");
        }
        if (!g.settings.sample)
            expect(lp[k.chosen] >= largest - 1e-5 && k.chosen == k.top_ids.front(), at + "greedy chooses the argmax");
        else
            expect(k.chosen_prob > 0.0 && k.draw >= k.interval_start && k.draw < k.interval_start + k.chosen_prob + 1e-12,
                   at + "the draw u falls in the chosen token's share, and it is not cut");
    }
    return bad;
}

}  // namespace tx::test
