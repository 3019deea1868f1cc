// The keep decision of dropout for element i, written out from the definition in
// core/ops/dropout_draw.h's comment (independent of the kernels, so that every path, the CUDA one
// included, is checked against it): a splitmix64 hash of seed and i, its top 24 bits as u in
// [0, 1), kept where u ≥ p.
#pragma once
#include <cstdint>

namespace tx::test {

inline bool reference_keep(uint64_t seed, uint64_t i, float p) {
    uint64_t z = seed ^ (i * 0x9E3779B97F4A7C15ull);
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * 0x1p-24f >= p;   // exact: z >> 40 < 2^24
}

}  // namespace tx::test
