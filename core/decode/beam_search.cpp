// Beam search over the rows of one batch; the search bookkeeping is on the host, the model runs
// the encoder once and the decoder once per step (beam_search.h has the rules). The decoder
// step is the KV cache's (its rows gathered by parent beam after each selection) or, when the
// cache cannot follow the options or kv_cache is off, a full pass over every prefix.
#include "tx/beam_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "tx/incremental_decoder.h"

namespace tx {

double length_penalty(int length, double alpha) {
    return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

namespace {

struct LiveBeam {
    std::vector<int> ids;   // after BOS
    double log_prob = 0.0;
    int parent = 0;         // the batch row it grew from (the KV cache's rows are gathered by it)
};

// The k most probable ids of one row of V log-probabilities, best first; ties by the smaller id
// (std::max_element's choice, so that K = 1 is greedy_decode).
std::vector<int> top_k(const float* row, int V, int k) {
    std::vector<int> ids(static_cast<size_t>(V));
    std::iota(ids.begin(), ids.end(), 0);
    const auto better = [row](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), better);
    ids.resize(static_cast<size_t>(k));
    return ids;
}

}  // namespace

BeamResult beam_search(Transformer& model, const std::vector<int>& src, int max_new, const BeamOptions& options,
                       const std::vector<int>& prompt) {
    const int K = options.beam_size;
    const double alpha = options.length_penalty;
    if (K < 1) throw std::invalid_argument("beam search: the beam size must be at least 1, got " + std::to_string(K));
    if (!std::isfinite(alpha) || alpha < 0.0)
        throw std::invalid_argument("beam search: the length penalty must be a finite number >= 0, got " +
                                    std::to_string(alpha));
    if (src.empty()) throw std::invalid_argument("beam search: the source is empty (it needs at least EOS)");

    const ModelConfig& c = model.config();
    const int V = c.tgt_vocab;
    // Every beam starts from BOS + the prompt (decoder-only; else BOS alone): P positions precede
    // the position that chooses the first token.
    std::vector<int> start{c.special.bos};
    start.insert(start.end(), prompt.begin(), prompt.end());
    if (static_cast<int>(start.size()) > c.max_len)
        throw std::invalid_argument("beam search: the prompt has " + std::to_string(prompt.size()) +
                                    " tokens; with BOS it must fit max_len " + std::to_string(c.max_len));
    const int P = static_cast<int>(prompt.size());
    const int limit = std::clamp(max_new, 0, c.max_len - 1 - P);
    const int proposals = std::min(K, V);
    const double best_lp = length_penalty(limit, alpha);

    BeamResult result;
    std::vector<LiveBeam> live{LiveBeam{}};
    std::vector<BeamHypothesis> finished;
    // Rows beyond the live beams repeat row 0; their outputs are never read.
    const auto decoder_input = [&] {
        std::vector<std::vector<int>> rows(static_cast<size_t>(K));
        for (int b = 0; b < K; ++b) {
            rows[b] = start;
            const LiveBeam& beam = live[b < static_cast<int>(live.size()) ? b : 0];
            rows[b].insert(rows[b].end(), beam.ids.begin(), beam.ids.end());
        }
        return rows;
    };
    const bool cached = model.options().kv_cache && IncrementalDecoder::supports(model);
    model.set_batch(std::vector<std::vector<int>>(static_cast<size_t>(K), src), decoder_input());
    if (!cached) model.reserve_target(P + limit + 1);
    model.encode();
    std::optional<IncrementalDecoder> cache;
    if (cached) cache.emplace(model, std::max(P + limit, 1));
    // The cache reads the prompt's positions first (every row the same); their outputs choose nothing.
    if (cache && limit > 0)
        for (int i = 0; i < P; ++i) cache->step(std::vector<int>(static_cast<size_t>(K), start[static_cast<size_t>(i)]));
    std::vector<int> newest(static_cast<size_t>(K), start.back());   // each row's newest decoder input
    std::vector<std::vector<int>> last_input;                          // the cached path's last decoder input
    const size_t log_probs = model.step_count() - 1;

    for (int t = 1; t <= limit; ++t) {
        std::vector<float> lp;
        size_t rows = 1, last_row = 0;   // lp is [K, rows, V]; the newest position is last_row
        if (cache) {
            lp = cache->step(newest);
            last_input = decoder_input();
        } else {
            model.decode();
            lp = model.step_output(log_probs);
            rows = static_cast<size_t>(P + t);
            last_row = rows - 1;
        }
        BeamStep step;
        for (size_t b = 0; b < live.size(); ++b) {
            step.prefixes.push_back(live[b].ids);
            step.log_probs.push_back(live[b].log_prob);
            const float* row = lp.data() + (b * rows + last_row) * V;
            for (int token : top_k(row, V, proposals))
                step.candidates.push_back({static_cast<int>(b), token, live[b].log_prob + static_cast<double>(row[token])});
        }
        std::stable_sort(step.candidates.begin(), step.candidates.end(),
                         [](const BeamCandidate& a, const BeamCandidate& b) { return a.log_prob > b.log_prob; });

        std::vector<LiveBeam> next;
        for (size_t i = 0; i < step.candidates.size(); ++i) {
            BeamCandidate& cand = step.candidates[i];
            if (i >= static_cast<size_t>(K)) {
                cand.fate = BeamFate::Pruned;
                continue;
            }
            const std::vector<int>& prefix = live[cand.beam].ids;
            if (cand.token == c.special.eos) {
                cand.fate = BeamFate::Finished;
                const int length = static_cast<int>(prefix.size()) + 1;
                cand.score = cand.log_prob / length_penalty(length, alpha);
                finished.push_back({prefix, cand.log_prob, cand.score, length, true});
            } else {
                cand.fate = BeamFate::Kept;
                LiveBeam beam{prefix, cand.log_prob, cand.beam};
                beam.ids.push_back(cand.token);
                next.push_back(std::move(beam));
            }
        }
        result.trace.push_back(std::move(step));
        live = std::move(next);

        if (live.empty() || t == limit) break;
        if (static_cast<int>(finished.size()) >= K) {
            double best_finished = finished.front().score;
            for (const BeamHypothesis& h : finished) best_finished = std::max(best_finished, h.score);
            double best_live = live.front().log_prob / best_lp;
            for (const LiveBeam& beam : live) best_live = std::max(best_live, beam.log_prob / best_lp);
            if (best_finished >= best_live) break;
        }
        if (cache) {
            // Row b continues live beam b (rows beyond the live beams repeat row 0, as decoder_input).
            std::vector<int> parents(static_cast<size_t>(K));
            for (int b = 0; b < K; ++b) {
                const LiveBeam& beam = live[b < static_cast<int>(live.size()) ? b : 0];
                parents[b] = beam.parent;
                newest[b] = beam.ids.back();
            }
            cache->reorder(parents);
        } else {
            model.set_target(decoder_input());
        }
    }
    if (cache && !last_input.empty()) model.set_target(last_input);

    if (finished.empty())
        for (const LiveBeam& beam : live) {
            const int length = static_cast<int>(beam.ids.size());
            finished.push_back({beam.ids, beam.log_prob, beam.log_prob / length_penalty(length, alpha), length, false});
        }
    std::stable_sort(finished.begin(), finished.end(),
                     [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
    result.hypotheses = std::move(finished);
    result.best = result.hypotheses.front().ids;
    result.score = result.hypotheses.front().score;
    result.log_prob = result.hypotheses.front().log_prob;
    return result;
}

}  // namespace tx
