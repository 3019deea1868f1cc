// T5's relative position bias (core/ops/ops_relative_bias.cpp): the buckets against T5's reference
// code transliterated here and against values worked out by hand, the forward against the table
// read through those buckets, the backward against central finite differences in double and the
// += rule. Shapes: scores and out (B,H,T,S), table (RELATIVE_BUCKETS, H). No CUDA twin: the CUDA
// backend refuses the variant (core/model/transformer.cpp, check_backend).
#include "tx/ops.h"

#include "support/compare.h"
#include "support/finite_differences.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace tx::relative_bias_test {
namespace {

using namespace tx::test;
using tx::cpu::RELATIVE_BUCKETS;
using tx::cpu::RELATIVE_MAX_DISTANCE;

// T5's _relative_position_bucket (Hugging Face transformers, modeling_t5.py; Mesh TensorFlow's
// before it), transliterated for one relative_position = key − query, in double.
int t5_reference_bucket(int relative_position, bool bidirectional, int num_buckets = 32, int max_distance = 128) {
    int relative_buckets = 0;
    if (bidirectional) {
        num_buckets /= 2;
        relative_buckets += relative_position > 0 ? num_buckets : 0;
        relative_position = std::abs(relative_position);
    } else {
        relative_position = -std::min(relative_position, 0);
    }
    const int max_exact = num_buckets / 2;
    const bool is_small = relative_position < max_exact;
    int if_large = max_exact + static_cast<int>(std::log(static_cast<double>(relative_position) / max_exact) /
                                                std::log(static_cast<double>(max_distance) / max_exact) *
                                                (num_buckets - max_exact));
    if_large = std::min(if_large, num_buckets - 1);
    return relative_buckets + (is_small ? relative_position : if_large);
}

TEST(RelativeBias, BucketsAreT5s) {
    EXPECT_EQ(RELATIVE_BUCKETS, 32);
    EXPECT_EQ(RELATIVE_MAX_DISTANCE, 128);
    // Worked by hand: bidirectional, 16 buckets a side, exact below 8, log-spaced to 128.
    struct Case {
        int query, key;
        bool bidirectional;
        int bucket;
    };
    const Case cases[] = {
        {5, 5, true, 0},   {5, 4, true, 1},     {9, 2, true, 7},    {10, 2, true, 8},   // 8 back: first log bucket
        {14, 2, true, 9},  // 12 back: 8 + ⌊log(1.5)/log(16)·8⌋ = 8 + ⌊1.17⌋
        {130, 2, true, 15}, {300, 0, true, 15},                                         // beyond 128: the last bucket
        {2, 3, true, 17},  {2, 9, true, 23},    {0, 200, true, 31},                     // keys after the query: 16 + …
        {3, 9, false, 0},  {9, 9, false, 0},    {24, 9, false, 15}, {25, 9, false, 16}, // causal: 32 buckets, exact below 16
        {200, 0, false, 31},
    };
    for (const Case& c : cases)
        EXPECT_EQ(tx::cpu::relative_bucket(c.query, c.key, c.bidirectional), c.bucket)
            << "query " << c.query << ", key " << c.key << (c.bidirectional ? ", bidirectional" : ", causal");
    for (bool bidirectional : {true, false})
        for (int offset = -400; offset <= 400; ++offset)
            ASSERT_EQ(tx::cpu::relative_bucket(1000, 1000 + offset, bidirectional), t5_reference_bucket(offset, bidirectional))
                << "offset " << offset << (bidirectional ? ", bidirectional" : ", causal");
}

// The forward written out: scores + table[bucket, h], the bucket from the reference above.
Vec reference_forward(const Vec& scores, const Vec& table, int B, int H, int T, int S, int q0, bool bidirectional) {
    Vec out(scores.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    const size_t i = ((static_cast<size_t>(b) * H + h) * T + t) * S + s;
                    out[i] = scores[i] + table[static_cast<size_t>(t5_reference_bucket(s - (q0 + t), bidirectional)) * H + h];
                }
    return out;
}

TEST(RelativeBias, ForwardAddsTheTableThroughTheBuckets) {
    for (auto [B, H, T, S, q0, bidirectional] :
         {std::tuple{1, 1, 1, 1, 0, true}, {2, 4, 5, 5, 0, true}, {2, 3, 6, 40, 0, true}, {1, 2, 1, 30, 29, false},
          {2, 4, 20, 20, 0, false}, {1, 8, 3, 150, 140, false}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " q0=" << q0
                                        << (bidirectional ? " bidirectional" : " causal"));
        Vec scores = random_vec(static_cast<size_t>(B) * H * T * S, 150 + H);
        const Vec table = random_vec(static_cast<size_t>(RELATIVE_BUCKETS) * H, 160 + H);
        scores[0] = -std::numeric_limits<double>::infinity();   // a masked entry stays masked
        const Vec ref = reference_forward(scores, table, B, H, T, S, q0, bidirectional);
        Vec out(scores.size(), std::nan(""));
        tx::cpu::relative_bias_forward(out.data(), scores.data(), table.data(), B, H, T, S, q0, bidirectional);
        EXPECT_TRUE(close(out, ref, 1e-14, 1e-14));
        EXPECT_EQ(out[0], -std::numeric_limits<double>::infinity());
        const std::vector<float> sf = to_float(scores), tf = to_float(table);
        std::vector<float> of(sf.size(), NAN);
        tx::cpu::relative_bias_forward(of.data(), sf.data(), tf.data(), B, H, T, S, q0, bidirectional);
        EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
        Vec inplace = scores;
        tx::cpu::relative_bias_forward(inplace.data(), inplace.data(), table.data(), B, H, T, S, q0, bidirectional);
        EXPECT_TRUE(close(inplace, ref, 1e-14, 1e-14));
    }
}

TEST(Backward, RelativeBias) {
    for (bool bidirectional : {true, false}) {
        SCOPED_TRACE(bidirectional ? "bidirectional" : "causal");
        const int B = 2, H = 3, T = 4, S = 30, q0 = 2;
        const Vec scores = random_vec(static_cast<size_t>(B) * H * T * S, 170);
        Vec table = random_vec(static_cast<size_t>(RELATIVE_BUCKETS) * H, 171);
        const Vec g = random_vec(scores.size(), 172);
        Vec out(scores.size());
        auto forward = [&] {
            tx::cpu::relative_bias_forward(out.data(), scores.data(), table.data(), B, H, T, S, q0, bidirectional);
            return out;
        };
        Vec dtable(table.size(), 0.0);
        tx::cpu::relative_bias_backward(dtable.data(), g.data(), B, H, T, S, q0, bidirectional);
        EXPECT_TRUE(gradients_match(dtable, numeric_grad(table, g, forward)));
        check_accumulates({table.size()}, [&](std::vector<Vec>& d) {
            tx::cpu::relative_bias_backward(d[0].data(), g.data(), B, H, T, S, q0, bidirectional);
        });
    }
}

}  // namespace
}  // namespace tx::relative_bias_test
