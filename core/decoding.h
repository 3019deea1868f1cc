// Greedy decoding: encode once, then grow the decoder input one token at a time, each time
// taking the most probable next token at the last position, until EOS or max_len.
#pragma once
#include <vector>

#include "transformer.h"

namespace tx {

// src: B rows of source ids (tokens + EOS). Returns per row the generated ids after BOS, up to
// and excluding EOS, at most max_new tokens (clamped to max_len - 1). Leaves the model's batch
// set to the last decoder input.
std::vector<std::vector<int>> greedy_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new);

}  // namespace tx
