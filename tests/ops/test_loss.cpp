// Every backward op of ops.h against central finite differences, in double on tiny shapes:
// with a random upstream gradient g, L(x) = Σ g·forward(x) and dL/dx_i ≈ (L(x+h) - L(x-h)) / 2h.
// With h = 1e-6 the truncation error (~h²) and the rounding error (~1e-16·|L|/h) both sit far below
// the tolerance 1e-6·max(1, |ref|). Also: the checker does catch a wrong gradient, and backward
// run twice gives twice the gradient (the += rule of ops.h).
#include "tx/ops.h"

#include "support/finite_differences.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace tx::test;

// ---- the checker itself ----

TEST(GradCheck, CatchesAWrongGradient) {
    const int N = 3, C = 4, OC = 2;
    Vec x = random_vec(N * C, 1), w = random_vec(OC * C, 2);
    const Vec g = random_vec(N * OC, 3);
    Vec out(N * OC);
    auto forward = [&] {
        tx::cpu::linear_forward(out.data(), x.data(), w.data(), static_cast<const double*>(nullptr), N, C, OC);
        return out;
    };
    Vec dw(w.size(), 0.0);
    tx::cpu::linear_backward<double>(nullptr, dw.data(), nullptr, g.data(), x.data(), w.data(), N, C, OC);
    const Vec numeric = numeric_grad(w, g, forward);
    EXPECT_TRUE(gradients_match(dw, numeric));

    Vec scaled = dw;
    for (double& d : scaled) d *= 1.01;
    EXPECT_FALSE(gradients_match(scaled, numeric));
    Vec perturbed = dw;
    perturbed[5] += 1e-4;
    EXPECT_FALSE(gradients_match(perturbed, numeric));
    Vec nan_grad = dw;
    nan_grad[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(gradients_match(nan_grad, numeric));
}

// ---- embedding and positional encoding ----

TEST(Backward, Embedding) {
    const int N = 6, D = 3, V = 4;
    const std::vector<int32_t> ids = {2, 0, 2, 3, 2, 0};   // repeats: gradients must add up
    Vec w = random_vec(V * D, 4);
    const Vec g = random_vec(N * D, 5);
    const double scale = std::sqrt(double(D));
    Vec out(N * D);
    auto forward = [&] {
        tx::cpu::embedding_forward(out.data(), ids.data(), w.data(), N, D, scale);
        return out;
    };
    Vec dw(w.size(), 0.0);
    tx::cpu::embedding_backward(dw.data(), g.data(), ids.data(), N, D, scale);
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    for (int d = 0; d < D; ++d) EXPECT_EQ(dw[1 * D + d], 0.0);   // token 1 is never used
}

TEST(Backward, Positional) {
    const int B = 2, T = 3, D = 5, L = 4;
    Vec pe(L * D);
    tx::cpu::positional_encoding_table(pe.data(), L, D);
    Vec x = random_vec(B * T * D, 6);
    const Vec g = random_vec(B * T * D, 7);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::positional_forward(out.data(), x.data(), pe.data(), B, T, D);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::positional_backward(dx.data(), g.data(), B, T, D);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

// ---- linear and heads ----

TEST(Backward, Linear) {
    const int N = 5, C = 4, OC = 3;
    Vec x = random_vec(N * C, 8), w = random_vec(OC * C, 9), b = random_vec(OC, 10);
    const Vec g = random_vec(N * OC, 11);
    Vec out(N * OC);
    auto forward = [&] {
        tx::cpu::linear_forward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
        return out;
    };
    Vec dx(x.size(), 0.0), dw(w.size(), 0.0), db(b.size(), 0.0);
    tx::cpu::linear_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), N, C, OC);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    EXPECT_TRUE(gradients_match(db, numeric_grad(b, g, forward)));

    // any gradient may be left out; the others are unchanged
    Vec dw_only(w.size(), 0.0), dx_only(x.size(), 0.0), db_only(b.size(), 0.0);
    tx::cpu::linear_backward<double>(nullptr, dw_only.data(), nullptr, g.data(), x.data(), w.data(), N, C, OC);
    tx::cpu::linear_backward<double>(dx_only.data(), nullptr, nullptr, g.data(), x.data(), w.data(), N, C, OC);
    tx::cpu::linear_backward<double>(nullptr, nullptr, db_only.data(), g.data(), x.data(), w.data(), N, C, OC);
    // Equal up to rounding: Eigen may pick a different GEMM kernel path for each call.
    for (size_t i = 0; i < dw.size(); ++i) EXPECT_NEAR(dw_only[i], dw[i], 1e-12);
    for (size_t i = 0; i < dx.size(); ++i) EXPECT_NEAR(dx_only[i], dx[i], 1e-12);
    for (size_t i = 0; i < db.size(); ++i) EXPECT_NEAR(db_only[i], db[i], 1e-12);
}

TEST(Backward, SplitAndMergeHeads) {
    const int B = 2, T = 3, H = 2, dk = 3;
    const size_t n = size_t(B) * T * H * dk;
    Vec x = random_vec(n, 12);
    const Vec g = random_vec(n, 13);
    Vec out(n);
    auto split = [&] {
        tx::cpu::split_heads_forward(out.data(), x.data(), B, T, H, dk);
        return out;
    };
    auto merge = [&] {
        tx::cpu::merge_heads_forward(out.data(), x.data(), B, T, H, dk);
        return out;
    };
    Vec dx(n, 0.0);
    tx::cpu::split_heads_backward(dx.data(), g.data(), B, T, H, dk);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, split)));
    Vec dy(n, 0.0);
    tx::cpu::merge_heads_backward(dy.data(), g.data(), B, T, H, dk);
    EXPECT_TRUE(gradients_match(dy, numeric_grad(x, g, merge)));
}

// ---- attention ----

TEST(Backward, Scores) {
    const int B = 2, H = 2, T = 3, S = 4, dk = 3;
    const double scale = 1.0 / std::sqrt(double(dk));
    Vec q = random_vec(B * H * T * dk, 14), k = random_vec(B * H * S * dk, 15);
    const Vec g = random_vec(B * H * T * S, 16);
    Vec out(g.size());
    auto forward = [&] {
        tx::cpu::scores_forward(out.data(), q.data(), k.data(), B, H, T, S, dk, scale);
        return out;
    };
    Vec dq(q.size(), 0.0), dkv(k.size(), 0.0);
    tx::cpu::scores_backward(dq.data(), dkv.data(), g.data(), q.data(), k.data(), B, H, T, S, dk, scale);
    EXPECT_TRUE(gradients_match(dq, numeric_grad(q, g, forward)));
    EXPECT_TRUE(gradients_match(dkv, numeric_grad(k, g, forward)));
}

TEST(Backward, Softmax) {
    const int R = 4, C = 5;
    Vec x = random_vec(R * C, 17, -2.0, 2.0);
    const Vec g = random_vec(R * C, 18);
    Vec p(x.size());
    auto forward = [&] {
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        return p;
    };
    forward();
    Vec dx(x.size(), 0.0);
    tx::cpu::softmax_backward(dx.data(), g.data(), p.data(), R, C);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

TEST(Backward, SoftmaxWithMaskedEntries) {
    // -inf stays -inf under ±h, so the numeric gradient there is 0, as the analytic one must be.
    // Row 2 is fully masked: zeros out, zeros back.
    const int R = 3, C = 5;
    const double NEG_INF = -std::numeric_limits<double>::infinity();
    Vec x = random_vec(R * C, 19, -2.0, 2.0);
    x[0 * C + 3] = NEG_INF;
    x[1 * C + 0] = NEG_INF;
    x[1 * C + 4] = NEG_INF;
    for (int c = 0; c < C; ++c) x[2 * C + c] = NEG_INF;
    const Vec g = random_vec(R * C, 20);
    Vec p(x.size());
    auto forward = [&] {
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        return p;
    };
    forward();
    Vec dx(x.size(), 0.0);
    tx::cpu::softmax_backward(dx.data(), g.data(), p.data(), R, C);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_EQ(dx[0 * C + 3], 0.0);
    for (int c = 0; c < C; ++c) EXPECT_EQ(dx[2 * C + c], 0.0);
}

TEST(Backward, AttentionMaskThroughSoftmax) {
    // The masked scores are -inf, so Σ g·mask(x) is not finite; check mask then softmax, as the
    // model runs them.
    const int B = 2, H = 2, T = 3, S = 4;
    Vec x = random_vec(B * H * T * S, 21, -2.0, 2.0);
    Vec mask = random_vec(B * T * S, 22);
    for (double& m : mask) m = m > -0.4 ? 1.0 : 0.0;
    for (int s = 0; s < S; ++s) mask[(1 * T + 2) * S + s] = 0.0;   // one fully masked query
    const Vec g = random_vec(x.size(), 23);
    Vec masked(x.size()), p(x.size());
    auto forward = [&] {
        tx::cpu::attention_mask_forward(masked.data(), x.data(), mask.data(), B, H, T, S);
        tx::cpu::softmax_forward(p.data(), masked.data(), B * H * T, S);
        return p;
    };
    forward();
    Vec dmasked(x.size(), 0.0), dx(x.size(), 0.0);
    tx::cpu::softmax_backward(dmasked.data(), g.data(), p.data(), B * H * T, S);
    tx::cpu::attention_mask_backward(dx.data(), dmasked.data(), mask.data(), B, H, T, S);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));

    // a null mask passes the gradient straight through
    Vec dthrough(x.size(), 0.0);
    tx::cpu::attention_mask_backward(dthrough.data(), g.data(), static_cast<const double*>(nullptr), B, H, T, S);
    EXPECT_EQ(dthrough, g);
}

TEST(Backward, Context) {
    const int B = 2, H = 2, T = 3, S = 4, dk = 2;
    Vec probs = random_vec(B * H * T * S, 24, 0.0, 1.0);   // any values: context is bilinear
    Vec v = random_vec(B * H * S * dk, 25);
    const Vec g = random_vec(B * H * T * dk, 26);
    Vec out(g.size());
    auto forward = [&] {
        tx::cpu::context_forward(out.data(), probs.data(), v.data(), B, H, T, S, dk);
        return out;
    };
    Vec dprobs(probs.size(), 0.0), dv(v.size(), 0.0);
    tx::cpu::context_backward(dprobs.data(), dv.data(), g.data(), probs.data(), v.data(), B, H, T, S, dk);
    EXPECT_TRUE(gradients_match(dprobs, numeric_grad(probs, g, forward)));
    EXPECT_TRUE(gradients_match(dv, numeric_grad(v, g, forward)));
}

// ---- elementwise and layernorm ----

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

TEST(Backward, LayerNorm) {
    const int N = 3, C = 5;
    const double eps = 1e-5;
    Vec x = random_vec(N * C, 34, -2.0, 2.0), w = random_vec(C, 35, 0.5, 1.5), b = random_vec(C, 36);
    const Vec g = random_vec(N * C, 37);
    Vec out(x.size()), mean(N), rstd(N);
    auto forward = [&] {
        tx::cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, eps);
        return out;
    };
    forward();
    Vec dx(x.size(), 0.0), dw(C, 0.0), db(C, 0.0);
    tx::cpu::layernorm_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), mean.data(),
                                rstd.data(), N, C);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    EXPECT_TRUE(gradients_match(db, numeric_grad(b, g, forward)));
}

// ---- loss ----

TEST(Backward, LogSoftmax) {
    const int R = 3, V = 6;
    Vec x = random_vec(R * V, 38, -3.0, 3.0);
    const Vec g = random_vec(R * V, 39);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::log_softmax_forward(out.data(), x.data(), R, V);
        return out;
    };
    forward();
    Vec dx(x.size(), 0.0);
    tx::cpu::log_softmax_backward(dx.data(), g.data(), out.data(), R, V);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

TEST(Backward, CrossEntropy) {
    const int R = 4, V = 6, pad = 0;
    const std::vector<int32_t> targets = {3, pad, 1, 5};
    Vec logits = random_vec(R * V, 40, -3.0, 3.0);
    Vec lp(logits.size());
    tx::cpu::log_softmax_forward(lp.data(), logits.data(), R, V);
    const Vec g = random_vec(R, 41);
    for (double smoothing : {0.0, 0.1}) {
        Vec losses(R);
        auto forward = [&] {
            tx::cpu::cross_entropy_forward(losses.data(), lp.data(), targets.data(), R, V, smoothing, pad);
            return losses;
        };
        Vec dlp(lp.size(), 0.0);
        tx::cpu::cross_entropy_backward(dlp.data(), g.data(), targets.data(), R, V, smoothing, pad);
        EXPECT_TRUE(gradients_match(dlp, numeric_grad(lp, g, forward))) << "smoothing " << smoothing;
        for (int v = 0; v < V; ++v) EXPECT_EQ(dlp[1 * V + v], 0.0);   // pad row: no gradient

        // through log_softmax, as the model trains: d/dlogits of Σ g·CE(log_softmax(logits))
        Vec lp2(lp.size());
        auto chain = [&] {
            tx::cpu::log_softmax_forward(lp2.data(), logits.data(), R, V);
            tx::cpu::cross_entropy_forward(losses.data(), lp2.data(), targets.data(), R, V, smoothing, pad);
            return losses;
        };
        Vec dlogits(logits.size(), 0.0);
        tx::cpu::log_softmax_backward(dlogits.data(), dlp.data(), lp.data(), R, V);
        EXPECT_TRUE(gradients_match(dlogits, numeric_grad(logits, g, chain))) << "smoothing " << smoothing;

        // the fused op that training uses: the same gradient in one pass, added (+=) to what is there
        Vec fused(logits.size(), 0.5);
        tx::cpu::cross_entropy_log_softmax_backward(fused.data(), g.data(), lp.data(), targets.data(), R, V, smoothing,
                                                    pad);
        for (double& v : fused) v -= 0.5;
        EXPECT_TRUE(gradients_match(fused, numeric_grad(logits, g, chain))) << "fused, smoothing " << smoothing;
        for (size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], dlogits[i], 1e-12) << "fused vs composed " << i;
        for (int v = 0; v < V; ++v) EXPECT_EQ(fused[1 * V + v], 0.0);   // pad row: no gradient
    }
}

// The fused loss gradient in float on a vocabulary that fills SIMD registers and leaves a tail,
// with pad in the middle of it, against the two ops it replaces.
TEST(Backward, FusedLossGradientMatchesTheComposedOpsInFloat) {
    const int R = 5, V = 37, pad = 17;
    const std::vector<int32_t> targets = {3, pad, 36, 0, 18};
    const Vec x = random_vec(R * V, 45, -4.0, 4.0), g = random_vec(R, 46);
    std::vector<float> logits(x.begin(), x.end()), dl(g.begin(), g.end()), lp(logits.size());
    tx::cpu::log_softmax_forward(lp.data(), logits.data(), R, V);
    for (float smoothing : {0.0f, 0.1f}) {
        std::vector<float> dlp(lp.size(), 0.0f), composed(lp.size(), 0.0f), fused(lp.size(), 0.0f);
        tx::cpu::cross_entropy_backward(dlp.data(), dl.data(), targets.data(), R, V, smoothing, pad);
        tx::cpu::log_softmax_backward(composed.data(), dlp.data(), lp.data(), R, V);
        tx::cpu::cross_entropy_log_softmax_backward(fused.data(), dl.data(), lp.data(), targets.data(), R, V, smoothing,
                                                    pad);
        for (size_t i = 0; i < fused.size(); ++i)
            EXPECT_NEAR(fused[i], composed[i], 1e-6 + 1e-5 * std::abs(composed[i])) << "smoothing " << smoothing << " at " << i;
    }
}

// ---- backward twice gives twice the gradient (+=) ----

TEST(BackwardTwice, Linear) {
    const int N = 4, C = 3, OC = 5;
    const Vec x = random_vec(N * C, 42), w = random_vec(OC * C, 43), g = random_vec(N * OC, 44);
    Vec dx1(x.size(), 0.0), dw1(w.size(), 0.0), db1(OC, 0.0);
    Vec dx2(x.size(), 0.0), dw2(w.size(), 0.0), db2(OC, 0.0);
    tx::cpu::linear_backward(dx1.data(), dw1.data(), db1.data(), g.data(), x.data(), w.data(), N, C, OC);
    for (int rep = 0; rep < 2; ++rep)
        tx::cpu::linear_backward(dx2.data(), dw2.data(), db2.data(), g.data(), x.data(), w.data(), N, C, OC);
    expect_twice(dx1, dx2);
    expect_twice(dw1, dw2);
    expect_twice(db1, db2);
}

TEST(BackwardTwice, ScoresAndContext) {
    const int B = 1, H = 2, T = 3, S = 5, dk = 2;
    const Vec q = random_vec(B * H * T * dk, 45), k = random_vec(B * H * S * dk, 46);
    const Vec p = random_vec(B * H * T * S, 47), v = random_vec(B * H * S * dk, 48);
    const Vec gs = random_vec(B * H * T * S, 49), gc = random_vec(B * H * T * dk, 50);
    Vec dq1(q.size(), 0.0), dk1(k.size(), 0.0), dq2(q.size(), 0.0), dk2(k.size(), 0.0);
    Vec dp1(p.size(), 0.0), dv1(v.size(), 0.0), dp2(p.size(), 0.0), dv2(v.size(), 0.0);
    tx::cpu::scores_backward(dq1.data(), dk1.data(), gs.data(), q.data(), k.data(), B, H, T, S, dk, 0.5);
    tx::cpu::context_backward(dp1.data(), dv1.data(), gc.data(), p.data(), v.data(), B, H, T, S, dk);
    for (int rep = 0; rep < 2; ++rep) {
        tx::cpu::scores_backward(dq2.data(), dk2.data(), gs.data(), q.data(), k.data(), B, H, T, S, dk, 0.5);
        tx::cpu::context_backward(dp2.data(), dv2.data(), gc.data(), p.data(), v.data(), B, H, T, S, dk);
    }
    expect_twice(dq1, dq2);
    expect_twice(dk1, dk2);
    expect_twice(dp1, dp2);
    expect_twice(dv1, dv2);
}

TEST(BackwardTwice, SoftmaxLayerNormEmbeddingCrossEntropy) {
    const int R = 3, C = 4;
    const Vec x = random_vec(R * C, 51), g = random_vec(R * C, 52);
    Vec p(x.size());
    tx::cpu::softmax_forward(p.data(), x.data(), R, C);
    Vec ds1(x.size(), 0.0), ds2(x.size(), 0.0);
    tx::cpu::softmax_backward(ds1.data(), g.data(), p.data(), R, C);
    for (int rep = 0; rep < 2; ++rep) tx::cpu::softmax_backward(ds2.data(), g.data(), p.data(), R, C);
    expect_twice(ds1, ds2);

    const Vec w = random_vec(C, 53), b = random_vec(C, 54);
    Vec out(x.size()), mean(R), rstd(R);
    tx::cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), R, C, 1e-5);
    Vec dx1(x.size(), 0.0), dw1(C, 0.0), db1(C, 0.0), dx2(x.size(), 0.0), dw2(C, 0.0), db2(C, 0.0);
    tx::cpu::layernorm_backward(dx1.data(), dw1.data(), db1.data(), g.data(), x.data(), w.data(), mean.data(),
                                rstd.data(), R, C);
    for (int rep = 0; rep < 2; ++rep)
        tx::cpu::layernorm_backward(dx2.data(), dw2.data(), db2.data(), g.data(), x.data(), w.data(),
                                    mean.data(), rstd.data(), R, C);
    expect_twice(dx1, dx2);
    expect_twice(dw1, dw2);
    expect_twice(db1, db2);

    const std::vector<int32_t> ids = {1, 1, 0};
    Vec de1(2 * C, 0.0), de2(2 * C, 0.0);
    tx::cpu::embedding_backward(de1.data(), g.data(), ids.data(), R, C, 2.0);
    for (int rep = 0; rep < 2; ++rep) tx::cpu::embedding_backward(de2.data(), g.data(), ids.data(), R, C, 2.0);
    expect_twice(de1, de2);

    const std::vector<int32_t> targets = {2, 0, 3};
    const Vec gl = random_vec(R, 55);
    Vec dl1(x.size(), 0.0), dl2(x.size(), 0.0);
    tx::cpu::cross_entropy_backward(dl1.data(), gl.data(), targets.data(), R, C, 0.1, 0);
    for (int rep = 0; rep < 2; ++rep)
        tx::cpu::cross_entropy_backward(dl2.data(), gl.data(), targets.data(), R, C, 0.1, 0);
    expect_twice(dl1, dl2);
}

}  // namespace
