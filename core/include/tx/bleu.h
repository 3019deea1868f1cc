// Corpus BLEU (Papineni et al. 2002): clipped n-gram precisions for n = 1..4 summed over the
// corpus, their geometric mean with uniform weights, times a corpus-level brevity penalty. One
// reference per hypothesis. Defined as NLTK 3.8's nltk.translate.bleu_score.corpus_bleu with its
// default arguments (no smoothing); tests/metrics/test_bleu.cpp checks against it.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace tx {

struct BleuDetails {
    double bleu = 0.0;                 // in [0, 1]; callers show x100
    std::array<double, 4> precision{};           // p1..p4 = matches / total (0 where total is 0)
    std::array<long long, 4> matches{};          // clipped n-gram matches, summed over sentences
    std::array<long long, 4> total{};            // hypothesis n-grams, as NLTK counts them (below)
    double brevity_penalty = 0.0;      // 1 if hyp_length > ref_length, 0 if hyp_length == 0, else exp(1 - r/c)
    long long hyp_length = 0;          // c: hypothesis tokens in the corpus
    long long ref_length = 0;          // r: reference tokens in the corpus
};

// NLTK's rules, kept exactly so that scores agree with it to rounding:
// - a sentence adds max(1, its n-gram count) to total[n] (so a hypothesis shorter than n tokens
//   still adds 1 to the denominator of p_n);
// - no unigram match in the whole corpus (all hypotheses empty, or nothing in common): BLEU = 0;
// - an order n with matches but some other order with none: NLTK's method0 uses the smallest
//   positive double for that precision, so BLEU = bp * exp(sum_n log(p_n) / 4) comes out tiny
//   (below 1e-76) rather than exactly 0; we return the same number (it shows as 0.00);
// - an empty corpus returns 0 (NLTK raises ZeroDivisionError).
// Throws std::invalid_argument when the two lists differ in size.
BleuDetails corpus_bleu_details(const std::vector<std::vector<std::string>>& hypotheses,
                                const std::vector<std::vector<std::string>>& references);
// corpus_bleu_details(...).bleu, in [0, 1].
double corpus_bleu(const std::vector<std::vector<std::string>>& hypotheses,
                   const std::vector<std::vector<std::string>>& references);

// The words BLEU compares on a sentence: runs of letters/digits, and single punctuation
// characters, in UTF-8; whitespace (ASCII space, \t \n \v \f \r, and other ASCII control
// characters) separates and is dropped. Every non-ASCII code point counts as a letter except
// the common punctuation ¿ ¡ « » – — ‘ ’ “ ” … (so "¿Dónde está?" -> ¿ Dónde está ?), and an
// invalid UTF-8 byte is kept as part of a word. "didn't" -> didn ' t. Case is kept.
std::vector<std::string> bleu_words(const std::string& text);

}  // namespace tx
