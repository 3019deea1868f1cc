// The run-time choice of the GEMM kernels' instruction set (cpu_isa.h) and the machine facts
// benchmarks print. The kernels of each path live in units compiled with their own -m flags
// (gemm_nt_avx512.cpp, gemm_packed_avx2.cpp, ...); only this choice decides which one runs, so
// code for a wider instruction set is never reached on a CPU without it.
#include "tx/cpu_isa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>
#if defined(TX_X86_KERNELS)
#include <cpuid.h>
#endif

namespace tx::cpu {

namespace {

bool cpu_has(Isa isa) {
#if defined(TX_X86_KERNELS)
    // GCC 12's __builtin_cpu_supports("avx512f") also checks, through XGETBV, that the OS saves
    // the zmm and mask registers on a context switch; "avx2" likewise checks the ymm state.
    // __builtin_cpu_init: the answer may be wanted during static initialisation, before libgcc's.
    __builtin_cpu_init();
    switch (isa) {
        case Isa::Avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
                   __builtin_cpu_supports("fma");
        case Isa::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case Isa::Generic:
            return true;
    }
    return false;
#else
    return isa == Isa::Generic;
#endif
}

}  // namespace

bool cpu_has_f16c() {
#if defined(TX_X86_KERNELS)
    // CPUID leaf 1, ECX bit 29 (bit_F16C); read directly because Clang 14's
    // __builtin_cpu_supports does not know "f16c". The AVX state the kernels also need is
    // checked by the active path being AVX2 or AVX-512.
    static const bool f16c = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    }();
    return f16c;
#else
    return false;
#endif
}

bool cpu_has_avx512_bf16() {
#if defined(TX_X86_KERNELS)
    // GCC 12 knows "avx512bf16" (CPUID leaf 7 subleaf 1, EAX bit 5); "avx512f" also checks, through
    // XGETBV, that the OS saves the zmm and mask registers. The kernel's masked 16-bit loads and
    // stores are AVX512BW.
    static const bool bf16 = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512bf16");
    }();
    return bf16;
#else
    return false;
#endif
}

namespace {

std::string supported_list() {
    std::string list;
    const std::vector<Isa> all = supported_isas();
    for (auto it = all.rbegin(); it != all.rend(); ++it) list += (list.empty() ? "" : ", ") + std::string(isa_name(*it));
    return list;
}

// A setting read once from the environment (TX_ISA, TX_BF16): the parsed value, with the parser's
// warning (a value this CPU cannot run, or an unknown one) on stderr.
template <typename T>
T from_environment(const char* variable, T (*parse)(const char*, std::string&)) {
    std::string warning;
    const T value = parse(std::getenv(variable), warning);
    if (!warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
    return value;
}

std::atomic<Isa>& active() {
    static std::atomic<Isa> isa{from_environment("TX_ISA", isa_from_setting)};
    return isa;
}

// "key : value" lines of /proc/cpuinfo, first processor only.
std::string cpuinfo_field(const std::string& key) {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) != 0) continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return {};
}

// AVX-512 on AMD family 25 (Zen 4) runs on 256-bit pipes, so it is no wider than AVX2 there; Zen
// 5 and Intel server cores have 512-bit pipes (docs/design.md §10: one Zen 5 core measured
// 228 GFLOP/s at ~3.5 GHz).
bool avx512_on_256_bit_pipes() {
    static const bool zen4 = cpuinfo_field("vendor_id") == "AuthenticAMD" && cpuinfo_field("cpu family") == "25";
    return zen4;
}

bool bf16_runs(Bf16Path path, Isa isa) {
    return path == Bf16Path::Widened || (isa == Isa::Avx512 && cpu_has_avx512_bf16());
}

std::atomic<Bf16Path>& bf16_active() {
    static std::atomic<Bf16Path> path{from_environment("TX_BF16", bf16_path_from_setting)};
    return path;
}

Isa default_packed_tile(Isa path) {
    return path == Isa::Avx512 && avx512_on_256_bit_pipes() ? Isa::Avx2 : path;
}

std::atomic<Isa>& tile() {
    static std::atomic<Isa> tile{default_packed_tile(active_isa())};
    return tile;
}

// FP32 FLOPs per cycle and core of the active path: 2 FMA pipes × lanes × 2 FLOPs. The generic
// path is Eigen's product, as wide as the vectors this build was compiled for.
int flops_per_cycle(Isa isa) {
    const int avx512 = avx512_on_256_bit_pipes() ? 32 : 64;
    switch (isa) {
        case Isa::Avx512: return avx512;
        case Isa::Avx2: return 32;
        case Isa::Generic: break;
    }
#if defined(__AVX512F__)
    return avx512;
#elif defined(__FMA__)
    return 32;
#elif defined(__AVX__)
    return 16;   // separate multiply and add pipes, 8 lanes
#else
    return 8;    // SSE: 4 lanes
#endif
}

}  // namespace

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::Avx512: return "avx512";
        case Isa::Avx2: return "avx2";
        case Isa::Generic: break;
    }
    return "generic";
}

bool cpu_supports(Isa isa) { return cpu_has(isa); }

Isa isa_from_setting(const char* value, std::string& warning) {
    warning.clear();
    const Isa best = supported_isas().back();
    if (!value || !*value) return best;
    const std::string_view setting(value);
    for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512}) {
        if (setting != isa_name(isa)) continue;
        if (cpu_has(isa)) return isa;
        warning = "TX_ISA=" + std::string(setting) + ": this CPU (or this build) cannot run that path; it supports " +
                  supported_list() + ". Using " + isa_name(best) + ".";
        return best;
    }
    warning = "TX_ISA=" + std::string(setting) + " is not a known path (avx512, avx2 or generic); this CPU supports " +
              supported_list() + ". Using " + isa_name(best) + ".";
    return best;
}

std::vector<Isa> supported_isas() {
    std::vector<Isa> isas;
    for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512})
        if (cpu_has(isa)) isas.push_back(isa);
    return isas;
}

Isa active_isa() { return active().load(std::memory_order_relaxed); }

bool set_active_isa(Isa isa) {
    if (!cpu_has(isa)) return false;
    active().store(isa, std::memory_order_relaxed);
    tile().store(default_packed_tile(isa), std::memory_order_relaxed);
    std::string warning;   // named once already, when the path was first chosen
    bf16_active().store(bf16_path_from_setting(std::getenv("TX_BF16"), warning), std::memory_order_relaxed);
    return true;
}

const char* bf16_path_name(Bf16Path path) { return path == Bf16Path::Dpbf16 ? "vdpbf16ps" : "widened"; }

std::vector<Bf16Path> supported_bf16_paths() {
    std::vector<Bf16Path> paths;
    for (Bf16Path p : {Bf16Path::Widened, Bf16Path::Dpbf16})
        if (bf16_runs(p, active_isa())) paths.push_back(p);
    return paths;
}

Bf16Path bf16_path_from_setting(const char* value, std::string& warning) {
    warning.clear();
    const Bf16Path best = supported_bf16_paths().back();
    if (!value || !*value) return best;
    const std::string_view setting(value);
    for (Bf16Path p : {Bf16Path::Widened, Bf16Path::Dpbf16}) {
        if (setting != bf16_path_name(p)) continue;
        if (bf16_runs(p, active_isa())) return p;
        warning = "TX_BF16=" + std::string(setting) + ": the " + isa_name(active_isa()) +
                  " path on this CPU cannot run it (vdpbf16ps needs the avx512 path and AVX512_BF16). Using " +
                  bf16_path_name(best) + ".";
        return best;
    }
    warning = "TX_BF16=" + std::string(setting) + " is not a known BF16 path (widened or vdpbf16ps). Using " +
              bf16_path_name(best) + ".";
    return best;
}

Bf16Path bf16_path() {
    const Bf16Path path = bf16_active().load(std::memory_order_relaxed);
    // A path chosen before the instruction-set path changed by other means never outruns it.
    return bf16_runs(path, active_isa()) ? path : Bf16Path::Widened;
}

bool set_bf16_path(Bf16Path path) {
    if (!bf16_runs(path, active_isa())) return false;
    bf16_active().store(path, std::memory_order_relaxed);
    return true;
}

Isa packed_tile() { return tile().load(std::memory_order_relaxed); }

bool set_packed_tile(Isa t) {
    const Isa path = active_isa();
    if (t != path && !(path == Isa::Avx512 && t == Isa::Avx2)) return false;
    tile().store(t, std::memory_order_relaxed);
    return true;
}

MachineInfo machine_info() {
    MachineInfo info;
    info.cpu_model = cpuinfo_field("model name");
    if (info.cpu_model.empty()) info.cpu_model = "unknown CPU";
    // kHz; absent in most VMs, whose /proc/cpuinfo "cpu MHz" is the TSC rate, not the busy clock.
    std::ifstream freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    double khz = 0.0;
    if (freq >> khz && khz > 0.0) info.max_ghz = khz / 1e6;
    info.flops_per_cycle = flops_per_cycle(active_isa());
    return info;
}

std::string machine_summary() {
    const MachineInfo info = machine_info();
    char text[512];
    if (info.max_ghz > 0.0)
        std::snprintf(text, sizeof text, "CPU: %s; GEMM path: %s; FMA ceiling: %.2f GHz x %d FLOP/cycle = %.1f GFLOP/s per core; BF16 products: %s",
                      info.cpu_model.c_str(), isa_name(active_isa()), info.max_ghz, info.flops_per_cycle,
                      info.ceiling_gflops(), bf16_path_name(bf16_path()));
    else
        std::snprintf(text, sizeof text, "CPU: %s; GEMM path: %s; FMA ceiling: unknown clock (no cpufreq maximum) x %d FLOP/cycle per core; BF16 products: %s",
                      info.cpu_model.c_str(), isa_name(active_isa()), info.flops_per_cycle, bf16_path_name(bf16_path()));
    return text;
}

}  // namespace tx::cpu
