// Token grid (see token_grid.h): drawn with the window's draw list, one InvisibleButton over the
// cells for hover and click. Text on a cell is black on light colours and white on dark ones.
#include "widgets/token_grid.h"

#include <algorithm>
#include <cmath>

#include "widgets/ui.h"

namespace tx::app {

namespace {

// Black or white, whichever reads better on `fill` (relative luminance, ITU-R BT.709 weights).
ImU32 text_colour_on(ImU32 fill) {
    const float r = static_cast<float>((fill >> IM_COL32_R_SHIFT) & 0xFF) / 255.0f;
    const float g = static_cast<float>((fill >> IM_COL32_G_SHIFT) & 0xFF) / 255.0f;
    const float b = static_cast<float>((fill >> IM_COL32_B_SHIFT) & 0xFF) / 255.0f;
    return 0.2126f * r + 0.7152f * g + 0.0722f * b > 0.5f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

}  // namespace

TokenGridResult draw_token_grid(const TokenGridSpec& spec) {
    TokenGridResult result;
    if (spec.rows <= 0 || spec.cols <= 0 || !spec.texts || !spec.colour) return result;
    ImGui::PushID(spec.id);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    // Row labels' width: the widest label.
    float label_w = 0.0f;
    for (int r = 0; r < spec.rows; ++r)
        if (spec.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize((*spec.row_labels)[static_cast<size_t>(r)].c_str()).x);
    label_w += 8.0f;
    const float colorbar_w = 70.0f;
    const float avail = ImGui::GetContentRegionAvail().x - label_w - colorbar_w;
    const float cell_w = std::clamp(avail / static_cast<float>(spec.cols), spec.min_cell_width, spec.max_cell_width);
    const float cell_h = spec.cell_height;
    // Column labels: level when every one fits its cell, else slanted upwards.
    bool slanted = false;
    float header_h = line + 4.0f;
    if (spec.col_labels)
        for (const std::string& s : *spec.col_labels)
            if (ImGui::CalcTextSize(s.c_str()).x > cell_w - 4.0f) slanted = true;
    if (slanted) {
        float longest = 0.0f;
        for (const std::string& s : *spec.col_labels) longest = std::max(longest, ImGui::CalcTextSize(s.c_str()).x);
        header_h = std::min(longest, 110.0f) * 0.7071f + line;
    }
    if (!spec.col_axis.empty()) ImGui::TextDisabled("columns: %s; rows: %s", spec.col_axis.c_str(), spec.row_axis.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 grid_min(origin.x + label_w, origin.y + header_h);
    const ImU32 label_colour = ImGui::GetColorU32(ImGuiCol_Text);
    if (spec.col_labels)
        for (int c = 0; c < spec.cols; ++c) {
            const std::string& s = (*spec.col_labels)[static_cast<size_t>(c)];
            const float x = grid_min.x + cell_w * static_cast<float>(c);
            if (slanted) {
                draw_text_rotated(dl, ImVec2(x + cell_w * 0.5f - line * 0.3f, grid_min.y - 4.0f), label_colour,
                                  fit_text(s, 110.0f).c_str(), -0.7854f);
            } else {
                const float w = ImGui::CalcTextSize(s.c_str()).x;
                dl->AddText(ImVec2(x + (cell_w - w) * 0.5f, origin.y + 2.0f), label_colour, s.c_str());
            }
        }
    for (int r = 0; r < spec.rows; ++r) {
        const float y = grid_min.y + cell_h * static_cast<float>(r);
        if (spec.row_labels)
            dl->AddText(ImVec2(origin.x, y + (cell_h - line) * 0.5f), label_colour, (*spec.row_labels)[static_cast<size_t>(r)].c_str());
        for (int c = 0; c < spec.cols; ++c) {
            const size_t i = static_cast<size_t>(r) * spec.cols + c;
            const ImVec2 a(grid_min.x + cell_w * static_cast<float>(c), y), b(a.x + cell_w - 1.0f, a.y + cell_h - 1.0f);
            const ImU32 fill = colormap(spec.map, (*spec.colour)[i]);
            dl->AddRectFilled(a, b, fill);
            const std::string text = fit_text((*spec.texts)[i], cell_w - 6.0f);
            const ImVec2 size = ImGui::CalcTextSize(text.c_str());
            dl->AddText(ImVec2(a.x + (cell_w - size.x) * 0.5f, a.y + (cell_h - size.y) * 0.5f), text_colour_on(fill), text.c_str());
        }
    }
    // Colour bar: 0 at the bottom, 1 at the top, and what the colour means below it.
    const float grid_h = cell_h * static_cast<float>(spec.rows);
    const float bar_x = grid_min.x + cell_w * static_cast<float>(spec.cols) + 14.0f;
    const float bar_h = std::max(grid_h, 60.0f);
    for (int k = 0; k < 32; ++k) {
        const float y0 = grid_min.y + bar_h * static_cast<float>(k) / 32.0f;
        dl->AddRectFilled(ImVec2(bar_x, y0), ImVec2(bar_x + 12.0f, y0 + bar_h / 32.0f + 1.0f),
                          colormap(spec.map, 1.0f - static_cast<float>(k) / 31.0f));
    }
    dl->AddText(ImVec2(bar_x + 16.0f, grid_min.y - 2.0f), label_colour, spec.top_label.c_str());
    dl->AddText(ImVec2(bar_x + 16.0f, grid_min.y + bar_h - line), label_colour, spec.bottom_label.c_str());
    // The grid's hover and click.
    ImGui::SetCursorScreenPos(grid_min);
    ImGui::InvisibleButton("cells", ImVec2(cell_w * static_cast<float>(spec.cols), grid_h));
    if (ImGui::IsItemHovered()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const int c = static_cast<int>((m.x - grid_min.x) / cell_w), r = static_cast<int>((m.y - grid_min.y) / cell_h);
        if (r >= 0 && r < spec.rows && c >= 0 && c < spec.cols) {
            result.row = r;
            result.col = c;
            result.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
            const ImVec2 a(grid_min.x + cell_w * static_cast<float>(c), grid_min.y + cell_h * static_cast<float>(r));
            dl->AddRect(a, ImVec2(a.x + cell_w - 1.0f, a.y + cell_h - 1.0f), IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
            if (spec.tooltip) {
                ImGui::BeginTooltip();
                spec.tooltip(r, c);
                ImGui::EndTooltip();
            }
        }
    }
    // Room for the bar's height and its caption below the grid.
    ImGui::SetCursorScreenPos(ImVec2(origin.x, grid_min.y + std::max(grid_h, bar_h) + 4.0f));
    if (!spec.colour_meaning.empty()) ImGui::TextDisabled("colour: %s", spec.colour_meaning.c_str());
    ImGui::PopID();
    return result;
}

}  // namespace tx::app
