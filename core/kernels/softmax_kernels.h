// The float row kernels of softmax, log-softmax and the loss's exp (ops_attention.cpp,
// ops_softmax_fused.cpp, ops_loss.cpp), as a table per instruction set: written once in
// softmax_rows_body.h, compiled per set in softmax_avx2.cpp and softmax_avx512.cpp (core/CMakeLists.txt),
// chosen at run time with the other families (cpu_kernels.h). One row
// of C (or V) contiguous floats per call; the ops share the rows out over the threads. A null table
// (the generic path) leaves the ops on their Eigen code. Internal to core/.
#pragma once

namespace tx::cpu::kernels {

struct SoftmaxRowKernels {
    // p (C) = softmax(x); a row that is all -inf gives zeros. p may be x.
    void (*softmax)(float* p, const float* x, int C);
    // p (C) = softmax(keep ? scale·x : -inf), keep (C) may be null (all kept).
    void (*masked_softmax)(float* p, const float* x, const float* keep, int C, float scale);
    // dx (C) += p·(g − Σ g·p)
    void (*softmax_backward)(float* dx, const float* g, const float* p, int C);
    // dx (C) += keep ? scale·p·(g − Σ_{p≠0} g·p) : 0, keep may be null
    void (*masked_softmax_backward)(float* dx, const float* g, const float* p, const float* keep, int C,
                                    float scale);
    // o (V) = x − max − log Σ exp(x − max)
    void (*log_softmax)(float* o, const float* x, int V);
    // dx (V) += g − exp(o)·Σ g
    void (*log_softmax_backward)(float* dx, const float* g, const float* o, int V);
    // d (V) += (exp(lp)·a − b)·c: the label-smoothed cross-entropy's gradient through log-softmax
    void (*exp_affine_add)(float* d, const float* lp, int V, float a, float b, float c);
    // y (n) = exp(x): the vector exp the others use, for the tests of its accuracy
    void (*exp)(float* y, const float* x, int n);
};

extern const SoftmaxRowKernels SOFTMAX_ROWS_AVX2;     // softmax_avx2.cpp
extern const SoftmaxRowKernels SOFTMAX_ROWS_AVX512;   // softmax_avx512.cpp

}  // namespace tx::cpu::kernels

namespace tx::cpu {

// The kernels of the active path: cpu_kernels()->softmax (cpu_kernels.h); null on the generic path.
const kernels::SoftmaxRowKernels* softmax_row_kernels();

}  // namespace tx::cpu
