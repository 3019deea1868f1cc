// INT8 weight-only quantisation of a linear layer's weight (OC, C), per output channel and
// symmetric (docs/precision.md): scale[o] = max_c |w[o,c]| / 127, q[o,c] = w[o,c] / scale[o]
// rounded to nearest (ties to even) in -127..127, and w ≈ q · scale[o] within scale[o] / 2.
// A row of zeros gets scale 0 and q 0. The scales stay FP32.
#pragma once
#include <cstdint>

namespace tx {

// q (OC, C), scale (OC) from w (OC, C), whose values are finite.
void quantize_int8_rows(int8_t* q, float* scale, const float* w, int OC, int C);
// w (OC, C) = q · scale per row: the weight the products use (one FP32 rounding per value).
void dequantize_int8_rows(float* w, const int8_t* q, const float* scale, int OC, int C);
// w (OC, C) replaced by its INT8 round trip, dequantize(quantize(w)): "fake quantisation", the
// weight an INT8 model computes with, kept in FP32 (quantization-aware training).
void fake_quantize_int8_rows(float* w, int OC, int C);

}  // namespace tx
