// The fused masked, scaled softmax (core/ops/ops_softmax_fused.h) against a plain loop reference and
// the unfused composition it replaces (scale·scores -> attention_mask -> softmax, and their
// backwards), its backward against central finite differences in double (finite_differences.h),
// 1 thread = 2 threads bit for bit in float, and every instruction-set path (softmax_kernels.h)
// against double loops. No CUDA twin: only the CPU fuses. Shapes (B,H,T,S), mask (B,T,S).
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "ops/ops_softmax_fused.h"

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"
#include "support/softmax_rows.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using std::vector;
using namespace tx::test;

// A mask with about a third of the keys dropped and one fully masked query row (b=1, t=T-1).
Vec random_mask(int B, int T, int S, uint64_t seed) {
    Vec mask = random_vec(static_cast<size_t>(B) * T * S, seed);
    for (double& m : mask) m = m > -0.4 ? 1.0 : 0.0;
    for (int s = 0; s < S; ++s) mask[((B - 1) * T + T - 1) * static_cast<size_t>(S) + s] = 0.0;
    return mask;
}

// Softmax of one row written as the definition: exp(scale·x - max) / Σ over the kept keys.
Vec loop_reference(const Vec& x, const Vec* mask, int B, int H, int T, int S, double scale) {
    Vec p(x.size(), 0.0);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const size_t row = ((static_cast<size_t>(b) * H + h) * T + t) * S;
                auto kept = [&](int s) { return !mask || (*mask)[(static_cast<size_t>(b) * T + t) * S + s] != 0.0; };
                double m = -INFINITY;
                for (int s = 0; s < S; ++s)
                    if (kept(s)) m = std::max(m, scale * x[row + s]);
                if (m == -INFINITY) continue;
                double sum = 0;
                for (int s = 0; s < S; ++s)
                    if (kept(s)) sum += std::exp(scale * x[row + s] - m);
                for (int s = 0; s < S; ++s)
                    if (kept(s)) p[row + s] = std::exp(scale * x[row + s] - m) / sum;
            }
    return p;
}

void expect_near_all(const Vec& got, const Vec& want, double tol) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(MaskedSoftmax, ForwardMatchesLoopAndUnfusedOps) {
    const int B = 2, H = 3, T = 4, S = 7;
    const double scale = 0.35;
    const Vec x = random_vec(static_cast<size_t>(B) * H * T * S, 31, -4.0, 4.0);
    const Vec mask = random_mask(B, T, S, 32);
    for (const Vec* m : {&mask, static_cast<const Vec*>(nullptr)}) {
        SCOPED_TRACE(m ? "with mask" : "no mask");
        Vec fused(x.size(), 123.0);
        tx::cpu::masked_softmax_forward(fused.data(), x.data(), m ? m->data() : nullptr, B, H, T, S, scale);
        expect_near_all(fused, loop_reference(x, m, B, H, T, S, scale), 1e-14);

        Vec scaled(x.size()), masked(x.size()), unfused(x.size());
        for (size_t i = 0; i < x.size(); ++i) scaled[i] = scale * x[i];
        tx::cpu::attention_mask_forward(masked.data(), scaled.data(), m ? m->data() : nullptr, B, H, T, S);
        tx::cpu::softmax_forward(unfused.data(), masked.data(), B * H * T, S);
        expect_near_all(fused, unfused, 1e-14);
    }
    // masked keys and the fully masked row get exactly 0
    Vec p(x.size());
    tx::cpu::masked_softmax_forward(p.data(), x.data(), mask.data(), B, H, T, S, scale);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s)
                    if (mask[(static_cast<size_t>(b) * T + t) * S + s] == 0.0) {
                        EXPECT_EQ(p[((static_cast<size_t>(b) * H + h) * T + t) * S + s], 0.0);
                    }
}

TEST(MaskedSoftmax, BackwardMatchesFiniteDifferences) {
    const int B = 2, H = 2, T = 3, S = 5;
    const double scale = 0.6;
    Vec x = random_vec(static_cast<size_t>(B) * H * T * S, 33, -2.0, 2.0);
    const Vec mask = random_mask(B, T, S, 34);
    const Vec g = random_vec(x.size(), 35);
    for (const Vec* m : {&mask, static_cast<const Vec*>(nullptr)}) {
        SCOPED_TRACE(m ? "with mask" : "no mask");
        Vec p(x.size());
        auto forward = [&] {
            tx::cpu::masked_softmax_forward(p.data(), x.data(), m ? m->data() : nullptr, B, H, T, S, scale);
            return p;
        };
        const Vec numeric = numeric_grad(x, g, forward);
        forward();   // p at x itself again (numeric_grad leaves it at the last probe)
        Vec dx(x.size(), 0.0);
        tx::cpu::masked_softmax_backward(dx.data(), g.data(), p.data(), m ? m->data() : nullptr, B, H, T, S, scale);
        EXPECT_TRUE(gradients_match(dx, numeric));

        // += rule: a second backward doubles the gradient
        Vec twice = dx;
        tx::cpu::masked_softmax_backward(twice.data(), g.data(), p.data(), m ? m->data() : nullptr, B, H, T, S,
                                         scale);
        for (size_t i = 0; i < dx.size(); ++i) EXPECT_DOUBLE_EQ(twice[i], 2 * dx[i]);
    }
}

TEST(MaskedSoftmax, BackwardMatchesUnfusedOps) {
    const int B = 2, H = 3, T = 4, S = 6;
    const double scale = 0.25;
    const Vec x = random_vec(static_cast<size_t>(B) * H * T * S, 36, -3.0, 3.0);
    const Vec mask = random_mask(B, T, S, 37);
    const Vec g = random_vec(x.size(), 38);
    Vec p(x.size());
    tx::cpu::masked_softmax_forward(p.data(), x.data(), mask.data(), B, H, T, S, scale);
    Vec fused(x.size(), 0.5);   // a nonzero start: backward adds
    tx::cpu::masked_softmax_backward(fused.data(), g.data(), p.data(), mask.data(), B, H, T, S, scale);

    Vec dmasked(x.size(), 0.0), dscaled(x.size(), 0.0);
    tx::cpu::softmax_backward(dmasked.data(), g.data(), p.data(), B * H * T, S);
    tx::cpu::attention_mask_backward(dscaled.data(), dmasked.data(), mask.data(), B, H, T, S);
    Vec unfused(x.size());
    for (size_t i = 0; i < x.size(); ++i) unfused[i] = 0.5 + scale * dscaled[i];
    expect_near_all(fused, unfused, 1e-14);
}

TEST(MaskedSoftmax, OneAndTwoThreadsGiveTheSameBits) {
    // 2·4·40 = 320 rows: above the threshold at which the rows are split between threads.
    const int B = 2, H = 4, T = 40, S = 37;
    const float scale = 0.125f;
    const Vec xd = random_vec(static_cast<size_t>(B) * H * T * S, 39, -6.0, 6.0);
    const Vec md = random_mask(B, T, S, 40);
    const Vec gd = random_vec(xd.size(), 41);
    const std::vector<float> x(xd.begin(), xd.end()), mask(md.begin(), md.end()), g(gd.begin(), gd.end());
    const int threads_before = tx::cpu_threads();
    // The same output buffers for both runs: Eigen's vectorised exp and sum peel a row's first
    // elements by address, so only the thread count may differ between the two.
    std::vector<float> p[2], dx[2], pbuf(x.size()), dxbuf(x.size());
    for (int threads : {1, 2}) {
        tx::set_cpu_threads(threads);
        std::fill(dxbuf.begin(), dxbuf.end(), 0.0f);
        tx::cpu::masked_softmax_forward(pbuf.data(), x.data(), mask.data(), B, H, T, S, scale);
        tx::cpu::masked_softmax_backward(dxbuf.data(), g.data(), pbuf.data(), mask.data(), B, H, T, S, scale);
        p[threads - 1] = pbuf;
        dx[threads - 1] = dxbuf;
    }
    tx::set_cpu_threads(threads_before);
    EXPECT_EQ(p[0], p[1]);
    EXPECT_EQ(dx[0], dx[1]);
    // and the float result is the loop reference's within float rounding
    const Vec want = loop_reference(xd, &md, B, H, T, S, scale);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(p[0][i], want[i], 1e-6) << "element " << i;
}

// ---- every instruction-set path ----

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

}  // namespace
