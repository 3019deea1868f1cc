// int8_quantize.h: symmetric per-channel INT8, the scheme of PyTorch's dynamic quantisation of
// nn.Linear weights (per_channel_symmetric, qint8 restricted to ±127 so that 0 is exact and the
// range is symmetric). Rounding is std::nearbyint in the default mode: to nearest, ties to even.
#include "tx/int8_quantize.h"

#include <vector>

#include <algorithm>
#include <cmath>

namespace tx {

void quantize_int8_rows(int8_t* q, float* scale, const float* w, int OC, int C) {
    for (int o = 0; o < OC; ++o) {
        const float* row = w + static_cast<int64_t>(o) * C;
        float largest = 0.0f;
        for (int c = 0; c < C; ++c) largest = std::max(largest, std::fabs(row[c]));
        scale[o] = largest / 127.0f;
        int8_t* out = q + static_cast<int64_t>(o) * C;
        for (int c = 0; c < C; ++c) {
            const float steps = scale[o] > 0.0f ? std::nearbyint(row[c] / scale[o]) : 0.0f;
            out[c] = static_cast<int8_t>(std::clamp(steps, -127.0f, 127.0f));
        }
    }
}

void fake_quantize_int8_rows(float* w, int OC, int C) {
    std::vector<int8_t> q(static_cast<size_t>(C));
    for (int o = 0; o < OC; ++o) {
        float* row = w + static_cast<int64_t>(o) * C;
        float scale = 0.0f;
        quantize_int8_rows(q.data(), &scale, row, 1, C);
        dequantize_int8_rows(row, q.data(), &scale, 1, C);
    }
}

void dequantize_int8_rows(float* w, const int8_t* q, const float* scale, int OC, int C) {
    for (int o = 0; o < OC; ++o)
        for (int c = 0; c < C; ++c) {
            const int64_t i = static_cast<int64_t>(o) * C + c;
            w[i] = static_cast<float>(q[i]) * scale[o];
        }
}

}  // namespace tx
