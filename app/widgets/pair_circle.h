// Pair circle: 2-D points on a plane with the origin at the centre, drawn with ImDrawList, for
// RoPE's rotation of one (2i, 2i+1) pair of q or k over positions. Each series is (n, 2) points
// (x = dimension 2i, y = dimension 2i+1) joined in order and labelled with their index (the
// position); a circle marks each series' radius; hovering a point reads it out.
#pragma once
#include <string>
#include <vector>

#include "imgui.h"

namespace tx::app {

struct PairSeries {
    std::string name;                 // "q", "k"
    std::vector<double> xy;           // (n, 2)
    ImU32 colour = IM_COL32(80, 160, 255, 255);
};

struct PairCircleSpec {
    const char* id = "pair";          // unique in the current ID scope
    std::string title;                // drawn above
    float size = 300.0f;              // edge of the square plot, pixels
    std::string x_label, y_label;     // axis names, e.g. "dim 2i", "dim 2i+1"
};

void draw_pair_circle(const PairCircleSpec& spec, const std::vector<PairSeries>& series);

}  // namespace tx::app
