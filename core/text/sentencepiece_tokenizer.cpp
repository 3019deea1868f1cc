// The SentencePiece side of Tokenizer (tokenizer.h): pieces from Debian's libsentencepiece, the
// model's serialized bytes kept so that a checkpoint carries them (docs/design.md §6). Ids are the
// model's own, so PAD 0, BOS 1, EOS 2, UNK 3 must be its first four pieces (subword_training.cpp
// trains models that way). Decoding is done here, not by the library, so that UNK reads "<unk>"
// and byte pieces that do not form valid UTF-8 show as U+FFFD instead of vanishing.
#include <sentencepiece_processor.h>

#include <stdexcept>

#include "text/text_common.h"
#include "tx/tokenizer.h"

namespace tx {

namespace {

using text::REPLACEMENT_CHARACTER;
using text::SPECIAL_TEXT;

constexpr const char* WORD_MARK = "\xE2\x96\x81";   // U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's space

bool starts_word(const std::string& piece) { return piece.rfind(WORD_MARK, 0) == 0; }

// "<0xE4>" -> 0xE4; -1 when the piece is not a byte piece.
int byte_value(const std::string& piece) {
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
    try {
        return std::stoi(piece.substr(3, 2), nullptr, 16);
    } catch (const std::exception&) {
        return -1;
    }
}

// Appends bytes that byte pieces spelled out: valid UTF-8 as it is, every other byte as U+FFFD.
void append_bytes(std::string& out, const std::string& bytes) {
    for (size_t i = 0; i < bytes.size();) {
        const auto b0 = static_cast<unsigned char>(bytes[i]);
        size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= bytes.size();
        for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(bytes[i + k]) & 0xC0) == 0x80;
        if (ok) {
            out.append(bytes, i, len);
            i += len;
        } else {
            out += REPLACEMENT_CHARACTER;
            ++i;
        }
    }
}

}  // namespace

Tokenizer Tokenizer::sentencepiece(const std::string& model, SpecialTokens special) {
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    if (model.empty()) throw std::invalid_argument("the SentencePiece model is empty");
    const auto status = processor->LoadFromSerializedProto(model);
    if (!status.ok()) throw std::invalid_argument("not a valid SentencePiece model (" + status.ToString() + ")");
    const int size = processor->GetPieceSize();
    if (size < 5) throw std::invalid_argument("the SentencePiece model has only " + std::to_string(size) + " pieces");
    std::vector<std::string> pieces;
    pieces.reserve(static_cast<size_t>(size));
    for (int id = 0; id < size; ++id) pieces.push_back(processor->IdToPiece(id));
    for (int i = 0; i < 4; ++i)
        if (pieces[static_cast<size_t>(i)] != SPECIAL_TEXT[i])
            throw std::invalid_argument("the SentencePiece model's piece " + std::to_string(i) + " is '" +
                                        pieces[static_cast<size_t>(i)] + "', expected " + SPECIAL_TEXT[i] +
                                        " (PAD 0, BOS 1, EOS 2, UNK 3)");
    Tokenizer tokenizer(TokenizerKind::Word, Vocabulary(std::move(pieces)), special);
    tokenizer.m_kind = TokenizerKind::SentencePiece;
    tokenizer.m_model = model;
    tokenizer.m_processor = std::move(processor);
    return tokenizer;
}

std::vector<Token> Tokenizer::tokenize_pieces(const std::string& text) const {
    const auto encoded = m_processor->EncodeAsImmutableProto(text);
    std::vector<Token> out;
    out.reserve(encoded.pieces_size());
    for (const auto& piece : encoded.pieces()) {
        const int id = static_cast<int>(piece.id());
        const bool unknown = id == m_special.unk || m_processor->IsByte(id);
        // The piece itself, not its surface: a byte piece shows as "<0xE6>", what the character became.
        out.push_back({piece.piece(), id, unknown, starts_word(piece.piece()), piece.begin(), piece.end()});
    }
    return out;
}

std::string Tokenizer::decode_pieces(const std::vector<int>& ids) const {
    std::string out, bytes;
    for (int id : ids) {
        const std::string& piece = m_vocabulary.token(id);   // throws on a bad id
        if (id == m_special.pad || id == m_special.bos || id == m_special.eos) continue;
        const int byte = byte_value(piece);
        if (byte >= 0 && m_processor->IsByte(id)) {
            bytes += static_cast<char>(byte);
            continue;
        }
        append_bytes(out, bytes);
        bytes.clear();
        if (id == m_special.unk) {
            out += "<unk>";
            continue;
        }
        for (size_t i = 0; i < piece.size();) {
            if (starts_word(piece.substr(i))) {
                out += ' ';
                i += 3;
            } else {
                out += piece[i++];
            }
        }
    }
    append_bytes(out, bytes);
    if (!out.empty() && out.front() == ' ') out.erase(0, 1);   // the word mark before the first word
    return out;
}

}  // namespace tx
