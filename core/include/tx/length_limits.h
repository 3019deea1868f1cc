// The length rules of a model's sequences, in one place: what fits max_len on the way in, and how
// many tokens decoding may write on the way out. Session, txcli, the trainer's probe, the explain
// views and the pronoun probe all follow them (greedy, beam and sampled decoding alike). Every
// position of a sequence, its marker included, must fit max_len: a source is its pieces + EOS, a
// decoder input BOS + the pieces (a prompt, a target, or the output so far).
#pragma once

#include <string>

namespace tx {

// The continuation a Session and txcli give a decoder-only model's prompt: at most this many
// tokens (and what fits max_len), enough to see where it goes without burying every view.
constexpr int CONTINUATION_TOKENS = 32;

// Throws std::invalid_argument unless `tokens` pieces and their marker (EOS after a source, BOS
// before a target or prompt) fit max_len: "<what> has N tokens; with EOS it must fit max_len M".
enum class Marker { Eos, Bos };
void require_fits(int tokens, Marker marker, int max_len, const std::string& what);

// A translation of a source of source_tokens ids (its EOS included): room for an output somewhat
// longer than the input, 2 x source_tokens + 10, within max_len - 1.
int translation_limit(int source_tokens, int max_len);

// A decoder-only prompt of prompt_tokens ids (BOS not counted): CONTINUATION_TOKENS, within what
// max_len leaves after BOS and the prompt; 0 when the prompt fills it.
int continuation_limit(int prompt_tokens, int max_len);

}  // namespace tx
