// Corpus BLEU against NLTK's corpus_bleu (tests/fixtures/bleu_cases.json, written by
// tests/gen_bleu_fixtures.py), and the word split used for BLEU.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tx/bleu.h"

namespace {

using Corpus = std::vector<std::vector<std::string>>;

nlohmann::json bleu_cases() {
    const std::string path = std::string(TX_SOURCE_DIR) + "/tests/fixtures/bleu_cases.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
}

TEST(Bleu, MatchesNltkCorpusBleu) {
    const nlohmann::json fixture = bleu_cases();
    ASSERT_GE(fixture["cases"].size(), 10u);
    for (const auto& c : fixture["cases"]) {
        const Corpus hyps = c["hypotheses"].get<Corpus>();
        const Corpus refs = c["references"].get<Corpus>();
        const double want = c["bleu"].get<double>();
        const double got = tx::corpus_bleu(hyps, refs);
        const std::string name = c["name"].get<std::string>();
        EXPECT_NEAR(got, want, 1e-9) << name;
        // NLTK's "zero" for an order without matches is a tiny positive number (bleu.h); matching
        // it relatively shows the rule is the same, not merely that both are near 0.
        if (want > 0.0) {
            EXPECT_NEAR(got / want, 1.0, 1e-9) << name;
        } else {
            EXPECT_EQ(got, 0.0) << name;
        }
        EXPECT_GE(got, 0.0);
        EXPECT_LE(got, 1.0);
    }
}

TEST(Bleu, DetailsOfAPartialMatch) {
    // hyp "the cat sat on a mat ." vs ref "the cat sat on the mat .": 6/7, 4/6, 2/5, 1/4.
    const Corpus hyp = {{"the", "cat", "sat", "on", "a", "mat", "."}};
    const Corpus ref = {{"the", "cat", "sat", "on", "the", "mat", "."}};
    const tx::BleuDetails d = tx::corpus_bleu_details(hyp, ref);
    EXPECT_EQ(d.matches, (std::array<long long, 4>{6, 4, 2, 1}));
    EXPECT_EQ(d.total, (std::array<long long, 4>{7, 6, 5, 4}));
    EXPECT_DOUBLE_EQ(d.precision[0], 6.0 / 7.0);
    EXPECT_DOUBLE_EQ(d.precision[3], 0.25);
    EXPECT_EQ(d.hyp_length, 7);
    EXPECT_EQ(d.ref_length, 7);
    EXPECT_EQ(d.brevity_penalty, 1.0);
    EXPECT_NEAR(d.bleu, std::pow(6.0 / 7 * 4.0 / 6 * 2.0 / 5 * 1.0 / 4, 0.25), 1e-12);
}

TEST(Bleu, BrevityPenaltyShortHypothesesAndEmptyCorpora) {
    const tx::BleuDetails d = tx::corpus_bleu_details({{"a", "b", "c", "d"}}, {{"a", "b", "c", "d", "e", "f", "g", "h"}});
    EXPECT_DOUBLE_EQ(d.brevity_penalty, std::exp(1.0 - 8.0 / 4.0));
    EXPECT_DOUBLE_EQ(d.bleu, std::exp(1.0 - 2.0));
    // A 2-token hypothesis still adds 1 to the 3- and 4-gram totals (NLTK's max(1, count)).
    const tx::BleuDetails two = tx::corpus_bleu_details({{"a", "b"}}, {{"a", "b"}});
    EXPECT_EQ(two.total, (std::array<long long, 4>{2, 1, 1, 1}));
    EXPECT_GT(two.bleu, 0.0);
    EXPECT_LT(two.bleu, 1e-76);
    EXPECT_EQ(tx::corpus_bleu({}, {}), 0.0);
    EXPECT_EQ(tx::corpus_bleu({{}}, {{"a"}}), 0.0);
    EXPECT_EQ(tx::corpus_bleu({{"x", "y"}}, {{"a", "b"}}), 0.0);
    EXPECT_THROW(tx::corpus_bleu({{"a"}}, {}), std::invalid_argument);
}

TEST(Bleu, WordsSplitLettersDigitsAndSinglePunctuation) {
    using W = std::vector<std::string>;
    EXPECT_EQ(tx::bleu_words("¿Dónde está?"), (W{"¿", "Dónde", "está", "?"}));
    EXPECT_EQ(tx::bleu_words("  The cat,\tsat.\n"), (W{"The", "cat", ",", "sat", "."}));
    EXPECT_EQ(tx::bleu_words("didn't"), (W{"didn", "'", "t"}));
    EXPECT_EQ(tx::bleu_words("¡Hola!..."), (W{"¡", "Hola", "!", ".", ".", "."}));
    EXPECT_EQ(tx::bleu_words("«Sí» —dijo… “no” ‘ya’"),
              (W{"«", "Sí", "»", "—", "dijo", "…", "“", "no", "”", "‘", "ya", "’"}));
    EXPECT_EQ(tx::bleu_words("año 2024: naïve café"), (W{"año", "2024", ":", "naïve", "café"}));
    EXPECT_EQ(tx::bleu_words("über-groß"), (W{"über", "-", "groß"}));
    EXPECT_EQ(tx::bleu_words("日本語です。"), (W{"日本語です。"}));   // no CJK segmentation: one run
    EXPECT_TRUE(tx::bleu_words("").empty());
    EXPECT_TRUE(tx::bleu_words(" \t\n ").empty());
    // An invalid byte stays inside its word instead of vanishing.
    EXPECT_EQ(tx::bleu_words("a\xff" "b c"), (W{"a\xff" "b", "c"}));
}

TEST(Bleu, SentencesThroughBleuWords) {
    const Corpus hyp = {tx::bleu_words("¿Dónde está la estación?")};
    const Corpus ref = {tx::bleu_words("¿Dónde está la estación de tren?")};
    const tx::BleuDetails d = tx::corpus_bleu_details(hyp, ref);
    EXPECT_EQ(d.hyp_length, 6);
    EXPECT_EQ(d.ref_length, 8);
    EXPECT_EQ(d.matches, (std::array<long long, 4>{6, 4, 3, 2}));
}

}  // namespace
