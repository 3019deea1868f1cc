// Word and character tokenizers over one Vocabulary (tokenizer.h). Input is UTF-8 and may be
// anything a person types or pastes: invalid bytes become UNK tokens whose text is U+FFFD,
// control characters are dropped, and no input makes tokenize() throw.
#include "tx/tokenizer.h"

#include "text/text_common.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace tx {

namespace {

using text::decode_utf8;
using text::REPLACEMENT_CHARACTER;
using text::SPECIAL_TEXT;
using text::valid_utf8;

constexpr const char* VISIBLE_SPACE = "\xE2\x90\xA3";           // U+2423 OPEN BOX

enum class CharClass { Space, Control, Word, Apostrophe, Punct };

// ASCII follows the brief: letters, digits and ' make words, other printable characters are
// punctuation. Outside ASCII every code point is a letter (so "café" is one word) except the
// few that are spaces, invisible, or the typographic forms of ASCII punctuation.
CharClass classify(uint32_t cp) {
    if (cp < 0x80) {
        if (cp == ' ' || (cp >= '\t' && cp <= '\r')) return CharClass::Space;
        if (cp < 0x20 || cp == 0x7F) return CharClass::Control;
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9')) return CharClass::Word;
        if (cp == '\'') return CharClass::Apostrophe;
        return CharClass::Punct;
    }
    if (cp <= 0x9F) return CharClass::Control;   // C1 controls
    switch (cp) {
        case 0x00A0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
            return CharClass::Space;
        case 0x200B: case 0x200C: case 0x200D: case 0x2060: case 0xFEFF:
            return CharClass::Control;   // zero-width characters and the byte-order mark
        case 0x2019:
            return CharClass::Apostrophe;   // ’ as in "didn’t"
        case 0x00A1: case 0x00AB: case 0x00BB: case 0x00BF: case 0x2013: case 0x2014:
        case 0x2018: case 0x201C: case 0x201D: case 0x2026:
            return CharClass::Punct;
        default:
            break;
    }
    if (cp >= 0x2000 && cp <= 0x200A) return CharClass::Space;
    return CharClass::Word;
}

struct CodePoint {
    size_t pos = 0;
    size_t len = 0;   // 0: an invalid byte at pos
    CharClass cls = CharClass::Control;
};

std::vector<CodePoint> split_code_points(const std::string& text) {
    std::vector<CodePoint> out;
    out.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        uint32_t cp = 0;
        const size_t len = decode_utf8(text, pos, cp);
        out.push_back({pos, len, len ? classify(cp) : CharClass::Control});
        pos += len ? len : 1;
    }
    return out;
}

// Typographic quotes and dashes fall back to their ASCII forms when the vocabulary lacks them,
// so pasted text ("didn’t", “quoted”) finds the words a person expects.
std::string ascii_fallback(const std::string& text) {
    static const std::pair<const char*, const char*> MAP[] = {
        {"\xE2\x80\x98", "'"}, {"\xE2\x80\x99", "'"}, {"\xE2\x80\x9C", "\""},
        {"\xE2\x80\x9D", "\""}, {"\xE2\x80\x93", "-"}, {"\xE2\x80\x94", "-"},
    };
    std::string out;
    for (size_t i = 0; i < text.size();) {
        bool replaced = false;
        for (const auto& [from, to] : MAP) {
            if (text.compare(i, std::strlen(from), from) == 0) {
                out += to;
                i += std::strlen(from);
                replaced = true;
                break;
            }
        }
        if (!replaced) out += text[i++];
    }
    return out;
}

// Printable form of a token for error messages (control and invalid bytes as \xNN).
std::string quoted(const std::string& token) {
    std::string out = "'";
    for (unsigned char c : token) {
        if (c < 0x20 || c == 0x7F) {
            static const char HEX[] = "0123456789abcdef";
            out += "\\x";
            out += HEX[c >> 4];
            out += HEX[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "'";
}

// The first reason tokens[i] cannot be in a vocabulary, or "" (duplicates are checked apart).
std::string token_problem(const std::vector<std::string>& tokens, size_t i) {
    const std::string& t = tokens[i];
    if (i < 4 && t != SPECIAL_TEXT[i])
        return "token " + std::to_string(i) + " must be \"" + SPECIAL_TEXT[i] + "\" but is " + quoted(t);
    if (t.empty()) return "token " + std::to_string(i) + " is empty";
    if (!valid_utf8(t)) return "token " + std::to_string(i) + " " + quoted(t) + " is not valid UTF-8";
    // A single space is the char tokenizer's space; any other whitespace could never be produced.
    if (t != " ") {
        for (unsigned char c : t) {
            if (c <= 0x20 || c == 0x7F)
                return "token " + std::to_string(i) + " " + quoted(t) + " contains whitespace or a control character";
        }
    }
    return "";
}

}  // namespace

Vocabulary::Vocabulary(std::vector<std::string> tokens) : m_tokens(std::move(tokens)) {
    if (m_tokens.size() < 4)
        throw std::invalid_argument("vocabulary has " + std::to_string(m_tokens.size()) +
                                    " tokens; it needs at least the 4 special tokens <pad> <bos> <eos> <unk>");
    if (m_tokens.size() > static_cast<size_t>(INT32_MAX)) throw std::invalid_argument("vocabulary is too large");
    m_ids.reserve(m_tokens.size());
    for (size_t i = 0; i < m_tokens.size(); ++i) {
        if (auto problem = token_problem(m_tokens, i); !problem.empty())
            throw std::invalid_argument("vocabulary: " + problem);
        const auto [it, inserted] = m_ids.emplace(m_tokens[i], static_cast<int>(i));
        if (!inserted)
            throw std::invalid_argument("vocabulary: duplicate token " + quoted(m_tokens[i]) + " (ids " +
                                        std::to_string(it->second) + " and " + std::to_string(i) + ")");
    }
}

const std::string& Vocabulary::token(int id) const {
    if (id < 0 || id >= size())
        throw std::out_of_range("token id " + std::to_string(id) + " is outside the vocabulary (0 .. " +
                                std::to_string(size() - 1) + ")");
    return m_tokens[static_cast<size_t>(id)];
}

int Vocabulary::id(const std::string& token) const {
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? -1 : it->second;
}

// One token per line, taken verbatim except a trailing "\r" (CRLF files) and a UTF-8 byte-order
// mark on the first line. A line holding a single space is the space token of chars.txt, so
// lines are not trimmed; empty lines are refused rather than skipped, since skipping one would
// silently shift every later id.
Vocabulary load_vocabulary(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open vocabulary '" + path + "': " + std::strerror(errno));
    std::vector<std::string> tokens;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (tokens.empty() && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
        tokens.push_back(line);
        const size_t i = tokens.size() - 1;
        const std::string where = path + ":" + std::to_string(i + 1) + ": ";
        if (line.empty()) throw std::runtime_error(where + "empty line (one token per line; a space is ' ')");
        if (auto problem = token_problem(tokens, i); !problem.empty()) throw std::runtime_error(where + problem);
    }
    if (in.bad()) throw std::runtime_error("cannot read vocabulary '" + path + "': " + std::strerror(errno));
    try {
        return Vocabulary(std::move(tokens));
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

Tokenizer::Tokenizer(TokenizerKind kind, Vocabulary vocabulary, SpecialTokens special)
    : m_kind(kind), m_vocabulary(std::move(vocabulary)), m_special(special) {
    if (kind == TokenizerKind::SentencePiece)
        throw std::invalid_argument("tokenizer: a SentencePiece tokenizer is made from its model (Tokenizer::sentencepiece)");
    const int ids[4] = {special.pad, special.bos, special.eos, special.unk};
    for (int i = 0; i < 4; ++i) {
        if (ids[i] < 0 || ids[i] >= m_vocabulary.size() || m_vocabulary.token(ids[i]) != SPECIAL_TEXT[i])
            throw std::invalid_argument(std::string("tokenizer: special id ") + std::to_string(ids[i]) +
                                        " is not the vocabulary's " + SPECIAL_TEXT[i]);
    }
}

std::vector<Token> Tokenizer::tokenize(const std::string& text) const {
    if (m_kind == TokenizerKind::SentencePiece) return tokenize_pieces(text);
    const std::vector<CodePoint> cps = split_code_points(text);
    std::vector<Token> out;
    const auto emit = [&](std::string surface, bool is_space) {
        int id = m_vocabulary.id(surface);
        if (id < 0) id = m_vocabulary.id(ascii_fallback(surface));
        if (id < 0 && is_space) id = m_vocabulary.id(" ");
        const bool unknown = id < 0;
        out.push_back({std::move(surface), unknown ? m_special.unk : id, unknown});
    };
    const auto invalid = [&] { out.push_back({REPLACEMENT_CHARACTER, m_special.unk, true}); };

    if (m_kind == TokenizerKind::Char) {
        for (const auto& cp : cps) {
            if (cp.len == 0) invalid();
            else if (cp.cls != CharClass::Control) emit(text.substr(cp.pos, cp.len), cp.cls == CharClass::Space);
        }
        return out;
    }

    // An apostrophe belongs to a word only between two word characters ("didn't", "o'clock");
    // elsewhere it is a quotation mark and a token of its own.
    const auto is_word = [&](size_t i) { return i < cps.size() && cps[i].len && cps[i].cls == CharClass::Word; };
    for (size_t i = 0; i < cps.size();) {
        const CodePoint& cp = cps[i];
        if (cp.len == 0) {
            invalid();
            ++i;
        } else if (is_word(i)) {
            size_t j = i + 1;
            while (is_word(j) || (j < cps.size() && cps[j].cls == CharClass::Apostrophe && is_word(j + 1))) ++j;
            emit(text.substr(cp.pos, cps[j - 1].pos + cps[j - 1].len - cp.pos), false);
            i = j;
        } else {
            if (cp.cls == CharClass::Punct || cp.cls == CharClass::Apostrophe) emit(text.substr(cp.pos, cp.len), false);
            ++i;
        }
    }
    return out;
}

std::vector<int> Tokenizer::encode(const std::string& text) const {
    std::vector<int> ids;
    for (const Token& t : tokenize(text)) ids.push_back(t.id);
    return ids;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
    if (m_kind == TokenizerKind::SentencePiece) return decode_pieces(ids);
    std::string out;
    bool glue_next = false;   // the previous token was "(": no space after it
    for (int id : ids) {
        // The constructor made sure the special ids hold "<pad>" .. "<unk>", so UNK reads "<unk>".
        const std::string& text = m_vocabulary.token(id);   // throws on a bad id
        if (id == m_special.pad || id == m_special.bos || id == m_special.eos) continue;
        if (m_kind == TokenizerKind::Word) {
            static const char* const CLOSERS[] = {".", ",", "!", "?", ";", ":", ")"};
            bool closer = false;
            for (const char* c : CLOSERS) closer = closer || text == c;
            if (!out.empty() && !closer && !glue_next) out += ' ';
            glue_next = text == "(";
        }
        out += text;
    }
    return out;
}

std::string Tokenizer::display(int id) const {
    const std::string& token = m_vocabulary.token(id);
    if (m_kind == TokenizerKind::Char && token == " ") return VISIBLE_SPACE;
    return token;
}

}  // namespace tx
