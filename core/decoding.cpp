// Greedy decoding over a padded batch; rows that reached EOS are padded while others go on.
// The loop (decode_with) takes the choice of the next token as an argument; greedy takes the
// argmax. Each token is chosen from the KV cache's log-probabilities of the newest position, or, when
// the cache cannot follow the options (IncrementalDecoder::supports) or kv_cache is off, from a
// full decoder pass over the prefix.
#include "decoding.h"

#include <algorithm>
#include <optional>

#include "incremental_decoder.h"

namespace tx {

std::vector<std::vector<int>> decode_with(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                          const ChooseNext& choose) {
    const ModelConfig& c = model.config();
    const int B = static_cast<int>(src.size());
    const int limit = std::clamp(max_new, 0, c.max_len - 1);
    std::vector<std::vector<int>> prefix(static_cast<size_t>(B), std::vector<int>{c.special.bos});
    std::vector<std::vector<int>> result(static_cast<size_t>(B));
    std::vector<bool> done(static_cast<size_t>(B), false);
    const bool cached = model.options().kv_cache && IncrementalDecoder::supports(model.options());
    model.set_batch(src, prefix);
    if (!cached) model.reserve_target(limit + 1);
    model.encode();
    std::optional<IncrementalDecoder> cache;
    if (cached) cache.emplace(model, std::max(limit, 1));
    const int V = c.tgt_vocab;
    const size_t log_probs = model.step_count() - 1;
    for (int t = 1; t <= limit; ++t) {
        std::vector<float> lp;
        size_t newest = 0;   // row index of the newest position in lp
        if (cache) {
            std::vector<int> last(static_cast<size_t>(B));
            for (int b = 0; b < B; ++b) last[b] = prefix[b].back();
            lp = cache->step(last);   // [B, V]
        } else {
            model.decode();
            lp = model.step_output(log_probs);   // [B, t, V]
            newest = static_cast<size_t>(t - 1);
        }
        const size_t rows = cache ? 1 : static_cast<size_t>(t);
        bool all_done = true;
        for (int b = 0; b < B; ++b) {
            if (done[b]) {
                prefix[b].push_back(c.special.pad);
                continue;
            }
            const float* row = lp.data() + (static_cast<size_t>(b) * rows + newest) * V;
            const int next = choose(b, row);
            prefix[b].push_back(next);
            if (next == c.special.eos) done[b] = true;
            else result[b].push_back(next);
            all_done = all_done && done[b];
        }
        if (all_done || t == limit) break;
        if (!cache) model.set_target(prefix);
    }
    if (cache && limit > 0) {
        // The last decoder input, as the full path leaves it: every prefix but its newest id.
        std::vector<std::vector<int>> input = prefix;
        for (auto& row : input) row.pop_back();
        model.set_target(input);
    }
    return result;
}

std::vector<std::vector<int>> greedy_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            std::vector<GreedyScore>* scores) {
    std::vector<GreedyScore> score(src.size());
    const int V = model.config().tgt_vocab, eos = model.config().special.eos;
    // max_element takes the first maximum: ties go to the smaller id.
    const auto argmax = [&](int b, const float* row) {
        const int next = static_cast<int>(std::max_element(row, row + V) - row);
        score[b].log_prob += static_cast<double>(row[next]);
        if (next == eos) score[b].finished = true;
        return next;
    };
    std::vector<std::vector<int>> result = decode_with(model, src, max_new, argmax);
    if (scores) *scores = std::move(score);
    return result;
}

}  // namespace tx
