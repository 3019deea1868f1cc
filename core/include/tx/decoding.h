// Greedy decoding: encode once, then grow the decoder input one token at a time, each time
// taking the most probable next token at the last position, until EOS or max_len. The newest
// position's log-probabilities come from the KV cache (incremental_decoder.h), or from a full
// decoder pass over the prefix when options().kv_cache is off or the cache cannot follow the
// options (the causal mask off, training); both give the same choices.
#pragma once
#include <functional>
#include <vector>

#include "tx/length_limits.h"   // CONTINUATION_TOKENS, translation_limit: the limits callers pass
#include "tx/transformer.h"

namespace tx {

// How probable greedy's output is, so it can be ranked as beam search ranks its hypotheses.
struct GreedyScore {
    double log_prob = 0.0;   // log P(Y | source): the chosen tokens' log-probabilities, EOS included when chosen
    bool finished = false;   // EOS was chosen within the limit
};

// src: B rows of source ids (tokens + EOS). Returns per row the generated ids after BOS, up to
// and excluding EOS, at most max_new tokens (clamped to max_len - 1); `scores`, when given,
// receives one GreedyScore per row, summed from the very log-probabilities the choices were made
// from. Leaves the model's batch set to the last decoder input.
// prompts (decoder-only models; empty: none): B rows of ids that follow BOS in the decoder input.
// Row b then continues BOS + prompts[b]: its first token is chosen at the prompt's last position,
// and it generates at most min(max_new, max_len - 1 - |prompts[b]|) tokens (the sequence fits
// max_len). Rows of different prompt lengths run in lockstep; a shorter row's positions are
// contiguous from 0 and PAD only follows its end (right padding). The decoder-only encoder is
// empty, so src then only sets the batch size. Throws std::invalid_argument for a prompt count
// other than B or a prompt that does not fit max_len with BOS.
std::vector<std::vector<int>> greedy_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            std::vector<GreedyScore>* scores = nullptr,
                                            const std::vector<std::vector<int>>& prompts = {});

// The loop greedy_decode runs, with another rule for the next token (sampling.h draws it):
// choose(b, log_probs) returns row b's next id from the newest position's log-probabilities [V].
// It is called once per step for each row that has not yet chosen EOS (nor reached its limit)
// and has read its whole prompt, in row order. Same
// limit, stopping rule, result and final batch as greedy_decode.
using ChooseNext = std::function<int(int row, const float* log_probs)>;
std::vector<std::vector<int>> decode_with(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                          const ChooseNext& choose, const std::vector<std::vector<int>>& prompts = {});

}  // namespace tx
