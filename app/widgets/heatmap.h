// Heatmap widget: a matrix drawn as an OpenGL texture (one texel per cell, nearest filtering)
// with a perceptual colour map, row and column labels, a colour bar, a hover read-out and a
// right-click menu to export the picture (PNG) or the numbers (CSV). Rows are the first index.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "imgui.h"
#include "widgets/colormap.h"

namespace tx::app {

class CommandSink;

struct HeatmapSpec {
    const char* id = "heatmap";               // unique in the current ID scope
    const float* values = nullptr;            // rows*cols, row-major; -inf and NaN draw as masked
    int rows = 0, cols = 0;
    const std::vector<std::string>* row_labels = nullptr;
    const std::vector<std::string>* col_labels = nullptr;
    std::string row_axis = "row";             // e.g. "query"
    std::string col_axis = "column";          // e.g. "key"
    std::string title;                        // names exported files; shown above when show_title
    bool show_title = false;
    Colormap map = Colormap::Viridis;
    bool symmetric = false;                   // range ±max|v| (use with the diverging map)
    std::optional<float> vmin, vmax;          // fixed range; else the finite min/max
    ImVec2 size = ImVec2(0, 0);               // whole widget; 0 = available width / a square-ish height
    float max_cell = 36.0f;                   // largest cell edge in pixels
    float max_aspect = 1.0f;                  // cell height up to this × width (1: square cells)
    bool labels = true;
    bool colorbar = true;
    bool values_in_cells = true;              // print numbers when cells are large enough
    bool compact = false;                     // no labels, no colour bar (overview thumbnails)
    // Nonzero: the caller promises that the values at this address do not change while the version
    // stays the same (SessionView::version for its trace), so the widget neither rescans them for
    // their range nor hashes them every frame. 0: they may change any frame (scanned, hashed).
    uint64_t version = 0;
    // Hover text for cell (r,c); default "row → column = value".
    std::function<std::string(int, int, float)> tooltip;
};

struct HeatmapResult {
    bool hovered = false;
    int row = -1, col = -1;                   // hovered cell
    bool clicked = false;
};

HeatmapResult draw_heatmap(const HeatmapSpec& spec, CommandSink* commands);

// Frees textures not drawn for a while; call once per frame.
void heatmap_collect_garbage();
// Frees every texture (before the GL context goes away).
void heatmap_shutdown();

}  // namespace tx::app
