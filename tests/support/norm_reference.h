// LayerNorm and RMSNorm written out from their definitions, row by row in double: the reference of
// the norm tests (test_norm.cpp) and of the fused sublayer connection (test_add_norm.cpp).
// Shapes: x and out (N,C); w and b (C); mean and rstd (N).
#pragma once

#include <cmath>

#include "support/finite_differences.h"

namespace tx::test {

// The definition, row by row in double (mean null: RMSNorm).
inline void norm_reference(Vec& out, Vec* mean, Vec& rstd, const Vec& x, const Vec& w, const Vec* b, int N, int C,
                           double eps) {
    for (int n = 0; n < N; ++n) {
        double m = 0;
        if (mean) {
            for (int c = 0; c < C; ++c) m += x[n * C + c];
            m /= C;
        }
        double var = 0;
        for (int c = 0; c < C; ++c) var += (x[n * C + c] - m) * (x[n * C + c] - m);
        const double s = 1.0 / std::sqrt(var / C + eps);
        for (int c = 0; c < C; ++c) out[n * C + c] = (x[n * C + c] - m) * s * w[c] + (b ? (*b)[c] : 0.0);
        if (mean) (*mean)[n] = m;
        rstd[n] = s;
    }
}

}  // namespace tx::test
