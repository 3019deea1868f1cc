// Tokenizers: word-level (words and punctuation) and character-level, over one vocabulary
// shared by source and target. Ids 0..3 are PAD, BOS, EOS, UNK (config.h SpecialTokens);
// unknown words become UNK and stay visible as such, never dropped.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"

namespace tx {

struct Token {
    std::string text;   // the surface text ("animal", ".", "<unk>"-free: the original text)
    int id = 0;
    bool unknown = false;
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
    Tokenizer(TokenizerKind kind, Vocabulary vocabulary, SpecialTokens special = {});
    TokenizerKind kind() const { return m_kind; }
    const Vocabulary& vocabulary() const { return m_vocabulary; }
    const SpecialTokens& special() const { return m_special; }

    // Splits text into tokens (no BOS/EOS). Word: runs of letters/digits/apostrophes and
    // single punctuation marks; whitespace separates; case is kept. Char: one token per UTF-8
    // code point, spaces included. Control characters are dropped; invalid UTF-8 bytes become UNK.
    std::vector<Token> tokenize(const std::string& text) const;
    std::vector<int> encode(const std::string& text) const;
    // Joins tokens back to text: word tokens with spaces except before punctuation; char
    // tokens as they are. Special tokens are skipped; UNK shows as "<unk>".
    std::string decode(const std::vector<int>& ids) const;
    // The display text of one id ("<pad>", "<bos>", "animal", "␣" for a char-level space).
    std::string display(int id) const;

private:
    TokenizerKind m_kind;
    Vocabulary m_vocabulary;
    SpecialTokens m_special;
};

}  // namespace tx
