// The dropout draw for element i of a flat tensor, shared by dropout_forward (ops_elementwise.cpp)
// and the fused residual + dropout ops (ops_add_norm.cpp), so that a seed gives the same mask in both;
// the CUDA kernel (gpu/ops/ops_elementwise.cu) copies it exactly. Internal to core/ (not a kernel unit).
#pragma once
#include <cstdint>

namespace tx::cpu {

//   z = seed ^ (i * 0x9E3779B97F4A7C15)                      (uint64 arithmetic, wraps)
//   z = splitmix64(z)                                        (Steele et al. 2014, below)
//   u = (z >> 40) * 2^-24   in [0,1), exact in float: a 24-bit integer times a power of two
//   keep = u >= p
// A pure function of (seed, i): no generator state, any thread can draw any element.
inline uint64_t dropout_splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <typename Real>
Real dropout_uniform(uint64_t seed, uint64_t i) {
    const uint64_t z = dropout_splitmix64(seed ^ (i * 0x9E3779B97F4A7C15ull));
    return static_cast<Real>(z >> 40) * static_cast<Real>(1.0 / 16777216.0);
}

}  // namespace tx::cpu
