// lowp_weight.h: building the stored weight, and the choice of product. Fewer than 32 input rows
// (decoding): the active path's kernels (cpu_kernels.h; FP16 also needs F16C, checked once from
// CPUID), else a plain loop that widens one weight row into FP32 and multiplies every input row by
// it, rows shared over the CPU threads. From 32 rows on (a whole sequence): the weight widened once
// into a per-thread FP32 buffer (as large as the largest weight, kept for the next call) and the
// FP32 GEMM.
#include "precision/lowp_weight.h"

#include <stdexcept>

#include "kernels/cpu_kernels.h"
#include "kernels/gemm.h"
#include "runtime/parallel_for.h"
#include "tx/cpu_isa.h"
#include "tx/half_float.h"
#include "tx/int8_quantize.h"

namespace tx {

namespace {

// From this many input rows on, the product widens the whole weight to FP32 once and runs the FP32
// GEMM (gemm.h's tiles or packed product), which then beats widening 8 rows at a time for every
// input row. Measured on the Zen 2 (C = 512, OC = 2048, one thread, best of 7, loaded machine,
// ms, 8-row blocks vs widen + FP32): BF16 N = 8: 0.43 vs 0.55; N = 16: 0.73 vs 0.82; N = 32: 1.76
// vs 1.64; N = 128: 34.7 vs 22.1. INT8 alike. Below it, the kernels read the stored weight alone.
constexpr int WIDEN_FROM_ROWS = 32;

// Weight row o (C values) widened to FP32.
void widen_row(float* out, const LowpWeight& w, int o) {
    const int64_t at = static_cast<int64_t>(o) * w.C;
    if (w.format == Precision::Bf16) return bf16_to_floats(out, w.halves.data() + at, w.C);
    if (w.format == Precision::Fp16) return fp16_to_floats(out, w.halves.data() + at, w.C);
    for (int c = 0; c < w.C; ++c) out[c] = static_cast<float>(w.q[static_cast<size_t>(at + c)]);
}

// The generic path: per output row, its widened weight (INT8: the steps, not yet scaled) against
// every input row, summed in FP32 from the first column to the last, times the scale, plus bias.
void plain_linear_forward(float* out, const float* inp, const LowpWeight& w, const float* bias, int N) {
    const int C = w.C, OC = w.OC;
    parallel_for(OC, 8, [&](int64_t first, int64_t last) {
        std::vector<float> row(static_cast<size_t>(C));
        for (int64_t o = first; o < last; ++o) {
            widen_row(row.data(), w, static_cast<int>(o));
            for (int n = 0; n < N; ++n) {
                const float* x = inp + static_cast<int64_t>(n) * C;
                float s = 0.0f;
                for (int c = 0; c < C; ++c) s += x[c] * row[static_cast<size_t>(c)];
                if (w.format == Precision::Int8) s *= w.scale[static_cast<size_t>(o)];
                out[static_cast<int64_t>(n) * OC + o] = s + (bias ? bias[o] : 0.0f);
            }
        }
    });
}

}  // namespace

LowpWeight make_lowp_weight(const float* weight, int C, int OC, Precision format) {
    if (C < 0 || OC < 0) throw std::invalid_argument("make_lowp_weight: negative weight shape");
    LowpWeight w;
    w.format = format;
    w.C = C;
    w.OC = OC;
    const int64_t n = static_cast<int64_t>(C) * OC;
    switch (format) {
        case Precision::Bf16:
            w.halves.resize(static_cast<size_t>(n));
            floats_to_bf16(w.halves.data(), weight, n);
            break;
        case Precision::Fp16:
            w.halves.resize(static_cast<size_t>(n));
            floats_to_fp16(w.halves.data(), weight, n);
            break;
        case Precision::Int8:
            w.q.resize(static_cast<size_t>(n));
            w.scale.resize(static_cast<size_t>(OC));
            quantize_int8_rows(w.q.data(), w.scale.data(), weight, OC, C);
            break;
        case Precision::Fp32:
            throw std::invalid_argument("make_lowp_weight: fp32 has no low-precision storage");
    }
    return w;
}

void widen_lowp_weight(float* out, const LowpWeight& w) {
    const int64_t n = static_cast<int64_t>(w.C) * w.OC;
    if (w.format == Precision::Bf16) return bf16_to_floats(out, w.halves.data(), n);
    if (w.format == Precision::Fp16) return fp16_to_floats(out, w.halves.data(), n);
    dequantize_int8_rows(out, w.q.data(), w.scale.data(), w.OC, w.C);
}

void lowp_linear_forward(float* out, const float* inp, const LowpWeight& w, const float* bias, int N) {
    const int C = w.C, OC = w.OC;
    if (N <= 0 || OC <= 0) return;
    if (C == 0) {   // an empty sum: the bias alone
        for (int n = 0; n < N; ++n)
            for (int o = 0; o < OC; ++o) out[static_cast<int64_t>(n) * OC + o] = bias ? bias[o] : 0.0f;
        return;
    }
    if (N >= WIDEN_FROM_ROWS) {
        // Many rows (a whole sequence): widen the weight once into this thread's buffer and run the
        // FP32 product (gemm.h) on it, the emulation's bits (round_floats' / q·scale values).
        thread_local std::vector<float> wide;
        const size_t n = static_cast<size_t>(C) * static_cast<size_t>(OC);
        if (wide.size() < n) wide.resize(n);
        widen_lowp_weight(wide.data(), w);
        return cpu::sgemm_nt(out, inp, wide.data(), bias, N, C, OC);
    }
    if (const cpu::kernels::CpuKernels* k = cpu::cpu_kernels()) {
        const cpu::kernels::LowpGemmKernels& g = *k->lowp_gemm;
        switch (w.format) {
            case Precision::Bf16: return g.bf16(out, inp, w.halves.data(), bias, N, C, OC);
            case Precision::Fp16:
                if (cpu::cpu_has_f16c()) return g.fp16(out, inp, w.halves.data(), bias, N, C, OC);
                break;
            case Precision::Int8: return g.int8(out, inp, w.q.data(), w.scale.data(), bias, N, C, OC);
            case Precision::Fp32: break;
        }
    }
    if (w.format == Precision::Fp32) throw std::invalid_argument("lowp_linear_forward: the weight was never stored");
    plain_linear_forward(out, inp, w, bias, N);
}

}  // namespace tx
