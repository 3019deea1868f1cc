// Bar row: a vector drawn as one bar per element in a horizontal strip, as BertViz's neuron view
// draws q and k: a caption on the left, bars up (positive) or down (negative) from a zero line,
// one element marked, a hover read-out, and below the strip either element indices (every k-th)
// or labels (key tokens, slanted to end under their bar when they do not fit). −∞ (a masked score) draws as a grey stub marked "−∞", never as a value.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "imgui.h"

namespace tx::app {

struct BarRowSpec {
    const char* id = "bars";                  // unique in the current ID scope
    const float* values = nullptr;            // count values
    int count = 0;
    std::string caption;                      // left of the strip ("q\u1d62")
    std::string caption_note;                 // under the caption, dimmer ("query 3")
    float caption_width = 96.0f;
    float width = 0.0f;                       // whole widget; 0 = the available width
    float height = 54.0f;                     // the strip
    float range = 0.0f;                       // bars span ±range; 0 = the largest finite |value|
    bool nonnegative = false;                 // zero line at the bottom (probabilities)
    int marked = -1;                          // outlined element
    ImU32 positive = IM_COL32(90, 170, 250, 255);
    ImU32 negative = IM_COL32(245, 130, 80, 255);
    const std::vector<std::string>* labels = nullptr;   // under the bars; else indices when show_indices
    bool show_indices = true;
    bool values_on_bars = false;              // print each value when the bar is wide enough
    int decimals = -1;                        // on the bars: fixed decimals (0.00 is left out); -1: 3 significant
    std::function<std::string(int, float)> tooltip;     // hover text; default "index: value"
};

struct BarRowResult {
    int hovered = -1;
    bool clicked = false;
    float bar_width = 0.0f;                   // pixels per element, to align rows drawn below
    float strip_x = 0.0f;                     // screen x of the strip's left edge
};

BarRowResult draw_bar_row(const BarRowSpec& spec);

}  // namespace tx::app
