// Speculative decoding (Leviathan et al. 2023; Chen et al. 2023), greedy form: a small draft
// model proposes k tokens one at a time, the target model checks all of them in one pass over
// its KV cache (IncrementalDecoder::extend), and the longest prefix on which the target's own
// choice agrees is kept, followed by the target's choice at the first disagreement (the
// correction; when all k agree, the target's next token, a bonus). Every kept token is the
// target's argmax given the same prefix, so the output is the target's own greedy output
// (up to float rounding between a one-row step and a several-row pass, which only a near tie
// could show); the draft only changes how many target passes it takes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tx/transformer.h"

namespace tx {

// One round: the draft's proposals, how many the target accepted, and the token the target
// added after them (its correction, or its bonus when all were accepted).
struct SpeculativeRound {
    std::vector<int> proposed;   // the draft's k ids (fewer near the length limit or after EOS)
    int accepted = 0;            // the longest prefix of `proposed` the target agrees with
    int target_token = -1;       // the target's own id after the accepted prefix; -1 when that prefix ends with EOS
    int target_positions = 0;    // positions the target's one pass ran (its unfed token + proposals)
};

struct SpeculativeResult {
    std::vector<int> tokens;                 // the generated ids after BOS, without EOS
    std::vector<SpeculativeRound> rounds;
    int target_passes() const { return static_cast<int>(rounds.size()); }
    int proposed() const;                    // proposals over all rounds
    int accepted() const;                    // accepted proposals over all rounds
    double acceptance_rate() const;          // accepted / proposed (0 when nothing was proposed)
};

// The draft must read and write the same ids: same source and target vocabulary sizes and the
// same special ids. Returns "" when it does, else the sentence naming the two settings that differ.
std::string draft_mismatch(const ModelConfig& target, const ModelConfig& draft);

// One source row (tokens + EOS; a decoder-only model's is empty and `prompt` follows BOS) decoded
// with the target's greedy choice, k >= 1 proposals per round, at most max_new tokens (clamped as
// greedy_decode clamps them). Both models need the KV cache (IncrementalDecoder::supports).
// Leaves both models' batches set to their last decoder input. Throws std::invalid_argument for
// k < 1, a draft of another vocabulary (draft_mismatch) or a model the cache cannot follow.
SpeculativeResult speculative_greedy_decode(Transformer& target, Transformer& draft, const std::vector<int>& src,
                                            int max_new, int k, const std::vector<int>& prompt = {});

// A draft made of the target itself: its embeddings (and encoder), its first `layers` decoder
// layers, its final norm and generator (an "early exit", as self-speculative decoding does). The
// weights are copied onto the target's backend. Throws std::invalid_argument unless
// 1 <= layers < the target's decoder layers.
std::unique_ptr<Transformer> early_exit_draft(Transformer& target, int layers);

}  // namespace tx
