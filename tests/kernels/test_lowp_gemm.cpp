// The linear product from low-precision weights (core/precision/lowp_weight.h, the kernels of
// core/kernels/gemm_lowp_kernels.h) on every instruction-set path this CPU can run, against a
// reference summed in double here from weights widened by this file's own decoding of the stored
// bits (BF16: the upper half of a float; FP16: IEEE binary16 from its fields; INT8: q · scale).
// Shapes cut the 8-row blocks, the 32-value steps, the 256-column chunks and the vectors (C = 1, 7,
// 31, 33, 100, 257, 300; OC = 1, 3, 9, 17; N = 1, 2, 5), with and without a bias, on 1 and 2 threads.
// Also: what is stored is exactly what the emulation used (round_floats, quantize_int8_rows).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "precision/lowp_weight.h"
#include "support/every_path.h"
#include "support/random_floats.h"
#include "tx/half_float.h"
#include "tx/int8_quantize.h"
#include "tx/ops.h"
#include "tx/threads.h"

namespace {

using tx::Precision;
using tx::test::random_floats;

// IEEE 754 binary16 from its fields: (-1)^s · 2^(e-15) · 1.m, subnormals 2^-14 · 0.m.
double fp16_value(uint16_t h) {
    const int sign = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0) v = std::ldexp(static_cast<double>(m), -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = std::ldexp(1024.0 + m, e - 25);
    return sign ? -v : v;
}

// The stored weight (o, c) as a double, decoded here; INT8 without its scale.
double stored_value(const tx::LowpWeight& w, int64_t i) {
    if (w.format == Precision::Bf16) return std::bit_cast<float>(static_cast<uint32_t>(w.halves[i]) << 16);
    if (w.format == Precision::Fp16) return fp16_value(w.halves[i]);
    return w.q[i];
}

struct Case {
    int N, C, OC;
    bool bias;
};

// out (N,OC) within the bound of an FP32 sum of C+2 terms in any order, products exact (FMAs):
// |got − exact| ≤ γ(C+2) · (scale · Σ|x·w| + |bias|), γ(n) = n·u / (1 − n·u), u = 2^-24 (Higham,
// Accuracy and Stability, §3.1); the +2 is the scale's product and the bias's sum.
void check_product(Precision format, const Case& k, uint64_t seed) {
    SCOPED_TRACE(std::string(tx::to_string(format)) + " N=" + std::to_string(k.N) + " C=" + std::to_string(k.C) +
                 " OC=" + std::to_string(k.OC) + (k.bias ? " with bias" : " no bias"));
    std::vector<float> weight = random_floats(static_cast<size_t>(k.OC) * k.C, seed, -2.0f, 2.0f);
    std::vector<float> x = random_floats(static_cast<size_t>(k.N) * k.C, seed + 1, -1.5f, 1.5f);
    const std::vector<float> bias = random_floats(static_cast<size_t>(k.OC), seed + 2);
    if (format != Precision::Int8) tx::round_floats(x.data(), x.data(), static_cast<int64_t>(x.size()), format);
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), k.C, k.OC, format);
    std::vector<float> out(static_cast<size_t>(k.N) * k.OC, NAN);
    tx::lowp_linear_forward(out.data(), x.data(), w, k.bias ? bias.data() : nullptr, k.N);
    const double u = std::ldexp(1.0, -24), gamma = (k.C + 2) * u / (1 - (k.C + 2) * u);
    for (int n = 0; n < k.N; ++n)
        for (int o = 0; o < k.OC; ++o) {
            double sum = 0, magnitude = 0;
            for (int c = 0; c < k.C; ++c) {
                const double term = static_cast<double>(x[static_cast<size_t>(n) * k.C + c]) *
                                    stored_value(w, static_cast<int64_t>(o) * k.C + c);
                sum += term;
                magnitude += std::fabs(term);
            }
            const double scale = format == Precision::Int8 ? w.scale[static_cast<size_t>(o)] : 1.0;
            const double b = k.bias ? bias[static_cast<size_t>(o)] : 0.0;
            const double exact = sum * scale + b;
            const double bound = gamma * (magnitude * scale + std::fabs(b));
            const float got = out[static_cast<size_t>(n) * k.OC + o];
            ASSERT_LE(std::fabs(got - exact), bound) << "n=" << n << " o=" << o << " got " << got << " exact " << exact;
        }
}

struct ThreadsGuard {
    int threads = tx::cpu_threads();
    ~ThreadsGuard() { tx::set_cpu_threads(threads); }
};

class LowpGemm : public ::testing::TestWithParam<Precision> {};

TEST_P(LowpGemm, MatchesADoubleReferenceOnEveryPath) {
    ThreadsGuard threads;
    tx::test::on_every_path([&] {
        for (int t : {1, 2}) {
            tx::set_cpu_threads(t);
            uint64_t seed = 100;
            for (int N : {1, 2, 5})
                for (int C : {1, 7, 31, 33, 100, 257, 300})
                    for (int OC : {1, 3, 9, 17})
                        for (bool bias : {false, true}) check_product(GetParam(), {N, C, OC, bias}, seed++);
        }
    });
}

// Batch-1 decoding's shapes at the base model's size (d_model 512, d_ff 2048): whole steps only;
// and from 32 rows on, where the weight is widened once for the FP32 GEMM (31 rows: the kernels).
TEST_P(LowpGemm, MatchesAtModelSizesAndManyRows) {
    tx::test::on_every_path([&] {
        check_product(GetParam(), {1, 512, 2048, true}, 7);
        check_product(GetParam(), {1, 2048, 512, true}, 8);
        check_product(GetParam(), {3, 512, 40, false}, 9);
        check_product(GetParam(), {31, 300, 17, true}, 10);
        check_product(GetParam(), {32, 300, 17, true}, 11);
        check_product(GetParam(), {45, 33, 9, false}, 12);
    });
}

// From 32 rows on the product is the FP32 one over the widened weight, bit for bit.
TEST_P(LowpGemm, ManyRowsGiveTheFp32ProductOfTheWidenedWeight) {
    tx::test::on_every_path([&] {
        const int N = 40, C = 70, OC = 13;
        const std::vector<float> weight = random_floats(static_cast<size_t>(OC) * C, 20);
        const std::vector<float> x = random_floats(static_cast<size_t>(N) * C, 21);
        const std::vector<float> bias = random_floats(static_cast<size_t>(OC), 22);
        const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), C, OC, GetParam());
        std::vector<float> wide(weight.size()), got(static_cast<size_t>(N) * OC), ref(got.size());
        tx::widen_lowp_weight(wide.data(), w);
        tx::lowp_linear_forward(got.data(), x.data(), w, bias.data(), N);
        tx::cpu::linear_forward<float>(ref.data(), x.data(), wide.data(), bias.data(), N, C, OC);
        EXPECT_EQ(got, ref);
    });
}

// What the cache stores gives back exactly the emulation's weights: round_floats' values for
// BF16/FP16 (nearest, ties to even), quantize_int8_rows' steps and scales for INT8.
TEST_P(LowpGemm, StoredWeightIsTheEmulationsWeight) {
    const Precision format = GetParam();
    const int C = 37, OC = 11;
    std::vector<float> weight = random_floats(static_cast<size_t>(OC) * C, 5, -3.0f, 3.0f);
    weight[3] = 1.0f + std::ldexp(1.0f, -8);    // a BF16 tie: rounds to even (1.0)
    weight[4] = 1.0f + std::ldexp(1.0f, -11);   // an FP16 tie
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), C, OC, format);
    std::vector<float> wide(weight.size()), expected(weight.size());
    tx::widen_lowp_weight(wide.data(), w);
    if (format == Precision::Int8) {
        std::vector<int8_t> q(weight.size());
        std::vector<float> scale(static_cast<size_t>(OC));
        tx::quantize_int8_rows(q.data(), scale.data(), weight.data(), OC, C);
        EXPECT_EQ(w.q, q);
        EXPECT_EQ(w.scale, scale);
        tx::dequantize_int8_rows(expected.data(), q.data(), scale.data(), OC, C);
        EXPECT_EQ(w.bytes(), weight.size() + OC * sizeof(float));
    } else {
        tx::round_floats(expected.data(), weight.data(), static_cast<int64_t>(weight.size()), format);
        EXPECT_EQ(w.bytes(), weight.size() * sizeof(uint16_t));
        for (size_t i = 0; i < weight.size(); ++i)
            ASSERT_EQ(stored_value(w, static_cast<int64_t>(i)), static_cast<double>(expected[i])) << i;
    }
    for (size_t i = 0; i < weight.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(wide[i]), std::bit_cast<uint32_t>(expected[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(Formats, LowpGemm, ::testing::Values(Precision::Bf16, Precision::Fp16, Precision::Int8),
                         [](const auto& info) { return std::string(tx::to_string(info.param)); });

TEST(LowpGemmErrors, Fp32HasNoStoredForm) {
    const float w[2] = {1.0f, 2.0f};
    EXPECT_THROW(tx::make_lowp_weight(w, 2, 1, Precision::Fp32), std::invalid_argument);
}

}  // namespace
