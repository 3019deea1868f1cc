// LayerNorm and RMSNorm (core/ops/ops_norm.cpp): forwards against loops written here from the
// definitions (biased variance as torch.nn.LayerNorm; Zhang & Sennrich's eps inside the root), the
// parameter gradients at every row count, the backwards against central finite differences in
// double and the += rule, every instruction-set path (norm_kernels.h) at edge row lengths, and the
// PyTorch fixture. Shapes: x and out (N,C); weight, bias (C); mean, rstd (N).
// CUDA twin: tests/gpu/test_norm_cuda.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/norm_reference.h"
#include "support/random_floats.h"
#include "support/variant_op_fixtures.h"

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace {

using std::vector;
using Floats = std::vector<float>;
using namespace tx::test;

// ---- forward ----

TEST(LayerNorm, ForwardMatchesLoop) {
    for (auto [N, C] : {std::pair{5, 7}, std::pair{3, 64}, std::pair{1, 1}, std::pair{4, 33}}) {
        const float eps = 1e-5f;
        const vector<float> x = random_floats(static_cast<size_t>(N) * C, 24, -2.0f, 3.0f);
        const vector<float> w = random_floats(C, 25, 0.5f, 1.5f);
        const vector<float> b = random_floats(C, 26);
        vector<float> out(x.size()), mean(N), rstd(N);
        tx::cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, eps);
        vector<double> ref(x.size()), ref_mean(N), ref_rstd(N);
        for (int n = 0; n < N; ++n) {
            double m = 0, var = 0;
            for (int c = 0; c < C; ++c) m += x[n * C + c];
            m /= C;
            for (int c = 0; c < C; ++c) var += (x[n * C + c] - m) * (x[n * C + c] - m);
            var /= C;   // biased, as torch.nn.LayerNorm
            const double s = 1.0 / std::sqrt(var + eps);
            for (int c = 0; c < C; ++c) ref[n * C + c] = (x[n * C + c] - m) * s * w[c] + b[c];
            ref_mean[n] = m;
            ref_rstd[n] = s;
        }
        // C = 1: var = 0, rstd = 1/sqrt(eps) ~ 316 amplifies float rounding of x - mean
        const double tol = C == 1 ? 1e-3 : 1e-5;
        expect_close(out, ref, tol, tol);
        expect_close(mean, ref_mean, 1e-6, 1e-6);
        expect_close(rstd, ref_rstd, 1e-5, 1e-5);
    }
}

// The weight and bias gradients of LayerNorm and RMSNorm sum dout·x̂ and dout over the rows, for
// every column: checked against a double loop at row counts below, at and above the point where
// the work is split by columns (32 rows), with more columns than one block of 16 (fewer than 32
// rows once left every column past the 16th untouched).
TEST(NormParameterGradients, EveryColumnAtEveryRowCount) {
    for (auto [N, C] : {std::pair{5, 40}, std::pair{12, 33}, std::pair{31, 17}, std::pair{32, 40}, std::pair{70, 50}}) {
        const vector<float> x = random_floats(static_cast<size_t>(N) * C, 41, -2.0f, 3.0f);
        const vector<float> dout = random_floats(static_cast<size_t>(N) * C, 42);
        const vector<float> w = random_floats(C, 43, 0.5f, 1.5f);
        vector<float> out(x.size()), mean(N), rstd(N), dinp(x.size(), 0.0f), dw(C, 0.0f), db(C, 0.0f);
        tx::cpu::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), w.data(), N, C, 1e-5f);
        tx::cpu::layernorm_backward(dinp.data(), dw.data(), db.data(), dout.data(), x.data(), w.data(), mean.data(),
                                    rstd.data(), N, C);
        vector<double> ref_dw(C, 0.0), ref_db(C, 0.0), rms_dw(C, 0.0);
        for (int n = 0; n < N; ++n) {
            double m = 0, var = 0, squares = 0;
            for (int c = 0; c < C; ++c) m += x[n * C + c], squares += double(x[n * C + c]) * x[n * C + c];
            m /= C;
            for (int c = 0; c < C; ++c) var += (x[n * C + c] - m) * (x[n * C + c] - m);
            const double s = 1.0 / std::sqrt(var / C + 1e-5), r = 1.0 / std::sqrt(squares / C + 1e-5);
            for (int c = 0; c < C; ++c) {
                ref_dw[c] += dout[n * C + c] * (x[n * C + c] - m) * s;
                ref_db[c] += dout[n * C + c];
                rms_dw[c] += dout[n * C + c] * x[n * C + c] * r;
            }
        }
        expect_close(dw, ref_dw, 1e-4, 1e-4);
        expect_close(db, ref_db, 1e-4, 1e-4);
        // RMSNorm: weight only, x̂ = x / rms(x).
        vector<float> rout(x.size()), rrstd(N), rdinp(x.size(), 0.0f), rdw(C, 0.0f);
        tx::cpu::rmsnorm_forward(rout.data(), rrstd.data(), x.data(), w.data(), N, C, 1e-5f);
        tx::cpu::rmsnorm_backward(rdinp.data(), rdw.data(), dout.data(), x.data(), w.data(), rrstd.data(), N, C);
        expect_close(rdw, rms_dw, 1e-4, 1e-4);
    }
}

TEST(RmsNorm, ForwardMatchesLoop) {
    for (auto [N, C, eps] : {std::tuple{1, 1, 1e-5}, {3, 7, 1e-5}, {4, 16, 0.5}, {2, 128, 1e-6}}) {
        SCOPED_TRACE(testing::Message() << "N=" << N << " C=" << C << " eps=" << eps);
        const Vec x = random_vec(static_cast<size_t>(N) * C, 200 + C, -3.0, 3.0), w = random_vec(C, 201, 0.5, 1.5);
        Vec ref(x.size()), ref_rstd(N);
        for (int n = 0; n < N; ++n) {
            double sq = 0;
            for (int c = 0; c < C; ++c) sq += x[n * C + c] * x[n * C + c];
            const double rms = std::sqrt(sq / C + eps);   // Zhang & Sennrich eq. 4, eps inside the root
            ref_rstd[n] = 1.0 / rms;
            for (int c = 0; c < C; ++c) ref[n * C + c] = x[n * C + c] / rms * w[c];
        }
        Vec out(x.size(), std::nan("")), rstd(N, std::nan(""));
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        EXPECT_TRUE(close(out, ref, 1e-14, 1e-13));
        EXPECT_TRUE(close(rstd, ref_rstd, 1e-14, 1e-13));
        std::vector<float> xf = to_float(x), wf = to_float(w), of(x.size(), NAN), rf(N, NAN);
        tx::cpu::rmsnorm_forward(of.data(), rf.data(), xf.data(), wf.data(), N, C, static_cast<float>(eps));
        EXPECT_TRUE(close(of, ref, 1e-5, 1e-5));
        EXPECT_TRUE(close(rf, ref_rstd, 1e-6, 1e-5));
    }
}

TEST(RmsNorm, UnitWeightGivesUnitRmsAndEpsMatters) {
    const int C = 64;
    const Vec x = random_vec(C, 210, -5.0, 5.0), ones(C, 1.0);
    Vec out(C), rstd(1);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), ones.data(), 1, C, 0.0);
    double sq = 0;
    for (double v : out) sq += v * v;
    EXPECT_NEAR(std::sqrt(sq / C), 1.0, 1e-14);
    // no mean is removed: a constant row stays constant (and positive), unlike LayerNorm's zeros
    const Vec constant(C, 3.0);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), constant.data(), ones.data(), 1, C, 0.0);
    for (double v : out) EXPECT_NEAR(v, 1.0, 1e-15);
    // eps inside the root: a zero row gives zeros and rstd = 1/sqrt(eps), never NaN
    const Vec zero(C, 0.0);
    tx::cpu::rmsnorm_forward(out.data(), rstd.data(), zero.data(), ones.data(), 1, C, 0.25);
    EXPECT_EQ(rstd[0], 2.0);
    for (double v : out) EXPECT_EQ(v, 0.0);
}

// ---- backward ----

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

TEST(Backward, RmsNorm) {
    const int N = 3, C = 5;
    const double eps = 1e-5;
    Vec x = random_vec(N * C, 220, -2.0, 2.0), w = random_vec(C, 221, 0.5, 1.5);
    const Vec g = random_vec(N * C, 222);
    Vec out(x.size()), rstd(N);
    auto forward = [&] {
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        return out;
    };
    forward();
    Vec dx(x.size(), 0.0), dw(C, 0.0);
    tx::cpu::rmsnorm_backward(dx.data(), dw.data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    check_accumulates({x.size(), w.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::rmsnorm_backward(d[0].data(), d[1].data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
    });
}

// ---- every instruction-set path ----

TEST(NormRows, FloatMatchesDoubleReferenceOnEveryPathAndRowLength) {
    const int N = 37;
    const double eps = 1e-5;
    on_every_path([&] {
        for (int C : {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 128, 129, 1000, 1024}) {
            SCOPED_TRACE("C = " + std::to_string(C));
            for (bool rms : {false, true}) {
                const size_t NC = static_cast<size_t>(N) * C;
                Vec x = random_vec(NC, 1 + C, 2.0, 4.0);   // off-centre rows: the mean matters
                const Vec w = random_vec(C, 2 + C, 0.5, 1.5), b = random_vec(C, 3 + C);
                const Vec g = random_vec(NC, 4 + C), prior = random_vec(NC, 5 + C);
                const Vec prior_w = random_vec(C, 6 + C), prior_b = random_vec(C, 7 + C);
                Vec out(NC), mean(N), rstd(N);
                norm_reference(out, rms ? nullptr : &mean, rstd, x, w, rms ? nullptr : &b, N, C, eps);
                // Backward reference: dx = rstd·(dxhat − mean(dxhat) − xhat·mean(dxhat·xhat)), += on prior.
                Vec dx = prior, dw = prior_w, db = prior_b;
                for (int n = 0; n < N; ++n) {
                    const double m = rms ? 0.0 : mean[n], s = rstd[n];
                    double a = 0, bb = 0;
                    for (int c = 0; c < C; ++c) {
                        const double xhat = (x[n * C + c] - m) * s, dxhat = g[n * C + c] * w[c];
                        a += dxhat;
                        bb += dxhat * xhat;
                        dw[c] += xhat * g[n * C + c];
                        db[c] += g[n * C + c];
                    }
                    a = rms ? 0.0 : a / C;
                    bb /= C;
                    for (int c = 0; c < C; ++c) {
                        const double xhat = (x[n * C + c] - m) * s, dxhat = g[n * C + c] * w[c];
                        dx[n * C + c] += s * (dxhat - a - xhat * bb);
                    }
                }
                const Floats xf = to_float(x), wf = to_float(w), bf = to_float(b), gf = to_float(g);
                Floats o(NC), mf(N), rf(N), dxf = to_float(prior), dwf = to_float(prior_w), dbf = to_float(prior_b);
                if (rms) {
                    tx::cpu::rmsnorm_forward<float>(o.data(), rf.data(), xf.data(), wf.data(), N, C, 1e-5f);
                    tx::cpu::rmsnorm_backward<float>(dxf.data(), dwf.data(), gf.data(), xf.data(), wf.data(), rf.data(),
                                                     N, C);
                } else {
                    tx::cpu::layernorm_forward<float>(o.data(), mf.data(), rf.data(), xf.data(), wf.data(), bf.data(),
                                                      N, C, 1e-5f);
                    tx::cpu::layernorm_backward<float>(dxf.data(), dwf.data(), dbf.data(), gf.data(), xf.data(),
                                                       wf.data(), mf.data(), rf.data(), N, C);
                    EXPECT_TRUE(close(mf, mean, 1e-5, 1e-6));
                    EXPECT_TRUE(close(dbf, db, 1e-4, 1e-5));
                }
                // float rounding of O(1) values over rows up to 1024 long (and C = 1: var 0, rstd 1/sqrt(eps))
                EXPECT_TRUE(close(rf, rstd, 1e-5, 1e-4));
                EXPECT_TRUE(close(o, out, 2e-5, 1e-4));
                EXPECT_TRUE(close(dxf, dx, 2e-4, 1e-4));
                EXPECT_TRUE(close(dwf, dw, 1e-4, 1e-5));
            }
        }
    });
}

// ---- against PyTorch ----

TYPED_TEST(VariantOpFixtures, RmsNorm) {
    using Real = TypeParam;
    for (const std::string p : {"rmsnorm", "rmsnorm_eps"}) {
        SCOPED_TRACE(p);
        const int N = dim(p + ".inp", 0), C = dim(p + ".inp", 1);
        const Real eps = static_cast<Real>(params().at(p).at("eps").get<double>());
        const std::vector<Real> x = values<Real>(p + ".inp"), w = values<Real>(p + ".weight");
        const std::vector<Real> g = values<Real>(p + ".dout");
        std::vector<Real> out(x.size()), rstd(N), dx(x.size(), Real(0)), dw(w.size(), Real(0));
        tx::cpu::rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
        EXPECT_TRUE(matches(out, p + ".out"));
        EXPECT_TRUE(matches(rstd, p + ".rstd"));
        tx::cpu::rmsnorm_backward(dx.data(), dw.data(), g.data(), x.data(), w.data(), rstd.data(), N, C);
        EXPECT_TRUE(matches(dx, p + ".dinp"));
        EXPECT_TRUE(matches(dw, p + ".dweight"));
    }
}

}  // namespace
