// Tests that run several ops of core/ops/ in one body, kept whole so that their names stay: the
// += rule of four backwards (attention's softmax, LayerNorm, the embedding, cross-entropy), and the
// same bits on 1 and 2 threads for the variants' ops (RoPE, ALiBi, learned positions, GELU, SwiGLU,
// RMSNorm) and for softmax and log-softmax on every instruction-set path. Each op's own tests are in
// its file, tests/ops/test_<op>.cpp.
#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/every_path.h"
#include "support/finite_differences.h"
#include "support/softmax_rows.h"

#include <cstdint>
#include <vector>

namespace {

using std::vector;
using namespace tx::test;

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

// Sizes above every op's one-thread threshold, so that two threads really split the work; each
// output has one writer, so the bits must not depend on the thread count.
TEST(VariantOps, SameBitsOnOneAndTwoThreads) {
    const int threads_before = tx::cpu_threads();
    const int B = 4, H = 4, T = 64, S = 64, dk = 32, D = H * dk, N = B * T, F = 4 * D;
    const std::vector<float> qk = to_float(random_vec(static_cast<size_t>(B) * H * T * dk, 230));
    const std::vector<float> sc = to_float(random_vec(static_cast<size_t>(B) * H * T * S, 231));
    const std::vector<float> x = to_float(random_vec(static_cast<size_t>(N) * D, 232));
    const std::vector<float> w = to_float(random_vec(D, 233, 0.5, 1.5));
    const std::vector<float> hid = to_float(random_vec(static_cast<size_t>(N) * F, 234, -3.0, 3.0));
    const std::vector<float> up = to_float(random_vec(hid.size(), 235));
    auto run = [&](int threads) {
        tx::set_cpu_threads(threads);
        std::vector<std::vector<float>> r;
        std::vector<float> a(qk.size(), 0.f), da(qk.size(), 0.f);
        tx::cpu::rope_forward(a.data(), qk.data(), B, H, T, dk, 3);
        tx::cpu::rope_backward(da.data(), qk.data(), B, H, T, dk, 3);
        std::vector<float> s(sc.size(), 0.f);
        tx::cpu::alibi_forward(s.data(), sc.data(), B, H, T, S, 0);
        std::vector<float> table(static_cast<size_t>(T) * D, 0.f);
        tx::cpu::learned_positional_backward(table.data(), x.data(), B, T, D);
        std::vector<float> ge(hid.size(), 0.f), dge(hid.size(), 0.f), sw(hid.size(), 0.f), dg(hid.size(), 0.f),
            du(hid.size(), 0.f);
        tx::cpu::gelu_forward(ge.data(), hid.data(), N * F);
        tx::cpu::gelu_backward(dge.data(), up.data(), hid.data(), N * F);
        tx::cpu::swiglu_forward(sw.data(), hid.data(), up.data(), N * F);
        tx::cpu::swiglu_backward(dg.data(), du.data(), up.data(), hid.data(), up.data(), N * F);
        std::vector<float> rn(x.size(), 0.f), rs(N, 0.f), drn(x.size(), 0.f), dw(D, 0.f);
        tx::cpu::rmsnorm_forward(rn.data(), rs.data(), x.data(), w.data(), N, D, 1e-5f);
        tx::cpu::rmsnorm_backward(drn.data(), dw.data(), x.data(), x.data(), w.data(), rs.data(), N, D);
        return std::vector<std::vector<float>>{a, da, s, table, ge, dge, sw, dg, du, rn, rs, drn, dw};
    };
    const auto one = run(1), two = run(2);
    tx::set_cpu_threads(threads_before);
    for (size_t k = 0; k < one.size(); ++k) EXPECT_TRUE(close(two[k], one[k], 0.0, 0.0)) << "result " << k;
}

TEST(SoftmaxKernels, OneAndTwoThreadsGiveTheSameBits) {
    // The same output buffers both times: Eigen's generic code sums in an order that depends on
    // the buffers' alignment, which is not what this test is about.
    const int threads = tx::cpu_threads();
    on_every_path([] {
        const int R = 300, C = 37;
        const vector<float> x = make_rows(Row::Random, R, C, 11);
        vector<float> p(x.size()), o(x.size());
        tx::set_cpu_threads(1);
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        tx::cpu::log_softmax_forward(o.data(), x.data(), R, C);
        const vector<float> p1 = p, o1 = o;
        tx::set_cpu_threads(2);
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        tx::cpu::log_softmax_forward(o.data(), x.data(), R, C);
        EXPECT_EQ(p1, p);
        EXPECT_EQ(o1, o);
    });
    tx::set_cpu_threads(threads);
}

}  // namespace
