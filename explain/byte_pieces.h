// Byte pieces, explained where a learner meets them. A SentencePiece vocabulary trained with byte
// fallback holds 256 pieces "<0x00>" … "<0xFF>": a character with no piece of its own is spelled as
// its UTF-8 bytes, one piece each. They show as "<0xE2>" chips in the Input panel, and as "�" in
// decoded text where a model wrote bytes that do not form a character (the tokenizer decodes them
// so, core/text/sentencepiece_tokenizer.cpp). The panels print these texts.
#pragma once

#include <string>

namespace tx::explain {

// "<0xE2>": a byte piece as the vocabulary writes it (two upper-case hex digits).
bool is_byte_piece(const std::string& piece);
// The tooltip of a byte piece's chip.
std::string byte_piece_text(const std::string& piece);
// A note for decoded text that holds U+FFFD (bytes that do not form a character); "" otherwise.
std::string replacement_character_note(const std::string& decoded);

}  // namespace tx::explain
