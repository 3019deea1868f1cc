// The embedding and the positional encodings (core/ops/ops_embedding.cpp: token embedding,
// sinusoidal table, adding positions, the learned table's gradient): forwards against loops written
// here from the formulas in double, backwards against central finite differences in double, and the
// PyTorch fixture. Shapes: ids (N), weight (V,D), x and out (B,T,D), tables (L,D).
// CUDA twin: tests/gpu/test_embedding_cuda.cpp.
#include "tx/ops.h"

#include <gtest/gtest.h>

#include "support/compare.h"
#include "support/finite_differences.h"
#include "support/random_floats.h"
#include "support/random_ids.h"
#include "support/variant_op_fixtures.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using std::vector;
using namespace tx::test;

// ---- forward ----

TEST(Embedding, ForwardMatchesLoop) {
    struct Shape { int N, D, V; };
    for (Shape sh : {Shape{7, 5, 11}, Shape{1, 16, 3}, Shape{13, 9, 2}}) {
        const vector<float> w = random_floats(static_cast<size_t>(sh.V) * sh.D, 1);
        const vector<int32_t> ids = random_ids(sh.N, sh.V, 2);
        const float scale = std::sqrt(static_cast<float>(sh.D));
        vector<float> out(static_cast<size_t>(sh.N) * sh.D);
        tx::cpu::embedding_forward(out.data(), ids.data(), w.data(), sh.N, sh.D, scale);
        vector<double> ref(out.size());
        for (int n = 0; n < sh.N; ++n)
            for (int d = 0; d < sh.D; ++d) ref[n * sh.D + d] = double(w[ids[n] * sh.D + d]) * scale;
        expect_close(out, ref, 1e-6, 1e-6);
    }
}

TEST(PositionalEncoding, TableMatchesFormulaAnyWidth) {
    const int L = 23;
    for (int D : {1, 2, 5, 8, 13, 64}) {
        vector<float> pe(static_cast<size_t>(L) * D);
        tx::cpu::positional_encoding_table(pe.data(), L, D);
        vector<double> ref(pe.size());
        for (int p = 0; p < L; ++p)
            for (int j = 0; j < D; ++j) {
                const int i = j / 2;
                const double angle = p / std::pow(10000.0, 2.0 * i / D);
                ref[p * D + j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
            }
        expect_close(pe, ref, 1e-7, 0);
        // position 0: sin 0 = 0 on even columns, cos 0 = 1 on odd ones (the last of an odd D is a sin)
        for (int j = 0; j < D; ++j) EXPECT_EQ(pe[j], j % 2 == 0 ? 0.0f : 1.0f) << "D=" << D << " j=" << j;
    }
}

TEST(PositionalEncoding, ForwardAddsTheFirstTRows) {
    const int B = 3, T = 4, D = 5, L = 9;
    vector<float> pe(static_cast<size_t>(L) * D);
    tx::cpu::positional_encoding_table(pe.data(), L, D);
    const vector<float> x = random_floats(static_cast<size_t>(B) * T * D, 3);
    vector<float> out(x.size());
    tx::cpu::positional_forward(out.data(), x.data(), pe.data(), B, T, D);
    vector<double> ref(x.size());
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int d = 0; d < D; ++d)
                ref[(b * T + t) * D + d] = double(x[(b * T + t) * D + d]) + pe[t * D + d];
    expect_close(out, ref, 1e-6, 1e-6);
}

// ---- backward ----

TEST(Backward, Embedding) {
    const int N = 6, D = 3, V = 4;
    const std::vector<int32_t> ids = {2, 0, 2, 3, 2, 0};   // repeats: gradients must add up
    Vec w = random_vec(V * D, 4);
    const Vec g = random_vec(N * D, 5);
    const double scale = std::sqrt(double(D));
    Vec out(N * D);
    auto forward = [&] {
        tx::cpu::embedding_forward(out.data(), ids.data(), w.data(), N, D, scale);
        return out;
    };
    Vec dw(w.size(), 0.0);
    tx::cpu::embedding_backward(dw.data(), g.data(), ids.data(), N, D, scale);
    EXPECT_TRUE(gradients_match(dw, numeric_grad(w, g, forward)));
    for (int d = 0; d < D; ++d) EXPECT_EQ(dw[1 * D + d], 0.0);   // token 1 is never used
}

TEST(Backward, Positional) {
    const int B = 2, T = 3, D = 5, L = 4;
    Vec pe(L * D);
    tx::cpu::positional_encoding_table(pe.data(), L, D);
    Vec x = random_vec(B * T * D, 6);
    const Vec g = random_vec(B * T * D, 7);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::positional_forward(out.data(), x.data(), pe.data(), B, T, D);
        return out;
    };
    Vec dx(x.size(), 0.0);
    tx::cpu::positional_backward(dx.data(), g.data(), B, T, D);
    EXPECT_TRUE(gradients_match(dx, numeric_grad(x, g, forward)));
}

TEST(Backward, LearnedPositionalTable) {
    // the forward is positional_forward with the learned table; rows T..L−1 get no gradient
    const int B = 3, T = 4, D = 5, L = 6;
    const Vec x = random_vec(static_cast<size_t>(B) * T * D, 150);
    Vec table = random_vec(static_cast<size_t>(L) * D, 151);
    const Vec g = random_vec(x.size(), 152);
    Vec out(x.size());
    auto forward = [&] {
        tx::cpu::positional_forward(out.data(), x.data(), table.data(), B, T, D);
        return out;
    };
    Vec dtable(table.size(), 0.0);
    tx::cpu::learned_positional_backward(dtable.data(), g.data(), B, T, D);
    EXPECT_TRUE(gradients_match(dtable, numeric_grad(table, g, forward)));
    Vec loop(table.size(), 0.0);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int d = 0; d < D; ++d) loop[t * D + d] += g[(static_cast<size_t>(b) * T + t) * D + d];
    EXPECT_TRUE(close(dtable, loop, 1e-15, 1e-15));
    for (size_t i = static_cast<size_t>(T) * D; i < dtable.size(); ++i) EXPECT_EQ(dtable[i], 0.0);
    check_accumulates({table.size()}, [&](std::vector<Vec>& d) {
        tx::cpu::learned_positional_backward(d[0].data(), g.data(), B, T, D);
    });
}

// ---- against PyTorch ----

TYPED_TEST(VariantOpFixtures, LearnedPositions) {
    using Real = TypeParam;
    const int B = dim("learned.inp", 0), T = dim("learned.inp", 1), D = dim("learned.inp", 2);
    const std::vector<Real> x = values<Real>("learned.inp"), table = values<Real>("learned.table");
    const std::vector<Real> g = values<Real>("learned.dout");
    std::vector<Real> out(x.size()), dx(x.size(), Real(0)), dtable(table.size(), Real(0));
    tx::cpu::positional_forward(out.data(), x.data(), table.data(), B, T, D);
    EXPECT_TRUE(matches(out, "learned.out"));
    tx::cpu::positional_backward(dx.data(), g.data(), B, T, D);
    EXPECT_TRUE(matches(dx, "learned.dinp"));
    tx::cpu::learned_positional_backward(dtable.data(), g.data(), B, T, D);
    EXPECT_TRUE(matches(dtable, "learned.dtable"));
}

}  // namespace
