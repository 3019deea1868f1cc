// Sampling (core/include/tx/sampling.h): the filter against hand-computed distributions (temperature, top-k,
// top-p with its boundary token, ties by id, the order of the three), the inverse-CDF draw, the
// sampler's empirical frequencies against its distribution, and sample_decode on the shipped
// English -> Spanish model: top-k = 1 and a near-zero temperature are greedy, a seed reproduces,
// other seeds and other rows vary. Shapes: V vocabulary, B batch rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/decoding.h"
#include "tx/sampling.h"
#include "tx/tasks.h"
#include "tx/transformer.h"

namespace {

using namespace tx;

constexpr double TOL = 1e-6;   // the inputs are float log-probabilities: ~1e-7 relative

std::vector<float> log_of(const std::vector<double>& probs) {
    std::vector<float> lp;
    for (double p : probs) lp.push_back(p > 0.0 ? static_cast<float>(std::log(p)) : -std::numeric_limits<float>::infinity());
    return lp;
}

SamplingDistribution filter(const std::vector<double>& probs, double temperature, int top_k, double top_p) {
    const std::vector<float> lp = log_of(probs);
    return sampling_distribution(lp.data(), static_cast<int>(lp.size()), {temperature, top_k, top_p, 0});
}

void expect_distribution(const SamplingDistribution& d, const std::vector<double>& expected, const std::string& what) {
    ASSERT_EQ(d.probs.size(), expected.size()) << what;
    int kept = 0;
    double sum = 0.0;
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(d.probs[i], expected[i], TOL) << what << ", token " << i;
        EXPECT_EQ(d.cut[i], expected[i] == 0.0) << what << ", token " << i;
        kept += expected[i] > 0.0 ? 1 : 0;
        sum += d.probs[i];
    }
    EXPECT_EQ(d.kept, kept) << what;
    EXPECT_NEAR(sum, 1.0, 1e-12) << what;
}

// Ranking of this example: id 1 (0.4), then the tie 2, 3 (0.2 each, by id), then the tie 0, 4.
const std::vector<double> FIVE = {0.1, 0.4, 0.2, 0.2, 0.1};

TEST(SamplingDistribution, TemperatureRescalesLogProbabilities) {
    // p^(1/T) renormalised: T = 0.5 squares, 0.25 : 0.09 : 0.04 of 0.38.
    expect_distribution(filter({0.5, 0.3, 0.2}, 0.5, 0, 1.0), {25.0 / 38, 9.0 / 38, 4.0 / 38}, "T = 0.5");
    // T = 2 takes square roots: 0.7071 : 0.5477 : 0.4472 of 1.7020.
    expect_distribution(filter({0.5, 0.3, 0.2}, 2.0, 0, 1.0), {0.415446, 0.321803, 0.262751}, "T = 2");
    expect_distribution(filter({0.5, 0.3, 0.2}, 1.0, 0, 1.0), {0.5, 0.3, 0.2}, "T = 1 is the model's distribution");
    // Unnormalised inputs (logits) give the same distribution: only differences matter.
    const std::vector<float> logits = {3.0f, 1.0f, 1.0f + static_cast<float>(std::log(2.0))};
    const SamplingDistribution d = sampling_distribution(logits.data(), 3, {});
    const double z = std::exp(3.0) + std::exp(1.0) + 2 * std::exp(1.0);
    expect_distribution(d, {std::exp(3.0) / z, std::exp(1.0) / z, 2 * std::exp(1.0) / z}, "logits");
}

TEST(SamplingDistribution, TopKKeepsTheKMostProbableWithTiesByID) {
    expect_distribution(filter(FIVE, 1.0, 1, 1.0), {0, 1, 0, 0, 0}, "k = 1");
    // The tie 2, 3 at the boundary: the smaller id stays.
    expect_distribution(filter(FIVE, 1.0, 2, 1.0), {0, 2.0 / 3, 1.0 / 3, 0, 0}, "k = 2");
    expect_distribution(filter(FIVE, 1.0, 3, 1.0), {0, 0.5, 0.25, 0.25, 0}, "k = 3");
    expect_distribution(filter(FIVE, 1.0, 4, 1.0), {1.0 / 9, 4.0 / 9, 2.0 / 9, 2.0 / 9, 0}, "k = 4");
    expect_distribution(filter(FIVE, 1.0, 5, 1.0), FIVE, "k = V cuts nothing");
    expect_distribution(filter(FIVE, 1.0, 50, 1.0), FIVE, "k > V cuts nothing");
    expect_distribution(filter(FIVE, 1.0, 0, 1.0), FIVE, "k = 0 is off");
}

TEST(SamplingDistribution, TopPKeepsTheSmallestSetThatReachesP) {
    expect_distribution(filter(FIVE, 1.0, 0, 0.35), {0, 1, 0, 0, 0}, "p = 0.35: 0.4 alone reaches it");
    // 0.4 does not reach 0.5; id 2 crosses it (mass 0.6) and stays: the boundary token is kept.
    expect_distribution(filter(FIVE, 1.0, 0, 0.5), {0, 2.0 / 3, 1.0 / 3, 0, 0}, "p = 0.5");
    expect_distribution(filter(FIVE, 1.0, 0, 0.65), {0, 0.5, 0.25, 0.25, 0}, "p = 0.65");
    // Mass 0.8 before the tie 0, 4: id 0 crosses 0.85, id 4 is cut (ties by id).
    expect_distribution(filter(FIVE, 1.0, 0, 0.85), {1.0 / 9, 4.0 / 9, 2.0 / 9, 2.0 / 9, 0}, "p = 0.85");
    expect_distribution(filter(FIVE, 1.0, 0, 0.95), FIVE, "p = 0.95 needs every token");
    expect_distribution(filter(FIVE, 1.0, 0, 1.0), FIVE, "p = 1 is off");
    expect_distribution(filter(FIVE, 1.0, 0, 1e-9), {0, 1, 0, 0, 0}, "a tiny p keeps the most probable token");
}

TEST(SamplingDistribution, TemperatureThenTopKThenTopP) {
    // Top-p over the top-k survivors renormalised (0.5, 0.25, 0.25): 0.5 + 0.25 reaches 0.7.
    // Over the raw probabilities 0.4 + 0.2 = 0.6 would not, and id 3 would stay.
    expect_distribution(filter(FIVE, 1.0, 3, 0.7), {0, 2.0 / 3, 1.0 / 3, 0, 0}, "k = 3, p = 0.7");
    // T = 0.5 first: 0.01 : 0.16 : 0.04 : 0.04 : 0.01 of 0.26, so id 1 has 0.615 and id 2 crosses
    // 0.7. Before the temperature the same p would keep id 3 as well.
    expect_distribution(filter(FIVE, 0.5, 0, 0.7), {0, 0.8, 0.2, 0, 0}, "T = 0.5, p = 0.7");
    expect_distribution(filter(FIVE, 0.5, 4, 1.0), {1.0 / 25, 16.0 / 25, 4.0 / 25, 4.0 / 25, 0}, "T = 0.5, k = 4");
}

TEST(SamplingDistribution, NegativeInfinityIsNeverKeptAndBadRowsThrow) {
    // Without a cut the -inf token stays in, with probability 0 (cut reports top-k and top-p only).
    const SamplingDistribution all = filter({0.0, 0.75, 0.25}, 1.0, 0, 1.0);
    EXPECT_EQ(all.probs[0], 0.0);
    EXPECT_NEAR(all.probs[1], 0.75, TOL);
    EXPECT_EQ(all.cut, std::vector<bool>(3, false));
    EXPECT_EQ(all.kept, 3);
    expect_distribution(filter({0.0, 0.75, 0.25}, 1.0, 2, 1.0), {0, 0.75, 0.25}, "k = 2 keeps the finite two");
    const float inf = std::numeric_limits<float>::infinity();
    for (const std::vector<float>& row : {std::vector<float>{-inf, -inf}, std::vector<float>{0.0f, std::nanf("")},
                                          std::vector<float>{0.0f, inf}})
        EXPECT_THROW(sampling_distribution(row.data(), 2, {}), std::invalid_argument);
    EXPECT_THROW(sampling_distribution(nullptr, 0, {}), std::invalid_argument);
}

TEST(SamplingDistribution, SumsToOneOnTheShippedModelsScale) {
    // A V = 2000 row with a long tail, under settings that cut in every way.
    std::vector<float> row(2000);
    for (size_t i = 0; i < row.size(); ++i) row[i] = -0.01f * static_cast<float>((i * 7919) % 2000);
    for (const SamplingOptions& o : {SamplingOptions{1.0, 0, 1.0, 0}, SamplingOptions{0.7, 40, 1.0, 0},
                                     SamplingOptions{1.5, 0, 0.9, 0}, SamplingOptions{1e-4, 0, 1.0, 0},
                                     SamplingOptions{3.0, 100, 0.5, 0}}) {
        const SamplingDistribution d = sampling_distribution(row.data(), 2000, o);
        double sum = 0.0;
        int kept = 0;
        for (size_t i = 0; i < row.size(); ++i) {
            sum += d.probs[i];
            kept += d.cut[i] ? 0 : 1;
            if (d.cut[i]) {
                EXPECT_EQ(d.probs[i], 0.0);
            }
        }
        EXPECT_NEAR(sum, 1.0, 1e-12) << "T " << o.temperature << " k " << o.top_k << " p " << o.top_p;
        EXPECT_EQ(d.kept, kept);
        if (o.top_k > 0) {
            EXPECT_LE(kept, o.top_k);
        }
    }
}

TEST(Sampling, DrawTokenInvertsTheCumulativeDistribution) {
    const std::vector<double> probs = {0.25, 0.0, 0.75};
    EXPECT_EQ(draw_token(probs, 0.0), 0);
    EXPECT_EQ(draw_token(probs, 0.2499), 0);
    EXPECT_EQ(draw_token(probs, 0.25), 2);
    EXPECT_EQ(draw_token(probs, 0.9999999), 2);
    // A sum short of 1 by rounding: the remainder goes to the last possible token, never to a 0.
    EXPECT_EQ(draw_token({0.5, 0.4999999, 0.0}, 0.99999999), 1);
    EXPECT_THROW(draw_token({0.0, 0.0}, 0.5), std::invalid_argument);
}

TEST(Sampling, EmpiricalFrequenciesMatchTheDistribution) {
    // Pearson's chi-square over N draws. With the 6 kept tokens (5 degrees of freedom) the
    // statistic exceeds 25.7 with probability 1e-4 for a correct sampler; the seed is fixed, so
    // the test is deterministic, and a biased draw (an off-by-one in the CDF, a cut token drawn,
    // the filtered distribution ignored) gives a statistic in the hundreds or thousands.
    const std::vector<float> lp = log_of({0.04, 0.1, 0.16, 0.3, 0.05, 0.2, 0.15});
    const SamplingOptions options{0.8, 6, 1.0, 12345};
    const SamplingDistribution d = sampling_distribution(lp.data(), 7, options);
    ASSERT_TRUE(d.cut[0]);   // the least probable, 0.04, is cut by k = 6
    constexpr int N = 50000;
    std::vector<int> count(7, 0);
    Rng rng(sampling_stream(options.seed, 0));
    for (int n = 0; n < N; ++n) ++count[draw_token(d.probs, rng.uniform01())];
    EXPECT_EQ(count[0], 0);
    double chi2 = 0.0;
    for (int i = 1; i < 7; ++i) {
        const double expected = N * d.probs[i];
        chi2 += (count[i] - expected) * (count[i] - expected) / expected;
    }
    EXPECT_LT(chi2, 25.7) << "counts " << count[1] << " " << count[2] << " " << count[3] << " " << count[4] << " "
                          << count[5] << " " << count[6];
}

TEST(Sampling, InvalidOptionsThrowWithTheReason) {
    const auto message = [](SamplingOptions o) {
        try {
            validate(o);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(message({0.0, 0, 1.0, 0}), "temperature must be a finite number > 0, got 0");
    EXPECT_EQ(message({-1.0, 0, 1.0, 0}), "temperature must be a finite number > 0, got -1");
    EXPECT_NE(message({nan, 0, 1.0, 0}).find("temperature must be"), std::string::npos);
    EXPECT_NE(message({inf, 0, 1.0, 0}).find("temperature must be"), std::string::npos);
    EXPECT_EQ(message({1.0, -1, 1.0, 0}), "top-k must be >= 0 (0 = off), got -1");
    EXPECT_EQ(message({1.0, 0, 0.0, 0}), "top-p must be in (0, 1] (1 = off), got 0");
    EXPECT_EQ(message({1.0, 0, 1.5, 0}), "top-p must be in (0, 1] (1 = off), got 1.5");
    EXPECT_NE(message({1.0, 0, nan, 0}).find("top-p must be"), std::string::npos);
    EXPECT_EQ(message({1e-4, 3, 0.9, 7}), "no exception");
    const std::vector<float> row = {0.0f, -1.0f};
    EXPECT_THROW(sampling_distribution(row.data(), 2, {1.0, 0, 2.0, 0}), std::invalid_argument);
}

// The shipped English -> Spanish model (V = 2000), as test_incremental_decoding.cpp loads it.
class SampledShippedModel : public ::testing::Test {
protected:
    void SetUp() override {
        checkpoint = load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors");
        model = std::make_unique<Transformer>(checkpoint.config, *backend);
        model->set_parameters(checkpoint.parameters);
        tokenizer = std::make_unique<Tokenizer>(make_tokenizer(checkpoint));
        for (const char* text : {"The small white dogs will not sleep in the old house.", "I eat bread.",
                                 "My brother reads a long book every night.", "The girl wants to drink cold water."})
            src.push_back(encode(text));
    }
    std::vector<int> encode(const std::string& text) const {
        std::vector<int> row = tokenizer->encode(text);
        row.push_back(checkpoint.config.special.eos);
        return row;
    }
    static constexpr int LIMIT = 40;
    std::unique_ptr<Backend> backend = make_cpu_backend();
    Checkpoint checkpoint;
    std::unique_ptr<Transformer> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::vector<std::vector<int>> src;
};

TEST_F(SampledShippedModel, TopKOneAndNearZeroTemperatureAreGreedy) {
    const auto greedy = greedy_decode(*model, src, LIMIT);
    for (uint64_t seed : {0u, 1u, 99u}) {
        // One token left: whatever the temperature, top-p and draw, it is the argmax.
        EXPECT_EQ(sample_decode(*model, src, LIMIT, {1.5, 1, 0.9, seed}), greedy) << "top-k 1, seed " << seed;
        // T = 1e-4 multiplies every log-probability gap by 10^4: the runner-up keeps exp(-10^4 gap).
        EXPECT_EQ(sample_decode(*model, src, LIMIT, {1e-4, 0, 1.0, seed}), greedy) << "T = 1e-4, seed " << seed;
    }
}

TEST_F(SampledShippedModel, SameSeedSameOutputOtherSeedsDiffer) {
    const SamplingOptions base{1.5, 0, 1.0, 42};
    const auto first = sample_decode(*model, src, LIMIT, base);
    EXPECT_EQ(sample_decode(*model, src, LIMIT, base), first);
    const std::vector<std::vector<int>> greedy = greedy_decode(*model, src, LIMIT);
    EXPECT_NE(first, greedy) << "T = 1.5 sampled exactly the greedy output of every sentence";
    int differing = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        SamplingOptions o = base;
        o.seed = seed;
        const auto out = sample_decode(*model, src, LIMIT, o);
        ASSERT_EQ(out.size(), src.size());
        for (size_t b = 0; b < out.size(); ++b) {
            EXPECT_LE(out[b].size(), static_cast<size_t>(LIMIT));
            for (int id : out[b]) {
                EXPECT_GE(id, 0);
                EXPECT_LT(id, checkpoint.config.tgt_vocab);
                EXPECT_NE(id, checkpoint.config.special.eos);
            }
        }
        differing += out != first ? 1 : 0;
    }
    EXPECT_GE(differing, 6) << "of 8 other seeds, only " << differing << " changed the output";
}

TEST_F(SampledShippedModel, EachRowHasItsOwnStream) {
    // The same sentence in every row: with one stream shared or a row-independent seed, all rows
    // would agree under every seed.
    const std::vector<std::vector<int>> same(4, encode("My brother reads a long book every night."));
    int seeds_with_different_rows = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        const auto out = sample_decode(*model, same, LIMIT, {1.5, 0, 1.0, seed});
        bool differ = false;
        for (size_t b = 1; b < out.size(); ++b) differ = differ || out[b] != out[0];
        seeds_with_different_rows += differ ? 1 : 0;
    }
    EXPECT_GE(seeds_with_different_rows, 3);
}

TEST_F(SampledShippedModel, CachedAndFullPathsDrawTheSameTokens) {
    const SamplingOptions o{1.2, 50, 0.95, 5};
    const auto cached = sample_decode(*model, src, LIMIT, o);
    model->options().kv_cache = false;
    EXPECT_EQ(sample_decode(*model, src, LIMIT, o), cached);
}

TEST_F(SampledShippedModel, InvalidOptionsThrowBeforeDecoding) {
    EXPECT_THROW(sample_decode(*model, src, LIMIT, {0.0, 0, 1.0, 0}), std::invalid_argument);
    EXPECT_THROW(sample_decode(*model, src, LIMIT, {1.0, -2, 1.0, 0}), std::invalid_argument);
    EXPECT_THROW(sample_decode(*model, src, LIMIT, {1.0, 0, 0.0, 0}), std::invalid_argument);
}

}  // namespace
