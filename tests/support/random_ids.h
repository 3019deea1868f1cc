// Random token ids: n ids uniform in [0, V) from a seeded 64-bit Mersenne Twister, so that a failing
// case reruns exactly (the embedding and loss tests).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tx::test {

inline std::vector<int32_t> random_ids(size_t n, int V, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int32_t> dist(0, V - 1);
    std::vector<int32_t> v(n);
    for (int32_t& x : v) x = dist(rng);
    return v;
}

}  // namespace tx::test
