// Line plots and bar charts drawn with ImDrawList: axes, "nice" ticks (1-2-5), tick labels,
// axis titles, a legend, a hover read-out and right-click export (PNG picture, CSV numbers).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "imgui.h"

namespace tx::app {

class CommandSink;

struct PlotSeries {
    std::string name;
    std::vector<double> x, y;            // same length
    ImU32 colour = IM_COL32(80, 160, 255, 255);
};

struct PlotSpec {
    const char* id = "plot";
    std::string title;                   // drawn above; names exports
    std::string x_label, y_label;
    ImVec2 size = ImVec2(0, 220);        // 0 width = available width
    bool log_y = false;                  // log10 axis (values <= 0 are skipped)
    std::optional<double> y_min, y_max;  // fixed range
    std::optional<double> x_min, x_max;
    bool legend = true;
    bool markers = false;                // dots at the points
    bool integer_x = false;              // x ticks at whole numbers only (positions, steps)
};

void draw_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series, CommandSink* commands);
// Frees the textures of dense lines (before the GL context goes away).
void plot_shutdown();

struct BarSpec {
    const char* id = "bars";
    std::string title, value_label;      // value_label e.g. "ms"
    float bar_height = 0.0f;             // 0: the font height
    float label_width = 220.0f;
};
// Horizontal bars, one row per label; up to two values per row (e.g. CPU and GPU).
void draw_bars(const BarSpec& spec, const std::vector<std::string>& labels, const std::vector<PlotSeries>& series,
               CommandSink* commands, int highlight = -1);

// Ticks between lo and hi at a 1-2-5 step, about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);

}  // namespace tx::app
