// Attention rollout and entropy (see attention_rollout.h), in double from the probs steps. The
// keep masks come from the model (Transformer::src_self_mask, tgt_mask, src_mask) at B = 1.
#include "attention_rollout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tx::explain {

namespace {

// The heads' mean of a probs step [1, H, R, C] -> [R, C].
std::vector<double> head_mean(const std::vector<float>& probs, int H, int R, int C) {
    std::vector<double> mean(static_cast<size_t>(R) * C, 0.0);
    for (int h = 0; h < H; ++h)
        for (size_t i = 0; i < mean.size(); ++i) mean[i] += probs[static_cast<size_t>(h) * R * C + i] / H;
    return mean;
}

// c [R, C] = a [R, K] · b [K, C]
std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int R, int K, int C) {
    std::vector<double> c(static_cast<size_t>(R) * C, 0.0);
    for (int i = 0; i < R; ++i)
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < C; ++j) c[static_cast<size_t>(i) * C + j] += a[static_cast<size_t>(i) * K + k] * b[static_cast<size_t>(k) * C + j];
    return c;
}

}  // namespace

AttentionRollout attention_rollout(InspectModel& model, const InspectInput& in) {
    AttentionRollout r;
    r.error = model.try_run(in);
    if (!r.error.empty()) return r;
    const ModelConfig& c = model.config();
    const bool dec = model.decoder_only();
    const AttentionKind kind = dec ? AttentionKind::DecoderSelf : AttentionKind::EncoderSelf;
    const int N = static_cast<int>(dec ? in.tgt.size() : in.src.size()), H = c.heads;
    r.stack = dec ? "decoder self-attention" : "encoder self-attention";
    r.layers = dec ? c.decoder_layers : c.encoder_layers;
    r.positions = N;
    r.tokens = model.token_texts(dec ? in.tgt : in.src);
    std::vector<double> roll(static_cast<size_t>(N) * N, 0.0);
    for (int i = 0; i < N; ++i) roll[static_cast<size_t>(i) * N + i] = 1.0;
    for (const AttentionBlock& b : model.model().attention_blocks()) {
        if (b.kind != kind) continue;
        std::vector<double> a = head_mean(model.output(b.probs), H, N, N);
        for (int i = 0; i < N; ++i) {
            double sum = 0.0;
            for (int j = 0; j < N; ++j) {
                double& x = a[static_cast<size_t>(i) * N + j];
                x = 0.5 * x + (i == j ? 0.5 : 0.0);
                sum += x;
            }
            for (int j = 0; j < N; ++j) a[static_cast<size_t>(i) * N + j] /= sum;   // sum >= 0.5: the identity's half
        }
        roll = matmul(a, roll, N, N, N);
        r.per_layer.insert(r.per_layer.end(), roll.begin(), roll.end());
    }
    r.method = "Rollout of the " + r.stack +
               " (Abnar & Zuidema 2020, section 3): per layer the heads' mean attention, mixed half and half with "
               "the identity for the residual connection, rows renormalised, multiplied from the first layer up. It "
               "assumes that attention is the only way information moves between positions; the FFNs, the norms and "
               "the values' sizes are ignored.";
    if (!dec) {
        // Cross-attention reads the encoder's output, whose positions the encoder rollout traces back to
        // source tokens; a decoder position's share of source token j through layer d is then
        // Σ_k C_d[t, k]·R[k, j]. The paper treats one self-attention stack; this product is our extension, it
        // has no identity term (the decoder's residual stream carries target-side state, not source tokens)
        // and leaves out the decoder's own self-attention mixing between target positions.
        const int T = static_cast<int>(in.tgt.size()), S = N;
        r.cross_layers = c.decoder_layers;
        r.target_positions = T;
        r.target_tokens = model.token_texts(in.tgt);
        for (const AttentionBlock& b : model.model().attention_blocks()) {
            if (b.kind != AttentionKind::Cross) continue;
            const std::vector<double> cross = matmul(head_mean(model.output(b.probs), H, T, S), roll, T, S, S);
            r.cross.insert(r.cross.end(), cross.begin(), cross.end());
        }
        r.method += " Decoder positions over source tokens: each decoder layer's head-averaged cross-attention [T, S] "
                    "times the encoder rollout [S, S]. This extension is ours, not the paper's: it has no identity "
                    "term and ignores the decoder's self-attention between target positions.";
    }
    return r;
}

AttentionEntropy attention_entropy(InspectModel& model, const InspectInput& in) {
    AttentionEntropy r;
    r.error = model.try_run(in);
    if (!r.error.empty()) return r;
    const ModelConfig& c = model.config();
    const Transformer& t = model.model();
    const int H = c.heads, S = t.src_len(), T = t.tgt_len();
    for (AttentionKind kind : {AttentionKind::EncoderSelf, AttentionKind::DecoderSelf, AttentionKind::Cross}) {
        EntropyGrid g;
        g.kind = kind;
        g.name = kind == AttentionKind::EncoderSelf ? "encoder.self_attn"
                 : kind == AttentionKind::DecoderSelf ? "decoder.self_attn" : "decoder.cross_attn";
        g.heads = H;
        const int R = kind == AttentionKind::EncoderSelf ? S : T, C = kind == AttentionKind::DecoderSelf ? T : S;
        // keep(i, j): may query i attend to key j. src_self_mask [1,1,S,S], tgt_mask [1,1,T,T], src_mask [1,1,1,S].
        auto keep = [&](int i, int j) {
            if (kind == AttentionKind::EncoderSelf) return t.src_self_mask()[static_cast<size_t>(i) * S + j] != 0.0f;
            if (kind == AttentionKind::DecoderSelf) return t.tgt_mask()[static_cast<size_t>(i) * T + j] != 0.0f;
            return t.src_mask()[static_cast<size_t>(j)] != 0.0f;
        };
        double max_sum = 0.0;
        int max_rows = 0;
        for (int i = 0; i < R; ++i) {
            int keys = 0;
            for (int j = 0; j < C; ++j) keys += keep(i, j);
            if (keys == 0) continue;
            max_sum += std::log(static_cast<double>(keys));
            ++max_rows;
        }
        g.max_entropy = max_rows ? max_sum / max_rows : 0.0;
        for (const AttentionBlock& b : t.attention_blocks()) {
            if (b.kind != kind) continue;
            g.layers = std::max(g.layers, b.layer + 1);
            g.entropy.resize(static_cast<size_t>(g.layers) * H, 0.0);
            const std::vector<float> probs = model.output(b.probs);   // [1, H, R, C]
            for (int h = 0; h < H; ++h) {
                double sum = 0.0;
                int rows = 0;
                for (int i = 0; i < R; ++i) {
                    double e = 0.0;
                    bool any = false;
                    for (int j = 0; j < C; ++j) {
                        if (!keep(i, j)) continue;   // probability 0: 0·ln 0 = 0
                        any = true;
                        const double p = probs[(static_cast<size_t>(h) * R + i) * C + j];
                        if (p > 0.0) e -= p * std::log(p);
                    }
                    if (!any) continue;
                    sum += e;
                    ++rows;
                }
                g.entropy[static_cast<size_t>(b.layer) * H + h] = rows ? sum / rows : 0.0;
            }
        }
        if (g.layers > 0) r.grids.push_back(std::move(g));
    }
    r.note = "Entropy in nats, averaged over query rows; 0 = each row on one key, max_entropy = uniform over the keys a "
             "row may see. A sharp head is not thereby an important one (see head importance).";
    return r;
}

}  // namespace tx::explain
