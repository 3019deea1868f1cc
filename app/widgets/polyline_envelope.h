// Per-pixel-column envelope of a polyline: for each column [x_begin + c, x_begin + c + 1) the lowest
// and highest y the linearly interpolated line reaches there and its length-weighted mean y.
// Points are screen coordinates (x, y), sorted by x; a dense curve drawn as one span per column
// shows exactly what a pixel can, at a fixed cost per column instead of per point; rasterised
// into an image, it becomes one texture and one quad.
#pragma once
#include <vector>

namespace tx::app {

struct ColumnSpan {
    float lo = 0, hi = 0, mean = 0;
    bool any = false;                    // the line passes through this column
};

// xs, ys: same length, xs non-decreasing. Columns outside the line's x range stay `any = false`.
std::vector<ColumnSpan> polyline_column_envelope(const std::vector<float>& xs, const std::vector<float>& ys,
                                                 float x_begin, int columns);

// Dense lines rasterised from their envelopes into a w x h straight-alpha RGBA image whose top-left
// pixel is screen pixel (x0, y0), lines composited in order ("over"); colours as ImGui's IM_COL32
// (R in the low byte). The 1.8 px look of ImGui's anti-aliased lines: where a line is nearly flat
// in a column, a 0.8 px core and 1 px edges fading out above and below; where it is steep (spans
// 2 px or more), an opaque span over that column and the one to its left, 2 px wide.
std::vector<unsigned char> rasterise_dense_lines(const std::vector<std::vector<float>>& xs,
                                                 const std::vector<std::vector<float>>& ys,
                                                 const std::vector<unsigned>& colours, int x0, int y0, int w, int h);

}  // namespace tx::app
