// Token grid: a rows × cols grid whose cells each hold a short text (a token) on a colour from a
// colour map (t in [0,1], NaN grey), with row labels on the left, column labels on top (slanted
// when they do not fit), a colour bar naming what the colour means, and a hover callback for a
// tooltip. The logit lens draws its layers × positions grid with it; rows are the first index.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "imgui.h"
#include "widgets/colormap.h"

namespace tx::app {

struct TokenGridSpec {
    const char* id = "token_grid";                 // unique in the current ID scope
    int rows = 0, cols = 0;
    const std::vector<std::string>* texts = nullptr;    // [rows, cols] the text in each cell
    const std::vector<float>* colour = nullptr;         // [rows, cols] t in [0,1]; NaN: grey
    const std::vector<std::string>* row_labels = nullptr;   // [rows]
    const std::vector<std::string>* col_labels = nullptr;   // [cols]
    std::string row_axis, col_axis;                // "decoder layer", "decoder position (input token)"
    std::string colour_meaning;                    // under the grid: "p(finally chosen token), 0 to 1"
    std::string top_label = "1", bottom_label = "0";   // the colour bar's ends (t = 1 and t = 0)
    Colormap map = Colormap::Viridis;
    float min_cell_width = 64.0f, max_cell_width = 120.0f, cell_height = 26.0f;
    std::function<void(int, int)> tooltip;         // called inside BeginTooltip for the hovered cell
};

struct TokenGridResult {
    int row = -1, col = -1;                        // hovered cell
    bool clicked = false;
};

TokenGridResult draw_token_grid(const TokenGridSpec& spec);

}  // namespace tx::app
