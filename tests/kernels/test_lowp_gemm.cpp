// The linear product from low-precision weights (core/precision/lowp_weight.h, the kernels of
// core/kernels/gemm_lowp_kernels.h) on every instruction-set path this CPU can run, against a
// reference summed in double here from weights widened by this file's own decoding of the stored
// bits (BF16: the upper half of a float; FP16: IEEE binary16 from its fields; INT8: q · scale).
// Shapes cut the 8-row blocks, the 32-value steps, the 256-column chunks and the vectors (C = 1, 7,
// 31, 33, 100, 257, 300; OC = 1, 3, 9, 17; N = 1, 2, 5), with and without a bias, on 1 and 2 threads.
// Also: what is stored is exactly what the emulation used (round_floats, quantize_int8_rows).
// BF16 runs on every BF16 product path as well (cpu_isa.h's Bf16Path: FP32 FMAs on the widened
// weight, and vdpbf16ps over the pair layout where the CPU has AVX512_BF16); the vdpbf16ps kernel
// has tests of its own at the end, which skip on CPUs without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "precision/lowp_weight.h"
#include "support/every_path.h"
#include "support/random_floats.h"
#include "tx/cpu_isa.h"
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

// Where weight (o, c) lies in the BF16 pair layout, written from its description in
// core/kernels/gemm_bf16_kernels.h: blocks of 16 rows from 16b·Cp on, pairs of C inside them.
int64_t pair_layout_index(int o, int c, int C, int OC) {
    const int64_t Cp = C % 2 ? C + 1 : C;
    const int b = o / 16, r = std::min(16, OC - 16 * b);
    return 16 * b * Cp + (static_cast<int64_t>(c / 2) * r + o % 16) * 2 + c % 2;
}

// The stored weight i = o·C + c as a double, decoded here; INT8 without its scale.
double stored_value(const tx::LowpWeight& w, int64_t i) {
    if (w.format == Precision::Bf16) {
        const int64_t at = w.pairs ? pair_layout_index(static_cast<int>(i / w.C), static_cast<int>(i % w.C), w.C, w.OC) : i;
        return std::bit_cast<float>(static_cast<uint32_t>(w.halves[static_cast<size_t>(at)]) << 16);
    }
    if (w.format == Precision::Fp16) return fp16_value(w.halves[i]);
    return w.q[i];
}

struct Case {
    int N, C, OC;
    bool bias;
};

// out (N,OC) = x · wᵀ + bias against a double reference from the stored bits, within the bound of
// an FP32 sum of C+2 terms in any order, products exact:
//   |got − exact| ≤ γ(C+2) · (scale · Σ|x·w| + |bias|) + flush,
// γ(n) = n·u / (1 − n·u), u = 2^-24 (Higham, Accuracy and Stability, §3.1, §4.2: any summation
// tree over n terms whose height is at most n − 1); the +2 is the scale's product and the bias's sum.
// FMAs (the widened path) add one exact product at a time. vdpbf16ps adds a pair's two exact
// products (8-bit significands: 16-bit products, exact in FP32) to its lane's sum, by Intel's
// definition one after the other, each rounded to nearest even (a fused three-term add would round
// less); the kernel's sum is then the lane's sequence of pairs, the even and odd pairs' lanes added,
// and the bias: a tree over C + 1 terms of height at most C + 1, inside the same γ(C+2). What is
// new is `flush`: vdpbf16ps ignores MXCSR and reads subnormal BF16 inputs as 0 (an error below
// 2^-126 · |the other factor|) and flushes a subnormal product or sum to 0 (below 2^-126 each, at
// most 2C + 2 of them), so on that path flush = 2^-126 · (Σ_c (|x_c| + |w_c|) + 2C + 2); 0 elsewhere.
void check_product(Precision format, const Case& k, uint64_t seed, float low = -1.5f, float high = 1.5f) {
    SCOPED_TRACE(std::string(tx::to_string(format)) + " N=" + std::to_string(k.N) + " C=" + std::to_string(k.C) +
                 " OC=" + std::to_string(k.OC) + (k.bias ? " with bias" : " no bias"));
    std::vector<float> weight = random_floats(static_cast<size_t>(k.OC) * k.C, seed, -2.0f, 2.0f);
    std::vector<float> x = random_floats(static_cast<size_t>(k.N) * k.C, seed + 1, low, high);
    const std::vector<float> bias = random_floats(static_cast<size_t>(k.OC), seed + 2);
    if (format != Precision::Int8) tx::round_floats(x.data(), x.data(), static_cast<int64_t>(x.size()), format);
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), k.C, k.OC, format);
    std::vector<float> out(static_cast<size_t>(k.N) * k.OC, NAN);
    tx::lowp_linear_forward(out.data(), x.data(), w, k.bias ? bias.data() : nullptr, k.N);
    const double u = std::ldexp(1.0, -24), gamma = (k.C + 2) * u / (1 - (k.C + 2) * u);
    const double tiny = w.pairs ? std::ldexp(1.0, -126) : 0.0;   // vdpbf16ps's flush to 0
    for (int n = 0; n < k.N; ++n)
        for (int o = 0; o < k.OC; ++o) {
            double sum = 0, magnitude = 0, factors = 0;
            for (int c = 0; c < k.C; ++c) {
                const double xv = x[static_cast<size_t>(n) * k.C + c];
                const double wv = stored_value(w, static_cast<int64_t>(o) * k.C + c);
                sum += xv * wv;
                magnitude += std::fabs(xv * wv);
                factors += std::fabs(xv) + std::fabs(wv);
            }
            const double scale = format == Precision::Int8 ? w.scale[static_cast<size_t>(o)] : 1.0;
            const double b = k.bias ? bias[static_cast<size_t>(o)] : 0.0;
            const double exact = sum * scale + b;
            const double bound = gamma * (magnitude * scale + std::fabs(b)) + tiny * (factors + 2.0 * k.C + 2.0);
            const float got = out[static_cast<size_t>(n) * k.OC + o];
            ASSERT_LE(std::fabs(got - exact), bound) << "n=" << n << " o=" << o << " got " << got << " exact " << exact;
        }
}

// Runs body on every instruction-set path and, for BF16, on every BF16 product path of each.
template <typename Body>
void on_every_product_path(Precision format, Body body) {
    tx::test::on_every_path([&] {
        if (format == Precision::Bf16) tx::test::on_every_bf16_path(body);
        else body();
    });
}

struct ThreadsGuard {
    int threads = tx::cpu_threads();
    ~ThreadsGuard() { tx::set_cpu_threads(threads); }
};

class LowpGemm : public ::testing::TestWithParam<Precision> {};

TEST_P(LowpGemm, MatchesADoubleReferenceOnEveryPath) {
    ThreadsGuard threads;
    on_every_product_path(GetParam(), [&] {
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
    on_every_product_path(GetParam(), [&] {
        check_product(GetParam(), {1, 512, 2048, true}, 7);
        check_product(GetParam(), {1, 2048, 512, true}, 8);
        check_product(GetParam(), {3, 512, 40, false}, 9);
        check_product(GetParam(), {31, 300, 17, true}, 10);
        check_product(GetParam(), {32, 300, 17, true}, 11);
        check_product(GetParam(), {45, 33, 9, false}, 12);
    });
}

// From 32 rows on the product is the FP32 one over the widened weight, bit for bit (BF16 on the
// widened path; vdpbf16ps sums in an order of its own, checked against the bound above).
TEST_P(LowpGemm, ManyRowsGiveTheFp32ProductOfTheWidenedWeight) {
    tx::test::on_every_path([&] {
        tx::cpu::set_bf16_path(tx::cpu::Bf16Path::Widened);   // set_active_isa restores the default
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
    on_every_product_path(GetParam(), [&] {
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
            // the pair layout completes an odd C's last pair with a zero per row
            EXPECT_EQ(w.bytes(), (weight.size() + (w.pairs ? OC : 0)) * sizeof(uint16_t));
            EXPECT_EQ(w.pairs, tx::lowp_uses_pairs(format));
            for (size_t i = 0; i < weight.size(); ++i)
                ASSERT_EQ(stored_value(w, static_cast<int64_t>(i)), static_cast<double>(expected[i])) << i;
            if (w.pairs) {
                for (int o = 0; o < OC; ++o) ASSERT_EQ(w.halves[static_cast<size_t>(pair_layout_index(o, C, C, OC))], 0) << o;
            }
        }
        for (size_t i = 0; i < weight.size(); ++i)
            ASSERT_EQ(std::bit_cast<uint32_t>(wide[i]), std::bit_cast<uint32_t>(expected[i])) << i;
    });
}

INSTANTIATE_TEST_SUITE_P(Formats, LowpGemm, ::testing::Values(Precision::Bf16, Precision::Fp16, Precision::Int8),
                         [](const auto& info) { return std::string(tx::to_string(info.param)); });

// The vdpbf16ps kernel (core/kernels/gemm_bf16_avx512bf16.cpp) on its own: every shape that cuts
// its 6-row tiles, its 4-block groups, a last block of fewer than 16 rows, the even/odd pairs of
// the single-row kernel and an odd C; the base model's shapes; 1 and 2 threads. Skips where the
// CPU lacks AVX512_BF16.
class Vdpbf16ps : public ::testing::Test {
protected:
    void SetUp() override {
        if (!tx::cpu::cpu_has_avx512_bf16() || !tx::cpu::set_active_isa(tx::cpu::Isa::Avx512))
            GTEST_SKIP() << "this CPU has no AVX512_BF16 (vdpbf16ps): its kernel cannot run here";
        ASSERT_TRUE(tx::cpu::set_bf16_path(tx::cpu::Bf16Path::Dpbf16));
    }
    tx::test::PathGuard m_path;
    ThreadsGuard m_threads;
};

TEST_F(Vdpbf16ps, MatchesADoubleReferenceAcrossTheTilesEdges) {
    uint64_t seed = 1000;
    for (int t : {1, 2}) {
        tx::set_cpu_threads(t);
        for (int N : {1, 2, 5, 6, 7, 12, 13, 31, 32, 45})
            for (int C : {1, 2, 3, 31, 32, 33, 64, 130})
                for (int OC : {1, 15, 16, 17, 63, 64, 65, 100, 130})
                    check_product(Precision::Bf16, {N, C, OC, (seed & 1) == 0}, seed++);
    }
}

TEST_F(Vdpbf16ps, MatchesAtModelSizes) {
    check_product(Precision::Bf16, {1, 512, 2048, true}, 30);
    check_product(Precision::Bf16, {32, 512, 2048, true}, 31);
    check_product(Precision::Bf16, {128, 2048, 512, true}, 32);
    check_product(Precision::Bf16, {128, 512, 2008, true}, 33);   // the base model's generator (V = 2008)
    tx::set_cpu_threads(2);
    check_product(Precision::Bf16, {800, 512, 520, false}, 34);   // several chunks of rows
}

// Inputs with bits below BF16's (the kernel rounds them as it reads them) give exactly the product
// of the inputs rounded to BF16 first, as the precision backend hands them over.
TEST_F(Vdpbf16ps, RoundsItsInputToBf16AsItReadsIt) {
    const int N = 9, C = 77, OC = 40;
    const std::vector<float> weight = random_floats(static_cast<size_t>(OC) * C, 40);
    std::vector<float> x = random_floats(static_cast<size_t>(N) * C, 41);
    x[3] = 1.0f + std::ldexp(1.0f, -8);                             // a tie: to even, 1.0
    x[4] = 1.0f + 3.0f * std::ldexp(1.0f, -8);                      // a tie: to even, 1 + 2^-6
    std::vector<float> rounded(x.size());
    tx::round_floats(rounded.data(), x.data(), static_cast<int64_t>(x.size()), Precision::Bf16);
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), C, OC, Precision::Bf16);
    ASSERT_TRUE(w.pairs);
    std::vector<float> got(static_cast<size_t>(N) * OC), ref(got.size());
    tx::lowp_linear_forward(got.data(), x.data(), w, nullptr, N);
    tx::lowp_linear_forward(ref.data(), rounded.data(), w, nullptr, N);
    EXPECT_EQ(got, ref);
}

// The flush term of the bound is needed: a BF16 subnormal input (2^-130) times 1 gives 0 here,
// where FMAs give 2^-130; within 2^-126 · (|x| + |w| + 2C + 2) of the exact sum.
TEST_F(Vdpbf16ps, FlushesSubnormalsToZeroWithinTheStatedSlack) {
    const float tiny = std::ldexp(1.0f, -130);
    const std::vector<float> weight = {1.0f, 0.0f};
    const std::vector<float> x = {tiny, 0.0f};
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), 2, 1, Precision::Bf16);
    float out = NAN;
    tx::lowp_linear_forward(&out, x.data(), w, nullptr, 1);
    EXPECT_EQ(out, 0.0f);
    EXPECT_LE(std::fabs(out - tiny), std::ldexp(1.0, -126) * (tiny + 1.0 + 2 * 2 + 2));
    check_product(Precision::Bf16, {3, 40, 20, true}, 50, -1e-36f, 1e-36f);   // inputs near the subnormals
}

// Non-finite values pass through as FP32 sums would give them: inf · w stays inf, NaN stays NaN.
TEST_F(Vdpbf16ps, PropagatesInfAndNaN) {
    const int C = 4, OC = 2;
    const std::vector<float> weight = {1, 1, 1, 1, 1, 1, 1, 1};
    const std::vector<float> x = {INFINITY, 1, 1, 1, NAN, 1, 1, 1};
    const tx::LowpWeight w = tx::make_lowp_weight(weight.data(), C, OC, Precision::Bf16);
    std::vector<float> out(4);
    tx::lowp_linear_forward(out.data(), x.data(), w, nullptr, 2);
    EXPECT_EQ(out[0], INFINITY);
    EXPECT_EQ(out[1], INFINITY);
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_TRUE(std::isnan(out[3]));
}

// A weight stored for one BF16 path still multiplies on the other (through an FP32 copy), so a
// switch of path between building and use changes the speed, not the result's bound.
TEST_F(Vdpbf16ps, AWeightStoredForOnePathMultipliesOnTheOther) {
    const int N = 5, C = 33, OC = 20;
    const std::vector<float> weight = random_floats(static_cast<size_t>(OC) * C, 60);
    std::vector<float> x = random_floats(static_cast<size_t>(N) * C, 61);
    tx::round_floats(x.data(), x.data(), static_cast<int64_t>(x.size()), Precision::Bf16);
    const tx::LowpWeight pairs = tx::make_lowp_weight(weight.data(), C, OC, Precision::Bf16);
    ASSERT_TRUE(tx::cpu::set_bf16_path(tx::cpu::Bf16Path::Widened));
    const tx::LowpWeight rows = tx::make_lowp_weight(weight.data(), C, OC, Precision::Bf16);
    ASSERT_TRUE(pairs.pairs);
    ASSERT_FALSE(rows.pairs);
    std::vector<float> a(static_cast<size_t>(N) * OC), b(a.size()), wide(weight.size()), wide_rows(weight.size());
    tx::widen_lowp_weight(wide.data(), pairs);
    tx::widen_lowp_weight(wide_rows.data(), rows);
    EXPECT_EQ(wide, wide_rows);
    tx::lowp_linear_forward(a.data(), x.data(), pairs, nullptr, N);   // widened path, pair layout
    tx::lowp_linear_forward(b.data(), x.data(), rows, nullptr, N);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f * (1.0f + std::fabs(b[i]))) << i;
    ASSERT_TRUE(tx::cpu::set_bf16_path(tx::cpu::Bf16Path::Dpbf16));
    tx::lowp_linear_forward(a.data(), x.data(), rows, nullptr, N);    // vdpbf16ps path, row-major layout
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f * (1.0f + std::fabs(b[i]))) << i;
}

TEST(LowpGemmErrors, Fp32HasNoStoredForm) {
    const float w[2] = {1.0f, 2.0f};
    EXPECT_THROW(tx::make_lowp_weight(w, 2, 1, Precision::Fp32), std::invalid_argument);
}

}  // namespace
