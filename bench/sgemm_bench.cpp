// SGEMM: our backend's GEMM path, tx::cpu::linear_forward<float> (out (N,OC) = inp (N,C) · W (OC,C)ᵀ,
// core/kernels/gemm.h's dispatch: dot-product tiles, the packed product or Eigen's, on the run-time ISA
// path, TX_ISA=avx2|avx512|generic to force one), the packed product alone on the same operands
// (core/kernels/gemm_packed.h, x·Wᵀ), and OpenBLAS's cblas_sgemm (OPENBLAS_CORETYPE=Haswell forces its
// AVX2 kernels), one thread each, timed in alternation so that a busy machine slows all alike.
// Prints where it ran (CPU, ISA path, FMA ceiling), GFLOP/s (2·N·C·OC per product; best and
// median of the timed runs) and the ratios. Usage: sgemm_bench [N [C [OC [runs]]]] (512 512 512 50)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "tx/cpu_isa.h"
#include "kernels/gemm.h"
#include "kernels/gemm_packed.h"
#include "tx/ops.h"
#include "tx/threads.h"

extern "C" void openblas_set_num_threads(int threads);
extern "C" char* openblas_get_corename(void);

namespace {

struct Timing {
    double best_ms, median_ms;
};

double time_once(const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

Timing summarise(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    return {ms.front(), ms[ms.size() / 2]};
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0;
    for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    const int N = argc > 1 ? std::atoi(argv[1]) : 512;
    const int C = argc > 2 ? std::atoi(argv[2]) : 512;
    const int OC = argc > 3 ? std::atoi(argv[3]) : 512;
    const int runs = argc > 4 ? std::atoi(argv[4]) : 50;
    if (N < 1 || C < 1 || OC < 1 || runs < 1) {
        std::fprintf(stderr, "usage: sgemm_bench [N [C [OC [runs]]]]\n");
        return 2;
    }
    tx::set_cpu_threads(1);
    openblas_set_num_threads(1);

    std::vector<float> inp(static_cast<size_t>(N) * C), weight(static_cast<size_t>(OC) * C);
    std::vector<float> ours(static_cast<size_t>(N) * OC), packed(ours.size()), blas(ours.size());
    uint32_t state = 1;
    auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    };
    for (float& x : inp) x = next();
    for (float& x : weight) x = next();

    const std::function<void()> impls[3] = {
        [&] { tx::cpu::linear_forward<float>(ours.data(), inp.data(), weight.data(), nullptr, N, C, OC); },
        [&] { tx::cpu::sgemm_packed(packed.data(), OC, inp.data(), C, false, weight.data(), C, true, N, OC, C, false); },
        [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, inp.data(), C, weight.data(), C, 0.0f,
                        blas.data(), OC);
        }};
    for (int i = 0; i < 3; ++i)
        for (const auto& f : impls) f();   // warm-up: caches, page faults, thread pools
    std::vector<double> ms[3];
    for (int r = 0; r < runs; ++r)
        for (int k = 0; k < 3; ++k) ms[k].push_back(time_once(impls[k]));
    const Timing t_ours = summarise(ms[0]), t_packed = summarise(ms[1]), t_blas = summarise(ms[2]);

    const double worst = std::max(max_diff(ours, blas), max_diff(packed, blas));
    const double flop = 2.0 * N * C * OC;
    auto gflops = [flop](double ms) { return flop / (ms * 1e6); };
    const char* ours_kind = tx::cpu::sgemm_nt_uses_row_kernel(N)       ? "one-row kernel"
                            : tx::cpu::sgemm_nt_uses_tiles(N, C, OC) ? "dot-product tiles"
                            : tx::cpu::sgemm_packed_has_kernel()    ? "packed product"
                                                                    : "Eigen product";
    const tx::cpu::MachineInfo machine = tx::cpu::machine_info();
    std::printf("# %s\n", tx::cpu::machine_summary().c_str());
    std::printf("SGEMM %dx%dx%d, 1 thread, %d runs (OpenBLAS core: %s)\n", N, C, OC, runs, openblas_get_corename());
    std::printf("  ours, linear_forward (%s):  best %.3f ms = %.1f GFLOP/s, median %.3f ms = %.1f GFLOP/s\n", ours_kind,
                t_ours.best_ms, gflops(t_ours.best_ms), t_ours.median_ms, gflops(t_ours.median_ms));
    std::printf("  ours, sgemm_packed x·Wᵀ:  best %.3f ms = %.1f GFLOP/s, median %.3f ms = %.1f GFLOP/s\n",
                t_packed.best_ms, gflops(t_packed.best_ms), t_packed.median_ms, gflops(t_packed.median_ms));
    std::printf("  OpenBLAS cblas_sgemm:     best %.3f ms = %.1f GFLOP/s, median %.3f ms = %.1f GFLOP/s\n",
                t_blas.best_ms, gflops(t_blas.best_ms), t_blas.median_ms, gflops(t_blas.median_ms));
    std::printf("  ours / OpenBLAS (median): linear_forward %.1f%%, packed %.1f%%   max |ours - OpenBLAS| = %.2e\n",
                100.0 * t_blas.median_ms / t_ours.median_ms, 100.0 * t_blas.median_ms / t_packed.median_ms, worst);
    if (machine.max_ghz > 0.0)
        std::printf("  fraction of the FMA ceiling (median): ours %.0f%%, OpenBLAS %.0f%%\n",
                    100.0 * gflops(t_ours.median_ms) / machine.ceiling_gflops(),
                    100.0 * gflops(t_blas.median_ms) / machine.ceiling_gflops());
    std::printf("{\"n\": %d, \"c\": %d, \"oc\": %d, \"isa\": \"%s\", \"openblas_core\": \"%s\", \"ours_gflops\": %.2f, "
                "\"packed_gflops\": %.2f, \"openblas_gflops\": %.2f, \"ratio\": %.4f}\n",
                N, C, OC, tx::cpu::isa_name(tx::cpu::active_isa()), openblas_get_corename(), gflops(t_ours.median_ms),
                gflops(t_packed.median_ms), gflops(t_blas.median_ms), t_blas.median_ms / t_ours.median_ms);
    return worst < 1e-3 ? 0 : 1;
}
