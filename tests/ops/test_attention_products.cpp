// Attention's per-head products in float (core/ops/ops_attention.cpp: scores = scale·q·kᵀ, context =
// probs·v, and their backwards) on every instruction-set path (cpu_isa.h), against double loops, at
// shapes on both sides of where they leave Eigen's product for gemm_packed.h's (T, S ≥ 32; dk ≥ 32,
// or any dk without AVX in Eigen), and 1 thread = 2 threads bit for bit. q (B,H,T,dk), k and v
// (B,H,S,dk), scores and probs (B,H,T,S).
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using std::vector;
using tx::cpu::Isa;

using tx::test::random_floats;

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

}  // namespace
