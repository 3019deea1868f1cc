// Greedy decoding over a padded batch; rows that reached EOS are padded while others go on.
#include "decoding.h"

#include <algorithm>

namespace tx {

std::vector<std::vector<int>> greedy_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            std::vector<GreedyScore>* scores) {
    const ModelConfig& c = model.config();
    const int B = static_cast<int>(src.size());
    const int limit = std::clamp(max_new, 0, c.max_len - 1);
    std::vector<std::vector<int>> prefix(static_cast<size_t>(B), std::vector<int>{c.special.bos});
    std::vector<std::vector<int>> result(static_cast<size_t>(B));
    std::vector<bool> done(static_cast<size_t>(B), false);
    std::vector<GreedyScore> score(static_cast<size_t>(B));
    model.set_batch(src, prefix);
    model.reserve_target(limit + 1);
    model.encode();
    const int V = c.tgt_vocab;
    const size_t log_probs = model.step_count() - 1;
    for (int t = 1; t <= limit; ++t) {
        model.decode();
        const std::vector<float> lp = model.step_output(log_probs);   // [B, t, V]
        bool all_done = true;
        for (int b = 0; b < B; ++b) {
            if (done[b]) {
                prefix[b].push_back(c.special.pad);
                continue;
            }
            const float* row = lp.data() + (static_cast<size_t>(b) * t + (t - 1)) * V;
            const int next = static_cast<int>(std::max_element(row, row + V) - row);
            prefix[b].push_back(next);
            score[b].log_prob += static_cast<double>(row[next]);
            if (next == c.special.eos) done[b] = score[b].finished = true;
            else result[b].push_back(next);
            all_done = all_done && done[b];
        }
        if (all_done || t == limit) break;
        model.set_target(prefix);
    }
    if (scores) *scores = std::move(score);
    return result;
}

}  // namespace tx
