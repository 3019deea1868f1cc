// The elementwise ops (core/ops/ops_elementwise.cpp: residual add, ReLU, dropout): forwards
// against loops written here, dropout's mask against its documented hash (support/reference_dropout.h:
// an independent splitmix64 of seed ^ i·golden, kept where its top 24 bits / 2^24 ≥ p), backwards
// against central finite differences in double, and ReLU and dropout on every instruction-set path
// bit for bit. Edge lengths (1, 7, 15, 16, 17, 33, 1000) cover partial vectors of 8 and 16 lanes; a
// long tensor on 2 threads covers ranges that start inside a vector. Flat tensors of N values.
// CUDA twin: tests/gpu/test_elementwise_cuda.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"
#include "support/reference_dropout.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using std::vector;
using Floats = std::vector<float>;
using namespace tx::test;

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

// ---- forward ----

TEST(Residual, ForwardMatchesLoopAlsoInPlace) {
    const int N = 37;
    vector<float> a = random_floats(N, 21);
    const vector<float> b = random_floats(N, 22);
    vector<double> ref(N);
    for (int i = 0; i < N; ++i) ref[i] = double(a[i]) + b[i];
    vector<float> out(N);
    tx::cpu::residual_forward(out.data(), a.data(), b.data(), N);
    expect_close(out, ref, 1e-6, 1e-6);
    tx::cpu::residual_forward(a.data(), a.data(), b.data(), N);
    EXPECT_EQ(a, out);
}

TEST(Relu, ForwardMatchesLoopAlsoInPlace) {
    const int N = 41;
    vector<float> x = random_floats(N, 23);
    vector<double> ref(N);
    for (int i = 0; i < N; ++i) ref[i] = x[i] > 0 ? x[i] : 0.0;
    vector<float> out(N);
    tx::cpu::relu_forward(out.data(), x.data(), N);
    expect_close(out, ref, 0, 0);
    tx::cpu::relu_forward(x.data(), x.data(), N);
    EXPECT_EQ(x, out);
}

TEST(Dropout, ZeroProbabilityCopies) {
    const int N = 1001;
    const vector<float> x = random_floats(N, 27);
    vector<float> out(N), mask(N);
    tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, 0.0f, 42);
    EXPECT_EQ(out, x);
    for (float m : mask) EXPECT_EQ(m, 1.0f);
}

TEST(Dropout, KeepFractionIsOneMinusP) {
    const int N = 200000;
    const vector<float> x(N, 1.0f);
    vector<float> out(N), mask(N);
    for (float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
        tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, p, 1234);
        int kept = 0;
        for (float m : mask) kept += m != 0.0f;
        // binomial: sigma = sqrt(p(1-p)/N) <= 0.0012; 0.006 is five sigma
        EXPECT_NEAR(double(kept) / N, 1.0 - p, 0.006) << "p=" << p;
    }
}

TEST(Dropout, MaskIsZeroOrInverseKeepAndFollowsTheDocumentedHash) {
    const int N = 4097;
    const float p = 0.3f;
    const vector<float> x = random_floats(N, 28);
    vector<float> out(N), mask(N);
    const uint64_t seed = 0xDEADBEEFull;
    tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, p, seed);
    const float scale = 1.0f / (1.0f - p);
    for (int i = 0; i < N; ++i) {
        ASSERT_TRUE(mask[i] == 0.0f || mask[i] == scale) << mask[i];
        EXPECT_EQ(mask[i] != 0.0f, reference_keep(seed, i, p)) << "at " << i;
        EXPECT_EQ(out[i], x[i] * mask[i]);
    }
}

TEST(Dropout, SameSeedSameMaskOtherSeedOtherMask) {
    const int N = 2048;
    const vector<float> x = random_floats(N, 29);
    vector<float> out1(N), mask1(N), out2(N), mask2(N), out3(N), mask3(N);
    tx::cpu::dropout_forward(out1.data(), mask1.data(), x.data(), N, 0.5f, 7);
    tx::cpu::dropout_forward(out2.data(), mask2.data(), x.data(), N, 0.5f, 7);
    tx::cpu::dropout_forward(out3.data(), mask3.data(), x.data(), N, 0.5f, 8);
    EXPECT_EQ(mask1, mask2);
    EXPECT_EQ(out1, out2);
    EXPECT_NE(mask1, mask3);
    // the double instantiation (gradient checks) draws the same mask
    vector<double> xd = to_double(x), outd(N), maskd(N);
    tx::cpu::dropout_forward(outd.data(), maskd.data(), xd.data(), N, 0.5, 7);
    for (int i = 0; i < N; ++i) EXPECT_EQ(maskd[i] != 0.0, mask1[i] != 0.0f);
}

// ---- backward ----

TEST(Backward, Residual) {
    const int N = 7;
    Vec a = random_vec(N, 27), b = random_vec(N, 28);
    const Vec g = random_vec(N, 29);
    Vec out(N);
    auto forward = [&] {
        tx::cpu::residual_forward(out.data(), a.data(), b.data(), N);
        return out;
    };
    Vec da(N, 0.0), db(N, 0.0);
    tx::cpu::residual_backward(da.data(), db.data(), g.data(), N);
    EXPECT_TRUE(gradients_match(da, numeric_grad(a, g, forward)));
    EXPECT_TRUE(gradients_match(db, numeric_grad(b, g, forward)));
}

TEST(Backward, Relu) {
    const int N = 16;
    Vec x = random_vec(N, 30);
    for (double& v : x) v += v >= 0 ? 0.1 : -0.1;   // away from the kink at 0
    const Vec g = random_vec(N, 31);
    Vec out(N);
    auto forward = [&] {
        tx::cpu::relu_forward(out.data(), x.data(), N);
        return out;
    };
    forward();
    Vec dx(N, 0.0);
    tx::cpu::relu_backward(dx.data(), g.data(), out.data(), N);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

TEST(Backward, DropoutWithAFixedMask) {
    const int N = 32;
    const uint64_t seed = 99;
    Vec x = random_vec(N, 32);
    const Vec g = random_vec(N, 33);
    Vec out(N), mask(N);
    // the mask depends on (seed, i) only, so every forward call draws the same one
    auto forward = [&] {
        tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, 0.4, seed);
        return out;
    };
    forward();
    Vec dx(N, 0.0);
    tx::cpu::dropout_backward(dx.data(), g.data(), mask.data(), N);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

// ---- every instruction-set path ----

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
            Floats out = random_floats(static_cast<size_t>(N), 3u + static_cast<unsigned>(N), -2.0f, 2.0f);
            for (float& x : out) x = x > 0.0f ? x : 0.0f;   // a ReLU's output: zeros and positives
            const Floats dout = random_floats(static_cast<size_t>(N), 5u + static_cast<unsigned>(N), -2.0f, 2.0f);
            Floats prior = random_floats(static_cast<size_t>(N), 7u + static_cast<unsigned>(N), -2.0f, 2.0f);
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
                Floats inp = random_floats(static_cast<size_t>(N), 11u + static_cast<unsigned>(N), -2.0f, 2.0f);
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

}  // namespace
