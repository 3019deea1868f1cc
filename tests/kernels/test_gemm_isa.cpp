// The float GEMMs on every instruction-set path this CPU can run (core/include/tx/cpu_isa.h): the run-time
// choice and TX_ISA, then sgemm_nt (through linear_forward) and sgemm_packed on each path against
// double loops, at sizes that cut the AVX-512 tiles (4 × 6 dot products, 8 × 32 packed) and the
// AVX2 ones (3 × 4, 6 × 16) anywhere, with row strides wider than the rows and unaligned buffers,
// on 1 and 2 threads. The sanitizer build runs them too (scripts/test.sh).
#include <gtest/gtest.h>

#include "support/random_floats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tx/cpu_isa.h"
#include "kernels/gemm.h"
#include "kernels/gemm_packed.h"
#include "tx/ops.h"
#include "tx/threads.h"
#include "tx/weight_cache.h"
#include "support/every_path.h"

namespace {

using std::vector;
using tx::cpu::Isa;

using tx::test::PathGuard;
using tx::test::random_floats;

// The CPU's own word for a feature, from /proc/cpuinfo's flags (not from the code under test).
bool cpuinfo_flag(const std::string& flag) {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
    return false;
}

// The packed product's tiles a path can run (cpu_isa.h's packed_tile()): its own, and on the
// AVX-512 path the AVX2 one too, whichever this CPU takes by default.
vector<Isa> tiles_of(Isa path) {
    if (path == Isa::Avx512) return {Isa::Avx512, Isa::Avx2};
    return {path};
}

}  // namespace

TEST(CpuIsa, SupportFollowsTheCpuFlags) {
    EXPECT_STREQ(tx::cpu::isa_name(Isa::Generic), "generic");
    EXPECT_STREQ(tx::cpu::isa_name(Isa::Avx2), "avx2");
    EXPECT_STREQ(tx::cpu::isa_name(Isa::Avx512), "avx512");
    const vector<Isa> supported = tx::cpu::supported_isas();
    ASSERT_FALSE(supported.empty());
    EXPECT_EQ(supported.front(), Isa::Generic);
#if defined(__x86_64__)
    EXPECT_EQ(tx::cpu::cpu_supports(Isa::Avx2), cpuinfo_flag("avx2") && cpuinfo_flag("fma"));
    EXPECT_EQ(tx::cpu::cpu_supports(Isa::Avx512), cpuinfo_flag("avx512f") && cpuinfo_flag("avx2"));
#endif
    PathGuard guard;
    for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512}) {
        const Isa before = tx::cpu::active_isa();
        EXPECT_EQ(tx::cpu::set_active_isa(isa), tx::cpu::cpu_supports(isa));
        EXPECT_EQ(tx::cpu::active_isa(), tx::cpu::cpu_supports(isa) ? isa : before);
    }
}

// TX_ISA, as the suite's per-path runs set it (tests/CMakeLists.txt): the path it names is the one
// that runs. Unset, the best path runs.
TEST(CpuIsa, EnvironmentChoosesThePath) {
    const char* forced = std::getenv("TX_ISA");
    std::string warning;
    const Isa chosen = tx::cpu::isa_from_setting(forced, warning);
    EXPECT_EQ(tx::cpu::active_isa(), chosen);
    if (!forced || !*forced) {
        EXPECT_EQ(chosen, tx::cpu::supported_isas().back());
    } else if (warning.empty()) {
        EXPECT_STREQ(tx::cpu::isa_name(chosen), forced);
    }
}

TEST(CpuIsa, BadSettingsAreNamedAndTheBestPathIsUsed) {
    const Isa best = tx::cpu::supported_isas().back();
    std::string warning;
    EXPECT_EQ(tx::cpu::isa_from_setting("sse9", warning), best);
    EXPECT_NE(warning.find("TX_ISA=sse9"), std::string::npos) << warning;
    EXPECT_NE(warning.find("not a known path"), std::string::npos) << warning;
    EXPECT_NE(warning.find(std::string("Using ") + tx::cpu::isa_name(best)), std::string::npos) << warning;
    EXPECT_EQ(tx::cpu::isa_from_setting("generic", warning), Isa::Generic);
    EXPECT_TRUE(warning.empty()) << warning;
    EXPECT_EQ(tx::cpu::isa_from_setting("", warning), best);
    EXPECT_TRUE(warning.empty()) << warning;
    for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
        const Isa got = tx::cpu::isa_from_setting(tx::cpu::isa_name(isa), warning);
        if (tx::cpu::cpu_supports(isa)) {
            EXPECT_EQ(got, isa);
            EXPECT_TRUE(warning.empty()) << warning;
        } else {
            EXPECT_EQ(got, best);
            EXPECT_NE(warning.find("cannot run"), std::string::npos) << warning;
            // It lists the paths this CPU can run ("supports avx2, generic" on an AVX2-only CPU).
            const size_t list = warning.find("supports ");
            ASSERT_NE(list, std::string::npos) << warning;
            for (Isa can : {Isa::Avx512, Isa::Avx2, Isa::Generic})
                EXPECT_EQ(warning.find(tx::cpu::isa_name(can), list) != std::string::npos,
                          can == Isa::Generic || tx::cpu::cpu_supports(can))
                    << tx::cpu::isa_name(can) << ": " << warning;
        }
    }
}

TEST(CpuIsa, MachineSummaryNamesCpuPathAndCeiling) {
    const std::string line = tx::cpu::machine_summary();
    EXPECT_NE(line.find("CPU: "), std::string::npos) << line;
    EXPECT_NE(line.find(std::string("GEMM path: ") + tx::cpu::isa_name(tx::cpu::active_isa())), std::string::npos) << line;
    EXPECT_NE(line.find("FMA ceiling: "), std::string::npos) << line;
    EXPECT_GT(tx::cpu::machine_info().flops_per_cycle, 0);
}

// out = inp · Wᵀ + b on every path, shapes around both tiles' edges and the tiles/packed
// boundaries of gemm.cpp (128 rows, 256 and 1024 floats of C); every path must run its tiles on
// some of them.
TEST(GemmIsa, ForwardProductOnEveryPathMatchesLoop) {
    struct Shape { int N, C, OC; };
    const Shape shapes[] = {{1, 256, 4},  {2, 263, 5},  {3, 256, 6},   {4, 257, 7},   {5, 264, 9},    {7, 300, 13},
                            {8, 520, 4},  {11, 1024, 6}, {13, 1025, 7}, {127, 256, 5}, {128, 260, 11}, {33, 64, 3},
                            {1, 1, 1},    {6, 17, 23},   {97, 128, 33}, {40, 2048, 8},  {5, 777, 9},   {4, 1000, 6},
                            // packed, bias in the store: 7 and 8 rows left for the last tiles (AVX2's
                            // 4-row tiles), OC past a column block (512), C past a K block (256)
                            {32, 64, 530}, {31, 40, 20},  {8, 100, 40},  {38, 1100, 17}};
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        int tiled = 0;
        for (Isa tile : tiles_of(isa))
        for (int threads : {1, 2}) {
            ASSERT_TRUE(tx::cpu::set_packed_tile(tile));
            tx::set_cpu_threads(threads);
            for (const Shape& sh : shapes) {
                tiled += tx::cpu::sgemm_nt_uses_tiles(sh.N, sh.C, sh.OC);
                for (bool with_bias : {true, false}) {
                    const int offset = 1;   // a float past a 64-byte boundary
                    SCOPED_TRACE(::testing::Message() << tx::cpu::isa_name(isa) << " tile " << tx::cpu::isa_name(tile)
                                                      << " N " << sh.N << " C " << sh.C << " OC " << sh.OC << " bias "
                                                      << with_bias << " threads " << threads);
                    const vector<float> x = random_floats(static_cast<size_t>(sh.N) * sh.C + offset, 41);
                    const vector<float> w = random_floats(static_cast<size_t>(sh.OC) * sh.C + offset, 42);
                    const vector<float> b = random_floats(sh.OC + offset, 43);
                    vector<float> out(static_cast<size_t>(sh.N) * sh.OC + 2 * offset, 123.0f);
                    tx::cpu::linear_forward(out.data() + offset, x.data() + offset, w.data() + offset,
                                            with_bias ? b.data() + offset : nullptr, sh.N, sh.C, sh.OC);
                    double worst = 0.0;
                    for (int n = 0; n < sh.N; ++n)
                        for (int o = 0; o < sh.OC; ++o) {
                            double want = with_bias ? b[offset + o] : 0.0;
                            for (int c = 0; c < sh.C; ++c)
                                want += static_cast<double>(x[offset + static_cast<size_t>(n) * sh.C + c]) *
                                        w[offset + static_cast<size_t>(o) * sh.C + c];
                            const double got = out[offset + static_cast<size_t>(n) * sh.OC + o];
                            worst = std::max(worst, std::abs(got - want) / (1e-5 * (1 + sh.C)));
                        }
                    EXPECT_LE(worst, 1.0) << "largest error in units of 1e-5 · (1 + C)";
                    EXPECT_EQ(out.front(), 123.0f) << "wrote before the output";
                    EXPECT_EQ(out.back(), 123.0f) << "wrote past the output";
                }
            }
        }
        if (isa != Isa::Generic) {
            EXPECT_GT(tiled, 0) << "no shape reached the dot-product tiles";
        }
    }
}

// C [+]= op(A) · op(B) on every path: all four layouts, overwrite and accumulate, odd row strides,
// and sizes that cut the tiles (6 × 16 and 4 × 16, 8 × 32), K blocks (256), row blocks (96) and
// column blocks (512) anywhere.
TEST(GemmIsa, PackedProductOnEveryPathMatchesLoop) {
    struct Shape { int M, N, K; };
    const Shape shapes[] = {{1, 1, 1},    {5, 15, 3},    {6, 16, 8},    {7, 17, 9},   {13, 47, 257},
                            {97, 33, 31}, {12, 513, 20}, {2, 1, 600},   {61, 100, 256}, {193, 40, 70},
                            {8, 20, 9},   {31, 16, 64},  {32, 70, 300}};
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        EXPECT_EQ(tx::cpu::sgemm_packed_has_kernel(), isa != Isa::Generic);
        for (Isa tile : tiles_of(isa))
        for (int threads : {1, 2}) {
            ASSERT_TRUE(tx::cpu::set_packed_tile(tile));
            tx::set_cpu_threads(threads);
            for (const Shape& sh : shapes)
                for (int layout = 0; layout < 4; ++layout)
                    for (bool accumulate : {false, true}) {
                        const bool ta = layout & 1, tb = layout & 2;
                        const int lda = (ta ? sh.M : sh.K) + 3, ldb = (tb ? sh.K : sh.N) + 5, ldc = sh.N + 1;
                        SCOPED_TRACE(::testing::Message() << tx::cpu::isa_name(isa) << " tile " << tx::cpu::isa_name(tile)
                                                          << " M " << sh.M << " N " << sh.N
                                                          << " K " << sh.K << " ta " << ta << " tb " << tb
                                                          << " accumulate " << accumulate << " threads " << threads);
                        const vector<float> a = random_floats(static_cast<size_t>(ta ? sh.K : sh.M) * lda + 1, 51);
                        const vector<float> b = random_floats(static_cast<size_t>(tb ? sh.N : sh.K) * ldb + 1, 52);
                        vector<float> c = random_floats(static_cast<size_t>(sh.M) * ldc + 1, 53);
                        const vector<float> before = c;
                        // one float in: no operand starts on a 64-byte boundary
                        tx::cpu::sgemm_packed(c.data() + 1, ldc, a.data() + 1, lda, ta, b.data() + 1, ldb, tb, sh.M,
                                              sh.N, sh.K, accumulate);
                        double worst = 0.0;
                        for (int i = 0; i < sh.M; ++i) {
                            for (int j = 0; j < sh.N; ++j) {
                                const size_t at = 1 + static_cast<size_t>(i) * ldc + j;
                                double want = accumulate ? before[at] : 0.0;
                                for (int k = 0; k < sh.K; ++k)
                                    want += static_cast<double>(ta ? a[1 + static_cast<size_t>(k) * lda + i]
                                                                   : a[1 + static_cast<size_t>(i) * lda + k]) *
                                            (tb ? b[1 + static_cast<size_t>(j) * ldb + k] : b[1 + static_cast<size_t>(k) * ldb + j]);
                                worst = std::max(worst, std::abs(c[at] - want) / (1e-5 * (1 + sh.K)));
                            }
                            for (int j = sh.N; j < ldc; ++j)   // the padding between rows is left alone
                                EXPECT_EQ(c[1 + static_cast<size_t>(i) * ldc + j], before[1 + static_cast<size_t>(i) * ldc + j]);
                        }
                        EXPECT_EQ(c[0], before[0]) << "wrote before the output";
                        EXPECT_LE(worst, 1.0) << "largest error in units of 1e-5 · (1 + K)";
                    }
        }
    }
}

// The one-row kernel (a decoding step at batch 1) against a double loop on every path: C that
// ends inside a vector or a cache line, OC that ends inside a block of 8 rows, weights not
// aligned to 64 bytes, with and without bias, on 1 and 2 threads.
TEST(GemmIsa, OneRowProductOnEveryPathMatchesLoop) {
    struct Shape { int C, OC; };
    const Shape shapes[] = {{1, 1},   {7, 3},    {15, 8},   {16, 9},    {17, 16},  {31, 17},  {32, 23},
                            {33, 24}, {128, 7},  {512, 25}, {513, 64},  {2048, 40}, {100, 2008}, {2051, 5}};
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        EXPECT_EQ(tx::cpu::sgemm_nt_uses_row_kernel(1), isa != Isa::Generic);
        EXPECT_FALSE(tx::cpu::sgemm_nt_uses_row_kernel(2));
        for (int threads : {1, 2}) {
            tx::set_cpu_threads(threads);
            for (const Shape& sh : shapes)
                for (bool with_bias : {true, false}) {
                    const int offset = 3;
                    SCOPED_TRACE(::testing::Message() << tx::cpu::isa_name(isa) << " C " << sh.C << " OC " << sh.OC
                                                      << " bias " << with_bias << " threads " << threads);
                    const vector<float> x = random_floats(static_cast<size_t>(sh.C) + offset, 51);
                    const vector<float> w = random_floats(static_cast<size_t>(sh.OC) * sh.C + offset, 52);
                    const vector<float> b = random_floats(sh.OC + offset, 53);
                    vector<float> out(static_cast<size_t>(sh.OC) + 2 * offset, 123.0f);
                    tx::cpu::linear_forward(out.data() + offset, x.data() + offset, w.data() + offset,
                                            with_bias ? b.data() + offset : nullptr, 1, sh.C, sh.OC);
                    double worst = 0.0;
                    for (int o = 0; o < sh.OC; ++o) {
                        double want = with_bias ? b[offset + o] : 0.0;
                        for (int c = 0; c < sh.C; ++c)
                            want += static_cast<double>(x[offset + c]) * w[offset + static_cast<size_t>(o) * sh.C + c];
                        worst = std::max(worst, std::abs(out[offset + o] - want) / (1e-5 * (1 + sh.C)));
                    }
                    EXPECT_LE(worst, 1.0) << "largest error in units of 1e-5 · (1 + C)";
                    EXPECT_EQ(out.front(), 123.0f) << "wrote before the output";
                    EXPECT_EQ(out.back(), 123.0f) << "wrote past the output";
                }
        }
    }
}

// A weight packed once (weight_cache.h) gives sgemm_nt the same bits as packing it per call, on
// every path, 1 and 2 threads, shapes across K and column blocks; where sgemm_nt runs another
// kernel (tiles, one row, the generic path) there is nothing to pack. A second ask does not pack again.
TEST(WeightCache, PackedWeightGivesTheSameBitsOnEveryPath) {
    struct Shape { int N, C, OC; };
    const Shape shapes[] = {{32, 64, 2008}, {128, 300, 530}, {7, 64, 33}, {128, 512, 20}, {1, 64, 64}, {32, 512, 64}};
    PathGuard guard;
    for (Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        for (Isa tile : tiles_of(isa))
        for (int threads : {1, 2}) {
            ASSERT_TRUE(tx::cpu::set_packed_tile(tile));
            tx::set_cpu_threads(threads);
            for (const Shape& sh : shapes) {
                SCOPED_TRACE(::testing::Message() << tx::cpu::isa_name(isa) << " tile " << tx::cpu::isa_name(tile)
                                                  << " N " << sh.N << " C " << sh.C
                                                  << " OC " << sh.OC << " threads " << threads);
                const vector<float> x = random_floats(static_cast<size_t>(sh.N) * sh.C, 61);
                const vector<float> w = random_floats(static_cast<size_t>(sh.OC) * sh.C, 62);
                const vector<float> b = random_floats(sh.OC, 63);
                tx::WeightCache cache;
                const float* packed = cache.packed(w.data(), sh.N, sh.C, sh.OC);
                EXPECT_EQ(packed != nullptr, tx::cpu::sgemm_nt_uses_packed(sh.N, sh.C, sh.OC));
                if (isa == Isa::Generic) {
                    EXPECT_EQ(packed, nullptr);
                }
                EXPECT_EQ(cache.packed(w.data(), sh.N, sh.C, sh.OC), packed) << "packed again";
                vector<float> direct(static_cast<size_t>(sh.N) * sh.OC), cached(direct.size());
                tx::cpu::sgemm_nt(direct.data(), x.data(), w.data(), b.data(), sh.N, sh.C, sh.OC);
                tx::cpu::sgemm_nt(cached.data(), x.data(), w.data(), b.data(), sh.N, sh.C, sh.OC, packed);
                EXPECT_EQ(cached, direct);
            }
        }
    }
}

// The cache keeps a packing until cleared (its owner clears it when the weights may change), then
// packs the weight as it is now; a weight packed for one path is packed again for another.
TEST(WeightCache, ClearingOrSwitchingPathPacksAgain) {
    const int N = 32, C = 64, OC = 48;
    PathGuard guard;
    const vector<float> x = random_floats(static_cast<size_t>(N) * C, 71);
    vector<float> w = random_floats(static_cast<size_t>(OC) * C, 72);
    auto product = [&](const float* packed) {
        vector<float> out(static_cast<size_t>(N) * OC);
        tx::cpu::sgemm_nt(out.data(), x.data(), w.data(), nullptr, N, C, OC, packed);
        return out;
    };
    vector<Isa> kernel_paths;
    for (Isa isa : tx::cpu::supported_isas())
        if (isa != Isa::Generic) kernel_paths.push_back(isa);
    if (kernel_paths.empty()) GTEST_SKIP() << "no kernel path on this CPU";
    for (Isa isa : kernel_paths) {
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        tx::WeightCache cache;
        const vector<float> before = product(cache.packed(w.data(), N, C, OC));
        w[5] += 0.5f;   // row 0 of the weight: column 0 of the output changes
        EXPECT_EQ(product(cache.packed(w.data(), N, C, OC)), before) << "kept the packing made before the change";
        cache.clear();
        const vector<float> after = product(cache.packed(w.data(), N, C, OC));
        EXPECT_EQ(after, product(nullptr));
        EXPECT_NE(after, before);
        w[5] -= 0.5f;
        cache.clear();
    }
    if (kernel_paths.size() == 2) {   // a packing for one tile is not read by the other
        tx::WeightCache cache;
        ASSERT_TRUE(tx::cpu::set_active_isa(Isa::Avx512));
        for (Isa first : {Isa::Avx512, Isa::Avx2}) {
            const Isa second = first == Isa::Avx512 ? Isa::Avx2 : Isa::Avx512;
            ASSERT_TRUE(tx::cpu::set_packed_tile(first));
            cache.packed(w.data(), N, C, OC);
            ASSERT_TRUE(tx::cpu::set_packed_tile(second));
            EXPECT_EQ(product(cache.packed(w.data(), N, C, OC)), product(nullptr));
        }
    }
}

// The packed product's tile: on the AVX-512 path the AVX2 tile where AVX-512 runs on 256-bit pipes
// (AMD family 25, Zen 4, from /proc/cpuinfo), else the path's own; another tile only where the path
// can run it; a path switch resets it.
TEST(CpuIsa, PackedTileIsThePathsOwnExceptAvx512OnHalfWidthPipes) {
    PathGuard guard;
    std::ifstream in("/proc/cpuinfo");
    std::string line, vendor, family;
    while (std::getline(in, line) && (vendor.empty() || family.empty())) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string value = line.substr(std::min(line.size(), colon + 2));
        if (line.rfind("vendor_id", 0) == 0) vendor = value;
        if (line.rfind("cpu family", 0) == 0) family = value;
    }
    const bool zen4 = vendor == "AuthenticAMD" && family == "25";
    for (Isa isa : tx::cpu::supported_isas()) {
        SCOPED_TRACE(tx::cpu::isa_name(isa));
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        EXPECT_EQ(tx::cpu::packed_tile(), isa == Isa::Avx512 && zen4 ? Isa::Avx2 : isa);
        EXPECT_EQ(tx::cpu::set_packed_tile(Isa::Avx512), isa == Isa::Avx512);
        EXPECT_EQ(tx::cpu::set_packed_tile(Isa::Generic), isa == Isa::Generic);
        EXPECT_EQ(tx::cpu::set_packed_tile(isa), true);
        EXPECT_EQ(tx::cpu::packed_tile(), isa);
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        EXPECT_EQ(tx::cpu::packed_tile(), isa == Isa::Avx512 && zen4 ? Isa::Avx2 : isa);
    }
}
