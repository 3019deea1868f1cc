// What the tokenizers and the readers of text files share (core-internal): the four special
// tokens' text, U+FFFD for invalid bytes, and UTF-8 decoding and validation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tx::text {

// PAD, BOS, EOS and UNK: ids 0..3 of every vocabulary and SentencePiece model.
inline constexpr const char* SPECIAL_TEXT[4] = {"<pad>", "<bos>", "<eos>", "<unk>"};
inline constexpr const char* REPLACEMENT_CHARACTER = "\xEF\xBF\xBD";   // U+FFFD, shown for invalid bytes

// Decodes one UTF-8 code point at text[pos]; returns its length in bytes, or 0 when the byte
// at pos does not start a valid sequence (overlong forms, surrogates and > U+10FFFF are
// invalid, as RFC 3629 §3 requires).
inline size_t decode_utf8(const std::string& text, size_t pos, uint32_t& cp) {
    const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
    const uint8_t b0 = byte(pos);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    size_t len;
    uint32_t min;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2, cp = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, cp = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, cp = b0 & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (text.size() - pos < len) return 0;
    for (size_t i = 1; i < len; ++i) {
        const uint8_t b = byte(pos + i);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

inline bool valid_utf8(const std::string& text) {
    uint32_t cp;
    for (size_t pos = 0; pos < text.size();) {
        const size_t len = decode_utf8(text, pos, cp);
        if (len == 0) return false;
        pos += len;
    }
    return true;
}

}  // namespace tx::text
