// Per-pixel-column envelope of a polyline (see polyline_envelope.h). Each segment is clipped to
// every column it crosses; the clipped ends bound the line there, since a segment is monotone in y.
#include "widgets/polyline_envelope.h"

#include <algorithm>
#include <cmath>

namespace tx::app {

std::vector<ColumnSpan> polyline_column_envelope(const std::vector<float>& xs, const std::vector<float>& ys,
                                                 float x_begin, int columns) {
    std::vector<ColumnSpan> out(static_cast<size_t>(std::max(columns, 0)));
    std::vector<double> weight(out.size(), 0.0), sum(out.size(), 0.0);
    const size_t n = std::min(xs.size(), ys.size());
    auto add = [&](int c, float ya, float yb, double w) {
        if (c < 0 || c >= columns) return;
        ColumnSpan& s = out[static_cast<size_t>(c)];
        const float lo = std::min(ya, yb), hi = std::max(ya, yb);
        if (!s.any) { s.lo = lo; s.hi = hi; s.any = true; }
        else { s.lo = std::min(s.lo, lo); s.hi = std::max(s.hi, hi); }
        sum[static_cast<size_t>(c)] += 0.5 * (static_cast<double>(ya) + yb) * w;
        weight[static_cast<size_t>(c)] += w;
    };
    auto column_of = [&](float x) { return static_cast<int>(std::floor(x - x_begin)); };
    if (n == 1) add(column_of(xs[0]), ys[0], ys[0], 1.0);
    for (size_t i = 0; i + 1 < n; ++i) {
        const float xa = xs[i], xb = xs[i + 1], ya = ys[i], yb = ys[i + 1];
        if (!(xb > xa)) {                // vertical (or out of order): one column, both ends
            add(column_of(xa), ya, yb, 1e-6);
            continue;
        }
        const float slope = (yb - ya) / (xb - xa);
        for (int c = std::max(column_of(xa), 0); c <= std::min(column_of(xb), columns - 1); ++c) {
            const float l = std::max(xa, x_begin + static_cast<float>(c));
            const float r = std::min(xb, x_begin + static_cast<float>(c + 1));
            if (r < l) continue;
            add(c, ya + slope * (l - xa), ya + slope * (r - xa), std::max(static_cast<double>(r - l), 1e-6));
        }
    }
    for (size_t c = 0; c < out.size(); ++c)
        if (out[c].any) out[c].mean = static_cast<float>(sum[c] / weight[c]);
    return out;
}

}  // namespace tx::app
