// Dropout, ReLU's forward and backward (core/ops/ops_elementwise.cpp), the attention mask
// (core/ops/ops_attention.cpp), the Adam update (core/ops/ops_adam.cpp) and a linear
// layer's bias gradient (core/ops/ops_linear.cpp) on every instruction-set path in one process, against references written here from their definitions: the
// mask from an independent splitmix64 (Steele et al. 2014) of seed ^ i·golden, kept where its top
// 24 bits / 2^24 ≥ p, out = inp·mask; Adam (Kingma & Ba 2015, Algorithm 1) in double.
// Edge lengths (1, 7, 15, 16, 17, 33, 1000) cover partial vectors of 8 and 16 lanes; a long tensor
// on 2 threads covers ranges that start inside a vector. Shapes: flat tensors of N values.
#include "tx/cpu_isa.h"
#include "tx/ops.h"

#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/reference_dropout.h"

#include "support/every_path.h"
#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using Floats = std::vector<float>;

using tx::test::on_every_path;

Floats random_floats(size_t n, unsigned seed) { return tx::test::random_floats(n, seed, -2.0f, 2.0f); }

uint32_t bits(float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

using tx::test::reference_keep;   // reference_dropout.h

void expect_dropout_matches_reference(int N, float p, uint64_t seed) {
    const Floats inp = random_floats(static_cast<size_t>(N), 11u + static_cast<unsigned>(N));
    Floats out(static_cast<size_t>(N) + 1, 99.0f), mask(static_cast<size_t>(N) + 1, 99.0f);   // one guard value
    tx::cpu::dropout_forward<float>(out.data(), mask.data(), inp.data(), N, p, seed);
    const float scale = 1.0f / (1.0f - p);
    int kept = 0, wrong = 0;
    for (int i = 0; i < N; ++i) {
        const float m = reference_keep(seed, static_cast<uint64_t>(i), p) ? scale : 0.0f;
        kept += m != 0.0f;
        if (mask[i] != m || out[i] != inp[i] * m) {
            if (++wrong <= 3) ADD_FAILURE() << "i = " << i << ": mask " << mask[i] << " (want " << m << "), out "
                                            << out[i] << " (want " << inp[i] * m << ")";
        }
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(out[N], 99.0f) << "wrote past the end";
    EXPECT_EQ(mask[N], 99.0f) << "wrote past the end";
    if (N >= 1000 && p > 0.0f && p < 1.0f) {
        // the reference itself is a fair coin: about N·(1 − p) kept
        EXPECT_NEAR(static_cast<double>(kept) / N, 1.0 - p, 0.06);
    }
}

TEST(ElementwiseKernels, DropoutMatchesTheDefinitionOnEveryPathAndLength) {
    on_every_path([] {
        for (int N : {1, 7, 15, 16, 17, 33, 1000}) {
            for (float p : {0.0f, 0.1f, 0.5f, 0.9f}) {
                SCOPED_TRACE("N = " + std::to_string(N) + ", p = " + std::to_string(p));
                expect_dropout_matches_reference(N, p, 0x1234567890ABCDEFull + static_cast<uint64_t>(N));
            }
        }
    });
}

TEST(ElementwiseKernels, DropoutOnTwoThreadsMatchesTheDefinition) {
    // 40,001 values: split over two threads at an index that is no multiple of a vector
    const int before = tx::cpu_threads();
    tx::set_cpu_threads(2);
    on_every_path([] { expect_dropout_matches_reference(40001, 0.3f, 77); });
    tx::set_cpu_threads(before);
}

TEST(ElementwiseKernels, ReluBackwardAddsWhereTheOutputIsPositive) {
    on_every_path([] {
        for (int N : {1, 7, 15, 16, 17, 33, 1000}) {
            SCOPED_TRACE("N = " + std::to_string(N));
            Floats out = random_floats(static_cast<size_t>(N), 3u + static_cast<unsigned>(N));
            for (float& x : out) x = x > 0.0f ? x : 0.0f;   // a ReLU's output: zeros and positives
            const Floats dout = random_floats(static_cast<size_t>(N), 5u + static_cast<unsigned>(N));
            Floats prior = random_floats(static_cast<size_t>(N), 7u + static_cast<unsigned>(N));
            for (int i = 0; i < N; i += 3) prior[static_cast<size_t>(i)] = -0.0f;   // kept bit for bit where off
            Floats dinp = prior;
            prior.push_back(99.0f);
            dinp.push_back(99.0f);   // a guard value past the end
            tx::cpu::relu_backward<float>(dinp.data(), dout.data(), out.data(), N);
            for (int i = 0; i <= N; ++i) {
                const float want = i < N && out[i] > 0.0f ? prior[i] + dout[i] : prior[i];
                EXPECT_EQ(bits(dinp[i]), bits(want)) << "i = " << i << ": " << dinp[i] << " want " << want;
            }
        }
    });
}

// ReLU forward: x where x > 0, else +0 (−0, NaN and −inf give +0, +inf stays), bit for bit, in
// place and not, nothing written past the end.
TEST(ElementwiseKernels, ReluForwardKeepsPositivesAndGivesPlusZeroElsewhere) {
    on_every_path([] {
        for (int N : {1, 7, 15, 16, 17, 33, 1000}) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE("N = " + std::to_string(N) + (in_place ? ", in place" : ""));
                Floats inp = random_floats(static_cast<size_t>(N), 11u + static_cast<unsigned>(N));
                const float specials[] = {-0.0f, NAN, -INFINITY, INFINITY, 0.0f};
                for (int i = 0; i < N; i += 4) inp[static_cast<size_t>(i)] = specials[(i / 4) % 5];
                const Floats given = inp;
                Floats out(static_cast<size_t>(N) + 1, 99.0f);   // a guard value past the end
                if (in_place) {
                    inp.push_back(99.0f);
                    tx::cpu::relu_forward<float>(inp.data(), inp.data(), N);
                    out = inp;
                } else {
                    tx::cpu::relu_forward<float>(out.data(), inp.data(), N);
                }
                for (int i = 0; i < N; ++i) {
                    const float x = given[static_cast<size_t>(i)];
                    const float want = x > 0.0f ? x : 0.0f;
                    EXPECT_EQ(bits(out[static_cast<size_t>(i)]), bits(want)) << "i = " << i << ": " << x;
                }
                EXPECT_EQ(out[static_cast<size_t>(N)], 99.0f) << "wrote past the end";
            }
        }
    });
}

// The attention mask: a score where its mask value is not 0 (a NaN mask keeps it, as != does),
// −inf where it is 0 (−0 included); one mask (T,S) shared by the heads; in place and not.
TEST(ElementwiseKernels, AttentionMaskKeepsScoresWhereTheMaskIsNotZero) {
    on_every_path([] {
        const int B = 2, H = 3;
        for (int S : {1, 7, 16, 17, 33}) {
            for (bool in_place : {false, true}) {
                const int T = 5;
                SCOPED_TRACE("S = " + std::to_string(S) + (in_place ? ", in place" : ""));
                const size_t TS = static_cast<size_t>(T) * S, n = static_cast<size_t>(B) * H * TS;
                Floats scores = random_floats(n, 21u + static_cast<unsigned>(S));
                Floats mask = random_floats(static_cast<size_t>(B) * TS, 23u + static_cast<unsigned>(S));
                const float mask_values[] = {0.0f, -0.0f, NAN, 1.0f};
                for (size_t i = 0; i < mask.size(); ++i) mask[i] = mask_values[(i * 7 + i / 3) % 4];
                const Floats given = scores;
                Floats out(n + 1, 99.0f);
                if (in_place) {
                    scores.push_back(99.0f);
                    tx::cpu::attention_mask_forward<float>(scores.data(), scores.data(), mask.data(), B, H, T, S);
                    out = scores;
                } else {
                    tx::cpu::attention_mask_forward<float>(out.data(), scores.data(), mask.data(), B, H, T, S);
                }
                for (size_t i = 0; i < n; ++i) {
                    const float m = mask[(i / (H * TS)) * TS + i % TS];
                    const float want = m != 0.0f ? given[i] : -INFINITY;
                    EXPECT_EQ(bits(out[i]), bits(want)) << "i = " << i << ", mask " << m;
                }
                EXPECT_EQ(out[n], 99.0f) << "wrote past the end";
            }
        }
    });
}

// Three Adam steps from the paper's Algorithm 1 in double (bias-corrected moments).
void adam_reference(std::vector<double>& p, std::vector<double>& m, std::vector<double>& v, const Floats& g,
                    double lr, double b1, double b2, double eps, int t) {
    for (size_t i = 0; i < p.size(); ++i) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        const double mhat = m[i] / (1 - std::pow(b1, t)), vhat = v[i] / (1 - std::pow(b2, t));
        p[i] -= lr * mhat / (std::sqrt(vhat) + eps);
    }
}

TEST(ElementwiseKernels, AdamMatchesTheDefinitionOnEveryPathAndLength) {
    on_every_path([] {
        for (int n : {1, 7, 15, 16, 17, 33, 1000, 1025}) {
            SCOPED_TRACE("n = " + std::to_string(n));
            const size_t N = static_cast<size_t>(n);
            Floats p = random_floats(N, 21u + static_cast<unsigned>(n)), m(N + 1, 0.0f), v(N + 1, 0.0f);
            std::vector<double> pd(p.begin(), p.end()), md(N, 0.0), vd(N, 0.0);
            p.push_back(99.0f);   // guard values past the end
            for (int t = 1; t <= 3; ++t) {
                const Floats g = random_floats(N, 100u * static_cast<unsigned>(t) + static_cast<unsigned>(n));
                tx::cpu::adam_update<float>(p.data(), m.data(), v.data(), g.data(), n, 1e-2f, 0.9f, 0.98f, 1e-9f, t);
                adam_reference(pd, md, vd, g, 1e-2, 0.9f, 0.98f, 1e-9f, t);
            }
            for (size_t i = 0; i < N; ++i) {
                EXPECT_NEAR(p[i], pd[i], 1e-6 + 1e-5 * std::fabs(pd[i])) << "i = " << i;
                EXPECT_NEAR(m[i], md[i], 1e-6 + 1e-5 * std::fabs(md[i])) << "i = " << i;
                EXPECT_NEAR(v[i], vd[i], 1e-7 + 1e-5 * std::fabs(vd[i])) << "i = " << i;
            }
            EXPECT_EQ(p[N], 99.0f);
            EXPECT_EQ(m[N], 0.0f);
            EXPECT_EQ(v[N], 0.0f);
        }
    });
}

TEST(ElementwiseKernels, AdamGivesTheSameBitsOnOneAndTwoThreads) {
    const int n = 40001;   // 40 chunks of 1024 and a partial one: shared between two threads
    const size_t N = static_cast<size_t>(n);
    const Floats g = random_floats(N, 31), start = random_floats(N, 32);
    const int before = tx::cpu_threads();
    on_every_path([&] {
        // the same buffers for both runs: Eigen's generic code rounds an unaligned start differently
        Floats p(N), m(N), v(N), result[2][3];
        for (int threads : {1, 2}) {
            tx::set_cpu_threads(threads);
            p = start;
            std::fill(m.begin(), m.end(), 0.0f);
            std::fill(v.begin(), v.end(), 0.0f);
            for (int t = 1; t <= 2; ++t)
                tx::cpu::adam_update<float>(p.data(), m.data(), v.data(), g.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, t);
            result[threads - 1][0] = p;
            result[threads - 1][1] = m;
            result[threads - 1][2] = v;
        }
        for (int k = 0; k < 3; ++k) EXPECT_EQ(result[0][k], result[1][k]) << "buffer " << k;
    });
    tx::set_cpu_threads(before);
}

TEST(ElementwiseKernels, LinearBiasGradientIsTheColumnSumOnEveryPath) {
    // C = 32 takes linear_backward's packed branch; OC from 32 (its least) to partial vectors and 1000
    on_every_path([] {
        for (int OC : {32, 33, 47, 48, 1000}) {
            for (int N : {1, 7, 17}) {
                SCOPED_TRACE("N = " + std::to_string(N) + ", OC = " + std::to_string(OC));
                const int C = 32;
                const Floats g = random_floats(static_cast<size_t>(N) * OC, 41u + static_cast<unsigned>(OC + N));
                const Floats x = random_floats(static_cast<size_t>(N) * C, 43u), w = random_floats(static_cast<size_t>(OC) * C, 47u);
                Floats db = random_floats(static_cast<size_t>(OC) + 1, 53u);
                const Floats prior = db;
                tx::cpu::linear_backward<float>(nullptr, nullptr, db.data(), g.data(), x.data(), w.data(), N, C, OC);
                for (int c = 0; c < OC; ++c) {
                    double want = prior[static_cast<size_t>(c)];
                    for (int n = 0; n < N; ++n) want += g[static_cast<size_t>(n) * OC + c];
                    EXPECT_NEAR(db[static_cast<size_t>(c)], want, 1e-5) << "c = " << c;
                }
                EXPECT_EQ(db[static_cast<size_t>(OC)], prior[static_cast<size_t>(OC)]) << "wrote past the end";
            }
        }
    });
}

}  // namespace
