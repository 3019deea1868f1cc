// The loss (core/ops/ops_loss.cpp: log-softmax and label-smoothed cross-entropy, and the fused
// gradient training uses): forwards against loops written here and hand-worked values, backwards
// against central finite differences in double (alone and through log-softmax) and the += rule,
// and log-softmax with its backwards on every instruction-set path. Shapes: logits and log_probs
// (R,V), targets and losses (R). CUDA twin: tests/gpu/test_loss_cuda.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"
#include "support/random_ids.h"
#include "support/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using std::vector;
using namespace tx::test;

// the smoothed target distribution of the Annotated Transformer's LabelSmoothing, one row
vector<double> ref_target(int target, int V, double smoothing, int pad) {
    vector<double> t(V, smoothing / (V - 2));
    t[pad] = 0;
    t[target] = 1 - smoothing;
    return t;
}

// ---- forward ----

TEST(LogSoftmax, ForwardMatchesLoop) {
    for (auto [R, V] : {std::pair{4, 11}, std::pair{1, 2}, std::pair{3, 100}}) {
        const vector<float> x = random_floats(static_cast<size_t>(R) * V, 30, -5.0f, 5.0f);
        vector<float> out(x.size());
        tx::cpu::log_softmax_forward(out.data(), x.data(), R, V);
        vector<double> ref(x.size());
        for (int r = 0; r < R; ++r) {
            double sum = 0;
            for (int v = 0; v < V; ++v) sum += std::exp(double(x[r * V + v]));
            for (int v = 0; v < V; ++v) ref[r * V + v] = x[r * V + v] - std::log(sum);
        }
        expect_close(out, ref, 1e-5, 1e-6);
    }
}

// One row, V = 5, pad = 0, target = 2, smoothing = 0.3, log_probs = log(0.1, 0.2, 0.4, 0.2, 0.1):
//   target t = (0, 0.3/3, 0.7, 0.3/3, 0.3/3) = (0, 0.1, 0.7, 0.1, 0.1)
//   loss = Σ t (log t - log p)   (the pad term is 0·log 0 = 0)
//        = 0.1 log(0.1/0.2) + 0.7 log(0.7/0.4) + 0.1 log(0.1/0.2) + 0.1 log(0.1/0.1)
//        = 0.2 log 0.5 + 0.7 log 1.75 = -0.1386294361 + 0.3917310516 = 0.2531016154
// Without smoothing: t = one-hot(2), loss = -log 0.4 = 0.9162907319.
TEST(CrossEntropy, HandComputedOneRow) {
    const vector<double> log_probs = {std::log(0.1), std::log(0.2), std::log(0.4), std::log(0.2), std::log(0.1)};
    const int32_t target = 2;
    double loss = -1;
    tx::cpu::cross_entropy_forward(&loss, log_probs.data(), &target, 1, 5, 0.3, 0);
    EXPECT_NEAR(loss, 0.25310161544280674, 1e-12);
    tx::cpu::cross_entropy_forward(&loss, log_probs.data(), &target, 1, 5, 0.0, 0);
    EXPECT_NEAR(loss, 0.916290731874155, 1e-12);
    // float, as the model runs it
    vector<float> lpf(log_probs.begin(), log_probs.end());
    float lossf = -1;
    tx::cpu::cross_entropy_forward(&lossf, lpf.data(), &target, 1, 5, 0.3f, 0);
    EXPECT_NEAR(lossf, 0.25310161544280674, 1e-6);
}

TEST(CrossEntropy, NoSmoothingIsNllAndPadRowsGiveZero) {
    const int R = 6, V = 9, pad = 1;
    const vector<float> x = random_floats(static_cast<size_t>(R) * V, 31, -3.0f, 3.0f);
    vector<float> lp(x.size());
    tx::cpu::log_softmax_forward(lp.data(), x.data(), R, V);
    const vector<int32_t> targets = {0, 4, pad, 8, 2, pad};
    vector<float> losses(R, -1.0f);
    tx::cpu::cross_entropy_forward(losses.data(), lp.data(), targets.data(), R, V, 0.0f, pad);
    for (int r = 0; r < R; ++r) {
        if (targets[r] == pad) {
            EXPECT_EQ(losses[r], 0.0f);
        } else {
            EXPECT_EQ(losses[r], -lp[r * V + targets[r]]);
        }
    }
    // smoothing does not give pad rows a loss either
    tx::cpu::cross_entropy_forward(losses.data(), lp.data(), targets.data(), R, V, 0.1f, pad);
    EXPECT_EQ(losses[2], 0.0f);
    EXPECT_EQ(losses[5], 0.0f);
}

TEST(CrossEntropy, SmoothedMatchesLoop) {
    const int R = 7, V = 13;
    const vector<float> x = random_floats(static_cast<size_t>(R) * V, 32, -3.0f, 3.0f);
    vector<float> lp(x.size());
    tx::cpu::log_softmax_forward(lp.data(), x.data(), R, V);
    const vector<int32_t> targets = random_ids(R, V, 33);
    for (int pad : {0, 5}) {
        vector<float> losses(R);
        tx::cpu::cross_entropy_forward(losses.data(), lp.data(), targets.data(), R, V, 0.1f, pad);
        vector<double> ref(R, 0.0);
        for (int r = 0; r < R; ++r) {
            if (targets[r] == pad) continue;
            const vector<double> t = ref_target(targets[r], V, 0.1, pad);
            for (int v = 0; v < V; ++v)
                if (t[v] > 0) ref[r] += t[v] * (std::log(t[v]) - lp[r * V + v]);
        }
        expect_close(losses, ref, 1e-5, 1e-5);
    }
}

// ---- backward ----

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

// ---- every instruction-set path ----

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

}  // namespace
