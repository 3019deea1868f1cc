// Rows for the softmax-family tests on every instruction-set path (softmax in test_attention.cpp,
// masked softmax in test_softmax_fused.cpp, log-softmax in test_loss.cpp): row lengths that cut the
// AVX-512 (16) and AVX2 (8) registers anywhere, kinds of row with -inf entries and large and small
// logits, and softmax written from its definition in double. Rows (R,C) row-major.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace tx::test {

inline constexpr float NEG_INF = -std::numeric_limits<float>::infinity();
inline constexpr int LENGTHS[] = {1, 7, 15, 16, 17, 33, 513};

// The kinds of row: ordinary logits, large ones (exp(x - max) underflows for most), tiny ones
// (all nearly equal), some keys at -inf, and nothing but -inf.
enum class Row { Random, Large, Small, SomeNegInf, AllNegInf };
inline constexpr Row ROWS[] = {Row::Random, Row::Large, Row::Small, Row::SomeNegInf, Row::AllNegInf};

inline const char* row_name(Row kind) {
    switch (kind) {
        case Row::Random: return "random";
        case Row::Large: return "large";
        case Row::Small: return "small";
        case Row::SomeNegInf: return "some -inf";
        case Row::AllNegInf: return "all -inf";
    }
    return "?";
}

inline std::vector<float> make_rows(Row kind, int R, int C, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(R) * C);
    for (size_t i = 0; i < x.size(); ++i) {
        const float u = unit(rng);
        switch (kind) {
            case Row::Random: x[i] = 4.0f * u; break;
            case Row::Large: x[i] = 90.0f * u; break;
            case Row::Small: x[i] = 1e-4f * u; break;
            case Row::SomeNegInf: x[i] = (i % 3 == 1) ? NEG_INF : 4.0f * u; break;
            case Row::AllNegInf: x[i] = NEG_INF; break;
        }
    }
    return x;
}

// Softmax of one row from the definition, in double: zeros where nothing is finite.
inline std::vector<double> softmax_reference(const float* x, int C) {
    std::vector<double> p(C, 0.0);
    double m = -INFINITY;
    for (int c = 0; c < C; ++c) m = std::max(m, static_cast<double>(x[c]));
    if (m == -INFINITY) return p;
    double sum = 0;
    for (int c = 0; c < C; ++c) sum += std::exp(static_cast<double>(x[c]) - m);
    for (int c = 0; c < C; ++c) p[c] = std::exp(static_cast<double>(x[c]) - m) / sum;
    return p;
}

}  // namespace tx::test
