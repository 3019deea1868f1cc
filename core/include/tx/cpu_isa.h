// cpu_isa: which vector instruction set the float GEMMs (core/kernels/gemm.h, core/kernels/gemm_packed.h) run on,
// chosen once at run time from the CPU's features, so that one binary runs everywhere on x86-64
// and at full speed on AVX2+FMA and on AVX-512 machines. Paths: "avx512", "avx2", "generic"
// (Eigen's product, compiled for whatever the build targets). TX_ISA in the environment forces one.
// Also what benchmarks print about the machine: CPU model, path, FMA ceiling.
#pragma once
#include <string>
#include <vector>

namespace tx::cpu {

enum class Isa { Generic, Avx2, Avx512 };

const char* isa_name(Isa isa);   // "generic", "avx2", "avx512"

// The CPU has the instructions of that path and this build has its kernels (x86-64 builds only).
bool cpu_supports(Isa isa);
std::vector<Isa> supported_isas();   // generic first, best last

// The path the GEMMs take. Chosen on first use: TX_ISA=avx2|avx512|generic where the CPU can run
// it, else the best supported one (an unknown or unrunnable TX_ISA is named on stderr).
Isa active_isa();

// The CPU has F16C (VCVTPH2PS / VCVTPS2PH), which the FP16 conversion and product kernels need on
// top of their AVX2 or AVX-512 path; always false outside x86-64 builds.
bool cpu_has_f16c();
// The choice for a TX_ISA value (null or empty: unset): that path where the CPU can run it, else
// the best one, with `warning` saying why the value was not taken (empty when it was).
Isa isa_from_setting(const char* value, std::string& warning);
// Switches the path (tests run every kernel in one process); false, and no change, if the CPU
// cannot run it. Not meant to be called while another thread multiplies.
bool set_active_isa(Isa isa);

// How the products from BF16 weights multiply (core/precision/lowp_weight.h, docs/precision.md):
// `Widened`: each BF16 value is widened to FP32 and summed with FP32 FMAs (any path; the generic
// one in plain C++); `Dpbf16`: AVX512_BF16's vdpbf16ps multiplies pairs of BF16 values and adds
// both products into an FP32 sum (16 lanes, 64 FLOP an instruction, twice the FP32 FMA's rate on
// Zen 4/5 and Intel since Cooper Lake), on the AVX-512 path where the CPU has AVX512_BF16 and
// AVX512BW. (AMX tiles would be a third, not written: no machine of the project has them.)
enum class Bf16Path { Widened, Dpbf16 };
const char* bf16_path_name(Bf16Path path);   // "widened", "vdpbf16ps"
// The CPU has AVX512_BF16 and AVX512BW and the OS keeps the zmm state (false outside x86-64 builds).
bool cpu_has_avx512_bf16();
// The BF16 paths the active instruction-set path can run: widened first, best last.
std::vector<Bf16Path> supported_bf16_paths();
// The path the BF16 products take: TX_BF16=widened|vdpbf16ps where the active path can run it,
// else the best one (an unknown or unrunnable TX_BF16 is named on stderr). set_active_isa resets
// it to that choice for the new path.
Bf16Path bf16_path();
// Switches it (tests and benchmarks run both in one process); false, and no change, where the
// active path cannot run it.
bool set_bf16_path(Bf16Path path);
// The choice for a TX_BF16 value on the active path (null or empty: unset), as isa_from_setting.
Bf16Path bf16_path_from_setting(const char* value, std::string& warning);

// The register tile the packed product (gemm_packed.h) runs on the active path: the path's own,
// except that an AVX-512 path takes the AVX2 tile where AVX-512 runs on 256-bit FMA pipes (AMD
// Zen 4). There the AVX-512 tile gains no FLOPs, and its B panel (32 KiB) fills the 32 KiB L1
// where the AVX2 tile's (16 KiB) leaves room: the AVX2 tile was 4–10% faster at the training
// step's 2048-wide products and as fast elsewhere (docs/speed.md). Both tiles give the same bits (the
// same K blocks, every sum in k order). set_active_isa resets it to that default.
Isa packed_tile();
// Runs the packed product on `tile`, the active path's own or, on the AVX-512 path, the AVX2 one
// (tests reach both tiles this way); false, and no change, for any other.
bool set_packed_tile(Isa tile);

// Where a benchmark ran: the CPU model (/proc/cpuinfo), the maximum clock when the OS says it
// (/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq; 0 where unknown, as in most VMs), the
// FP32 FLOPs per cycle and core of the active path's FMA units, and the ceiling they make.
struct MachineInfo {
    std::string cpu_model;
    double max_ghz = 0.0;
    int flops_per_cycle = 0;
    double ceiling_gflops() const { return max_ghz * flops_per_cycle; }
};
MachineInfo machine_info();
// One line for benchmark output: "CPU: …; GEMM path: avx512; FMA ceiling: 3.70 GHz × 32 FLOP/cycle
// = 118.4 GFLOP/s per core; BF16 products: vdpbf16ps" (the clock "unknown" where the OS does not
// give it; the BF16 path as bf16_path() names it).
std::string machine_summary();

}  // namespace tx::cpu
