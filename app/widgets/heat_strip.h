// Heat strip: one row of a heatmap (an attention row over its keys, a mask row) as coloured cells
// with their values inside and the key labels under them. values are [count]; NaN draws as
// masked (MASKED_COLOUR, "−∞"), so a masked key never reads as a value. Colours: viridis over [0, 1].
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "imgui.h"

namespace tx::app {

struct HeatStripSpec {
    const char* id = "strip";                           // unique in the current ID scope
    const float* values = nullptr;                      // count values in [0, 1], NaN = masked
    int count = 0;
    const std::vector<std::string>* labels = nullptr;   // under the cells (count of them), or none
    float width = 0.0f;                                 // whole strip; 0 = the available width
    float max_cell = 72.0f;                             // cells never grow wider than this
    float height = 28.0f;
    int marked = -1;                                    // outlined cell (the newest key)
    std::function<std::string(int)> tooltip;           // hover text of a cell; default "label: value"
};

// Returns the hovered cell or -1.
int draw_heat_strip(const HeatStripSpec& spec);

}  // namespace tx::app
