// The modern variants' ops of ops.h (RoPE, ALiBi, learned positions, GELU, SwiGLU, RMSNorm):
// each forward against a loop written here from the paper's formula (not from the op's code),
// the properties that make each one what it is (RoPE's relative positions, ALiBi's slopes from the
// paper's code, RMSNorm's unit RMS), each backward against central finite differences in double
// (with random upstream g: L(x) = Σ g·forward(x)), the += rule, and the same bits on 1 or 2 threads.
#include "tx/ops.h"
#include "tx/threads.h"

#include "support/finite_differences.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

namespace {

using namespace tx::test;

std::vector<float> to_float(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }

// |got - ref| <= atol + rtol·|ref| everywhere; non-finite references must be matched exactly.
template <typename A, typename B>
::testing::AssertionResult close(const std::vector<A>& got, const std::vector<B>& ref, double atol, double rtol) {
    if (got.size() != ref.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << ref.size();
    for (size_t i = 0; i < ref.size(); ++i) {
        const double g = got[i], r = ref[i];
        const bool ok = std::isfinite(r) ? std::abs(g - r) <= atol + rtol * std::abs(r) : g == r;
        if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << r;
    }
    return ::testing::AssertionSuccess();
}

// Runs backward(grads) once into zeroed buffers and twice into others: twice must give twice.
void check_accumulates(const std::vector<size_t>& sizes, const std::function<void(std::vector<Vec>&)>& backward) {
    std::vector<Vec> once, twice;
    for (size_t n : sizes) {
        once.emplace_back(n, 0.0);
        twice.emplace_back(n, 0.0);
    }
    backward(once);
    backward(twice);
    backward(twice);
    for (size_t k = 0; k < sizes.size(); ++k) expect_twice(once[k], twice[k]);
}

// ---- RoPE ----

// RoFormer §3.2: in the complex view, pair (2i, 2i+1) is z = x_2i + i·x_2i+1 and position m
// multiplies it by e^{i·m·θ_i}, θ_i = 10000^(−2i/d).
Vec rope_reference(const Vec& x, int B, int H, int T, int dk, int pos0) {
    Vec out(x.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const size_t row = ((static_cast<size_t>(b) * H + h) * T + t) * dk;
                for (int i = 0; i < dk / 2; ++i) {
                    const double theta = std::pow(10000.0, -2.0 * i / dk);
                    const std::complex<double> z(x[row + 2 * i], x[row + 2 * i + 1]);
                    const std::complex<double> r = z * std::polar(1.0, (pos0 + t) * theta);
                    out[row + 2 * i] = r.real();
                    out[row + 2 * i + 1] = r.imag();
                }
            }
    return out;
}

TEST(Rope, ForwardMatchesTheComplexRotation) {
    for (auto [B, H, T, dk, pos0] : {std::tuple{1, 1, 1, 2, 0}, {2, 3, 5, 2, 7}, {2, 2, 4, 8, 0}, {1, 4, 3, 16, 100},
                                     {3, 1, 9, 32, 1000}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " pos0=" << pos0);
        const Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 100 + dk);
        const Vec ref = rope_reference(x, B, H, T, dk, pos0);
        Vec out(x.size(), std::nan(""));
        tx::cpu::rope_forward(out.data(), x.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(out, ref, 1e-12, 1e-12));
        // float: the angles are formed in double, so even at position 1000 only the final roundings differ
        const std::vector<float> xf = to_float(x);
        std::vector<float> of(x.size(), NAN);
        tx::cpu::rope_forward(of.data(), xf.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
        // in place (out == inp), as the model rotates q and k
        Vec inplace = x;
        tx::cpu::rope_forward(inplace.data(), inplace.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(close(inplace, ref, 1e-12, 1e-12));
    }
}

TEST(Rope, PositionZeroIsTheIdentityAndNormsArePreserved) {
    const int dk = 8;
    const Vec x = random_vec(dk, 110);
    Vec out(dk);
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 0);
    EXPECT_TRUE(close(out, x, 0.0, 0.0));
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 37);
    EXPECT_FALSE(close(out, x, 1e-3, 0.0));   // it does rotate
    for (int i = 0; i < dk / 2; ++i)   // each pair keeps its length (a rotation)
        EXPECT_NEAR(std::hypot(out[2 * i], out[2 * i + 1]), std::hypot(x[2 * i], x[2 * i + 1]), 1e-12);
}

TEST(Rope, RowsOfOneCallSitAtConsecutivePositionsFromPos0) {
    // the KV cache rotates one row at a time with pos0 = its position: it must equal row t of a full call
    const int B = 2, H = 2, T = 6, dk = 4;
    const Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 111);
    Vec full(x.size());
    tx::cpu::rope_forward(full.data(), x.data(), B, H, T, dk, 3);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const size_t row = ((static_cast<size_t>(b) * H + h) * T + t) * dk;
                Vec one(dk);
                tx::cpu::rope_forward(one.data(), x.data() + row, 1, 1, 1, dk, 3 + t);
                for (int d = 0; d < dk; ++d) EXPECT_DOUBLE_EQ(one[d], full[row + d]);
            }
}

TEST(Rope, DotProductDependsOnlyOnTheOffset) {
    // RoFormer eq. 16: <R_i q, R_j k> = <q, R_{j−i} k>, a function of j − i alone
    const int dk = 16;
    const Vec q = random_vec(dk, 112), k = random_vec(dk, 113);
    auto rotated_dot = [&](int i, int j) {
        Vec qi(dk), kj(dk);
        tx::cpu::rope_forward(qi.data(), q.data(), 1, 1, 1, dk, i);
        tx::cpu::rope_forward(kj.data(), k.data(), 1, 1, 1, dk, j);
        return dot(qi, kj);
    };
    for (auto [i, j] : {std::pair{0, 0}, {3, 1}, {1, 3}, {10, 2}, {7, 40}}) {
        SCOPED_TRACE(testing::Message() << "i=" << i << " j=" << j);
        EXPECT_NEAR(rotated_dot(i, j), rotated_dot(i + 5, j + 5), 1e-12);
        EXPECT_NEAR(rotated_dot(i, j), rotated_dot(i + 123, j + 123), 1e-11);
    }
    // and it does depend on the offset (otherwise the check above could not fail)
    EXPECT_GT(std::abs(rotated_dot(3, 1) - rotated_dot(3, 2)), 1e-3);
}

TEST(Rope, OddWidthPassesTheLastComponentUnrotated) {
    const int dk = 5;
    const Vec x = random_vec(dk, 114);
    Vec out(dk);
    tx::cpu::rope_forward(out.data(), x.data(), 1, 1, 1, dk, 9);
    // θ_i uses dk = 5 here: compare the pairs with the formula for d = 5, the last value untouched
    for (int i = 0; i < 2; ++i) {
        const double theta = std::pow(10000.0, -2.0 * i / dk);
        const std::complex<double> r = std::complex<double>(x[2 * i], x[2 * i + 1]) * std::polar(1.0, 9 * theta);
        EXPECT_NEAR(out[2 * i], r.real(), 1e-12);
        EXPECT_NEAR(out[2 * i + 1], r.imag(), 1e-12);
    }
    EXPECT_EQ(out[4], x[4]);
}

TEST(Backward, Rope) {
    for (auto [B, H, T, dk, pos0] : {std::tuple{1, 1, 1, 2, 0}, {2, 2, 3, 4, 5}, {1, 3, 4, 6, 0}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " pos0=" << pos0);
        Vec x = random_vec(static_cast<size_t>(B) * H * T * dk, 120 + dk);
        const Vec g = random_vec(x.size(), 121 + dk);
        Vec out(x.size());
        auto forward = [&] {
            tx::cpu::rope_forward(out.data(), x.data(), B, H, T, dk, pos0);
            return out;
        };
        Vec dx(x.size(), 0.0);
        tx::cpu::rope_backward(dx.data(), g.data(), B, H, T, dk, pos0);
        EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
        check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
            tx::cpu::rope_backward(d[0].data(), g.data(), B, H, T, dk, pos0);
        });
    }
}

// ---- ALiBi ----

// The paper's reference code, transliterated (github.com/ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py, get_slopes), with its repeated products rather than powers.
std::vector<double> paper_get_slopes(int n) {
    auto power_of_2 = [](int m) {
        const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(m) - 3)));
        std::vector<double> s;
        for (int i = 0; i < m; ++i) s.push_back(start * std::pow(start, i));
        return s;
    };
    const double lg = std::log2(n);
    if (lg == std::floor(lg)) return power_of_2(n);
    const int closest = 1 << static_cast<int>(std::floor(lg));
    std::vector<double> s = power_of_2(closest);
    const std::vector<double> more = paper_get_slopes(2 * closest);
    for (int i = 0; static_cast<int>(s.size()) < n; i += 2) s.push_back(more[i]);
    return s;
}

TEST(Alibi, SlopesAreThePapers) {
    // §3: "for 8 heads, the slopes are 1/2^1, 1/2^2, ..., 1/2^8"
    std::vector<double> s8(8);
    tx::cpu::alibi_slopes(s8.data(), 8);
    for (int h = 0; h < 8; ++h) EXPECT_EQ(s8[h], std::ldexp(1.0, -(h + 1)));
    // "for 16 heads ... 1/2^0.5, 1/2^1, ..., 1/2^8"
    std::vector<double> s16(16);
    tx::cpu::alibi_slopes(s16.data(), 16);
    for (int h = 0; h < 16; ++h) EXPECT_NEAR(s16[h], std::pow(2.0, -0.5 * (h + 1)), 1e-15);
    // H = 6, not a power of two: the 4-head slopes, then the 8-head ones at even indices
    std::vector<double> s6(6);
    tx::cpu::alibi_slopes(s6.data(), 6);
    const std::vector<double> expected6 = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
    EXPECT_TRUE(close(s6, expected6, 0.0, 1e-15));
    for (int H : {1, 2, 3, 4, 5, 6, 7, 12, 20, 32}) {
        SCOPED_TRACE(testing::Message() << "H=" << H);
        std::vector<double> got(H);
        tx::cpu::alibi_slopes(got.data(), H);
        EXPECT_TRUE(close(got, paper_get_slopes(H), 0.0, 1e-14));
        std::vector<float> gotf(H);
        tx::cpu::alibi_slopes(gotf.data(), H);
        EXPECT_TRUE(close(gotf, paper_get_slopes(H), 0.0, 1e-7));
    }
}

Vec alibi_reference(const Vec& scores, int B, int H, int T, int S, int q0) {
    const std::vector<double> m = paper_get_slopes(H);
    Vec out(scores.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    const size_t i = ((static_cast<size_t>(b) * H + h) * T + t) * S + s;
                    out[i] = scores[i] - m[h] * std::abs(static_cast<double>(q0 + t - s));
                }
    return out;
}

TEST(Alibi, ForwardMatchesTheLinearBias) {
    for (auto [B, H, T, S, q0] : {std::tuple{1, 1, 1, 1, 0}, {2, 4, 5, 5, 0}, {2, 6, 3, 7, 0}, {1, 3, 1, 9, 8},
                                  {1, 8, 4, 6, 2}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " q0=" << q0);
        Vec scores = random_vec(static_cast<size_t>(B) * H * T * S, 130 + H);
        scores[0] = -std::numeric_limits<double>::infinity();   // a masked entry stays masked
        const Vec ref = alibi_reference(scores, B, H, T, S, q0);
        Vec out(scores.size(), std::nan(""));
        tx::cpu::alibi_forward(out.data(), scores.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(out, ref, 1e-14, 1e-14));
        EXPECT_EQ(out[0], -std::numeric_limits<double>::infinity());
        const std::vector<float> sf = to_float(scores);
        std::vector<float> of(sf.size(), NAN);
        tx::cpu::alibi_forward(of.data(), sf.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
        Vec inplace = scores;
        tx::cpu::alibi_forward(inplace.data(), inplace.data(), B, H, T, S, q0);
        EXPECT_TRUE(close(inplace, ref, 1e-14, 1e-14));
    }
}

TEST(Alibi, DiagonalIsUnbiasedAndBiasGrowsWithDistance) {
    // zero scores show the bias itself: 0 where the key is the query's own position, −m·distance elsewhere
    const int H = 2, T = 4, S = 4;
    Vec zero(static_cast<size_t>(H) * T * S, 0.0), out(zero.size());
    tx::cpu::alibi_forward(out.data(), zero.data(), 1, H, T, S, 0);
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t) {
            EXPECT_EQ(out[(h * T + t) * S + t], 0.0);
            for (int s = 0; s + 1 <= t; ++s) EXPECT_LT(out[(h * T + t) * S + s], out[(h * T + t) * S + s + 1]);
        }
    EXPECT_EQ(out[(0 * T + 3) * S + 0], -3 * 0.0625);   // H = 2: slopes 2^-4, 2^-8
    EXPECT_EQ(out[(1 * T + 3) * S + 0], -3 * 0.00390625);
}

TEST(Backward, Alibi) {
    const int B = 2, H = 3, T = 3, S = 4, q0 = 1;
    Vec x = random_vec(static_cast<size_t>(B) * H * T * S, 140);
    const Vec g = random_vec(x.size(), 141);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::alibi_forward(out.data(), x.data(), B, H, T, S, q0);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::alibi_backward(dx.data(), g.data(), B, H, T, S);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::alibi_backward(d[0].data(), g.data(), B, H, T, S);
    });
}

// ---- learned positions ----

TEST(Backward, LearnedPositionalTable) {
    // the forward is positional_forward with the learned table; rows T..L−1 get no gradient
    const int B = 3, T = 4, D = 5, L = 6;
    const Vec x = random_vec(static_cast<size_t>(B) * T * D, 150);
    Vec table = random_vec(static_cast<size_t>(L) * D, 151);
    const Vec g = random_vec(x.size(), 152);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::positional_forward(out.data(), x.data(), table.data(), B, T, D);
        return out;
    };
    Vec dtable(table.size(), 0.0);
    tx::cpu::learned_positional_backward(dtable.data(), g.data(), B, T, D);
    EXPECT_TRUE(gradients_match(dtable, numeric_grad(table, g, forward)));
    Vec loop(table.size(), 0.0);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int d = 0; d < D; ++d) loop[t * D + d] += g[(static_cast<size_t>(b) * T + t) * D + d];
    EXPECT_TRUE(close(dtable, loop, 1e-15, 1e-15));
    for (size_t i = static_cast<size_t>(T) * D; i < dtable.size(); ++i) EXPECT_EQ(dtable[i], 0.0);
    check_accumulates({table.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::learned_positional_backward(d[0].data(), g.data(), B, T, D);
    });
}

// ---- GELU and SwiGLU ----

TEST(Gelu, ForwardMatchesTheNormalCdfForm) {
    // Hendrycks & Gimpel: GELU(x) = x·Φ(x); Φ written here with erfc (another route than the op's erf)
    Vec x = random_vec(200, 160, -6.0, 6.0);
    x.insert(x.end(), {0.0, 1.0, -1.0, 40.0, -40.0});
    Vec ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = x[i] * 0.5 * std::erfc(-x[i] / std::sqrt(2.0));
    Vec out(x.size(), std::nan(""));
    tx::cpu::gelu_forward(out.data(), x.data(), static_cast<int>(x.size()));
    EXPECT_TRUE(close(out, ref, 1e-15, 1e-14));
    // printed values of torch.nn.functional.gelu (float64): gelu(1), gelu(-1)
    EXPECT_NEAR(out[201], 0.8413447460685429, 1e-15);
    EXPECT_NEAR(out[202], -0.15865525393145707, 1e-15);
    EXPECT_EQ(out[200], 0.0);
    EXPECT_EQ(out[203], 40.0);
    EXPECT_EQ(out[204], -0.0);
    std::vector<float> xf = to_float(x), of(x.size(), NAN);
    tx::cpu::gelu_forward(of.data(), xf.data(), static_cast<int>(x.size()));
    EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
    tx::cpu::gelu_forward(xf.data(), xf.data(), static_cast<int>(x.size()));   // in place
    EXPECT_TRUE(close(xf, of, 0.0, 0.0));
}

TEST(Swiglu, ForwardMatchesSiluTimesUp) {
    Vec gate = random_vec(100, 170, -8.0, 8.0), up = random_vec(100, 171, -2.0, 2.0);
    gate.insert(gate.end(), {0.0, 100.0, -100.0, -800.0});
    up.insert(up.end(), {1.5, 2.0, 3.0, 4.0});
    Vec ref(gate.size());
    for (size_t i = 0; i < gate.size(); ++i) ref[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
    const int N = static_cast<int>(gate.size());
    Vec out(gate.size(), std::nan(""));
    tx::cpu::swiglu_forward(out.data(), gate.data(), up.data(), N);
    EXPECT_TRUE(close(out, ref, 1e-15, 1e-14));
    EXPECT_EQ(out[100], 0.0);
    EXPECT_EQ(out[101], 200.0);
    EXPECT_EQ(out[103], -0.0);   // exp(800) overflows: σ = 0, no NaN
    std::vector<float> gf = to_float(gate), uf = to_float(up), of(gate.size(), NAN);
    tx::cpu::swiglu_forward(of.data(), gf.data(), uf.data(), N);
    EXPECT_TRUE(close(of, ref, 1e-6, 1e-6));
    tx::cpu::swiglu_forward(gf.data(), gf.data(), uf.data(), N);   // out == gate
    EXPECT_TRUE(close(gf, of, 0.0, 0.0));
}

TEST(Backward, Gelu) {
    Vec x = random_vec(40, 180, -4.0, 4.0);
    const Vec g = random_vec(x.size(), 181);
    const int N = static_cast<int>(x.size());
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::gelu_forward(out.data(), x.data(), N);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::gelu_backward(dx.data(), g.data(), x.data(), N);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    check_accumulates({x.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::gelu_backward(d[0].data(), g.data(), x.data(), N);
    });
}

TEST(Backward, Swiglu) {
    Vec gate = random_vec(40, 190, -6.0, 6.0), up = random_vec(40, 191, -2.0, 2.0);
    const Vec g = random_vec(gate.size(), 192);
    const int N = static_cast<int>(gate.size());
    Vec out(gate.size());
    auto forward = [&] {
        tx::cpu::swiglu_forward(out.data(), gate.data(), up.data(), N);
        return out;
    };
    Vec dgate(gate.size(), 0.0), dup(up.size(), 0.0);
    tx::cpu::swiglu_backward(dgate.data(), dup.data(), g.data(), gate.data(), up.data(), N);
    EXPECT_TRUE(gradients_match(dgate, numeric_grad(gate, g, forward)));
    EXPECT_TRUE(gradients_match(dup, numeric_grad(up, g, forward)));
    check_accumulates({gate.size(), up.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::swiglu_backward(d[0].data(), d[1].data(), g.data(), gate.data(), up.data(), N);
    });
}

// ---- RMSNorm ----

TEST(RmsNorm, ForwardMatchesLoop) {
    for (auto [N, C, eps] : {std::tuple{1, 1, 1e-5}, {3, 7, 1e-5}, {4, 16, 0.5}, {2, 128, 1e-6}}) {
        SCOPED_TRACE(testing::Message() << "N=" << N << " C=" << C << " eps=" << eps);
        const Vec x = random_vec(static_cast<size_t>(N) * C, 200 + C, -3.0, 3.0), w = random_vec(C, 201, 0.5, 1.5);
        Vec ref(x.size()), ref_rstd(N);
        for (int n = 0; n < N; ++n) {
            double sq = 0;
            for (int c = 0; c < C; ++c) sq += x[n * C + c] * x[n * C + c];
            const double rms = std::sqrt(sq / C + eps);   // Zhang & Sennrich eq. 4, eps inside the root
            ref_rstd[n] = 1.0 / rms;
            for (int c = 0; c < C; ++c) ref[n * C + c] = x[n * C + c] / rms * w[c];
        }
        Vec out(x.size(), std::nan("")), rstd(N, std::nan(""));
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        EXPECT_TRUE(close(out, ref, 1e-14, 1e-13));
        EXPECT_TRUE(close(rstd, ref_rstd, 1e-14, 1e-13));
        std::vector<float> xf = to_float(x), wf = to_float(w), of(x.size(), NAN), rf(N, NAN);
        tx::cpu::rmsnorm_forward(of.data(), rf.data(), xf.data(), wf.data(), N, C, static_cast<float>(eps));
        EXPECT_TRUE(close(of, ref, 1e-5, 1e-5));
        EXPECT_TRUE(close(rf, ref_rstd, 1e-6, 1e-5));
    }
}

TEST(RmsNorm, UnitWeightGivesUnitRmsAndEpsMatters) {
    const int C = 64;
    const Vec x = random_vec(C, 210, -5.0, 5.0), ones(C, 1.0);
    Vec out(C), rstd(1);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), ones.data(), 1, C, 0.0);
    double sq = 0;
    for (double v : out) sq += v * v;
    EXPECT_NEAR(std::sqrt(sq / C), 1.0, 1e-14);
    // no mean is removed: a constant row stays constant (and positive), unlike LayerNorm's zeros
    const Vec constant(C, 3.0);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), constant.data(), ones.data(), 1, C, 0.0);
    for (double v : out) EXPECT_NEAR(v, 1.0, 1e-15);
    // eps inside the root: a zero row gives zeros and rstd = 1/sqrt(eps), never NaN
    const Vec zero(C, 0.0);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), zero.data(), ones.data(), 1, C, 0.25);
    EXPECT_EQ(rstd[0], 2.0);
    for (double v : out) EXPECT_EQ(v, 0.0);
}

TEST(Backward, RmsNorm) {
    const int N = 3, C = 5;
    const double eps = 1e-5;
    Vec x = random_vec(N * C, 220, -2.0, 2.0), w = random_vec(C, 221, 0.5, 1.5);
    const Vec g = random_vec(N * C, 222);
    Vec out(x.size()), rstd(N);
    auto forward = [&] {
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        return out;
    };
    forward();
    Vec dx(x.size(), 0.0), dw(C, 0.0);
    tx::cpu::rmsnorm_backward(dx.data(), dw.data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    check_accumulates({x.size(), w.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::rmsnorm_backward(d[0].data(), d[1].data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
    });
}

// ---- threads ----

// Sizes above every op's one-thread threshold, so that two threads really split the work; each
// output has one writer, so the bits must not depend on the thread count.
TEST(VariantOps, SameBitsOnOneAndTwoThreads) {
    const int threads_before = tx::cpu_threads();
    const int B = 4, H = 4, T = 64, S = 64, dk = 32, D = H * dk, N = B * T, F = 4 * D;
    const std::vector<float> qk = to_float(random_vec(static_cast<size_t>(B) * H * T * dk, 230));
    const std::vector<float> sc = to_float(random_vec(static_cast<size_t>(B) * H * T * S, 231));
    const std::vector<float> x = to_float(random_vec(static_cast<size_t>(N) * D, 232));
    const std::vector<float> w = to_float(random_vec(D, 233, 0.5, 1.5));
    const std::vector<float> hid = to_float(random_vec(static_cast<size_t>(N) * F, 234, -3.0, 3.0));
    const std::vector<float> up = to_float(random_vec(hid.size(), 235));
    auto run = [&](int threads) {
        tx::set_cpu_threads(threads);
        std::vector<std::vector<float>> r;
        std::vector<float> a(qk.size(), 0.f), da(qk.size(), 0.f);
        tx::cpu::rope_forward(a.data(), qk.data(), B, H, T, dk, 3);
        tx::cpu::rope_backward(da.data(), qk.data(), B, H, T, dk, 3);
        std::vector<float> s(sc.size(), 0.f);
        tx::cpu::alibi_forward(s.data(), sc.data(), B, H, T, S, 0);
        std::vector<float> table(static_cast<size_t>(T) * D, 0.f);
        tx::cpu::learned_positional_backward(table.data(), x.data(), B, T, D);
        std::vector<float> ge(hid.size(), 0.f), dge(hid.size(), 0.f), sw(hid.size(), 0.f), dg(hid.size(), 0.f),
            du(hid.size(), 0.f);
        tx::cpu::gelu_forward(ge.data(), hid.data(), N * F);
        tx::cpu::gelu_backward(dge.data(), up.data(), hid.data(), N * F);
        tx::cpu::swiglu_forward(sw.data(), hid.data(), up.data(), N * F);
        tx::cpu::swiglu_backward(dg.data(), du.data(), up.data(), hid.data(), up.data(), N * F);
        std::vector<float> rn(x.size(), 0.f), rs(N, 0.f), drn(x.size(), 0.f), dw(D, 0.f);
        tx::cpu::rmsnorm_forward(rn.data(), rs.data(), x.data(), w.data(), N, D, 1e-5f);
        tx::cpu::rmsnorm_backward(drn.data(), dw.data(), x.data(), x.data(), w.data(), rs.data(), N, D);
        return std::vector<std::vector<float>>{a, da, s, table, ge, dge, sw, dg, du, rn, rs, drn, dw};
    };
    const auto one = run(1), two = run(2);
    tx::set_cpu_threads(threads_before);
    for (size_t k = 0; k < one.size(); ++k) EXPECT_TRUE(close(two[k], one[k], 0.0, 0.0)) << "result " << k;
}

}  // namespace
