// The linear product from BF16, FP16 and INT8 weights (core/precision/lowp_weight.h) against the
// FP32 one (gemm.h's sgemm_nt over FP32 weights) at batch 1, as one KV-cached decoding step of a
// base-size decoder multiplies: 26 weights of 512 × 2048 and 2048 × 512 (27.3 M values, 109 MB in
// FP32, more than the caches hold), one after the other, N = 1 (--rows N: N input rows, e.g. 128 for
// a whole sequence's forward). BF16 runs on each BF16 product path this CPU has (cpu_isa.h:
// widened, i.e. FP32 FMAs on the widened weight, and vdpbf16ps on AVX512_BF16). The variants take
// turns round by round, so that a neighbour's load falls on all of them alike; the minimum and
// median wall time, the process's CPU time per round, GB/s of weights and GFLOP/s are printed. One
// thread unless --threads N.
// Usage: build/bench/lowp_gemm_bench [--rounds R] [--threads N] [--rows N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "kernels/gemm.h"
#include "precision/lowp_weight.h"
#include "tx/cpu_isa.h"
#include "tx/threads.h"

namespace {

constexpr int LAYERS = 26, D = 512, F = 2048;

double cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

int option(int argc, char** argv, const char* name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    return fallback;
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = std::max(1, option(argc, argv, "--rounds", 30));
    const int N = std::max(1, option(argc, argv, "--rows", 1));
    tx::set_cpu_threads(std::max(1, option(argc, argv, "--threads", 1)));
    // weight l: (F, D) for even l, (D, F) for odd l, as a feed-forward's two matrices
    auto shape = [](int l) { return l % 2 ? std::pair<int, int>(F, D) : std::pair<int, int>(D, F); };   // (C, OC)
    std::vector<std::vector<float>> w(LAYERS);
    uint32_t seed = 1;
    for (auto& m : w) {
        m.resize(static_cast<size_t>(D) * F);
        for (float& v : m) {
            seed = seed * 1664525u + 1013904223u;
            v = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
        }
    }
    std::printf("# %s\n", tx::cpu::machine_summary().c_str());
    // Each variant: its format (FP32 = the plain product) and the BF16 path it runs on.
    struct Variant {
        const char* name;
        tx::Precision format;
        tx::cpu::Bf16Path path;
        double bytes_per_value;
        std::vector<tx::LowpWeight> low;
    };
    std::vector<Variant> variants = {{"fp32", tx::Precision::Fp32, tx::cpu::Bf16Path::Widened, 4, {}},
                                     {"bf16 widened", tx::Precision::Bf16, tx::cpu::Bf16Path::Widened, 2, {}}};
    if (tx::cpu::set_bf16_path(tx::cpu::Bf16Path::Dpbf16))
        variants.push_back({"bf16 vdpbf16ps", tx::Precision::Bf16, tx::cpu::Bf16Path::Dpbf16, 2, {}});
    variants.push_back({"fp16", tx::Precision::Fp16, tx::cpu::Bf16Path::Widened, 2, {}});
    variants.push_back({"int8", tx::Precision::Int8, tx::cpu::Bf16Path::Widened, 1, {}});
    for (Variant& v : variants) {
        if (v.format == tx::Precision::Fp32) continue;
        tx::cpu::set_bf16_path(v.path);   // the layout the path multiplies from
        for (int l = 0; l < LAYERS; ++l)
            v.low.push_back(tx::make_lowp_weight(w[l].data(), shape(l).first, shape(l).second, v.format));
    }
    std::vector<float> x(static_cast<size_t>(N) * F, 0.01f), out(static_cast<size_t>(N) * F);
    const size_t V = variants.size();
    std::vector<std::vector<double>> wall(V), cpu(V);
    for (int r = 0; r < rounds; ++r)
        for (size_t f = 0; f < V; ++f) {
            tx::cpu::set_bf16_path(variants[f].path);
            const auto t0 = std::chrono::steady_clock::now();
            const double c0 = cpu_ms();
            for (int l = 0; l < LAYERS; ++l) {
                const auto [C, OC] = shape(l);
                if (f == 0) tx::cpu::sgemm_nt(out.data(), x.data(), w[l].data(), nullptr, N, C, OC);
                else tx::lowp_linear_forward(out.data(), x.data(), variants[f].low[l], nullptr, N);
            }
            wall[f].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            cpu[f].push_back(cpu_ms() - c0);
        }
    const double values = static_cast<double>(LAYERS) * D * F;
    std::printf("%d weights, %.1f M values, N = %d, path %s, %d thread(s), %d rounds\n", LAYERS, values / 1e6, N,
                tx::cpu::isa_name(tx::cpu::active_isa()), tx::cpu_threads(), rounds);
    std::printf("  %-14s  %10s  %10s  %10s  %10s  %12s  %14s  %10s\n", "", "wall min", "wall med", "cpu min", "cpu med",
                "GB/s at min", "GFLOP/s at min", "vs fp32");
    for (size_t f = 0; f < V; ++f) {
        std::sort(wall[f].begin(), wall[f].end());
        std::sort(cpu[f].begin(), cpu[f].end());
        std::printf("  %-14s  %8.2f ms  %8.2f ms  %8.2f ms  %8.2f ms  %12.1f  %14.1f  %9.2fx\n", variants[f].name,
                    wall[f][0], wall[f][wall[f].size() / 2], cpu[f][0], cpu[f][cpu[f].size() / 2],
                    values * variants[f].bytes_per_value / wall[f][0] / 1e6, 2.0 * values * N / wall[f][0] / 1e6,
                    wall[0][0] / wall[f][0]);
    }
    return 0;
}
