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

std::vector<unsigned char> rasterise_dense_lines(const std::vector<std::vector<float>>& line_xs,
                                                 const std::vector<std::vector<float>>& line_ys,
                                                 const std::vector<unsigned>& colours, int x0, int y0, int w, int h) {
    if (w <= 0 || h <= 0) return {};
    std::vector<float> acc(static_cast<size_t>(w) * h * 4, 0.0f);   // premultiplied
    auto paint = [&](int px, int py, float r, float g, float b, float a) {
        if (px < 0 || px >= w || py < 0 || py >= h || a <= 0.0f) return;
        float* d = &acc[(static_cast<size_t>(py) * w + px) * 4];
        d[0] = r * a + d[0] * (1 - a);
        d[1] = g * a + d[1] * (1 - a);
        d[2] = b * a + d[2] * (1 - a);
        d[3] = a + d[3] * (1 - a);
    };
    for (size_t k = 0; k < line_xs.size() && k < line_ys.size() && k < colours.size(); ++k) {
        std::vector<float> ys(line_ys[k]);
        for (float& y : ys) y -= static_cast<float>(y0);
        const std::vector<ColumnSpan> env = polyline_column_envelope(line_xs[k], ys, static_cast<float>(x0), w);
        const auto channel = [&](int shift) { return static_cast<float>((colours[k] >> shift) & 0xFF) / 255.0f; };
        const float c[4] = {channel(0), channel(8), channel(16), channel(24)};
        // One column's pixels at most once per line, so a line never blends over itself.
        std::vector<float> cover(static_cast<size_t>(h));
        for (int col = 0; col < w; ++col) {
            std::fill(cover.begin(), cover.end(), 0.0f);
            bool any = false;
            for (int from : {col, col + 1}) {    // a steep span of the next column covers this one too
                if (from >= w || !env[static_cast<size_t>(from)].any) continue;
                const ColumnSpan& s = env[static_cast<size_t>(from)];
                const bool steep = s.hi - s.lo >= 2.0f;
                if (from != col && !steep) continue;
                const float top = steep ? s.lo - 0.4f : s.lo - 1.4f, bottom = steep ? s.hi + 0.4f : s.hi + 1.4f;
                for (int py = std::max(static_cast<int>(std::floor(top)), 0);
                     py <= std::min(static_cast<int>(std::ceil(bottom)), h - 1); ++py) {
                    const float y = static_cast<float>(py) + 0.5f;   // pixel centre
                    float a;
                    if (steep) a = (y >= top && y < bottom) ? 1.0f : 0.0f;
                    else a = std::clamp(std::min(y - top, bottom - y), 0.0f, 1.0f);
                    cover[static_cast<size_t>(py)] = std::max(cover[static_cast<size_t>(py)], a);
                    any = any || a > 0.0f;
                }
            }
            if (!any) continue;
            for (int py = 0; py < h; ++py) paint(col, py, c[0], c[1], c[2], c[3] * cover[static_cast<size_t>(py)]);
        }
    }
    std::vector<unsigned char> out(acc.size());
    for (size_t i = 0; i < acc.size(); i += 4) {
        const float a = acc[i + 3];
        for (int ch = 0; ch < 3; ++ch)
            out[i + ch] = static_cast<unsigned char>(std::lround(std::clamp(a > 0 ? acc[i + ch] / a : 0.0f, 0.0f, 1.0f) * 255));
        out[i + 3] = static_cast<unsigned char>(std::lround(std::clamp(a, 0.0f, 1.0f) * 255));
    }
    return out;
}

}  // namespace tx::app
