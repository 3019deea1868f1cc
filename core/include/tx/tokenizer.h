// Tokenizers: word-level (words and punctuation), character-level, and SentencePiece subwords
// (BPE pieces from a model that travels inside the checkpoint), over one vocabulary shared by
// source and target. Ids 0..3 are PAD, BOS, EOS, UNK (config.h SpecialTokens); unknown words
// become UNK (or, for SentencePiece, byte pieces) and stay visible as such, never dropped.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tx/config.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tx {

struct Token {
    std::string text;   // word/char: the surface text ("animal", ".", "<unk>"-free: the original text);
                        // SentencePiece: the piece ("▁dorm", "irán", "<0xE6>")
    int id = 0;
    bool unknown = false;     // UNK, or a SentencePiece byte piece (a character the model never saw)
    bool word_start = true;   // SentencePiece: the piece begins a word ("▁dorm" yes, "irán" no)
    size_t begin = 0, end = 0;   // SentencePiece: the bytes [begin, end) of the text the piece covers
};

class Vocabulary {
public:
    // tokens[0..3] must be "<pad>", "<bos>", "<eos>", "<unk>"; duplicates are refused
    // (std::invalid_argument naming the token).
    explicit Vocabulary(std::vector<std::string> tokens);
    int size() const { return static_cast<int>(m_tokens.size()); }
    const std::string& token(int id) const;   // "<bad id N>"-free: throws std::out_of_range
    int id(const std::string& token) const;    // -1 when absent
    const std::vector<std::string>& tokens() const { return m_tokens; }

private:
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int> m_ids;
};

// Reads one token per line (UTF-8); throws std::runtime_error naming the file and line.
Vocabulary load_vocabulary(const std::string& path);

class Tokenizer {
public:
    // Word or char tokenizer over a vocabulary.
    Tokenizer(TokenizerKind kind, Vocabulary vocabulary, SpecialTokens special = {});
    // SentencePiece tokenizer from a serialized model (ModelProto bytes). Its pieces are the
    // vocabulary; ids 0..3 must be <pad> <bos> <eos> <unk>. Throws std::invalid_argument naming
    // the problem (not a SentencePiece model, wrong special pieces).
    static Tokenizer sentencepiece(const std::string& model, SpecialTokens special = {});
    // The serialized SentencePiece model; empty for word and char tokenizers.
    const std::string& model() const { return m_model; }
    TokenizerKind kind() const { return m_kind; }
    const Vocabulary& vocabulary() const { return m_vocabulary; }
    const SpecialTokens& special() const { return m_special; }

    // Splits text into tokens (no BOS/EOS). Word: runs of letters/digits/apostrophes and
    // single punctuation marks; whitespace separates; case is kept. Char: one token per UTF-8
    // code point, spaces included. Control characters are dropped; invalid UTF-8 bytes become UNK.
    // SentencePiece: the model's BPE pieces; runs of spaces count as one (none at either end);
    // a character outside the model becomes its UTF-8 byte pieces (<0xE4> ...), marked unknown;
    // "▁" (U+2581), SentencePiece's mark for a space, reads back as a space.
    std::vector<Token> tokenize(const std::string& text) const;
    std::vector<int> encode(const std::string& text) const;
    // Joins tokens back to text: word tokens with spaces except before punctuation; char
    // tokens as they are; SentencePiece pieces with "▁" as the space and byte pieces as their
    // bytes. Special tokens are skipped; UNK shows as "<unk>".
    std::string decode(const std::vector<int>& ids) const;
    // The display text of one id ("<pad>", "<bos>", "animal", "␣" for a char-level space,
    // "▁the" for a SentencePiece piece that begins a word).
    std::string display(int id) const;

private:
    std::vector<Token> tokenize_pieces(const std::string& text) const;   // sentencepiece_tokenizer.cpp
    std::string decode_pieces(const std::vector<int>& ids) const;

    TokenizerKind m_kind;
    Vocabulary m_vocabulary;
    SpecialTokens m_special;
    std::string m_model;   // SentencePiece only: the serialized model
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> m_processor;   // SentencePiece only
};

}  // namespace tx
