// Known words: the words a translation model saw in training (the source side of its training
// corpus, found through the checkpoint's training record) and its corpus's test sentences, for the
// Input panel's "never seen in training" flags. Words as SentencePiece sees them: a word begins at
// a "▁" piece (a space in the text); the check compares it without the punctuation around it.
#pragma once
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tx/tokenizer.h"

namespace tx::explain {

struct KnownWords {
    std::string unavailable;                   // why no list could be made ("" when it could)
    std::string corpus;                        // the training file the words come from
    int sentences = 0;                         // training sentences read
    std::vector<std::string> words;            // sorted, each once (word_key form)
    std::unordered_set<std::string> set;
    std::vector<std::string> test_sentences;   // source side of the corpus's test split; may be empty
    std::string test_file;

    bool available() const { return unavailable.empty(); }
    bool knows(const std::string& key) const { return set.count(key) > 0; }
};

// A word without the punctuation around it: "big." -> "big", "¿Will" -> "Will", "didn't" stays.
// Case is kept: the model's pieces are case-sensitive ("▁The" and "▁the" are different pieces).
std::string word_key(const std::string& word);

// One word of a tokenized sentence: its text and the indices of its pieces in the token row.
struct WordPieces {
    std::string text;           // as typed, spaces trimmed
    std::vector<int> pieces;    // indices into the token row, in order
};
// Groups SentencePiece pieces into words (a piece with word_start opens one); `text` is the
// sentence the tokens came from (their byte offsets point into it). Word and char tokens: one
// word per token.
std::vector<WordPieces> group_words(const std::vector<Token>& tokens, const std::string& text);

// The known words of a model from its training record (Session::training_json). resolve_asset maps
// a path inside assets/ ("corpus/en-es/train.tsv") to a file. Reads the corpus once; never throws:
// when the list cannot be determined, `unavailable` says why.
KnownWords load_known_words(const std::string& training_json, TokenizerKind tokenizer,
                            const std::function<std::string(const std::string&)>& resolve_asset);

}  // namespace tx::explain
