// Heads that park their weight on <eos> (eos_parking.h).
#include "eos_parking.h"

#include <algorithm>

namespace tx::explain {

EosParking eos_parking(const SessionView& v, int batch_row) {
    EosParking r;
    if (v.decoder_only || batch_row < 0 || batch_row >= v.B) return r;
    const std::vector<std::string> src = v.src_labels(batch_row);
    const auto eos = std::find(src.begin(), src.end(), "<eos>");
    if (eos == src.end()) return r;
    const int e = static_cast<int>(eos - src.begin());
    const int H = v.config.heads;
    for (const AttentionBlock& a : v.attention) {
        if (a.kind == AttentionKind::DecoderSelf) continue;
        const std::vector<float>* probs = v.output(a.probs);
        const int R = a.kind == AttentionKind::EncoderSelf ? v.S : v.T, C = v.S;
        if (!probs || static_cast<int>(probs->size()) < v.B * H * R * C) continue;
        // Rows of real tokens only: an encoder row up to <eos>, a decoder row up to the last non-PAD input.
        const std::vector<std::string> rows = a.kind == AttentionKind::EncoderSelf ? src : v.tgt_labels(batch_row);
        for (int h = 0; h < H; ++h) {
            const float* p = probs->data() + (static_cast<size_t>(batch_row) * H + h) * R * C;
            double on_eos = 0.0;
            int counted = 0;
            for (int i = 0; i < R; ++i) {
                if (i < static_cast<int>(rows.size()) && rows[static_cast<size_t>(i)] == "<pad>") continue;
                on_eos += p[static_cast<size_t>(i) * C + e];
                ++counted;
            }
            ++r.heads;
            r.parked += counted > 0 && on_eos / counted > 0.5;
        }
    }
    return r;
}

}  // namespace tx::explain
