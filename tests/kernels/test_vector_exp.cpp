// The float softmax, masked softmax and log-softmax ops on every instruction-set path this CPU can
// run (core/kernels/softmax_kernels.h; cpu_isa.h), against double loops written from the definitions, at row
// lengths that cut the AVX-512 (16) and AVX2 (8) registers anywhere, with -inf entries, rows of
// nothing but -inf, and large and small logits; and the kernels' vector exp against double exp.
// Shapes: rows (R,C) row-major, one row per R; attention's (B,H,T,S) with mask (B,T,S).
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "ops/ops_softmax_fused.h"
#include "kernels/softmax_kernels.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/every_path.h"
#include "support/random_floats.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using std::vector;
using tx::cpu::Isa;

constexpr float NEG_INF = -std::numeric_limits<float>::infinity();
const int LENGTHS[] = {1, 7, 15, 16, 17, 33, 513};

using tx::test::PathGuard;

// The kinds of row: ordinary logits, large ones (exp(x - max) underflows for most), tiny ones
// (all nearly equal), some keys at -inf, and nothing but -inf.
enum class Row { Random, Large, Small, SomeNegInf, AllNegInf };
const Row ROWS[] = {Row::Random, Row::Large, Row::Small, Row::SomeNegInf, Row::AllNegInf};

const char* row_name(Row kind) {
    switch (kind) {
        case Row::Random: return "random";
        case Row::Large: return "large";
        case Row::Small: return "small";
        case Row::SomeNegInf: return "some -inf";
        case Row::AllNegInf: return "all -inf";
    }
    return "?";
}

vector<float> make_rows(Row kind, int R, int C, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    vector<float> x(static_cast<size_t>(R) * C);
    for (size_t i = 0; i < x.size(); ++i) {
        const float u = unit(rng);
        switch (kind) {
            case Row::Random: x[i] = 4.0f * u; break;
            case Row::Large: x[i] = 90.0f * u; break;
            case Row::Small: x[i] = 1e-4f * u; break;
            case Row::SomeNegInf: x[i] = (i % 3 == 1) ? NEG_INF : 4.0f * u; break;
            case Row::AllNegInf: x[i] = NEG_INF; break;
        }
    }
    return x;
}

using tx::test::random_floats;

// Softmax of one row from the definition, in double: zeros where nothing is finite.
vector<double> softmax_reference(const float* x, int C) {
    vector<double> p(C, 0.0);
    double m = -INFINITY;
    for (int c = 0; c < C; ++c) m = std::max(m, static_cast<double>(x[c]));
    if (m == -INFINITY) return p;
    double sum = 0;
    for (int c = 0; c < C; ++c) sum += std::exp(static_cast<double>(x[c]) - m);
    for (int c = 0; c < C; ++c) p[c] = std::exp(static_cast<double>(x[c]) - m) / sum;
    return p;
}

// |got − want| ≤ atol + rtol·|want|; -inf, inf and NaN must match as such.
::testing::AssertionResult close(float got, double want, double atol, double rtol) {
    if (std::isnan(want)) {
        if (std::isnan(got)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", want NaN";
    }
    if (std::isinf(want)) {
        if (static_cast<double>(got) == want) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", want " << want;
    }
    if (std::fabs(got - want) <= atol + rtol * std::fabs(want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (off by " << got - want << ")";
}

using tx::test::on_every_path;

TEST(VectorExp, Within2e7RelativeOfDoubleExpOverTheNormalRange) {
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        if (isa == Isa::Generic) {
            EXPECT_EQ(k, nullptr) << "the generic path keeps the Eigen code";
            continue;
        }
        ASSERT_NE(k, nullptr);
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        // Every 61st float from -87.33 (e^x still normal) to 88.72 (e^x < FLT_MAX): ~21 M values,
        // negatives and positives alike, an odd stride so as not to fall on the same mantissas.
        vector<float> x, y;
        for (float v = -87.33f; v < 0.0f;) {
            x.push_back(v);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            bits -= 61;
            std::memcpy(&v, &bits, 4);
        }
        for (float v = 1e-30f; v < 88.72f;) {
            x.push_back(v);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            bits += 61;
            std::memcpy(&v, &bits, 4);
        }
        y.resize(x.size());
        k->exp(y.data(), x.data(), static_cast<int>(x.size()));
        double worst = 0;
        float worst_x = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double want = std::exp(static_cast<double>(x[i]));
            const double rel = std::fabs(y[i] - want) / want;
            if (rel > worst) {
                worst = rel;
                worst_x = x[i];
            }
        }
        // Measured 1.19e-7 on both paths: one ulp (2^-23) at the bottom of a binade. 2e-7 leaves room
        // for values between the samples, not for a wrong coefficient (that costs 1e-6 or more).
        EXPECT_LE(worst, 2e-7) << "at x = " << worst_x;
        std::printf("[ %s ] vector exp: max relative error %.3g (%.2f ulp of 2^-23) at x = %.9g over %zu values\n",
                    tx::cpu::isa_name(isa), worst, worst / 0x1p-23, worst_x, x.size());
    }
}

TEST(VectorExp, SpecialValuesAndTheSubnormalRange) {
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        if (isa == Isa::Generic) continue;
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        const float inf = std::numeric_limits<float>::infinity();
        const vector<float> x = {0.0f, -0.0f, NEG_INF, -104.5f, -1e30f, inf, 88.8f, 1e30f, std::nanf(""), 1.0f};
        vector<float> y(x.size());
        k->exp(y.data(), x.data(), static_cast<int>(x.size()));
        EXPECT_EQ(y[0], 1.0f);   // the row max's own term in softmax: exactly 1
        EXPECT_EQ(y[1], 1.0f);
        EXPECT_EQ(y[2], 0.0f);   // masked keys get exactly nothing
        EXPECT_EQ(y[3], 0.0f);
        EXPECT_EQ(y[4], 0.0f);
        EXPECT_EQ(y[5], inf);
        EXPECT_EQ(y[6], inf);
        EXPECT_EQ(y[7], inf);
        EXPECT_TRUE(std::isnan(y[8]));
        EXPECT_NEAR(y[9], 2.718281828, 3e-7);
        // Below -87.34 e^x is subnormal: within one subnormal step (2^-149) of the truth.
        vector<float> sub;
        for (float v = -103.9f; v < -87.34f; v += 0.00137f) sub.push_back(v);
        vector<float> ys(sub.size());
        k->exp(ys.data(), sub.data(), static_cast<int>(sub.size()));
        for (size_t i = 0; i < sub.size(); ++i)
            ASSERT_LE(std::fabs(ys[i] - std::exp(static_cast<double>(sub[i]))), 0x1p-149) << "x = " << sub[i];
    }
}

// The AVX2 exp gives lanes whose result rounds to 0 (masked keys) their 0 from a blend, and takes
// a slower route for vectors holding a true subnormal result; neither may change another lane's
// bits. Each value's exp in vectors mixed every way equals its exp computed alone.
TEST(VectorExp, ALanesResultDoesNotDependOnItsNeighbours) {
    PathGuard guard;
    const vector<float> kinds = {NEG_INF, -1e30f, -120.0f, -104.2f, -103.6f, -95.3f, -87.5f, -86.3f,
                                 -86.0f,  -50.0f, -3.25f,  0.0f,    0.3f,    1.5f,   88.5f};
    std::mt19937 rng(7);
    vector<float> x(4000);
    for (float& v : x) v = kinds[rng() % kinds.size()] * (1.0f + 1e-4f * static_cast<float>(rng() % 7));
    for (Isa isa : tx::cpu::supported_isas()) {
        if (isa == Isa::Generic) continue;
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        const tx::cpu::kernels::SoftmaxRowKernels* k = tx::cpu::softmax_row_kernels();
        vector<float> together(x.size()), alone(x.size());
        k->exp(together.data(), x.data(), static_cast<int>(x.size()));
        for (size_t i = 0; i < x.size(); ++i) k->exp(&alone[i], &x[i], 1);
        for (size_t i = 0; i < x.size(); ++i)
            ASSERT_EQ(std::memcmp(&together[i], &alone[i], 4), 0)
                << "x = " << x[i] << ": " << together[i] << " beside others, " << alone[i] << " alone";
    }
}

TEST(SoftmaxKernels, SoftmaxForwardAndBackwardMatchDoubleLoops) {
    on_every_path([] {
        for (int C : LENGTHS)
            for (Row kind : ROWS) {
                SCOPED_TRACE(std::string(row_name(kind)) + ", C = " + std::to_string(C));
                const int R = 3;
                const vector<float> x = make_rows(kind, R, C, 100 + C);
                vector<float> p(x.size(), 7.0f);
                tx::cpu::softmax_forward(p.data(), x.data(), R, C);
                const vector<float> g = random_floats(x.size(), 200 + C);
                const vector<float> dx0 = random_floats(x.size(), 300 + C);
                vector<float> dx = dx0;
                tx::cpu::softmax_backward(dx.data(), g.data(), p.data(), R, C);
                for (int r = 0; r < R; ++r) {
                    const vector<double> want = softmax_reference(x.data() + r * C, C);
                    double dot = 0;
                    for (int c = 0; c < C; ++c) dot += double(g[r * C + c]) * p[r * C + c];
                    for (int c = 0; c < C; ++c) {
                        const size_t i = static_cast<size_t>(r) * C + c;
                        if (x[i] == NEG_INF) {
                            ASSERT_EQ(p[i], 0.0f) << "masked key, c = " << c;
                        }
                        ASSERT_TRUE(close(p[i], want[c], 1e-9, 2e-6)) << "probs, c = " << c;
                        // the backward from the forward's float probs, as the op gets them
                        const double dwant = dx0[i] + double(p[i]) * (g[i] - dot);
                        ASSERT_TRUE(close(dx[i], dwant, 2e-6, 2e-6)) << "dinp, c = " << c;
                    }
                }
            }
    });
}

TEST(SoftmaxKernels, MaskedSoftmaxMatchesDoubleLoops) {
    on_every_path([] {
        for (int S : LENGTHS)
            for (Row kind : {Row::Random, Row::Large, Row::Small}) {
                SCOPED_TRACE(std::string(row_name(kind)) + ", S = " + std::to_string(S));
                const int B = 2, H = 2, T = 3;
                const float scale = 0.7f;
                const vector<float> x = make_rows(kind, B * H * T, S, 400 + S);
                // about a third of the keys dropped, and query t = 1 of batch 1 with none left
                vector<float> mask = random_floats(static_cast<size_t>(B) * T * S, 500 + S);
                for (float& m : mask) m = m > -0.4f ? 1.0f : 0.0f;
                for (int s = 0; s < S; ++s) mask[(1 * T + 1) * static_cast<size_t>(S) + s] = 0.0f;
                for (const float* m : {static_cast<const float*>(mask.data()), static_cast<const float*>(nullptr)}) {
                    SCOPED_TRACE(m ? "with mask" : "no mask");
                    vector<float> p(x.size(), 7.0f);
                    tx::cpu::masked_softmax_forward(p.data(), x.data(), m, B, H, T, S, scale);
                    const vector<float> g = random_floats(x.size(), 600 + S);
                    const vector<float> dx0 = random_floats(x.size(), 700 + S);
                    vector<float> dx = dx0;
                    tx::cpu::masked_softmax_backward(dx.data(), g.data(), p.data(), m, B, H, T, S, scale);
                    for (int r = 0; r < B * H * T; ++r) {
                        const int b = r / (H * T), t = r % T;
                        const float* keep = m ? m + (static_cast<size_t>(b) * T + t) * S : nullptr;
                        vector<float> xs(S);
                        for (int s = 0; s < S; ++s)
                            xs[s] = (!keep || keep[s] != 0.0f) ? x[r * S + s] * scale : NEG_INF;
                        const vector<double> want = softmax_reference(xs.data(), S);
                        double dot = 0;
                        for (int s = 0; s < S; ++s) dot += double(g[r * S + s]) * p[r * S + s];
                        for (int s = 0; s < S; ++s) {
                            const size_t i = static_cast<size_t>(r) * S + s;
                            const bool kept = !keep || keep[s] != 0.0f;
                            if (!kept) {
                                ASSERT_EQ(p[i], 0.0f) << "masked key, s = " << s;
                                ASSERT_EQ(dx[i], dx0[i]) << "a masked score gets no gradient, s = " << s;
                                continue;
                            }
                            ASSERT_TRUE(close(p[i], want[s], 1e-9, 2e-6)) << "probs, s = " << s;
                            const double dwant = dx0[i] + double(scale) * double(p[i]) * (g[i] - dot);
                            ASSERT_TRUE(close(dx[i], dwant, 2e-6, 2e-6)) << "dscores, s = " << s;
                        }
                    }
                }
            }
    });
}

TEST(SoftmaxKernels, LogSoftmaxAndItsBackwardsMatchDoubleLoops) {
    vector<int> lengths(std::begin(LENGTHS), std::end(LENGTHS));
    lengths.push_back(8000);   // a vocabulary
    on_every_path([&] {
        for (int V : lengths)
            for (Row kind : ROWS) {
                SCOPED_TRACE(std::string(row_name(kind)) + ", V = " + std::to_string(V));
                const int R = 2;
                const vector<float> x = make_rows(kind, R, V, 800 + V);
                vector<float> o(x.size(), 7.0f);
                tx::cpu::log_softmax_forward(o.data(), x.data(), R, V);
                for (int r = 0; r < R; ++r) {
                    double m = -INFINITY, sum = 0;
                    for (int v = 0; v < V; ++v) m = std::max(m, double(x[r * V + v]));
                    for (int v = 0; v < V; ++v) sum += std::exp(double(x[r * V + v]) - m);
                    // a row of only -inf has no log-probabilities: NaN, as the Eigen code always gave
                    const double lse = m == -INFINITY ? NAN : m + std::log(sum);
                    for (int v = 0; v < V; ++v) {
                        const double want = double(x[r * V + v]) - lse;
                        // log-probabilities near 0 have float rounding of lse's magnitude
                        ASSERT_TRUE(close(o[r * V + v], want, 4e-7 * std::fabs(lse) + 1e-6, 1e-6)) << "v = " << v;
                    }
                }
                if (kind == Row::AllNegInf || kind == Row::SomeNegInf) continue;   // no gradient through -inf logits
                const vector<float> g = random_floats(x.size(), 900 + V);
                const vector<float> dx0 = random_floats(x.size(), 1000 + V);
                vector<float> dx = dx0;
                tx::cpu::log_softmax_backward(dx.data(), g.data(), o.data(), R, V);
                for (int r = 0; r < R; ++r) {
                    double gsum = 0;
                    for (int v = 0; v < V; ++v) gsum += g[r * V + v];
                    for (int v = 0; v < V; ++v) {
                        const size_t i = static_cast<size_t>(r) * V + v;
                        const double want = dx0[i] + g[i] - std::exp(double(o[i])) * gsum;
                        ASSERT_TRUE(close(dx[i], want, 4e-6 + 2e-7 * std::fabs(gsum), 2e-6)) << "dinp, v = " << v;
                    }
                }
                // The loss's fused gradient: dlogits += dl·(p·Σt − t), t the smoothed target.
                const float smoothing = 0.1f, dl = 0.37f;
                const vector<int32_t> targets = {V > 1 ? 1 : 0, 0};
                const int pad = V > 2 ? 2 : -1;
                vector<float> dl_rows = {dl, dl};
                vector<float> d = dx0;
                tx::cpu::cross_entropy_log_softmax_backward(d.data(), dl_rows.data(), o.data(), targets.data(), R, V,
                                                            smoothing, pad);
                for (int r = 0; r < R; ++r) {
                    if (targets[r] == pad) continue;
                    const double on = 1.0 - smoothing, off = V > 2 ? smoothing / (V - 2) : 0.0;
                    const double total = on + (V > 2 ? off * (V - 2) : 0.0);
                    for (int v = 0; v < V; ++v) {
                        const size_t i = static_cast<size_t>(r) * V + v;
                        const double t = v == targets[r] ? on : (v == pad ? 0.0 : off);
                        const double want = dx0[i] + dl * (std::exp(double(o[i])) * total - t);
                        ASSERT_TRUE(close(d[i], want, 2e-7, 2e-6)) << "dlogits, v = " << v;
                    }
                }
            }
    });
}

TEST(SoftmaxKernels, OneAndTwoThreadsGiveTheSameBits) {
    // The same output buffers both times: Eigen's generic code sums in an order that depends on
    // the buffers' alignment, which is not what this test is about.
    const int threads = tx::cpu_threads();
    on_every_path([] {
        const int R = 300, C = 37;
        const vector<float> x = make_rows(Row::Random, R, C, 11);
        vector<float> p(x.size()), o(x.size());
        tx::set_cpu_threads(1);
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        tx::cpu::log_softmax_forward(o.data(), x.data(), R, C);
        const vector<float> p1 = p, o1 = o;
        tx::set_cpu_threads(2);
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        tx::cpu::log_softmax_forward(o.data(), x.data(), R, C);
        EXPECT_EQ(p1, p);
        EXPECT_EQ(o1, o);
    });
    tx::set_cpu_threads(threads);
}

}  // namespace
