// Greedy decoding over a padded batch; rows that reached EOS are padded while others go on.
// The loop (decode_with) takes the choice of the next token as an argument; greedy takes the
// argmax. Each token is chosen from the KV cache's log-probabilities of the newest position, or, when
// the cache cannot follow the options (IncrementalDecoder::supports) or kv_cache is off, from a
// full decoder pass over the prefix. A decoder-only model's rows start from BOS + a prompt: the
// rows run in lockstep, position by position; a row reads its prompt and chooses from its last
// position on, so each row's positions are contiguous from 0 and PAD only follows a row's end
// (right padding).
#include "tx/decoding.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "tx/incremental_decoder.h"

namespace tx {

std::vector<std::vector<int>> decode_with(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                          const ChooseNext& choose, const std::vector<std::vector<int>>& prompts) {
    const ModelConfig& c = model.config();
    const int B = static_cast<int>(src.size());
    if (!prompts.empty() && prompts.size() != src.size())
        throw std::invalid_argument("decoding: " + std::to_string(prompts.size()) + " prompts for " +
                                    std::to_string(src.size()) + " rows");
    // Row b's sequence: BOS + its prompt, then the chosen tokens. Its first choice is made at the
    // prompt's last position, and it may add `room` tokens so that the sequence fits max_len.
    std::vector<std::vector<int>> seq(static_cast<size_t>(B), std::vector<int>{c.special.bos});
    std::vector<int> start(static_cast<size_t>(B)), room(static_cast<size_t>(B));
    int steps = 0;   // decoder positions run, in lockstep over the rows
    for (int b = 0; b < B; ++b) {
        if (!prompts.empty()) seq[b].insert(seq[b].end(), prompts[b].begin(), prompts[b].end());
        start[b] = static_cast<int>(seq[b].size());
        if (start[b] > c.max_len)
            throw std::invalid_argument("decoding: prompt " + std::to_string(b + 1) + " has " +
                                        std::to_string(start[b] - 1) + " tokens; with BOS it must fit max_len " +
                                        std::to_string(c.max_len));
        room[b] = std::clamp(max_new, 0, c.max_len - start[b]);
        if (room[b] > 0) steps = std::max(steps, start[b] - 1 + room[b]);
    }
    std::vector<std::vector<int>> result(static_cast<size_t>(B));
    std::vector<bool> done(static_cast<size_t>(B), false);
    for (int b = 0; b < B; ++b) done[b] = room[b] == 0;
    // Every row's first t inputs (rows that stopped earlier are shorter; set_target pads them).
    const auto inputs = [&](int t) {
        std::vector<std::vector<int>> rows(static_cast<size_t>(B));
        for (int b = 0; b < B; ++b)
            rows[b].assign(seq[b].begin(), seq[b].begin() + std::min(t, static_cast<int>(seq[b].size())));
        return rows;
    };
    const bool cached = model.options().kv_cache && IncrementalDecoder::supports(model);
    model.set_batch(src, inputs(1));
    if (!cached) model.reserve_target(std::max(steps, 1));
    model.encode();
    std::optional<IncrementalDecoder> cache;
    if (cached) cache.emplace(model, std::max(steps, 1));
    const int V = c.tgt_vocab;
    const size_t log_probs = model.step_count() - 1;
    int last = 0;   // positions of the last decoder input
    for (int t = 1; t <= steps; ++t) {
        std::vector<float> lp;
        size_t rows = 1, newest = 0;   // lp is [B, rows, V]; the newest position is row `newest`
        if (cache) {
            std::vector<int> ids(static_cast<size_t>(B), c.special.pad);
            for (int b = 0; b < B; ++b)
                if (t <= static_cast<int>(seq[b].size())) ids[b] = seq[b][static_cast<size_t>(t - 1)];
            lp = cache->step(ids);
        } else {
            if (t > 1) model.set_target(inputs(t));
            model.decode();
            lp = model.step_output(log_probs);   // [B, t, V]
            rows = static_cast<size_t>(t);
            newest = rows - 1;
        }
        last = t;
        bool all_done = true;
        for (int b = 0; b < B; ++b) {
            if (done[b] || t < start[b]) {   // stopped, or still reading its prompt
                all_done = all_done && done[b];
                continue;
            }
            const int next = choose(b, lp.data() + (static_cast<size_t>(b) * rows + newest) * V);
            seq[b].push_back(next);
            if (next == c.special.eos) done[b] = true;
            else result[b].push_back(next);
            if (static_cast<int>(seq[b].size()) - start[b] >= room[b]) done[b] = true;
            all_done = all_done && done[b];
        }
        if (all_done) break;
    }
    if (cache && last > 0) model.set_target(inputs(last));   // as the full path leaves it
    return result;
}

std::vector<std::vector<int>> greedy_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            std::vector<GreedyScore>* scores,
                                            const std::vector<std::vector<int>>& prompts) {
    std::vector<GreedyScore> score(src.size());
    const int V = model.config().tgt_vocab, eos = model.config().special.eos;
    // max_element takes the first maximum: ties go to the smaller id.
    const auto argmax = [&](int b, const float* row) {
        const int next = static_cast<int>(std::max_element(row, row + V) - row);
        score[b].log_prob += static_cast<double>(row[next]);
        if (next == eos) score[b].finished = true;
        return next;
    };
    std::vector<std::vector<int>> result = decode_with(model, src, max_new, argmax, prompts);
    if (scores) *scores = std::move(score);
    return result;
}

}  // namespace tx
