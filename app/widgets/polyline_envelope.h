// Per-pixel-column envelope of a polyline: for each column [x_begin + c, x_begin + c + 1) the lowest
// and highest y the linearly interpolated line reaches there and its length-weighted mean y.
// Points are screen coordinates (x, y), sorted by x; a dense curve drawn as one span per column
// shows exactly what a pixel can, at a fixed cost per column instead of per point.
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

}  // namespace tx::app
