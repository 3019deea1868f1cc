// The length rules of a model's sequences (length_limits.h).
#include "tx/length_limits.h"

#include <algorithm>
#include <stdexcept>

namespace tx {

void require_fits(int tokens, Marker marker, int max_len, const std::string& what) {
    if (tokens + 1 <= max_len) return;
    throw std::invalid_argument(what + " has " + std::to_string(tokens) + " tokens; with " +
                                (marker == Marker::Eos ? "EOS" : "BOS") + " it must fit max_len " +
                                std::to_string(max_len));
}

int translation_limit(int source_tokens, int max_len) {
    return std::max(0, std::min(max_len - 1, 2 * source_tokens + 10));
}

int continuation_limit(int prompt_tokens, int max_len) {
    return std::clamp(max_len - 1 - prompt_tokens, 0, CONTINUATION_TOKENS);
}

}  // namespace tx
