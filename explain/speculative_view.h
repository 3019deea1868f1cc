// The Decoding panel's speculative decoding (tx/speculative_decoding.h) of one sentence: the
// rounds of a draft made of the model's first decoder layers, and the model's own greedy output
// beside them, so the panel can show that the two are the same and what the rounds saved.
#pragma once
#include <string>
#include <vector>

#include "tx/speculative_decoding.h"
#include "tx/transformer.h"

namespace tx::explain {

// What the learner chose: k proposals per round and the draft's decoder layers (0: one fewer
// than the model has).
struct SpeculativeSettings {
    int k = 4;
    int draft_layers = 0;
    bool operator==(const SpeculativeSettings&) const = default;
};

struct SpeculativeView {
    SpeculativeSettings settings;   // as asked
    int draft_layers = 0;           // the draft's decoder layers, resolved
    int model_layers = 0;           // the model's decoder layers
    SpeculativeResult result;
    std::vector<int> greedy;        // the model's own greedy output, without EOS
    bool greedy_finished = false;   // greedy chose EOS within the limit
    std::string error;              // why it could not run ("" when it ran)
    // Steps greedy decoding runs: one per token it chooses, EOS included when chosen.
    int greedy_steps() const { return static_cast<int>(greedy.size()) + (greedy_finished ? 1 : 0); }
};

// Speculative and greedy decoding of one source row (tokens + EOS; a decoder-only model's src is
// empty and `prompt` follows BOS), at most `limit` tokens. Errors (one decoder layer, no KV cache
// under the model's options) are returned in `error`, not thrown.
SpeculativeView speculative_view(Transformer& model, const std::vector<int>& src, const std::vector<int>& prompt,
                                 int limit, const SpeculativeSettings& settings);

}  // namespace tx::explain
