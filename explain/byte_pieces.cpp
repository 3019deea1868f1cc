// Byte pieces, explained (byte_pieces.h).
#include "byte_pieces.h"

#include <cctype>

namespace tx::explain {

bool is_byte_piece(const std::string& piece) {
    return piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && piece[5] == '>' &&
           std::isxdigit(static_cast<unsigned char>(piece[3])) && std::isxdigit(static_cast<unsigned char>(piece[4]));
}

std::string byte_piece_text(const std::string& piece) {
    return "\xE2\x80\x9C" + piece + "\xE2\x80\x9D is a byte piece: the tokenizer has no piece for this character, so it "
           "spells the character's UTF-8 bytes (here 0x" + piece.substr(3, 2) + "), one piece per byte, from the 256 "
           "byte pieces of its vocabulary. A character outside the training text's alphabet (an emoji, a rare letter) "
           "takes 2 to 4 of them.";
}

std::string replacement_character_note(const std::string& decoded) {
    if (decoded.find("\xEF\xBF\xBD") == std::string::npos) return "";
    return "\xEF\xBF\xBD marks bytes that do not form a character: the model wrote byte pieces (<0x..>) in an order "
           "that is not valid UTF-8, as untrained and freshly rebuilt models often do.";
}

}  // namespace tx::explain
