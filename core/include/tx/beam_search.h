// Beam search for one source sentence: the K live hypotheses are the K rows of one batch (the
// source repeated K times), so the encoder runs once and the decoder once per step, as in
// greedy_decode (with the KV cache, whose rows follow their parent beams, when it applies).
// Hypotheses are ranked with GNMT's length penalty (Wu et al. 2016, §7):
//   score(Y) = log P(Y) / lp(Y),   lp(Y) = ((5 + |Y|) / 6)^α,
// where |Y| counts the generated tokens, EOS included when the hypothesis finished (BOS never).
#pragma once
#include <vector>

#include "tx/transformer.h"

namespace tx {

struct BeamOptions {
    int beam_size = 4;            // K >= 1
    double length_penalty = 0.0;  // α >= 0 (finite); 0 ranks by log P(Y) alone, GNMT uses 0.6-1.0
};

// lp(length) = ((5 + length) / 6)^α; exactly 1 when α = 0.
double length_penalty(int length, double alpha);

// Fate of a candidate at one step: the best K candidates of the step are kept (Kept: a live beam
// of the next step) or, when the token is EOS, become finished hypotheses (Finished); the rest
// are Pruned.
enum class BeamFate { Kept, Finished, Pruned };

struct BeamCandidate {
    int beam = 0;            // the proposing beam: index into its BeamStep's prefixes
    int token = 0;           // the proposed next id
    double log_prob = 0.0;   // cumulative: the beam's log-prob + log p(token | source, prefix)
    BeamFate fate = BeamFate::Pruned;
    double score = 0.0;      // Finished only: log_prob / lp(prefix length + 1); 0 otherwise
};

// One decoder step of the search, for teaching (a GUI draws the tree from it). The Kept
// candidates, in candidate order, are exactly the next step's prefixes.
struct BeamStep {
    std::vector<std::vector<int>> prefixes;   // live beams entering the step: ids after BOS (step 1: one empty prefix)
    std::vector<double> log_probs;            // their cumulative log-probabilities
    // Each beam's top min(K, V) next tokens (a token outside them can never be among the best K),
    // all beams together, sorted by cumulative log-prob, best first; ties keep beam order, then id order.
    std::vector<BeamCandidate> candidates;
};

struct BeamHypothesis {
    std::vector<int> ids;    // generated ids, without BOS and EOS
    double log_prob = 0.0;   // log P(Y | source): sum over the generated tokens, EOS included when finished
    double score = 0.0;      // log_prob / lp(length)
    int length = 0;          // |Y| of the penalty: ids.size() + 1 when finished (the EOS), else ids.size()
    bool finished = false;   // ended with EOS; false only for beams cut at the step limit
};

struct BeamResult {
    std::vector<int> best;    // hypotheses.front().ids
    double score = 0.0;       // hypotheses.front().score
    double log_prob = 0.0;    // hypotheses.front().log_prob
    // Every finished hypothesis, best score first (ties: the earlier found first). When none
    // finished within the limit: the live beams at the limit, unfinished, scored at their length.
    std::vector<BeamHypothesis> hypotheses;
    std::vector<BeamStep> trace;   // one entry per decoder step
};

// src: one source row (tokens + EOS). At most max_new tokens are generated, EOS included
// (clamped to [0, max_len - 1], as greedy_decode). At each step every live beam proposes its
// top-K next tokens; the best K of all proposals by cumulative log-prob are kept; those ending
// in EOS become finished hypotheses and leave the beam, the others are the next live beams (so
// fewer than K beams may go on; the first step has one beam, BOS). No token is excluded (PAD
// and BOS may be proposed, as in greedy_decode), so K = 1 returns greedy_decode's output
// whatever α is.
// Stopping rule: stop after step t when no live beam is left, when t reaches the limit, or when
// at least K hypotheses have finished and none of the live beams can still beat the best
// finished score. The last test is exact, not a heuristic: a live beam with cumulative log-prob
// L <= 0 can at best keep L (every further token has probability <= 1) and reach the longest
// allowed length, so its score is at most L / lp(limit) (= L when α = 0).
// Runs with the model's current options (as greedy_decode) and leaves its batch set to the last
// decoder input (K rows). Throws std::invalid_argument for K < 1, α < 0 or not finite, or an
// empty source; set_batch's errors (ids outside the vocabulary, a source longer than max_len).
// prompt (decoder-only models; empty: none): the ids after BOS that every beam continues; the
// hypotheses, prefixes and lengths count the continuation only, which is at most
// min(max_new, max_len - 1 - |prompt|) tokens. Throws std::invalid_argument when BOS + the
// prompt does not fit max_len.
BeamResult beam_search(Transformer& model, const std::vector<int>& src, int max_new, const BeamOptions& options,
                       const std::vector<int>& prompt = {});

}  // namespace tx
