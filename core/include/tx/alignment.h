// Word alignments read off cross-attention: for each target word, the source word that the
// decoder attends to most, measured against reference links (assets/corpus/en-es/test.align.tsv,
// made from the corpus generator's lexicon). Words are bleu_words() tokens; a word's attention
// is summed over its source pieces and averaged over its target pieces and the heads.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx {

struct AlignmentProbe {
    std::string source, target;
    std::vector<std::pair<int, int>> links;   // (target word, source word), 0-based bleu_words indices
};

// Reads "source<TAB>target<TAB>t-s t-s ..." lines; throws std::runtime_error naming the file and
// line for a malformed one (or a link outside the sentence's words).
std::vector<AlignmentProbe> read_alignment_probes(const std::string& path);

// The bleu_words() word of each piece of `text` (tokens = tokenizer.tokenize(text)): the word that
// holds the piece's first non-space byte; -1 for a piece after the last word.
std::vector<int> piece_words(const std::string& text, const std::vector<Token>& tokens);

// Which decoder row stands for a target piece: the row that produces it (its input is the
// previous piece, BOS for the first), or the row that holds it as input (the heatmap's label).
enum class QueryRow { Producing, Holding };

// Cross-attention between words, [target words][source words], of one decoder layer averaged over
// heads (layer = -1: over every layer too), from a teacher-forced pass of (source, target).
// Leaves the model's batch set to that pair.
std::vector<std::vector<double>> word_cross_attention(Transformer& model, const Tokenizer& tokenizer,
                                                      const std::string& source, const std::string& target,
                                                      int layer, QueryRow rows);

struct AlignmentScore {
    int links = 0;     // reference links scored
    int correct = 0;   // the target word's largest attention is on its reference source word
    double accuracy() const { return links ? static_cast<double>(correct) / links : 0.0; }
};

AlignmentScore score_alignments(Transformer& model, const Tokenizer& tokenizer,
                                const std::vector<AlignmentProbe>& probes, int layer, QueryRow rows);

}  // namespace tx
