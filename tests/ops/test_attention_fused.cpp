// Fused attention (online softmax over key tiles, ops.h) against a plain double loop of
// scores -> mask -> softmax -> context, on shapes that cross the key-tile boundary, with T != S,
// odd dk, padding and causal masks and fully masked rows; and the model's fused mode against its
// step-by-step mode. q (B,H,T,dk), k and v (B,H,S,dk), mask (B,T,S), out (B,H,T,dk).
// CUDA twin: tests/gpu/test_attention_fused_cuda.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tx/backend.h"
#include "tx/ops.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace {

using std::vector;

struct Problem {
    int B, H, T, S, dk;
    vector<double> q, k, v, mask;
};

// Random q, k, v; the mask keeps key s for query t when s < key_len[b] (padding) and, when
// causal, s <= t; query row t = 1 of batch 0 masks every key (a fully masked row).
Problem make_problem(int B, int H, int T, int S, int dk, bool causal, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-2.0, 2.0);
    Problem p{B, H, T, S, dk, {}, {}, {}, {}};
    auto fill = [&](vector<double>& x, size_t n) {
        x.resize(n);
        for (double& e : x) e = dist(rng);
    };
    fill(p.q, static_cast<size_t>(B) * H * T * dk);
    fill(p.k, static_cast<size_t>(B) * H * S * dk);
    fill(p.v, static_cast<size_t>(B) * H * S * dk);
    p.mask.assign(static_cast<size_t>(B) * T * S, 0.0);
    for (int b = 0; b < B; ++b) {
        const int key_len = S - b * (S / 3);   // later batch rows are padded more
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s)
                p.mask[(static_cast<size_t>(b) * T + t) * S + s] =
                    (s < key_len && (!causal || s <= t) && !(b == 0 && t == 1)) ? 1.0 : 0.0;
    }
    return p;
}

// The four steps written out in double, independently of ops.h.
vector<double> reference(const Problem& p, double scale) {
    vector<double> out(static_cast<size_t>(p.B) * p.H * p.T * p.dk, 0.0);
    vector<double> w(static_cast<size_t>(p.S));
    for (int b = 0; b < p.B; ++b)
        for (int h = 0; h < p.H; ++h)
            for (int t = 0; t < p.T; ++t) {
                const size_t bh = static_cast<size_t>(b) * p.H + h;
                double maxval = -INFINITY;
                for (int s = 0; s < p.S; ++s) {
                    if (p.mask[(static_cast<size_t>(b) * p.T + t) * p.S + s] == 0.0) {
                        w[s] = -INFINITY;
                        continue;
                    }
                    double dot = 0.0;
                    for (int d = 0; d < p.dk; ++d)
                        dot += p.q[(bh * p.T + t) * p.dk + d] * p.k[(bh * p.S + s) * p.dk + d];
                    w[s] = dot * scale;
                    maxval = std::max(maxval, w[s]);
                }
                if (maxval == -INFINITY) continue;   // fully masked: zeros
                double sum = 0.0;
                for (int s = 0; s < p.S; ++s) sum += w[s] == -INFINITY ? 0.0 : std::exp(w[s] - maxval);
                for (int s = 0; s < p.S; ++s) {
                    const double prob = w[s] == -INFINITY ? 0.0 : std::exp(w[s] - maxval) / sum;
                    for (int d = 0; d < p.dk; ++d) out[(bh * p.T + t) * p.dk + d] += prob * p.v[(bh * p.S + s) * p.dk + d];
                }
            }
    return out;
}

template <typename Real>
vector<Real> convert(const vector<double>& x) {
    return vector<Real>(x.begin(), x.end());
}

template <typename Real>
void check_fused(const Problem& p, double scale, double atol, double rtol) {
    const vector<Real> q = convert<Real>(p.q), k = convert<Real>(p.k), v = convert<Real>(p.v),
                       mask = convert<Real>(p.mask);
    vector<Real> out(static_cast<size_t>(p.B) * p.H * p.T * p.dk, Real(-7));   // overwritten
    tx::cpu::fused_attention_forward<Real>(out.data(), q.data(), k.data(), v.data(), mask.data(), p.B, p.H, p.T, p.S,
                                           p.dk, static_cast<Real>(scale));
    const vector<double> ref = reference(p, scale);
    for (size_t i = 0; i < ref.size(); ++i)
        ASSERT_NEAR(static_cast<double>(out[i]), ref[i], atol + rtol * std::abs(ref[i])) << "at " << i;
    // query row 1 of batch 0 sees no key: its context is exactly zero in every head
    for (int h = 0; h < p.H; ++h)
        for (int d = 0; d < p.dk; ++d) EXPECT_EQ(out[(static_cast<size_t>(h) * p.T + 1) * p.dk + d], Real(0));
}

TEST(FusedAttention, MatchesTheFourStepsInDoubleAcrossKeyTiles) {
    // S = 70 and 33 cross the 32-key tiles with a partial last tile; dk 5 and 16; T != S.
    for (bool causal : {false, true}) {
        check_fused<double>(make_problem(2, 3, 9, 70, 5, causal, 1), 1.0 / std::sqrt(5.0), 1e-12, 1e-12);
        check_fused<double>(make_problem(3, 2, 40, 33, 16, causal, 2), 0.25, 1e-12, 1e-12);
    }
}

TEST(FusedAttention, FloatMatchesWithinRounding) {
    check_fused<float>(make_problem(2, 4, 17, 65, 8, true, 3), 1.0 / std::sqrt(8.0), 1e-5, 1e-4);
    // unscaled scores (the saturation demonstration) give large exponents: still finite and close
    check_fused<float>(make_problem(1, 2, 12, 40, 32, false, 4), 1.0, 1e-5, 1e-4);
}

TEST(FusedAttention, NullMaskAttendsToEveryKey) {
    Problem p = make_problem(1, 2, 5, 37, 4, false, 5);
    const vector<double> q = p.q, k = p.k, v = p.v;
    vector<double> out(static_cast<size_t>(1) * 2 * 5 * 4);
    tx::cpu::fused_attention_forward<double>(out.data(), q.data(), k.data(), v.data(), nullptr, 1, 2, 5, 37, 4, 0.5);
    std::fill(p.mask.begin(), p.mask.end(), 1.0);
    const vector<double> ref = reference(p, 0.5);
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[i], ref[i], 1e-12);
}

// The model in evaluation mode: fused attention gives the same contexts and log-probabilities as
// the four steps, and says that scores, masked scores and probabilities were not materialised.
TEST(FusedAttention, ModelFusedModeMatchesStepByStep) {
    tx::ModelConfig c;
    c.src_vocab = c.tgt_vocab = 20;
    c.d_model = 16;
    c.heads = 4;
    c.d_ff = 32;
    c.encoder_layers = c.decoder_layers = 2;
    c.max_len = 12;
    auto backend = tx::make_cpu_backend();
    tx::Transformer model(c, *backend);
    model.set_parameters(tx::init_parameters(model.table(), 11));
    model.set_batch({{5, 6, 7, 2}, {8, 9, 10, 11, 12, 13, 2}}, {{1, 5, 6}, {1, 9, 10, 11, 12}});
    model.forward();
    vector<vector<float>> step_by_step;
    for (size_t i = 0; i < model.step_count(); ++i) step_by_step.push_back(model.step_output(i));

    model.options().fused_attention = true;
    model.forward();
    for (size_t i = 0; i < model.step_count(); ++i) {
        const tx::StepInfo& info = model.steps()[i];
        SCOPED_TRACE(info.name);
        const bool matrix_step =
            info.kind == tx::StepKind::Scores || info.kind == tx::StepKind::Mask || info.kind == tx::StepKind::Softmax;
        EXPECT_EQ(info.materialised, !matrix_step);
        if (matrix_step) continue;
        const vector<float> fused = model.step_output(i);
        for (size_t j = 0; j < fused.size(); ++j)
            ASSERT_NEAR(fused[j], step_by_step[i][j], 1e-5 + 1e-4 * std::abs(step_by_step[i][j])) << "at " << j;
    }
    // training ignores the option: every step is computed, but for the mask step where the
    // backend does mask and softmax in one pass (the CPU's masked_softmax_forward)
    model.options().training = true;
    model.forward();
    const bool fused_softmax = model.backend().fuses_masked_softmax();
    for (const tx::StepInfo& info : model.steps())
        EXPECT_EQ(info.materialised, !(fused_softmax && info.kind == tx::StepKind::Mask)) << info.name;
}

}  // namespace
