// Logit lens (nostalgebraist 2020): the decoder's residual stream after each layer read as if it
// were the last layer's: through the model's final norm where the architecture has one (Pre-LN's
// decoder.norm, or final_norm), then the generator and log-softmax. Result: a layers × positions
// grid, each cell with its top-k tokens and the probability of the token finally chosen there.
// Shapes: L decoder layers, T decoder positions, V vocabulary; grids row-major [L, T(, V)].
#pragma once
#include <string>
#include <vector>

#include "inspect_model.h"

namespace tx::explain {

struct LensCell {
    std::vector<int> top;                 // [k] token ids, most probable first
    std::vector<float> top_log_probs;     // [k]
    float chosen_log_prob = 0.0f;         // log p of the token finally chosen at this position
};

struct LogitLens {
    std::string error;                    // why there is no lens; the rest is empty then
    std::string caveat;                   // the earlier layers were never trained to be read this way
    std::string readout;                  // what each row goes through: "decoder.norm, then the generator"
    int layers = 0, positions = 0, vocab = 0;
    std::vector<std::string> position_tokens;   // [T] the decoder input at each position
    std::vector<int> chosen;              // [T] the final layer's most probable token at each position
    std::vector<LensCell> cells;          // [L, T]
    std::vector<float> log_probs;         // [L, T, V]; row L-1 is the model's generator.log_probs
};

// Runs `in` and reads every decoder layer's output through the model's own last steps (final norm,
// generator, log-softmax), so the last row is the model's output bit for bit. top_k >= 1.
LogitLens logit_lens(InspectModel& model, const InspectInput& in, int top_k = 5);

}  // namespace tx::explain
