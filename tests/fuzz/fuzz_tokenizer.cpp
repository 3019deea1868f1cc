// libFuzzer target: arbitrary bytes as text for the word and char tokenizers (vocabularies
// from assets/vocab). tokenize/encode/decode/display must not throw or crash, every id must be
// in range, and text made only of known tokens must survive decode -> encode unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tokenizer.h"

namespace {

const tx::Tokenizer& word_tokenizer() {
    static const tx::Tokenizer t(tx::TokenizerKind::Word, tx::load_vocabulary(TX_SOURCE_DIR "/assets/vocab/words.txt"));
    return t;
}

const tx::Tokenizer& char_tokenizer() {
    static const tx::Tokenizer t(tx::TokenizerKind::Char, tx::load_vocabulary(TX_SOURCE_DIR "/assets/vocab/chars.txt"));
    return t;
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
        if (t.unknown != (t.id == tok.special().unk)) fail("unknown flag and UNK id disagree", text);
        if (t.text.empty()) fail("empty token text", text);
        any_unknown = any_unknown || t.unknown;
        (void)tok.display(t.id);
    }
    const std::string decoded = tok.decode(ids);
    if (!any_unknown && tok.encode(decoded) != ids) fail("decode -> encode changed the ids", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    check(word_tokenizer(), text);
    check(char_tokenizer(), text);
    return 0;
}
