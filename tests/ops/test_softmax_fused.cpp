// The fused masked, scaled softmax (core/ops/ops_softmax_fused.h) against a plain loop reference and
// the unfused composition it replaces (scale·scores -> attention_mask -> softmax, and their
// backwards), its backward against central finite differences in double (finite_differences.h),
// and 1 thread = 2 threads bit for bit in float. Shapes (B,H,T,S), mask (B,T,S).
#include "tx/ops.h"
#include "ops/ops_softmax_fused.h"

#include "support/finite_differences.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

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

}  // namespace
