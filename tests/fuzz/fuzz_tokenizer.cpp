// libFuzzer target: arbitrary bytes as text for the word and char tokenizers (vocabularies
// from assets/vocab) and a SentencePiece tokenizer (trained at start-up on the example
// sentences). tokenize/encode/decode/display must not throw or crash, every id must be in range,
// text made only of known tokens must survive decode -> encode unchanged, and valid UTF-8 must
// survive SentencePiece's encode -> decode (runs of spaces as one, none at either end).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "text/subword_training.h"
#include "tx/tokenizer.h"

namespace {

const tx::Tokenizer& word_tokenizer() {
    static const tx::Tokenizer t(tx::TokenizerKind::Word, tx::load_vocabulary(TX_SOURCE_DIR "/assets/vocab/words.txt"));
    return t;
}

const tx::Tokenizer& char_tokenizer() {
    static const tx::Tokenizer t(tx::TokenizerKind::Char, tx::load_vocabulary(TX_SOURCE_DIR "/assets/vocab/chars.txt"));
    return t;
}

const tx::Tokenizer& subword_tokenizer() {
    static const tx::Tokenizer t = [] {
        std::vector<std::string> sentences;
        std::ifstream in(TX_SOURCE_DIR "/assets/sentences/examples.txt");
        for (std::string line; std::getline(in, line);) sentences.push_back(line);
        return tx::Tokenizer::sentencepiece(tx::train_sentencepiece(sentences, 400));
    }();
    return t;
}

bool valid_utf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > s.size()) return false;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
        if (len > 1) {   // overlong forms, surrogates and > U+10FFFF are not valid UTF-8
            uint32_t cp = b & (0x7F >> len);
            for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
            if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        }
        i += len;
    }
    return true;
}

// SentencePiece folds runs of spaces into one and drops them at either end.
std::string squeeze_spaces(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void fail(const char* what, const std::string& text) {
    std::fprintf(stderr, "%s (input of %zu bytes)\n", what, text.size());
    std::abort();
}

void check(const tx::Tokenizer& tok, const std::string& text) {
    const auto tokens = tok.tokenize(text);
    const auto ids = tok.encode(text);
    if (ids.size() != tokens.size()) fail("encode and tokenize disagree", text);
    bool any_unknown = false;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const tx::Token& t = tokens[i];
        if (t.id < 0 || t.id >= tok.vocabulary().size()) fail("id out of range", text);
        if (t.id != ids[i]) fail("encode and tokenize disagree", text);
        const bool byte_piece = tok.kind() == tx::TokenizerKind::SentencePiece && t.text.rfind("<0x", 0) == 0;
        if (t.unknown != (t.id == tok.special().unk || byte_piece)) fail("unknown flag and UNK id disagree", text);
        if (t.text.empty()) fail("empty token text", text);
        any_unknown = any_unknown || t.unknown;
        (void)tok.display(t.id);
    }
    const std::string decoded = tok.decode(ids);
    if (tok.kind() == tx::TokenizerKind::SentencePiece) {
        // "▁" (U+2581) is SentencePiece's own mark for a space, so it reads back as one.
        const bool has_mark = text.find("\xE2\x96\x81") != std::string::npos;
        if (valid_utf8(text) && !has_mark && decoded != squeeze_spaces(text)) fail("encode -> decode changed valid UTF-8 text", text);
        return;
    }
    if (!any_unknown && tok.encode(decoded) != ids) fail("decode -> encode changed the ids", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    check(word_tokenizer(), text);
    check(char_tokenizer(), text);
    check(subword_tokenizer(), text);
    return 0;
}
