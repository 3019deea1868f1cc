// The linear layer and the head split (core/ops/ops_linear.cpp) against loops written here, in
// double: the float forward at the edges of its kernels (core/kernels/gemm.h) and of the packed
// product (gemm_packed.h) on 1 and 2 threads, the backwards against central finite differences in
// double and the += rule, and the bias gradient on every instruction-set path. Shapes: x (N,C),
// weight (OC,C), bias (OC), out (N,OC); heads (B,T,H·dk) <-> (B,H,T,dk).
// CUDA twin: tests/gpu/test_linear_cuda.cpp; every path's GEMM kernels: tests/kernels/test_gemm_isa.cpp.
#include "kernels/gemm_packed.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using std::vector;
using Floats = std::vector<float>;
using namespace tx::test;

vector<double> ref_linear(const vector<double>& x, const vector<double>& w, const double* bias, int N, int C,
                          int OC) {
    vector<double> out(static_cast<size_t>(N) * OC);
    for (int n = 0; n < N; ++n)
        for (int o = 0; o < OC; ++o) {
            double acc = bias ? bias[o] : 0.0;
            for (int c = 0; c < C; ++c) acc += x[n * C + c] * w[o * C + c];
            out[n * OC + o] = acc;
        }
    return out;
}

// ---- forward ----

TEST(Linear, ForwardMatchesLoop) {
    struct Shape { int N, C, OC; };
    for (Shape sh : {Shape{1, 1, 1}, Shape{7, 13, 5}, Shape{33, 67, 41}, Shape{64, 128, 96}}) {
        const vector<float> x = random_floats(static_cast<size_t>(sh.N) * sh.C, 4);
        const vector<float> w = random_floats(static_cast<size_t>(sh.OC) * sh.C, 5);
        const vector<float> b = random_floats(sh.OC, 6);
        vector<float> out(static_cast<size_t>(sh.N) * sh.OC);
        tx::cpu::linear_forward(out.data(), x.data(), w.data(), b.data(), sh.N, sh.C, sh.OC);
        const vector<double> bd = to_double(b);
        expect_close(out, ref_linear(to_double(x), to_double(w), bd.data(), sh.N, sh.C, sh.OC), 1e-5, 1e-5);
    }
}

TEST(Linear, NullBiasMatchesLoop) {
    const int N = 9, C = 11, OC = 6;
    const vector<float> x = random_floats(static_cast<size_t>(N) * C, 7);
    const vector<float> w = random_floats(static_cast<size_t>(OC) * C, 8);
    vector<float> out(static_cast<size_t>(N) * OC, 123.0f);   // overwritten, not accumulated
    tx::cpu::linear_forward(out.data(), x.data(), w.data(), static_cast<const float*>(nullptr), N, C, OC);
    expect_close(out, ref_linear(to_double(x), to_double(w), nullptr, N, C, OC), 1e-5, 1e-5);
}

// The float forward product has kernels of its own (core/kernels/gemm.h; on the AVX-512 path 4×6 register
// tiles, C in blocks of 512, rows in chunks of ≤ 128, a narrow last block of columns, a partial
// last vector of C; the packed product or Eigen's for other shapes). These shapes reach those
// edges on the path this run takes (tests/kernels/test_gemm_isa.cpp runs every path), on buffers that
// start off 64-byte alignment too, with one thread and with two.
TEST(Linear, ForwardKernelEdgesMatchLoop) {
    struct Shape { int N, C, OC; };
    const Shape shapes[] = {{1, 256, 6},   {3, 271, 7},   {5, 256, 12},  {4, 257, 13},  {2, 300, 5},
                            {6, 511, 11},  {9, 512, 6},   {7, 513, 19},  {70, 1030, 8}, {130, 260, 9},
                            {33, 2048, 7}, {257, 256, 64}, {8, 300, 2008}, {5, 17, 13}};
    const int threads_before = tx::cpu_threads();
    for (int threads : {1, 2}) {
        tx::set_cpu_threads(threads);
        for (int offset : {0, 1}) {   // floats past a 64-byte boundary
            for (const Shape& sh : shapes) {
                SCOPED_TRACE(::testing::Message() << "N " << sh.N << " C " << sh.C << " OC " << sh.OC << " offset "
                                                  << offset << " threads " << threads);
                const vector<float> x = random_floats(static_cast<size_t>(sh.N) * sh.C + offset, 21);
                const vector<float> w = random_floats(static_cast<size_t>(sh.OC) * sh.C + offset, 22);
                const vector<float> b = random_floats(sh.OC + offset, 23);
                vector<float> out(static_cast<size_t>(sh.N) * sh.OC + offset, 123.0f);
                tx::cpu::linear_forward(out.data() + offset, x.data() + offset, w.data() + offset, b.data() + offset,
                                        sh.N, sh.C, sh.OC);
                const vector<double> xd(x.begin() + offset, x.end()), wd(w.begin() + offset, w.end());
                const vector<double> bd(b.begin() + offset, b.end());
                const vector<float> got(out.begin() + offset, out.end());
                expect_close(got, ref_linear(xd, wd, bd.data(), sh.N, sh.C, sh.OC), 2e-6 * sh.C, 1e-5);
                for (int i = 0; i < offset; ++i) EXPECT_EQ(out[i], 123.0f) << "wrote before the output";
            }
        }
    }
    tx::set_cpu_threads(threads_before);
}

// The packed product behind the backward passes and the forward pass at short rows: every
// operand layout, overwrite and accumulate, row strides wider than the rows, and sizes that cut
// its blocks (8 × 32 tiles, 256 of K, 96 rows, 512 columns) anywhere, on 1 and 2 threads.
TEST(Linear, PackedProductMatchesLoop) {
    struct Shape { int M, N, K; };
    const Shape shapes[] = {{1, 1, 1},     {8, 32, 256},   {9, 33, 257}, {7, 31, 5},    {97, 513, 300},
                            {200, 70, 600}, {13, 1030, 17}, {3, 5, 1000}, {130, 128, 128}, {64, 2008, 64}};
    const int threads_before = tx::cpu_threads();
    for (int threads : {1, 2}) {
        tx::set_cpu_threads(threads);
        for (const Shape& sh : shapes)
            for (int layout = 0; layout < 4; ++layout)
                for (bool accumulate : {false, true}) {
                    const bool ta = layout & 1, tb = layout & 2;
                    const int pad = 3;   // ld = width + pad: the kernel must not read or write between rows
                    const int lda = (ta ? sh.M : sh.K) + pad, ldb = (tb ? sh.K : sh.N) + pad, ldc = sh.N + pad;
                    SCOPED_TRACE(::testing::Message() << "M " << sh.M << " N " << sh.N << " K " << sh.K << " ta " << ta
                                                      << " tb " << tb << " accumulate " << accumulate << " threads " << threads);
                    const vector<float> a = random_floats(static_cast<size_t>(ta ? sh.K : sh.M) * lda, 31);
                    const vector<float> b = random_floats(static_cast<size_t>(tb ? sh.N : sh.K) * ldb, 32);
                    vector<float> c = random_floats(static_cast<size_t>(sh.M) * ldc, 33);
                    const vector<float> before = c;
                    tx::cpu::sgemm_packed(c.data(), ldc, a.data(), lda, ta, b.data(), ldb, tb, sh.M, sh.N, sh.K, accumulate);
                    double worst = 0.0;
                    for (int i = 0; i < sh.M; ++i) {
                        for (int j = 0; j < sh.N; ++j) {
                            double want = accumulate ? before[static_cast<size_t>(i) * ldc + j] : 0.0;
                            for (int k = 0; k < sh.K; ++k)
                                want += static_cast<double>(ta ? a[static_cast<size_t>(k) * lda + i] : a[static_cast<size_t>(i) * lda + k]) *
                                        (tb ? b[static_cast<size_t>(j) * ldb + k] : b[static_cast<size_t>(k) * ldb + j]);
                            worst = std::max(worst, std::abs(c[static_cast<size_t>(i) * ldc + j] - want) / (1e-5 * (1 + sh.K)));
                        }
                        for (int j = sh.N; j < ldc; ++j)   // the padding between rows is left alone
                            EXPECT_EQ(c[static_cast<size_t>(i) * ldc + j], before[static_cast<size_t>(i) * ldc + j]);
                    }
                    EXPECT_LE(worst, 1.0) << "largest error in units of 1e-5 · (1 + K)";
                }
    }
    tx::set_cpu_threads(threads_before);
}

TEST(Heads, SplitAndMergeMatchLoops) {
    const int B = 2, T = 5, H = 3, dk = 4, D = H * dk;
    const vector<float> x = random_floats(static_cast<size_t>(B) * T * D, 9);
    vector<float> split(x.size()), merged(x.size());
    tx::cpu::split_heads_forward(split.data(), x.data(), B, T, H, dk);
    tx::cpu::merge_heads_forward(merged.data(), split.data(), B, T, H, dk);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                for (int i = 0; i < dk; ++i)
                    EXPECT_EQ(split[((b * H + h) * T + t) * dk + i], x[(b * T + t) * D + h * dk + i]);
    EXPECT_EQ(merged, x);   // merge inverts split exactly: they only move values
}

// ---- backward ----

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

// ---- every instruction-set path ----

TEST(ElementwiseKernels, LinearBiasGradientIsTheColumnSumOnEveryPath) {
    // C = 32 takes linear_backward's packed branch; OC from 32 (its least) to partial vectors and 1000
    on_every_path([] {
        for (int OC : {32, 33, 47, 48, 1000}) {
            for (int N : {1, 7, 17}) {
                SCOPED_TRACE("N = " + std::to_string(N) + ", OC = " + std::to_string(OC));
                const int C = 32;
                const Floats g = random_floats(static_cast<size_t>(N) * OC, 41u + static_cast<unsigned>(OC + N), -2.0f, 2.0f);
                const Floats x = random_floats(static_cast<size_t>(N) * C, 43u, -2.0f, 2.0f), w = random_floats(static_cast<size_t>(OC) * C, 47u, -2.0f, 2.0f);
                Floats db = random_floats(static_cast<size_t>(OC) + 1, 53u, -2.0f, 2.0f);
                const Floats prior = db;
                tx::cpu::linear_backward<float>(nullptr, nullptr, db.data(), g.data(), x.data(), w.data(), N, C, OC);
                for (int c = 0; c < OC; ++c) {
                    double want = prior[static_cast<size_t>(c)];
                    for (int n = 0; n < N; ++n) want += g[static_cast<size_t>(n) * OC + c];
                    EXPECT_NEAR(db[static_cast<size_t>(c)], want, 1e-5) << "c = " << c;
                }
                EXPECT_EQ(db[static_cast<size_t>(OC)], prior[static_cast<size_t>(OC)]) << "wrote past the end";
            }
        }
    });
}

}  // namespace
