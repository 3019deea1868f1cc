// Sampling: the next token drawn from the model's distribution, reshaped by a temperature and cut
// by top-k and top-p (nucleus sampling, Holtzman et al. 2020), as a third way to decode beside
// greedy_decode and beam_search. Shapes: V target vocabulary, B batch rows. Every row draws from
// its own splitmix64 stream, a function of (seed, row) alone, so a seed gives the same draws on
// every machine and compiler (std::uniform_*_distribution is implementation-defined).
#pragma once
#include <cstdint>
#include <vector>

#include "tx/transformer.h"

namespace tx {

struct SamplingOptions {
    double temperature = 1.0;   // T > 0, finite: p_i ∝ exp(log p_i / T); T < 1 sharpens, T > 1 flattens
    int top_k = 0;              // k >= 0: keep only the k most probable tokens; 0 = off
    double top_p = 1.0;         // 0 < p <= 1: keep the most probable tokens until their mass reaches p; 1 = off
    uint64_t seed = 0;          // picks the random streams: same seed, same output
    bool operator==(const SamplingOptions&) const = default;
};

// Throws std::invalid_argument naming the option, its range and the value given.
void validate(const SamplingOptions& options);

struct SamplingDistribution {
    std::vector<double> probs;   // [V]: what the next token is drawn from; sums to 1, 0 where cut
    std::vector<bool> cut;       // [V]: removed by top-k or top-p
    int kept = 0;                // tokens not cut
};

// log_probs: one row [V] of next-token log-probabilities, each finite or −∞ (only differences
// matter, so logits serve as well). In the order of Hugging Face's logits warpers: temperature,
// then top-k, then top-p over the top-k survivors renormalised. Both cuts rank tokens most
// probable first, equal log-probabilities by smaller id first, and keep a prefix of that ranking:
// top-k exactly k tokens (Hugging Face keeps every token tied with the k-th), top-p the shortest
// prefix whose mass reaches p (the token that crosses p stays, as in Hugging Face). Throws
// std::invalid_argument for invalid options, V < 1, a NaN or +∞ entry, or no finite entry.
SamplingDistribution sampling_distribution(const float* log_probs, int V, const SamplingOptions& options);

// Inverse-CDF draw with u in [0, 1): the first id, in id order, at which the cumulative
// probability exceeds u; never a token of probability 0. Throws std::invalid_argument when every
// probability is 0.
int draw_token(const std::vector<double>& probs, double u);

// The seed of row b's stream (tasks.h's Rng): the options' seed mixed with the row.
uint64_t sampling_stream(uint64_t seed, int row);

// src: B rows of source ids (tokens + EOS). Decodes as greedy_decode (the KV cache when it
// applies, the same limit and stopping rule: EOS or max_new tokens clamped to max_len - 1, the
// same result shape and final batch), but draws each token from sampling_distribution() of the
// newest position with row b's stream, one uniform per generated token. top_k = 1 is therefore
// greedy_decode. prompts: as greedy_decode's (decoder-only: each row continues BOS + its prompt).
// Throws std::invalid_argument for invalid options, and greedy_decode's errors.
std::vector<std::vector<int>> sample_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            const SamplingOptions& options,
                                            const std::vector<std::vector<int>>& prompts = {});

}  // namespace tx
