// Generation with and without the KV cache, timed: the same greedy loop (decoding.h's decode_with)
// generates exactly N tokens with RunOptions::kv_cache on (one query row per token against the
// cached K/V) and off (the whole decoder re-run over the prefix for every token), for several N.
// Used by the app's Backend panel. Times in ms; the source row is ids + EOS ([S]).
#pragma once
#include <string>
#include <vector>

#include "tx/transformer.h"

namespace tx {

struct GenerationTiming {
    std::vector<int> lengths;                 // N, tokens generated per run
    std::vector<double> cached_ms, full_ms;   // per N: the fastest of the repeats, whole run (encoder included)
    std::vector<int> cached_tokens, full_tokens;   // the longest run's tokens, both ways
    bool same_tokens = true;                  // every N: both ways chose the same tokens
};

// The lengths a measurement uses: 8, 16, 32, 64, kept below max_len (the decoder input is BOS +
// the tokens, at most max_len positions); at least one length, max_len - 1 when max_len ≤ 9.
std::vector<int> generation_timing_lengths(int max_len);

// Runs on `model`'s weights and backend with kv_cache set each way (its options must keep the
// causal mask on: IncrementalDecoder::supports; else std::invalid_argument): one untimed run each
// way first (the buffers' first touch), then `repeats` runs each way per length, alternating. EOS
// does not stop a run (the most probable other token is taken instead), so every run makes exactly
// N tokens and the times compare equal work. Leaves the model's batch changed and restores its options.
GenerationTiming time_generation(Transformer& model, const std::vector<int>& src, const std::vector<int>& lengths,
                                 int repeats);

}  // namespace tx
