// Corpus chrF (Popović 2015) as sacreBLEU 2.x computes it by default (chrF2: CHRF() with
// char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False, eps_smoothing=False).
// One reference per hypothesis. tests/metrics/test_chrf.cpp checks it against tests/gen_chrf_fixtures.py,
// an independent reference written from sacreBLEU's definition. Twin of bleu.h.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace tx {

constexpr int CHRF_CHAR_ORDER = 6;
constexpr double CHRF_BETA = 2.0;

struct ChrfDetails {
    double chrf = 0.0;                              // in [0, 100], as sacreBLEU reports it
    std::array<long long, CHRF_CHAR_ORDER> hyp{};    // hypothesis character n-grams per order, summed
    std::array<long long, CHRF_CHAR_ORDER> ref{};    // reference character n-grams per order, summed
    std::array<long long, CHRF_CHAR_ORDER> match{};  // clipped matches per order, summed
    double precision = 0.0;   // precision averaged over the effective orders (0 when there are none)
    double recall = 0.0;      // recall averaged the same way
    int effective_order = 0;  // orders where both hyp[n] > 0 and ref[n] > 0
};

// sacreBLEU's rules, kept exactly:
// - a sentence's characters are its Unicode code points after every whitespace character (Python's
//   str.split() set) is removed; n-grams run across the former word boundaries;
// - a sentence whose reference has no n-grams of order n adds 0 to hyp[n] for that order (its
//   hypothesis n-grams are not counted: "don't count hits if no reference exists");
// - statistics are summed over the corpus; precision and recall are averaged over the orders where
//   both totals are positive, and chrF = 100 (1 + b^2) P R / (b^2 P + R), 0 when P + R = 0;
// - invalid UTF-8 bytes count as one character each; an empty corpus returns 0.
// Throws std::invalid_argument when the two lists differ in size.
ChrfDetails corpus_chrf_details(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);
// corpus_chrf_details(...).chrf, in [0, 100].
double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace tx
