// Colour maps for heatmaps and colour bars: viridis (sequential, perceptually uniform) and a
// diverging map for signed values centred on zero. t in [0,1]; NaN is drawn as MASKED_COLOUR.
#pragma once
#include "imgui.h"

namespace tx::app {

enum class Colormap { Viridis, Diverging };

// The grey of masked (−∞) and missing cells: outside both maps, so it never reads as a value.
constexpr ImU32 MASKED_COLOUR = IM_COL32(70, 70, 74, 255);

// Text that warns (a setting that changes what a view means, an input the model never saw): orange.
inline const ImVec4 WARNING_COLOUR(1.0f, 0.72f, 0.35f, 1.0f);

ImU32 colormap(Colormap map, float t);

}  // namespace tx::app
