// The core's clock and FP32 FMA ceiling, measured where the VM hides its clock (no cpufreq): a
// chain of dependent integer adds (one per cycle on every x86 core since the Pentium Pro) gives
// cycles per second; 12 independent FMA accumulators (more than latency × pipes, 4 × 2 on Zen 4)
// give the peak FP32 FLOP/s with 256-bit and, where the CPU has AVX-512, 512-bit vectors. Their
// ratio is FLOP/cycle (32 for two 256-bit FMA pipes). Where the CPU has AVX512_BF16, 12 independent
// vdpbf16ps accumulators give the BF16 dot-product unit's peak the same way (one instruction: 16
// lanes × 2 BF16 products summed into FP32 = 64 FLOP; docs/precision.md). One thread; best of
// `runs` runs of about a millisecond each, shorter than the ~3 ms slices in which a busy machine
// shares a core.
//   usage: fma_peak [runs]   (default 200)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr long ADD_LOOPS = 50'000;      // × 100 dependent adds: ~1.5 ms, inside one time slice
constexpr long FMA_LOOPS = 200'000;     // × 12 FMAs of 8 or 16 lanes: ~0.3 or 0.7 ms

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 100 adds, each waiting for the last: 100 cycles an iteration (the loop's own add and branch run
// beside them on other ports).
double add_chain_ghz() {
    unsigned long x = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < ADD_LOOPS; ++i) {
        asm volatile(
#define TX_ADD10 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t" \
                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
            TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10
#undef TX_ADD10
            : "+r"(x));
    }
    const double s = seconds_since(start);
    if (x != static_cast<unsigned long>(ADD_LOOPS) * 100) std::abort();
    return ADD_LOOPS * 100.0 / s / 1e9;
}

__attribute__((target("avx2,fma"))) double fma256_gflops() {
    __m256 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < FMA_LOOPS; ++i) {
        #pragma GCC unroll 12
        for (int j = 0; j < 12; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    }
    const double s = seconds_since(start);
    float sink = 0;
    for (int i = 0; i < 12; ++i) sink += _mm256_cvtss_f32(acc[i]);
    if (sink != sink) std::abort();
    return FMA_LOOPS * 12.0 * 8 * 2 / s / 1e9;
}

__attribute__((target("avx512f"))) double fma512_gflops() {
    __m512 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < FMA_LOOPS; ++i) {
        #pragma GCC unroll 12
        for (int j = 0; j < 12; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    }
    const double s = seconds_since(start);
    float sink = 0;
    for (int i = 0; i < 12; ++i) sink += _mm512_cvtss_f32(acc[i]);
    if (sink != sink) std::abort();
    return FMA_LOOPS * 12.0 * 16 * 2 / s / 1e9;
}

__attribute__((target("avx512f,avx512bf16"))) double dpbf16_gflops() {
    __m512 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
    const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
    const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(2e-3f));
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < FMA_LOOPS; ++i) {
        #pragma GCC unroll 12
        for (int j = 0; j < 12; ++j) acc[j] = _mm512_dpbf16_ps(acc[j], a, b);
    }
    const double s = seconds_since(start);
    float sink = 0;
    for (int i = 0; i < 12; ++i) sink += _mm512_cvtss_f32(acc[i]);
    if (sink != sink) std::abort();
    return FMA_LOOPS * 12.0 * 16 * 4 / s / 1e9;
}

template <typename F>
double best_of(int runs, F f) {
    double best = 0;
    for (int r = 0; r < runs; ++r) best = std::max(best, f());
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    __builtin_cpu_init();
    const double ghz = best_of(runs, add_chain_ghz);
    std::printf("clock (dependent integer adds): %.2f GHz\n", ghz);
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        std::printf("no AVX2+FMA: no FMA ceiling measured\n");
        return 0;
    }
    const double g256 = best_of(runs, fma256_gflops);
    std::printf("FP32 FMA, 256-bit: %.1f GFLOP/s = %.1f FLOP/cycle\n", g256, g256 / ghz);
    if (__builtin_cpu_supports("avx512f")) {
        const double g512 = best_of(runs, fma512_gflops);
        std::printf("FP32 FMA, 512-bit: %.1f GFLOP/s = %.1f FLOP/cycle\n", g512, g512 / ghz);
    }
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16")) {
        const double gbf16 = best_of(runs, dpbf16_gflops);
        std::printf("BF16 vdpbf16ps, 512-bit: %.1f GFLOP/s = %.1f FLOP/cycle\n", gbf16, gbf16 / ghz);
    } else {
        std::printf("no AVX512_BF16: no vdpbf16ps peak measured\n");
    }
    return 0;
}
