// The fused sublayer connection (core/ops/ops_add_norm.h: dropout, residual add and LayerNorm or
// RMSNorm in one pass) against the separate ops it replaces (bit for bit, on every instruction-set
// path), a loop reference, central finite differences in double (dropout with its fixed, seeded
// mask), the += rule, 1 thread = 2 threads, and whole training runs. No CUDA twin: only the CPU fuses.
// Shapes: x, sub, sum, out, mask (N,C); weight, bias (C); mean, rstd (N).
#include "tx/backend.h"
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "ops/ops_add_norm.h"
#include "tx/trainer.h"

#include "support/compare.h"
#include "support/finite_differences.h"
#include "support/norm_reference.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/every_path.h"

#include <cmath>
#include <vector>

namespace {

using namespace tx::test;
using Floats = std::vector<float>;

using tx::test::on_every_path;

// Inputs of one fused-connection case.
struct Case {
    int N, C;
    bool rms;
    float p;
    uint64_t seed = 1234;
    Floats x, sub, w, b, g;
    Case(int n, int c, bool r, float drop) : N(n), C(c), rms(r), p(drop) {
        const size_t NC = static_cast<size_t>(N) * C;
        x = to_float(random_vec(NC, 11, -2.0, 2.0));
        sub = to_float(random_vec(NC, 12, -2.0, 2.0));
        w = to_float(random_vec(C, 13, 0.5, 1.5));
        b = to_float(random_vec(C, 14));
        g = to_float(random_vec(NC, 15));
    }
    size_t size() const { return static_cast<size_t>(N) * C; }
};

struct Result {
    Floats out, sum, mask, mean, rstd, dx, dsub, dw, db;
};

// dropout_forward, residual_forward, layernorm/rmsnorm forward; then their backwards as the model
// runs them (transformer.cpp): the norm into a zeroed dsum, the residual into both branches, dropout.
Result unfused(const Case& k) {
    const int NC = static_cast<int>(k.size());
    Result r{Floats(NC), Floats(NC), Floats(NC), Floats(k.N), Floats(k.N), Floats(NC, 0.5f), Floats(NC, 0.0f),
             Floats(k.C, 0.25f), Floats(k.C, -0.25f)};
    Floats dropped(NC), dsum(NC, 0.0f), dsub_before_dropout(NC, 0.0f);
    const bool drop = k.p > 0;
    if (drop) tx::cpu::dropout_forward<float>(dropped.data(), r.mask.data(), k.sub.data(), NC, k.p, k.seed);
    tx::cpu::residual_forward<float>(r.sum.data(), k.x.data(), drop ? dropped.data() : k.sub.data(), NC);
    if (k.rms) {
        tx::cpu::rmsnorm_forward<float>(r.out.data(), r.rstd.data(), r.sum.data(), k.w.data(), k.N, k.C, 1e-5f);
        tx::cpu::rmsnorm_backward<float>(dsum.data(), r.dw.data(), k.g.data(), r.sum.data(), k.w.data(), r.rstd.data(),
                                         k.N, k.C);
    } else {
        tx::cpu::layernorm_forward<float>(r.out.data(), r.mean.data(), r.rstd.data(), r.sum.data(), k.w.data(),
                                          k.b.data(), k.N, k.C, 1e-5f);
        tx::cpu::layernorm_backward<float>(dsum.data(), r.dw.data(), r.db.data(), k.g.data(), r.sum.data(), k.w.data(),
                                           r.mean.data(), r.rstd.data(), k.N, k.C);
    }
    tx::cpu::residual_backward<float>(r.dx.data(), drop ? dsub_before_dropout.data() : r.dsub.data(), dsum.data(), NC);
    if (drop) tx::cpu::dropout_backward<float>(r.dsub.data(), dsub_before_dropout.data(), r.mask.data(), NC);
    return r;
}

Result fused(const Case& k) {
    const int NC = static_cast<int>(k.size());
    Result r{Floats(NC), Floats(NC), Floats(NC), Floats(k.N), Floats(k.N), Floats(NC, 0.5f), Floats(NC, 0.0f),
             Floats(k.C, 0.25f), Floats(k.C, -0.25f)};
    float* mask = k.p > 0 ? r.mask.data() : nullptr;
    float* mean = k.rms ? nullptr : r.mean.data();
    tx::cpu::residual_dropout_norm_forward<float>(r.out.data(), r.sum.data(), mask, mean, r.rstd.data(), k.x.data(),
                                                  k.sub.data(), k.w.data(), k.rms ? nullptr : k.b.data(), k.N, k.C, k.p,
                                                  k.seed, 1e-5f);
    tx::cpu::residual_dropout_norm_backward<float>(r.dx.data(), r.dsub.data(), r.dw.data(),
                                                   k.rms ? nullptr : r.db.data(), k.g.data(), r.sum.data(), mask,
                                                   k.w.data(), mean, r.rstd.data(), k.N, k.C);
    return r;
}

TEST(AddNorm, MatchesTheSeparateOpsBitForBitOnEveryPath) {
    on_every_path([] {
        for (int C : {1, 45, 128, 129})
            for (bool rms : {false, true})
                for (float p : {0.0f, 0.1f, 0.5f}) {
                    SCOPED_TRACE("C = " + std::to_string(C) + (rms ? " RMSNorm" : " LayerNorm") + " p = " +
                                 std::to_string(p));
                    const Case k(37, C, rms, p);
                    const Result a = unfused(k), f = fused(k);
                    EXPECT_EQ(f.out, a.out);
                    EXPECT_EQ(f.sum, a.sum);
                    if (p > 0) { EXPECT_EQ(f.mask, a.mask); }
                    if (!rms) { EXPECT_EQ(f.mean, a.mean); }
                    EXPECT_EQ(f.rstd, a.rstd);
                    EXPECT_EQ(f.dx, a.dx);
                    EXPECT_EQ(f.dsub, a.dsub);
                    EXPECT_EQ(f.dw, a.dw);
                    if (!rms) { EXPECT_EQ(f.db, a.db); }
                }
    });
}

TEST(AddNorm, ForwardMatchesLoopReference) {
    const Case k(37, 45, false, 0.3f);
    const Result f = fused(k);
    // The mask as the definition: keep ⇔ u ≥ p, kept values scaled by 1/(1−p); about p dropped.
    int dropped = 0;
    for (float m : f.mask) {
        ASSERT_TRUE(m == 0.0f || m == 1.0f / (1.0f - k.p)) << m;
        dropped += m == 0.0f;
    }
    EXPECT_NEAR(static_cast<double>(dropped) / k.size(), k.p, 0.05);
    Vec sum(k.size()), out(k.size()), mean(k.N), rstd(k.N);
    for (size_t i = 0; i < k.size(); ++i) sum[i] = double(k.x[i]) + double(k.sub[i]) * f.mask[i];
    const Vec w(k.w.begin(), k.w.end()), b(k.b.begin(), k.b.end());
    norm_reference(out, &mean, rstd, sum, w, &b, k.N, k.C, 1e-5);
    EXPECT_TRUE(close(f.sum, sum, 1e-6, 1e-6));
    EXPECT_TRUE(close(f.out, out, 2e-5, 1e-4));
    EXPECT_TRUE(close(f.mean, mean, 1e-6, 1e-5));
    EXPECT_TRUE(close(f.rstd, rstd, 1e-6, 1e-4));
}

TEST(AddNorm, BackwardMatchesFiniteDifferences) {
    // The mask is a function of (seed, index) alone, so the fused op is a fixed function of its
    // inputs and central differences see exactly the dropout the analytic gradient goes through.
    const int N = 3, C = 5;
    const double p = 0.3;
    const uint64_t seed = 99;
    for (bool rms : {false, true}) {
        SCOPED_TRACE(rms ? "RMSNorm" : "LayerNorm");
        Vec x = random_vec(N * C, 21), sub = random_vec(N * C, 22), w = random_vec(C, 23, 0.5, 1.5),
            b = random_vec(C, 24);
        const Vec g = random_vec(N * C, 25);
        Vec out(N * C), sum(N * C), mask(N * C), mean(N), rstd(N);
        auto forward = [&] {
            tx::cpu::residual_dropout_norm_forward<double>(out.data(), sum.data(), mask.data(),
                                                           rms ? nullptr : mean.data(), rstd.data(), x.data(),
                                                           sub.data(), w.data(), rms ? nullptr : b.data(), N, C, p,
                                                           seed, 1e-5);
            return out;
        };
        forward();
        Vec dx(N * C, 0.0), dsub(N * C, 0.0), dw(C, 0.0), db(C, 0.0);
        tx::cpu::residual_dropout_norm_backward<double>(dx.data(), dsub.data(), dw.data(), rms ? nullptr : db.data(),
                                                        g.data(), sum.data(), mask.data(), w.data(),
                                                        rms ? nullptr : mean.data(), rstd.data(), N, C);
        int dropped = 0;
        for (double m : mask) dropped += m == 0.0;
        ASSERT_GT(dropped, 0);   // the seed drops some values, so the mask is exercised
        EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
        EXPECT_TRUE(gradients_match(dsub, numeric_grad(sub, g, forward)));
        EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
        if (!rms) { EXPECT_TRUE(gradients_match(db, numeric_grad(b, g, forward))); }
        // += : a second backward into the same buffers doubles every gradient.
        Vec dx2 = dx, dsub2 = dsub, dw2 = dw, db2 = db;
        tx::cpu::residual_dropout_norm_backward<double>(dx2.data(), dsub2.data(), dw2.data(), rms ? nullptr : db2.data(),
                                                        g.data(), sum.data(), mask.data(), w.data(),
                                                        rms ? nullptr : mean.data(), rstd.data(), N, C);
        expect_twice(dx, dx2);
        expect_twice(dsub, dsub2);
        expect_twice(dw, dw2);
        if (!rms) expect_twice(db, db2);
    }
}

TEST(ResidualDropout, MatchesTheSeparateOpsAndFiniteDifferences) {
    on_every_path([] {
        for (int C : {1, 45, 128}) {
            SCOPED_TRACE("C = " + std::to_string(C));
            const int N = 37 * C;
            const Case k(37, C, false, 0.2f);
            Floats mask_u(N), dropped(N), out_u(N), dx_u(N, 0.5f), dsub_before(N, 0.0f), dsub_u(N, 0.0f);
            tx::cpu::dropout_forward<float>(dropped.data(), mask_u.data(), k.sub.data(), N, k.p, k.seed);
            tx::cpu::residual_forward<float>(out_u.data(), k.x.data(), dropped.data(), N);
            tx::cpu::residual_backward<float>(dx_u.data(), dsub_before.data(), k.g.data(), N);
            tx::cpu::dropout_backward<float>(dsub_u.data(), dsub_before.data(), mask_u.data(), N);
            Floats mask_f(N), out_f(N), dx_f(N, 0.5f), dsub_f(N, 0.0f);
            tx::cpu::residual_dropout_forward<float>(out_f.data(), mask_f.data(), k.x.data(), k.sub.data(), N, k.p,
                                                     k.seed);
            tx::cpu::residual_dropout_backward<float>(dx_f.data(), dsub_f.data(), k.g.data(), mask_f.data(), N);
            EXPECT_EQ(mask_f, mask_u);
            EXPECT_EQ(out_f, out_u);
            EXPECT_EQ(dx_f, dx_u);
            EXPECT_EQ(dsub_f, dsub_u);
        }
    });
    // double: against central differences, dropout's fixed mask included
    const int M = 12;
    Vec x = random_vec(M, 31), sub = random_vec(M, 32), out(M), mask(M);
    const Vec g = random_vec(M, 33);
    auto forward = [&] {
        tx::cpu::residual_dropout_forward<double>(out.data(), mask.data(), x.data(), sub.data(), M, 0.5, 7);
        return out;
    };
    forward();
    Vec dx(M, 0.0), dsub(M, 0.0);
    tx::cpu::residual_dropout_backward<double>(dx.data(), dsub.data(), g.data(), mask.data(), M);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_TRUE(gradients_match(dsub, numeric_grad(sub, g, forward)));
}

TEST(AddNorm, OneAndTwoThreadsGiveTheSameBits) {
    const Case k(64, 129, false, 0.1f);   // 64 rows: split between two threads
    const int before = tx::cpu_threads();
    Result r[2];
    for (int threads : {1, 2}) {
        tx::set_cpu_threads(threads);
        r[threads - 1] = fused(k);
    }
    tx::set_cpu_threads(before);
    EXPECT_EQ(r[0].out, r[1].out);
    EXPECT_EQ(r[0].mask, r[1].mask);
    EXPECT_EQ(r[0].dx, r[1].dx);
    EXPECT_EQ(r[0].dsub, r[1].dsub);
    EXPECT_EQ(r[0].dw, r[1].dw);
    EXPECT_EQ(r[0].db, r[1].db);
}

// Whole training runs, fused and separate, from the same seed: equal loss and gradient norm at every
// step, since the fused ops reproduce the separate ops' bits (the test above), dropout masks included.
TEST(AddNorm, TrainingMatchesTheSeparateOps) {
    for (auto [placement, kind] : {std::pair{tx::NormPlacement::Post, tx::NormKind::LayerNorm},
                                   std::pair{tx::NormPlacement::Pre, tx::NormKind::LayerNorm},
                                   std::pair{tx::NormPlacement::Post, tx::NormKind::RmsNorm}}) {
        SCOPED_TRACE(std::string(tx::to_string(placement)) + (kind == tx::NormKind::RmsNorm ? " RMSNorm" : ""));
        tx::ModelConfig m = tx::preset_model(tx::Preset::Tiny);
        m.d_model = 24;
        m.heads = 2;
        m.d_ff = 40;
        m.encoder_layers = m.decoder_layers = 2;
        m.max_len = 16;
        m.dropout = 0.2f;
        m.norm = placement;
        m.norm_kind = kind;
        tx::TrainingConfig t = tx::preset_training(tx::Preset::Tiny, tx::TaskKind::Copy);
        t.batch = 8;
        t.length = 6;
        t.eval_sequences = 8;
        tx::TrainingRun with(m, t, tx::make_cpu_backend), without(m, t, tx::make_cpu_backend_unfused_add_norm);
        ASSERT_TRUE(with.backend().fuses_add_norm());
        ASSERT_FALSE(without.backend().fuses_add_norm());
        for (int step = 0; step < 8; ++step) {
            const auto a = with.train_step(), b = without.train_step();
            ASSERT_EQ(a.loss, b.loss) << "step " << step;
            ASSERT_EQ(a.grad_norm, b.grad_norm) << "step " << step;
        }
        EXPECT_EQ(with.parameters(), without.parameters());
    }
}

}  // namespace
