// Random test inputs: n floats uniform in [lo, hi) from a seeded 64-bit Mersenne Twister, so that a
// failing case reruns exactly.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tx::test {

inline std::vector<float> random_floats(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

}  // namespace tx::test
