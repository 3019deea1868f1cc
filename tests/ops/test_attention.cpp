// Forward CPU ops of ops.h (float, as the model runs them) against plain nested loops written
// here independently, accumulating in double, on seeded random inputs of odd shapes with T != S.
// Plus the properties the rest of the program relies on: masked probabilities are exactly 0,
// fully masked rows are zeros, the dropout mask is reproducible, and hand-worked values for
// cross-entropy and Adam. Tolerances: |got - ref| <= atol + rtol*|ref|.
#include "tx/backend.h"
#include "kernels/gemm_packed.h"
#include "tx/ops.h"
#include "tx/threads.h"

#include <gtest/gtest.h>

#include "support/reference_dropout.h"

#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using std::vector;
constexpr double INF = std::numeric_limits<double>::infinity();

using tx::test::random_floats;

vector<int32_t> random_ids(size_t n, int V, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int32_t> dist(0, V - 1);
    vector<int32_t> v(n);
    for (int32_t& x : v) x = dist(rng);
    return v;
}

vector<double> to_double(const vector<float>& v) { return vector<double>(v.begin(), v.end()); }

void expect_close(const vector<float>& got, const vector<double>& ref, double atol, double rtol) {
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(ref[i])) {
            EXPECT_EQ(static_cast<double>(got[i]), ref[i]) << "at " << i;
            continue;
        }
        EXPECT_NEAR(got[i], ref[i], atol + rtol * std::abs(ref[i])) << "at " << i;
    }
}

// ---- reference loops (double) ----

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

vector<double> ref_scores(const vector<double>& q, const vector<double>& k, int B, int H, int T, int S, int dk,
                          double scale) {
    vector<double> out(static_cast<size_t>(B) * H * T * S);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    double acc = 0;
                    for (int i = 0; i < dk; ++i)
                        acc += q[((b * H + h) * T + t) * dk + i] * k[((b * H + h) * S + s) * dk + i];
                    out[((b * H + h) * T + t) * S + s] = acc * scale;
                }
    return out;
}

// naive softmax: exp(x)/Σexp(x) (inputs are small), -inf gives 0, an all -inf row gives zeros
vector<double> ref_softmax(const vector<double>& x, int R, int C) {
    vector<double> out(x.size());
    for (int r = 0; r < R; ++r) {
        double sum = 0;
        for (int c = 0; c < C; ++c) sum += x[r * C + c] == -INF ? 0.0 : std::exp(x[r * C + c]);
        for (int c = 0; c < C; ++c)
            out[r * C + c] = (sum == 0 || x[r * C + c] == -INF) ? 0.0 : std::exp(x[r * C + c]) / sum;
    }
    return out;
}

vector<double> ref_context(const vector<double>& p, const vector<double>& v, int B, int H, int T, int S, int dk) {
    vector<double> out(static_cast<size_t>(B) * H * T * dk);
    for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t)
            for (int i = 0; i < dk; ++i) {
                double acc = 0;
                for (int s = 0; s < S; ++s) acc += p[(bh * T + t) * S + s] * v[(bh * S + s) * dk + i];
                out[(bh * T + t) * dk + i] = acc;
            }
    return out;
}

// the smoothed target distribution of the Annotated Transformer's LabelSmoothing, one row
vector<double> ref_target(int target, int V, double smoothing, int pad) {
    vector<double> t(V, smoothing / (V - 2));
    t[pad] = 0;
    t[target] = 1 - smoothing;
    return t;
}

// ---- embedding and positional encoding ----

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

// ---- linear and heads ----

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

// ---- attention ----

struct AttnShape { int B, H, T, S, dk; };
const AttnShape ATTN_SHAPES[] = {{2, 3, 5, 7, 4}, {1, 2, 9, 1, 3}, {1, 1, 1, 6, 8}, {3, 2, 4, 4, 5}};

TEST(Attention, ScoresMatchLoop) {
    for (AttnShape sh : ATTN_SHAPES)
        for (bool scaled : {true, false}) {
            const vector<float> q = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.dk, 10);
            const vector<float> k = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.S * sh.dk, 11);
            const float scale = scaled ? 1.0f / std::sqrt(float(sh.dk)) : 1.0f;
            vector<float> out(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.S);
            tx::cpu::scores_forward(out.data(), q.data(), k.data(), sh.B, sh.H, sh.T, sh.S, sh.dk, scale);
            expect_close(out, ref_scores(to_double(q), to_double(k), sh.B, sh.H, sh.T, sh.S, sh.dk, scale),
                         1e-6, 1e-5);
        }
}

TEST(Attention, MaskMatchesLoopAndNullMaskCopies) {
    const int B = 2, H = 3, T = 4, S = 6;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 12);
    vector<float> mask = random_floats(static_cast<size_t>(B) * T * S, 13);
    for (float& m : mask) m = m > 0 ? 1.0f : 0.0f;
    vector<float> out(scores.size());
    tx::cpu::attention_mask_forward(out.data(), scores.data(), mask.data(), B, H, T, S);
    vector<double> ref(scores.size());
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int s = 0; s < S; ++s) {
                    const int i = ((b * H + h) * T + t) * S + s;
                    ref[i] = mask[(b * T + t) * S + s] != 0 ? double(scores[i]) : -INF;
                }
    expect_close(out, ref, 0, 0);
    tx::cpu::attention_mask_forward(out.data(), scores.data(), static_cast<const float*>(nullptr), B, H, T, S);
    EXPECT_EQ(out, scores);
}

TEST(Softmax, ForwardMatchesLoop) {
    for (auto [R, C] : {std::pair{6, 9}, std::pair{1, 1}, std::pair{5, 64}, std::pair{17, 3}}) {
        const vector<float> x = random_floats(static_cast<size_t>(R) * C, 14, -4.0f, 4.0f);
        vector<float> p(x.size());
        tx::cpu::softmax_forward(p.data(), x.data(), R, C);
        expect_close(p, ref_softmax(to_double(x), R, C), 1e-7, 1e-5);
    }
}

TEST(Softmax, RowsSumToOneAndLargeInputsStayFinite) {
    const int R = 8, C = 13;
    vector<float> x = random_floats(static_cast<size_t>(R) * C, 15, -3.0f, 3.0f);
    x[0] = 1000.0f;   // exp(1000) overflows without the max shift
    vector<float> p(x.size());
    tx::cpu::softmax_forward(p.data(), x.data(), R, C);
    for (int r = 0; r < R; ++r) {
        double sum = 0;
        for (int c = 0; c < C; ++c) sum += p[r * C + c];
        EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << r;
    }
    EXPECT_EQ(p[0], 1.0f);
}

// scores -> mask -> softmax, as the model runs them
vector<float> masked_probs(const vector<float>& scores, const vector<float>& mask, int B, int H, int T, int S) {
    vector<float> masked(scores.size()), p(scores.size());
    tx::cpu::attention_mask_forward(masked.data(), scores.data(), mask.data(), B, H, T, S);
    tx::cpu::softmax_forward(p.data(), masked.data(), B * H * T, S);
    return p;
}

TEST(Softmax, CausalMaskGivesExactZerosAboveTheDiagonal) {
    const int B = 2, H = 3, T = 7, S = 7;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 16, -3.0f, 3.0f);
    vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) mask[(b * T + t) * S + s] = s <= t ? 1.0f : 0.0f;
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t) {
            double sum = 0;
            for (int s = 0; s < S; ++s) {
                const float v = p[(bh * T + t) * S + s];
                if (s > t) {
                    EXPECT_EQ(v, 0.0f) << "t=" << t << " s=" << s;
                } else {
                    EXPECT_GT(v, 0.0f);
                }
                sum += v;
            }
            EXPECT_NEAR(sum, 1.0, 1e-6);
        }
}

TEST(Softmax, PaddedKeysGetExactZeros) {
    // batch b has S - b real keys; the rest are padding (T != S: cross-attention shape)
    const int B = 3, H = 2, T = 4, S = 6;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 17, -3.0f, 3.0f);
    vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) mask[(b * T + t) * S + s] = s < S - b ? 1.0f : 0.0f;
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                double sum = 0;
                for (int s = 0; s < S; ++s) {
                    const float v = p[((b * H + h) * T + t) * S + s];
                    if (s >= S - b) { EXPECT_EQ(v, 0.0f); }
                    sum += v;
                }
                EXPECT_NEAR(sum, 1.0, 1e-6);
            }
}

TEST(Softmax, FullyMaskedRowsGiveZerosNotNaN) {
    const int B = 1, H = 2, T = 3, S = 5;
    const vector<float> scores = random_floats(static_cast<size_t>(B) * H * T * S, 18);
    vector<float> mask(static_cast<size_t>(B) * T * S, 1.0f);
    for (int s = 0; s < S; ++s) mask[1 * S + s] = 0.0f;   // query 1 may attend to nothing
    const vector<float> p = masked_probs(scores, mask, B, H, T, S);
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t) {
            double sum = 0;
            for (int s = 0; s < S; ++s) {
                const float v = p[(h * T + t) * S + s];
                ASSERT_FALSE(std::isnan(v));
                if (t == 1) { EXPECT_EQ(v, 0.0f); }
                sum += v;
            }
            EXPECT_NEAR(sum, t == 1 ? 0.0 : 1.0, 1e-6);
        }
}

TEST(Attention, ContextMatchesLoop) {
    for (AttnShape sh : ATTN_SHAPES) {
        const vector<float> x = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.S, 19, -2.0f, 2.0f);
        vector<float> p(x.size());
        tx::cpu::softmax_forward(p.data(), x.data(), sh.B * sh.H * sh.T, sh.S);
        const vector<float> v = random_floats(static_cast<size_t>(sh.B) * sh.H * sh.S * sh.dk, 20);
        vector<float> out(static_cast<size_t>(sh.B) * sh.H * sh.T * sh.dk);
        tx::cpu::context_forward(out.data(), p.data(), v.data(), sh.B, sh.H, sh.T, sh.S, sh.dk);
        expect_close(out, ref_context(to_double(p), to_double(v), sh.B, sh.H, sh.T, sh.S, sh.dk), 1e-6, 1e-5);
    }
}

// ---- elementwise ----

TEST(Residual, ForwardMatchesLoopAlsoInPlace) {
    const int N = 37;
    vector<float> a = random_floats(N, 21);
    const vector<float> b = random_floats(N, 22);
    vector<double> ref(N);
    for (int i = 0; i < N; ++i) ref[i] = double(a[i]) + b[i];
    vector<float> out(N);
    tx::cpu::residual_forward(out.data(), a.data(), b.data(), N);
    expect_close(out, ref, 1e-6, 1e-6);
    tx::cpu::residual_forward(a.data(), a.data(), b.data(), N);
    EXPECT_EQ(a, out);
}

TEST(Relu, ForwardMatchesLoopAlsoInPlace) {
    const int N = 41;
    vector<float> x = random_floats(N, 23);
    vector<double> ref(N);
    for (int i = 0; i < N; ++i) ref[i] = x[i] > 0 ? x[i] : 0.0;
    vector<float> out(N);
    tx::cpu::relu_forward(out.data(), x.data(), N);
    expect_close(out, ref, 0, 0);
    tx::cpu::relu_forward(x.data(), x.data(), N);
    EXPECT_EQ(x, out);
}

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

// ---- dropout ----

using tx::test::reference_keep;   // reference_dropout.h

TEST(Dropout, ZeroProbabilityCopies) {
    const int N = 1001;
    const vector<float> x = random_floats(N, 27);
    vector<float> out(N), mask(N);
    tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, 0.0f, 42);
    EXPECT_EQ(out, x);
    for (float m : mask) EXPECT_EQ(m, 1.0f);
}

TEST(Dropout, KeepFractionIsOneMinusP) {
    const int N = 200000;
    const vector<float> x(N, 1.0f);
    vector<float> out(N), mask(N);
    for (float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
        tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, p, 1234);
        int kept = 0;
        for (float m : mask) kept += m != 0.0f;
        // binomial: sigma = sqrt(p(1-p)/N) <= 0.0012; 0.006 is five sigma
        EXPECT_NEAR(double(kept) / N, 1.0 - p, 0.006) << "p=" << p;
    }
}

TEST(Dropout, MaskIsZeroOrInverseKeepAndFollowsTheDocumentedHash) {
    const int N = 4097;
    const float p = 0.3f;
    const vector<float> x = random_floats(N, 28);
    vector<float> out(N), mask(N);
    const uint64_t seed = 0xDEADBEEFull;
    tx::cpu::dropout_forward(out.data(), mask.data(), x.data(), N, p, seed);
    const float scale = 1.0f / (1.0f - p);
    for (int i = 0; i < N; ++i) {
        ASSERT_TRUE(mask[i] == 0.0f || mask[i] == scale) << mask[i];
        EXPECT_EQ(mask[i] != 0.0f, reference_keep(seed, i, p)) << "at " << i;
        EXPECT_EQ(out[i], x[i] * mask[i]);
    }
}

TEST(Dropout, SameSeedSameMaskOtherSeedOtherMask) {
    const int N = 2048;
    const vector<float> x = random_floats(N, 29);
    vector<float> out1(N), mask1(N), out2(N), mask2(N), out3(N), mask3(N);
    tx::cpu::dropout_forward(out1.data(), mask1.data(), x.data(), N, 0.5f, 7);
    tx::cpu::dropout_forward(out2.data(), mask2.data(), x.data(), N, 0.5f, 7);
    tx::cpu::dropout_forward(out3.data(), mask3.data(), x.data(), N, 0.5f, 8);
    EXPECT_EQ(mask1, mask2);
    EXPECT_EQ(out1, out2);
    EXPECT_NE(mask1, mask3);
    // the double instantiation (gradient checks) draws the same mask
    vector<double> xd = to_double(x), outd(N), maskd(N);
    tx::cpu::dropout_forward(outd.data(), maskd.data(), xd.data(), N, 0.5, 7);
    for (int i = 0; i < N; ++i) EXPECT_EQ(maskd[i] != 0.0, mask1[i] != 0.0f);
}

// ---- loss ----

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

// ---- Adam ----

// lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8; parameter 1.0 with gradient 0.5 then -1.0.
// step 1: m = 0.05, v = 0.00025, m̂ = 0.05/0.1 = 0.5, v̂ = 0.00025/0.001 = 0.25,
//         p = 1 - 0.1 * 0.5/(0.5 + 1e-8) = 0.900000002
// step 2: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975,
//         m̂ = -0.055/0.19 = -0.2894736842, v̂ = 0.00124975/0.001999 = 0.6251875938, √v̂ = 0.7906880509,
//         p = 0.900000002 + 0.1 * 0.2894736842/(0.7906880509 + 1e-8) = 0.9366103542
// A second parameter with gradient 0 stays where it is.
TEST(Adam, OneAndTwoStepsByHand) {
    vector<double> p = {1.0, -2.0}, m(2, 0.0), v(2, 0.0);
    vector<double> g = {0.5, 0.0};
    tx::cpu::adam_update(p.data(), m.data(), v.data(), g.data(), 2, 0.1, 0.9, 0.999, 1e-8, 1);
    EXPECT_NEAR(m[0], 0.05, 1e-15);
    EXPECT_NEAR(v[0], 0.00025, 1e-15);
    EXPECT_NEAR(p[0], 0.900000002, 1e-12);
    EXPECT_EQ(p[1], -2.0);
    g = {-1.0, 0.0};
    tx::cpu::adam_update(p.data(), m.data(), v.data(), g.data(), 2, 0.1, 0.9, 0.999, 1e-8, 2);
    EXPECT_NEAR(m[0], -0.055, 1e-15);
    EXPECT_NEAR(v[0], 0.00124975, 1e-15);
    EXPECT_NEAR(p[0], 0.9366103542405654, 1e-12);
    EXPECT_EQ(p[1], -2.0);

    vector<float> pf = {1.0f}, mf = {0.0f}, vf = {0.0f};
    const float g1 = 0.5f, g2 = -1.0f;
    tx::cpu::adam_update(pf.data(), mf.data(), vf.data(), &g1, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 1);
    tx::cpu::adam_update(pf.data(), mf.data(), vf.data(), &g2, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 2);
    EXPECT_NEAR(pf[0], 0.9366103542405654, 1e-6);
}

// ---- the CPU backend ----

TEST(CpuBackend, SquaredNormAndScaleForTheOptimizer) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    // 7 values: the four partial sums and the tail are all exercised
    vector<float> x = {3.0f, -4.0f, 1.0f, 2.0f, -2.0f, 0.5f, 0.25f};
    double ref = 0.0;
    for (float e : x) ref += static_cast<double>(e) * e;
    EXPECT_DOUBLE_EQ(be->squared_norm(x.data(), static_cast<int64_t>(x.size())), ref);
    EXPECT_EQ(be->squared_norm(x.data(), 0), 0.0);
    be->scale(x.data(), static_cast<int64_t>(x.size()), 0.5f);
    EXPECT_EQ(x[0], 1.5f);
    EXPECT_EQ(x[1], -2.0f);
    EXPECT_EQ(x[6], 0.125f);
    x[2] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(std::isfinite(be->squared_norm(x.data(), static_cast<int64_t>(x.size()))));
}

TEST(CpuBackend, AllocationsAreAlignedAndZeroFilled) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    EXPECT_EQ(be->name(), "cpu");
    for (size_t bytes : {size_t(1), size_t(4), size_t(100), size_t(4096), size_t(1 << 20)}) {
        auto* p = static_cast<unsigned char*>(be->allocate(bytes));
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
        for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i;
        be->release(p);
    }
}

TEST(CpuBackend, MemoryCommandsAndOpsDispatch) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    const int N = 5, C = 7, OC = 3;
    const vector<float> x = random_floats(static_cast<size_t>(N) * C, 34);
    const vector<float> w = random_floats(static_cast<size_t>(OC) * C, 35);
    tx::BackendArray<float> dx(*be, x.size()), dw(*be, w.size()), dout(*be, static_cast<size_t>(N) * OC),
        copy(*be, x.size());
    be->upload(dx.data(), x.data(), x.size() * sizeof(float));
    be->upload(dw.data(), w.data(), w.size() * sizeof(float));
    be->linear_forward(dout.data(), dx.data(), dw.data(), nullptr, N, C, OC);
    be->synchronize();
    vector<float> got(dout.size()), want(dout.size());
    be->download(got.data(), dout.data(), got.size() * sizeof(float));
    tx::cpu::linear_forward(want.data(), x.data(), w.data(), static_cast<const float*>(nullptr), N, C, OC);
    EXPECT_EQ(got, want);

    be->copy(copy.data(), dx.data(), x.size() * sizeof(float));
    vector<float> back(x.size());
    be->download(back.data(), copy.data(), back.size() * sizeof(float));
    EXPECT_EQ(back, x);
    be->fill_zero(copy.data(), x.size() * sizeof(float));
    be->download(back.data(), copy.data(), back.size() * sizeof(float));
    EXPECT_EQ(back, vector<float>(x.size(), 0.0f));
}

}  // namespace
