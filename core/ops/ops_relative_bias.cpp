// T5's relative position bias (Raffel et al. 2020, §2.1; the bucketing of the reference code,
// _relative_position_bucket in Mesh TensorFlow and Hugging Face's T5Attention), CPU ops of ops.h:
// no positional embedding; each head h adds a learned scalar b[bucket(j − i), h] to its
// self-attention scores, one table per stack, shared by its layers. The buckets are exact for
// small distances and logarithmic up to RELATIVE_MAX_DISTANCE; the encoder's are bidirectional
// (half the buckets for keys after the query), the decoder's causal (keys before it only).
#include "tx/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "runtime/parallel_for.h"

namespace tx::cpu {

namespace {

constexpr int64_t RELATIVE_ROWS_PER_THREAD = 64;   // a row is S table reads and adds

}  // namespace

int relative_bucket(int query, int key, bool bidirectional) {
    // n = i − j: how far back the key is. Bidirectional: buckets 0..15 for keys at or before the
    // query, 16..31 for keys after it; causal: keys after the query share bucket 0 (the causal
    // mask hides them). In each half, distances below max_exact get a bucket each, and the rest
    // log-spaced buckets up to max_distance, beyond which they share the last one.
    int buckets = RELATIVE_BUCKETS, bucket = 0;
    int n = query - key;
    if (bidirectional) {
        buckets /= 2;
        if (n < 0) bucket += buckets;
        n = std::abs(n);
    } else {
        n = std::max(n, 0);
    }
    const int max_exact = buckets / 2;
    if (n < max_exact) return bucket + n;
    // As the reference code: float32 log, truncated toward zero.
    const float large = static_cast<float>(max_exact) +
                        std::log(static_cast<float>(n) / max_exact) /
                            std::log(static_cast<float>(RELATIVE_MAX_DISTANCE) / max_exact) * (buckets - max_exact);
    return bucket + std::min(static_cast<int>(large), buckets - 1);
}

template <typename Real>
void relative_bias_forward(Real* out, const Real* scores, const Real* table, int B, int H, int T, int S, int q0,
                           bool bidirectional) {
    // out, scores (B,H,T,S), table (RELATIVE_BUCKETS, H); one row (b,h,t) at a time, each entry
    // read before it is written, so out == scores is safe; −inf stays −inf.
    if (B <= 0 || H <= 0 || T <= 0 || S <= 0) return;
    parallel_for(static_cast<int64_t>(B) * H * T, RELATIVE_ROWS_PER_THREAD, [=](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
            const int t = static_cast<int>(r % T), h = static_cast<int>((r / T) % H);
            const Real* x = scores + r * S;
            Real* o = out + r * S;
            for (int s = 0; s < S; ++s) o[s] = x[s] + table[static_cast<int64_t>(relative_bucket(q0 + t, s, bidirectional)) * H + h];
        }
    });
}

template <typename Real>
void relative_bias_backward(Real* dtable, const Real* dout, int B, int H, int T, int S, int q0, bool bidirectional) {
    // dtable (RELATIVE_BUCKETS, H) += Σ over b, t, s of dout (B,H,T,S) at each entry's bucket. One
    // thread per head, the entries in order: deterministic, and no two threads write one entry.
    if (B <= 0 || H <= 0 || T <= 0 || S <= 0) return;
    parallel_for(H, 1, [=](int64_t first, int64_t last) {
        for (int64_t h = first; h < last; ++h)
            for (int b = 0; b < B; ++b)
                for (int t = 0; t < T; ++t) {
                    const Real* d = dout + ((static_cast<int64_t>(b) * H + h) * T + t) * S;
                    for (int s = 0; s < S; ++s) dtable[static_cast<int64_t>(relative_bucket(q0 + t, s, bidirectional)) * H + h] += d[s];
                }
    });
}

template void relative_bias_forward<float>(float*, const float*, const float*, int, int, int, int, int, bool);
template void relative_bias_forward<double>(double*, const double*, const double*, int, int, int, int, int, bool);
template void relative_bias_backward<float>(float*, const float*, int, int, int, int, int, bool);
template void relative_bias_backward<double>(double*, const double*, int, int, int, int, int, bool);

}  // namespace tx::cpu
