// Attention's four steps (core/ops/ops_attention.cpp: scores = scale·q·kᵀ, the mask, softmax,
// context = probs·v) against loops written here in double at odd shapes with T != S; the properties
// the model relies on (masked probabilities exactly 0, fully masked rows zeros); the backwards
// against central finite differences in double and the += rule; the products, the mask and softmax
// on every instruction-set path, and 1 thread = 2 threads. q (B,H,T,dk), k and v (B,H,S,dk), scores
// and probs (B,H,T,S), mask (B,T,S). CUDA twin: tests/gpu/test_attention_cuda.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"
#include "support/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using std::vector;
using Floats = std::vector<float>;
using tx::cpu::Isa;
using namespace tx::test;
using tx::test::expect_close;   // beside the per-head overload below
constexpr double INF = std::numeric_limits<double>::infinity();

vector<double> ref_scores(const vector<double>& q, const vector<double>& k, int B, int H, int T, int S, int dk,
                          double scale) {
    vector<double> out(static_cast<size_t>(B) * H * T * S);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    double acc = 0;
                    for (int i = 0; i < dk; ++i)
                        acc += q[((b * H + h) * T + t) * dk + i] * k[((b * H + h) * S + s) * dk + i];
                    out[((b * H + h) * T + t) * S + s] = acc * scale;
                }
    return out;
}

// naive softmax: exp(x)/Σexp(x) (inputs are small), -inf gives 0, an all -inf row gives zeros
vector<double> ref_softmax(const vector<double>& x, int R, int C) {
    vector<double> out(x.size());
    for (int r = 0; r < R; ++r) {
        double sum = 0;
        for (int c = 0; c < C; ++c) sum += x[r * C + c] == -INF ? 0.0 : std::exp(x[r * C + c]);
        for (int c = 0; c < C; ++c)
            out[r * C + c] = (sum == 0 || x[r * C + c] == -INF) ? 0.0 : std::exp(x[r * C + c]) / sum;
    }
    return out;
}

vector<double> ref_context(const vector<double>& p, const vector<double>& v, int B, int H, int T, int S, int dk) {
    vector<double> out(static_cast<size_t>(B) * H * T * dk);
    for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t)
            for (int i = 0; i < dk; ++i) {
                double acc = 0;
                for (int s = 0; s < S; ++s) acc += p[(bh * T + t) * S + s] * v[(bh * S + s) * dk + i];
                out[(bh * T + t) * dk + i] = acc;
            }
    return out;
}

// a (M,K) · b (K,N) in double, with a and b read through strides so that transposes are free.
vector<double> product(const float* a, int a_row, int a_col, const float* b, int b_row, int b_col, int M, int N,
                       int K) {
    vector<double> c(static_cast<size_t>(M) * N, 0.0);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double sum = 0;
            for (int k = 0; k < K; ++k) sum += double(a[m * a_row + k * a_col]) * b[k * b_row + n * b_col];
            c[static_cast<size_t>(m) * N + n] = sum;
        }
    return c;
}

void expect_close(const float* got, const vector<double>& want, double tol, const char* what) {
    for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << ", element " << i;
}

// ---- forward ----

struct AttnShape { int B, H, T, S, dk; };
const AttnShape ATTN_SHAPES[] = {{2, 3, 5, 7, 4}, {1, 2, 9, 1, 3}, {1, 1, 1, 6, 8}, {3, 2, 4, 4, 5}};

TEST(Attention, ScoresMatchLoop) {
    for (AttnShape sh : ATTN_SHAPES)
        for (bool scaled : {true, false}) {
            const vector<float> q = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.dk, 10);
            const vector<float> k = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.S * sh.dk, 11);
            const float scale = scaled ? 1.0f / std::sqrt(float(sh.dk)) : 1.0f;
            vector<float> out(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.S);
            tx::cpu::scores_forward(out.data(), q.data(), k.data(), sh.B, sh.H, sh.T, sh.S, sh.dk, scale);
            expect_close(out, ref_scores(to_double(q), to_double(k), sh.B, sh.H, sh.T, sh.S, sh.dk, scale),
                         1e-6, 1e-5);
        }
}

TEST(Attention, MaskMatchesLoopAndNullMaskCopies) {
    const int B = 2, H = 3, T = 4, S = 6;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 12);
    vector<float> mask = random_floats(static_cast<size_t>(B) * T * S, 13);
    for (float& m : mask) m = m > 0 ? 1.0f : 0.0f;
    vector<float> out(scores.size());
    tx::cpu::attention_mask_forward(out.data(), scores.data(), mask.data(), B, H, T, S);
    vector<double> ref(scores.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    const int i = ((b * H + h) * T + t) * S + s;
                    ref[i] = mask[(b * T + t) * S + s] != 0 ? double(scores[i]) : -INF;
                }
    expect_close(out, ref, 0, 0);
    tx::cpu::attention_mask_forward(out.data(), scores.data(), static_cast<const float*>(nullptr), B, H, T, S);
    EXPECT_EQ(out, scores);
}

TEST(Softmax, ForwardMatchesLoop) {
    for (auto [R, C] : {std::pair{6, 9}, std::pair{1, 1}, std::pair{5, 64}, std::pair{17, 3}}) {
        const vector<float> x = random_floats(static_cast<size_t>(R) * C, 14, -4.0f, 4.0f);
        vector<float> p(x.size());
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        expect_close(p, ref_softmax(to_double(x), R, C), 1e-7, 1e-5);
    }
}

TEST(Softmax, RowsSumToOneAndLargeInputsStayFinite) {
    const int R = 8, C = 13;
    vector<float> x = random_floats(static_cast<size_t>(R) * C, 15, -3.0f, 3.0f);
    x[0] = 1000.0f;   // exp(1000) overflows without the max shift
    vector<float> p(x.size());
    tx::cpu::softmax_forward(p.data(), x.data(), R, C);
    for (int r = 0; r < R; ++r) {
        double sum = 0;
        for (int c = 0; c < C; ++c) sum += p[r * C + c];
        EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << r;
    }
    EXPECT_EQ(p[0], 1.0f);
}

// scores -> mask -> softmax, as the model runs them
vector<float> masked_probs(const vector<float>& scores, const vector<float>& mask, int B, int H, int T, int S) {
    vector<float> masked(scores.size()), p(scores.size());
    tx::cpu::attention_mask_forward(masked.data(), scores.data(), mask.data(), B, H, T, S);
    tx::cpu::softmax_forward(p.data(), masked.data(), B * H * T, S);
    return p;
}

TEST(Softmax, CausalMaskGivesExactZerosAboveTheDiagonal) {
    const int B = 2, H = 3, T = 7, S = 7;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 16, -3.0f, 3.0f);
    vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) mask[(b * T + t) * S + s] = s <= t ? 1.0f : 0.0f;
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t) {
            double sum = 0;
            for (int s = 0; s < S; ++s) {
                const float v = p[(bh * T + t) * S + s];
                if (s > t) {
                    EXPECT_EQ(v, 0.0f) << "t=" << t << " s=" << s;
                } else {
                    EXPECT_GT(v, 0.0f);
                }
                sum += v;
            }
            EXPECT_NEAR(sum, 1.0, 1e-6);
        }
}

TEST(Softmax, PaddedKeysGetExactZeros) {
    // batch b has S - b real keys; the rest are padding (T != S: cross-attention shape)
    const int B = 3, H = 2, T = 4, S = 6;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 17, -3.0f, 3.0f);
    vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) mask[(b * T + t) * S + s] = s < S - b ? 1.0f : 0.0f;
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                double sum = 0;
                for (int s = 0; s < S; ++s) {
                    const float v = p[((b * H + h) * T + t) * S + s];
                    if (s >= S - b) { EXPECT_EQ(v, 0.0f); }
                    sum += v;
                }
                EXPECT_NEAR(sum, 1.0, 1e-6);
            }
}

TEST(Softmax, FullyMaskedRowsGiveZerosNotNaN) {
    const int B = 1, H = 2, T = 3, S = 5;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 18);
    vector<float> mask(static_cast<size_t>(B) * T * S, 1.0f);
    for (int s = 0; s < S; ++s) mask[1 * S + s] = 0.0f;   // query 1 may attend to nothing
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t) {
            double sum = 0;
            for (int s = 0; s < S; ++s) {
                const float v = p[(h * T + t) * S + s];
                ASSERT_FALSE(std::isnan(v));
                if (t == 1) { EXPECT_EQ(v, 0.0f); }
                sum += v;
            }
            EXPECT_NEAR(sum, t == 1 ? 0.0 : 1.0, 1e-6);
        }
}

TEST(Attention, ContextMatchesLoop) {
    for (AttnShape sh : ATTN_SHAPES) {
        const vector<float> x = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.S, 19, -2.0f, 2.0f);
        vector<float> p(x.size());
        tx::cpu::softmax_forward(p.data(), x.data(), sh.B * sh.H * sh.T, sh.S);
        const vector<float> v = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.S * sh.dk, 20);
        vector<float> out(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.dk);
        tx::cpu::context_forward(out.data(), p.data(), v.data(), sh.B, sh.H, sh.T, sh.S, sh.dk);
        expect_close(out, ref_context(to_double(p), to_double(v), sh.B, sh.H, sh.T, sh.S, sh.dk), 1e-6, 1e-5);
    }
}

// ---- backward ----

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

// ---- every instruction-set path ----

struct Shape {
    int B, H, T, S, dk;
};

TEST(AttentionProducts, FloatMatchesDoubleLoopsOnEveryPath) {
    const Isa saved = tx::cpu::active_isa();
    const Shape shapes[] = {{1, 2, 8, 8, 16}, {1, 2, 33, 40, 16}, {2, 3, 33, 40, 32}, {1, 2, 40, 33, 33},
                            {1, 1, 64, 64, 64}, {2, 2, 31, 32, 32}};
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        for (const Shape& sh : shapes) {
            const auto [B, H, T, S, dk] = sh;
            SCOPED_TRACE(std::string(tx::cpu::isa_name(isa)) + " T=" + std::to_string(T) + " S=" + std::to_string(S) +
                         " dk=" + std::to_string(dk));
            const size_t nq = size_t(B) * H * T * dk, nk = size_t(B) * H * S * dk, ns = size_t(B) * H * T * S;
            const vector<float> q = random_floats(nq, 1), k = random_floats(nk, 2), v = random_floats(nk, 3);
            const vector<float> probs = random_floats(ns, 4), gs = random_floats(ns, 5), gc = random_floats(nq, 6);
            const float scale = 0.3f;
            vector<float> scores(ns), ctx(nq);
            vector<float> dq = random_floats(nq, 7), dkk = random_floats(nk, 8), dp = random_floats(ns, 9),
                          dv = random_floats(nk, 10);
            const vector<float> dq0 = dq, dk0 = dkk, dp0 = dp, dv0 = dv;
            tx::cpu::scores_forward(scores.data(), q.data(), k.data(), B, H, T, S, dk, scale);
            tx::cpu::context_forward(ctx.data(), probs.data(), v.data(), B, H, T, S, dk);
            tx::cpu::scores_backward(dq.data(), dkk.data(), gs.data(), q.data(), k.data(), B, H, T, S, dk, scale);
            tx::cpu::context_backward(dp.data(), dv.data(), gc.data(), probs.data(), v.data(), B, H, T, S, dk);
            for (int bh = 0; bh < B * H; ++bh) {
                const float* qh = q.data() + size_t(bh) * T * dk;
                const float* kh = k.data() + size_t(bh) * S * dk;
                const float* vh = v.data() + size_t(bh) * S * dk;
                const float* ph = probs.data() + size_t(bh) * T * S;
                const float* gsh = gs.data() + size_t(bh) * T * S;
                const float* gch = gc.data() + size_t(bh) * T * dk;
                vector<double> want = product(qh, dk, 1, kh, 1, dk, T, S, dk);   // q·kᵀ
                for (double& w : want) w *= scale;
                expect_close(scores.data() + size_t(bh) * T * S, want, 1e-5, "scores");
                expect_close(ctx.data() + size_t(bh) * T * dk, product(ph, S, 1, vh, dk, 1, T, dk, S), 1e-5, "context");
                want = product(gsh, S, 1, kh, dk, 1, T, dk, S);   // dq = scale·g·k
                for (size_t i = 0; i < want.size(); ++i) want[i] = dq0[size_t(bh) * T * dk + i] + scale * want[i];
                expect_close(dq.data() + size_t(bh) * T * dk, want, 1e-5, "dq");
                want = product(gsh, 1, S, qh, dk, 1, S, dk, T);   // dk = scale·gᵀ·q
                for (size_t i = 0; i < want.size(); ++i) want[i] = dk0[size_t(bh) * S * dk + i] + scale * want[i];
                expect_close(dkk.data() + size_t(bh) * S * dk, want, 1e-5, "dk");
                want = product(gch, dk, 1, vh, 1, dk, T, S, dk);   // dprobs = g·vᵀ
                for (size_t i = 0; i < want.size(); ++i) want[i] += dp0[size_t(bh) * T * S + i];
                expect_close(dp.data() + size_t(bh) * T * S, want, 1e-5, "dprobs");
                want = product(ph, 1, S, gch, dk, 1, S, dk, T);   // dv = probsᵀ·g
                for (size_t i = 0; i < want.size(); ++i) want[i] += dv0[size_t(bh) * S * dk + i];
                expect_close(dv.data() + size_t(bh) * S * dk, want, 1e-5, "dv");
            }
        }
    }
    tx::cpu::set_active_isa(saved);
}

TEST(AttentionProducts, OneAndTwoThreadsGiveTheSameBits) {
    const int threads = tx::cpu_threads();
    const Isa saved = tx::cpu::active_isa();
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        for (int heads : {2, 12}) {   // one range (the product may split), and heads over two threads
            const int B = 1, H = heads, T = 48, S = 40, dk = 32;
            const vector<float> q = random_floats(size_t(B) * H * T * dk, 11), k = random_floats(size_t(B) * H * S * dk, 12);
            const vector<float> g = random_floats(size_t(B) * H * T * S, 13);
            vector<float> scores(size_t(B) * H * T * S), ctx(q.size()), dq(q.size(), 0.0f), dkk(k.size(), 0.0f);
            vector<vector<float>> runs;
            for (int t : {1, 2}) {
                tx::set_cpu_threads(t);
                std::fill(dq.begin(), dq.end(), 0.0f);
                std::fill(dkk.begin(), dkk.end(), 0.0f);
                tx::cpu::scores_forward(scores.data(), q.data(), k.data(), B, H, T, S, dk, 0.25f);
                tx::cpu::context_forward(ctx.data(), g.data(), k.data(), B, H, T, S, dk);
                tx::cpu::scores_backward(dq.data(), dkk.data(), g.data(), q.data(), k.data(), B, H, T, S, dk, 0.25f);
                vector<float> all = scores;
                all.insert(all.end(), ctx.begin(), ctx.end());
                all.insert(all.end(), dq.begin(), dq.end());
                all.insert(all.end(), dkk.begin(), dkk.end());
                runs.push_back(all);
            }
            EXPECT_EQ(runs[0], runs[1]) << "heads " << heads;
        }
    }
    tx::set_cpu_threads(threads);
    tx::cpu::set_active_isa(saved);
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
                Floats scores = random_floats(n, 21u + static_cast<unsigned>(S), -2.0f, 2.0f);
                Floats mask = random_floats(static_cast<size_t>(B) * TS, 23u + static_cast<unsigned>(S), -2.0f, 2.0f);
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

}  // namespace
