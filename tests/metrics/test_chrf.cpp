// Corpus chrF against an independent Python reference of sacreBLEU's definition
// (tests/fixtures/chrf_cases.json, written by tests/gen_chrf_fixtures.py), and small cases by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tx/chrf.h"

namespace {

using Lines = std::vector<std::string>;

nlohmann::json chrf_cases() {
    const std::string path = std::string(TX_SOURCE_DIR) + "/tests/fixtures/chrf_cases.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
}

TEST(Chrf, MatchesPythonReferenceOfSacrebleu) {
    const nlohmann::json fixture = chrf_cases();
    ASSERT_GE(fixture["cases"].size(), 15u);
    for (const auto& c : fixture["cases"]) {
        const std::string name = c["name"].get<std::string>();
        const tx::ChrfDetails d = tx::corpus_chrf_details(c["hypotheses"].get<Lines>(), c["references"].get<Lines>());
        // The counts are integers and must agree exactly; the score is the same few double operations
        // in the same order, so 1e-9 on a 0..100 scale only allows for printing and parsing.
        for (int n = 0; n < tx::CHRF_CHAR_ORDER; ++n) {
            EXPECT_EQ(d.hyp[n], c["hyp"][n].get<long long>()) << name << ", order " << n + 1;
            EXPECT_EQ(d.ref[n], c["ref"][n].get<long long>()) << name << ", order " << n + 1;
            EXPECT_EQ(d.match[n], c["match"][n].get<long long>()) << name << ", order " << n + 1;
        }
        EXPECT_NEAR(d.chrf, c["chrf"].get<double>(), 1e-9) << name;
        EXPECT_GE(d.chrf, 0.0) << name;
        EXPECT_LE(d.chrf, 100.0) << name;
    }
}

TEST(Chrf, DocumentedExample) {
    // sacreBLEU's (and Hugging Face's chrF card's) example sentence pair: 61.576379378113785.
    const double got = tx::corpus_chrf({"The relationship between Obama and Netanyahu is not exactly friendly."},
                                       {"The ties between Obama and Netanyahu are not particularly friendly."});
    EXPECT_NEAR(got, 61.576379378113785, 1e-9);
}

TEST(Chrf, IdenticalDisjointAndEmpty) {
    EXPECT_DOUBLE_EQ(tx::corpus_chrf({"¿Dónde está la estación de tren?"}, {"¿Dónde está la estación de tren?"}), 100.0);
    // Whitespace is removed before counting, so only the spaces differ here.
    EXPECT_DOUBLE_EQ(tx::corpus_chrf({" ¿Dónde  está\tla estación de tren ? "}, {"¿Dónde está la estación de tren?"}), 100.0);
    EXPECT_EQ(tx::corpus_chrf({"xyz"}, {"abc"}), 0.0);
    EXPECT_EQ(tx::corpus_chrf({""}, {"El gato."}), 0.0);
    EXPECT_EQ(tx::corpus_chrf({"El gato."}, {""}), 0.0);
    EXPECT_EQ(tx::corpus_chrf({}, {}), 0.0);
    EXPECT_LT(tx::corpus_chrf({"Gato"}, {"gato"}), 100.0);   // case is kept
    EXPECT_THROW(tx::corpus_chrf({"a"}, {}), std::invalid_argument);
}

TEST(Chrf, HandCheckedCounts) {
    // hyp "abcd" against ref "abce": order 1: 4 hyp, 4 ref, 3 match; order 2: 3, 3, 2 (ab bc);
    // order 3: 2, 2, 1 (abc); order 4: 1, 1, 0; orders 5 and 6 have no n-grams on either side.
    const tx::ChrfDetails d = tx::corpus_chrf_details({"ab cd"}, {"abce"});
    EXPECT_EQ(d.hyp, (std::array<long long, 6>{4, 3, 2, 1, 0, 0}));
    EXPECT_EQ(d.ref, (std::array<long long, 6>{4, 3, 2, 1, 0, 0}));
    EXPECT_EQ(d.match, (std::array<long long, 6>{3, 2, 1, 0, 0, 0}));
    EXPECT_EQ(d.effective_order, 4);
    const double p = (3.0 / 4 + 2.0 / 3 + 1.0 / 2 + 0.0) / 4;   // here recall = precision
    EXPECT_DOUBLE_EQ(d.precision, p);
    EXPECT_DOUBLE_EQ(d.recall, p);
    EXPECT_NEAR(d.chrf, 100.0 * p, 1e-12);   // F-beta of equal P and R is P
}

TEST(Chrf, ReferenceWithoutNgramsOfAnOrderCountsNoHypothesisNgrams) {
    // Reference "Sí." has 3 characters: no 4-, 5- or 6-grams, so the hypothesis's are not counted.
    const tx::ChrfDetails d = tx::corpus_chrf_details({"Sí, claro."}, {"Sí."});
    EXPECT_EQ(d.hyp, (std::array<long long, 6>{9, 8, 7, 0, 0, 0}));
    EXPECT_EQ(d.ref, (std::array<long long, 6>{3, 2, 1, 0, 0, 0}));
    EXPECT_EQ(d.effective_order, 3);
}

TEST(Chrf, CountsCodePointsNotBytes) {
    // "sofá" is 4 characters (5 bytes); "más" against "mas" shares only m and s (á is not a).
    const tx::ChrfDetails d = tx::corpus_chrf_details({"sofá"}, {"sofá"});
    EXPECT_EQ(d.hyp[0], 4);
    EXPECT_EQ(d.hyp[3], 1);
    const tx::ChrfDetails accent = tx::corpus_chrf_details({"más"}, {"mas"});
    EXPECT_EQ(accent.match[0], 2);
    EXPECT_EQ(accent.match[1], 0);
    // A no-break space is whitespace to Python's str.split(), so it is removed too.
    EXPECT_DOUBLE_EQ(tx::corpus_chrf({"El\u00a0gato"}, {"El gato"}), 100.0);
}

}  // namespace
