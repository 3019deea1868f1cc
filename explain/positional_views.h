// The numbers behind the Positional panel's views of each position scheme, computed with the
// model's own CPU ops (ops.h), so the panel shows what the model computes: one head's q and k
// rotated by RoPE to every position and their dot products, ALiBi's per-head bias, and the
// cosine similarity of a position table. Shapes: L positions, dk head width, H heads, D
// features; matrices row-major with query (or position i) rows and key (position j) columns.
#pragma once
#include <vector>

namespace tx::explain {

// One head's q and k (dk each, as projected, before rotation) rotated to positions 0..L−1 by
// rope_forward in double: the same vectors at every position, so only the angles differ.
struct RopeView {
    int L = 0, dk = 0, pair = 0;           // pair i: the dimensions (2i, 2i+1)
    double theta = 0.0;                    // θ_i = 10000^(−2i/dk), radians per position
    std::vector<double> q_pair, k_pair;    // (L, 2): the pair of q and of k at each position
    std::vector<double> dots;              // (L, L): q rotated to p · k rotated to p'
    std::vector<double> by_offset;         // (2L−1): the dot at p − p' = o − (L−1), from its diagonal's first cell
    double spread = 0.0;                   // the largest (max − min) along a diagonal p − p' = const
    double scale = 0.0;                    // the largest |dot|: what spread is small against
};
// q, k: dk floats each; pair is clamped to 0..dk/2−1 (dk < 2: no pair, the pair lists stay empty).
RopeView rope_view(const float* q, const float* k, int dk, int L, int pair);

// ALiBi's slopes m_h (H) and its bias (H, L, L) = −m_h·|i − j|, queries and keys at positions
// 0..L−1: alibi_slopes, and alibi_forward on zero scores.
std::vector<float> alibi_slope_values(int H);
std::vector<float> alibi_bias(int H, int L);

// (L, L): cos(row i, row j) of table (L, D); 0 where either row is all zeros.
std::vector<float> cosine_similarity(const float* table, int L, int D);

}  // namespace tx::explain
