// lowp_weight.h: building the stored weight, and the choice of product. Fewer than 32 input rows
// (decoding): the active path's kernels (cpu_kernels.h; FP16 also needs F16C, checked once from
// CPUID), else a plain loop that widens one weight row into FP32 and multiplies every input row by
// it, rows shared over the CPU threads. From 32 rows on (a whole sequence): the weight widened once
// into a per-thread FP32 buffer (as large as the largest weight, kept for the next call) and the
// FP32 GEMM. A BF16 weight on the vdpbf16ps path (cpu_isa.h's Bf16Path::Dpbf16) is stored in the
// pair layout of kernels/gemm_bf16_kernels.h and multiplied by that kernel at every N: the input
// rows are rounded to BF16 bits into a per-thread buffer first.
#include "precision/lowp_weight.h"

#include <stdexcept>

#include "kernels/cpu_kernels.h"
#include "kernels/gemm_bf16_kernels.h"
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

using cpu::kernels::BF16_PAIR_ROWS;

// Values of a row in the pair layout: C rounded up to even.
int64_t pair_columns(int C) { return C + (C & 1); }

// Where value (o, c) lies in the pair layout (gemm_bf16_kernels.h).
int64_t pair_index(int o, int c, int C, int OC) {
    const int64_t Cp = pair_columns(C);
    const int b = o / BF16_PAIR_ROWS, l = o % BF16_PAIR_ROWS;
    const int r = OC - b * BF16_PAIR_ROWS < BF16_PAIR_ROWS ? OC - b * BF16_PAIR_ROWS : BF16_PAIR_ROWS;
    return static_cast<int64_t>(b) * BF16_PAIR_ROWS * Cp + (static_cast<int64_t>(c / 2) * r + l) * 2 + c % 2;
}

// Weight row o (C values) widened to FP32.
void widen_row(float* out, const LowpWeight& w, int o) {
    if (w.pairs) {
        for (int c = 0; c < w.C; ++c) out[c] = bf16_bits_to_float(w.halves[static_cast<size_t>(pair_index(o, c, w.C, w.OC))]);
        return;
    }
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
    LowpWeight w;
    store_lowp_weight(w, weight, C, OC, format);
    return w;
}

void store_lowp_weight(LowpWeight& w, const float* weight, int C, int OC, Precision format) {
    if (C < 0 || OC < 0) throw std::invalid_argument("make_lowp_weight: negative weight shape");
    if (format == Precision::Fp32) throw std::invalid_argument("make_lowp_weight: fp32 has no low-precision storage");
    w.format = format;
    w.pairs = false;
    w.C = C;
    w.OC = OC;
    const int64_t n = static_cast<int64_t>(C) * OC;
    switch (format) {
        case Precision::Bf16:
            if (lowp_uses_pairs(format)) {
#if defined(TX_X86_KERNELS)
                // rounded into this thread's row-major buffer (kept for the next weight), then rearranged
                thread_local std::vector<uint16_t> rows;
                if (static_cast<int64_t>(rows.size()) < n) rows.resize(static_cast<size_t>(n));
                floats_to_bf16(rows.data(), weight, n);
                w.halves.resize(static_cast<size_t>(pair_columns(C) * OC));
                if (n > 0) cpu::kernels::rows_to_bf16_pairs_avx512bf16(w.halves.data(), rows.data(), C, OC);
                w.pairs = true;
                break;
#endif
            }
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
            break;   // refused above
    }
}

void store_transposed_bf16_pairs(LowpWeight& w, const float* in, int K, int M) {
    if (!lowp_uses_pairs(Precision::Bf16) || K < 1 || M < 1)
        throw std::invalid_argument("store_transposed_bf16_pairs: needs the vdpbf16ps path and a non-empty operand");
    w.format = Precision::Bf16;
    w.C = K;
    w.OC = M;
    w.pairs = true;
    w.halves.resize(static_cast<size_t>(pair_columns(K)) * static_cast<size_t>(M));
#if defined(TX_X86_KERNELS)
    cpu::kernels::transpose_to_bf16_pairs_avx512bf16(w.halves.data(), in, K, M);
#endif
}

bool lowp_uses_pairs(Precision format) {
    return format == Precision::Bf16 && cpu::bf16_path() == cpu::Bf16Path::Dpbf16;
}

void widen_lowp_weight(float* out, const LowpWeight& w) {
    const int64_t n = static_cast<int64_t>(w.C) * w.OC;
    if (w.pairs) {
        for (int o = 0; o < w.OC; ++o) widen_row(out + static_cast<int64_t>(o) * w.C, w, o);
        return;
    }
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
#if defined(TX_X86_KERNELS)
    if (w.pairs && cpu::bf16_path() == cpu::Bf16Path::Dpbf16) {
        // The input rows as BF16 bits (stride Cp, an odd C's last pair completed with 0), kept
        // per thread for the next call; then vdpbf16ps over the pair layout.
        thread_local std::vector<uint16_t> x16;
        const int ldx = static_cast<int>(pair_columns(C));
        const size_t n = static_cast<size_t>(N) * static_cast<size_t>(ldx);
        if (x16.size() < n) x16.resize(n);
        cpu::kernels::floats_to_bf16_rows_avx512bf16(x16.data(), ldx, inp, N, C);
        return cpu::kernels::gemm_bf16_pairs_avx512bf16(out, x16.data(), ldx, w.halves.data(), bias, N, C, OC);
    }
#endif
    if (N >= WIDEN_FROM_ROWS || w.pairs) {
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
