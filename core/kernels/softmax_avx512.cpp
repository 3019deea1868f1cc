// softmax_kernels.h's row kernels on AVX-512 (this unit is compiled with -mavx512f): 16 floats a
// register, the row's tail through a lane mask. The kernels themselves are softmax_rows_body.h's,
// shared with softmax_avx2.cpp; this file gives them the instructions. Rows are contiguous floats.
// GCC 12 reports the self-initialised placeholder of its own _mm512_undefined_ps as uninitialised
// once _mm512_reduce_*_ps are inlined (the false alarm gemv_nt_avx512.cpp describes); set before
// the intrinsic headers are first read, where the warning points.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "kernels/softmax_kernels.h"

namespace tx::cpu::kernels {

namespace {

struct Simd {
    using V = __m512;
    static constexpr int W = 16;
    static constexpr int EXPS_SIDE_BY_SIDE = 2;
    static __mmask16 tail(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static V load_tail(const float* p, int n, float fill) { return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), tail(n), p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static void store_tail(float* p, V v, int n) { _mm512_mask_storeu_ps(p, tail(n), v); }
    static V set1(float x) { return _mm512_set1_ps(x); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V fmsub(V a, V b, V c) { return _mm512_fmsub_ps(a, b, c); }
    static V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
    // Where either is NaN, vmaxps/vminps return the second operand.
    static V max(V a, V b) { return _mm512_max_ps(a, b); }
    static V min(V a, V b) { return _mm512_min_ps(a, b); }
    static V round_nearest(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // y·2^⌊n⌋ in one instruction and one rounding: subnormal results and overflow to inf included.
    static V scale_by_pow2(V y, V n) { return _mm512_scalef_ps(y, n); }
    // m != 0 (NaN counts as non-zero, as in C++) ? a : b
    static V select_nonzero(V m, V a, V b) {
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(m, _mm512_setzero_ps(), _CMP_NEQ_UQ), b, a);
    }
    static float hsum(V v) { return _mm512_reduce_add_ps(v); }
    static float hmax(V v) { return _mm512_reduce_max_ps(v); }
};

#include "kernels/softmax_rows_body.h"

}  // namespace

const SoftmaxRowKernels* softmax_rows_avx512() { return &ROW_KERNELS; }

}  // namespace tx::cpu::kernels
