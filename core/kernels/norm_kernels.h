// The row kernels behind the float LayerNorm and RMSNorm (ops_norm.cpp, norm_rows.h), the fused
// residual + dropout (ops_add_norm.cpp) and dropout (ops_elementwise.cpp), as a table per instruction
// set: written once in norm_rows_body.h, compiled per set in norm_rows_avx2.cpp and norm_rows_avx512.cpp
// (core/CMakeLists.txt), reached through cpu_kernels() (cpu_kernels.h). Rows of C floats, row-major;
// inp, out (rows,C), weight, bias (C), mean, rstd (rows). mean null means RMSNorm (no re-centring,
// bias unused). Internal to core/.
#pragma once

namespace tx::cpu::kernels {

struct NormRowKernels {
    // out = (inp - mean)·rstd·weight + bias, mean and rstd of each row written (LayerNorm, biased
    // variance from a second pass over the row); RMSNorm: out = inp·rstd·weight, rstd = 1/sqrt(mean(inp²) + eps).
    void (*forward_rows)(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                         const float* bias, int rows, int C, float eps);
    // The gradient d of each row's input: dinp += d and, where dinp2 is not null, dinp2 += mask2·d
    // (mask2 null: += d). Two outputs so that the residual's two branches (and a dropout mask on one)
    // get their gradients in the same pass (ops_add_norm.h).
    void (*backward_rows)(float* dinp, float* dinp2, const float* mask2, const float* dout, const float* inp,
                          const float* weight, const float* mean, const float* rstd, int rows, int C);
    // dweight[c] += Σ_n xhat·dout and dbias[c] += Σ_n dout (dbias null for RMSNorm) for columns
    // [c0, c1), rows summed in order 0..N-1 whatever the thread that owns the columns.
    void (*param_grad_columns)(float* dweight, float* dbias, const float* dout, const float* inp,
                               const float* mean, const float* rstd, int N, int C, int c0, int c1);
    // The fused connection's x + dropout(sub) over the flat indices [first, last) of one tensor
    // (pointers at its start): mask[i] = keep ? scale : 0, keep drawn for index i exactly as
    // dropout_uniform (dropout_draw.h) draws it, and out[i] = x[i] + (sub[i]·mask[i] rounded), as the
    // separate ops give.
    void (*residual_dropout)(float* out, float* mask, const float* x, const float* sub, long first, long last,
                             float p, float scale, unsigned long long seed);
    // dropout_forward's out = inp·mask over [first, last), mask drawn as residual_dropout's.
    void (*dropout)(float* out, float* mask, const float* inp, long first, long last, float p, float scale,
                    unsigned long long seed);
};

extern const NormRowKernels NORM_ROWS_AVX2;     // norm_rows_avx2.cpp
extern const NormRowKernels NORM_ROWS_AVX512;   // norm_rows_avx512.cpp

}  // namespace tx::cpu::kernels
