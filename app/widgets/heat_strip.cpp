// Heat strip (see heat_strip.h): cells laid out left to right at a fixed width, values printed
// when they fit, labels clipped to their cell.
#include "heat_strip.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "colormap.h"
#include "ui.h"

namespace tx::app {

int draw_heat_strip(const HeatStripSpec& spec) {
    if (spec.count <= 0) return -1;
    const float avail = spec.width > 0.0f ? spec.width : ImGui::GetContentRegionAvail().x;
    const float cell = std::clamp(avail / static_cast<float>(spec.count), 4.0f, spec.max_cell);
    const float line = ImGui::GetTextLineHeight();
    const float label_h = spec.labels ? line + 2.0f : 0.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 size(cell * static_cast<float>(spec.count), spec.height + label_h);
    ImGui::InvisibleButton(spec.id, ImVec2(std::max(size.x, 1.0f), size.y));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    int hover = -1;
    for (int i = 0; i < spec.count; ++i) {
        const float x0 = p.x + cell * static_cast<float>(i), x1 = x0 + cell;
        const float v = spec.values[i];
        const bool masked = std::isnan(v);
        const float t = masked ? 0.0f : std::clamp(v, 0.0f, 1.0f);
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 - 1.0f, p.y + spec.height), masked ? MASKED_COLOUR : colormap(Colormap::Viridis, t));
        char text[16];
        if (masked) std::snprintf(text, sizeof text, "\xE2\x88\x92\xE2\x88\x9E");
        else std::snprintf(text, sizeof text, "%.2f", v);
        const ImVec2 ts = ImGui::CalcTextSize(text);
        if (ts.x + 4.0f <= cell)
            dl->AddText(ImVec2(x0 + (cell - ts.x) * 0.5f, p.y + (spec.height - ts.y) * 0.5f),
                        masked ? IM_COL32(160, 160, 165, 255) : t > 0.55f ? IM_COL32(20, 20, 20, 255) : IM_COL32(240, 240, 240, 255),
                        text);
        if (spec.labels && i < static_cast<int>(spec.labels->size())) {
            const std::string label = fit_text((*spec.labels)[static_cast<size_t>(i)], cell - 2.0f);
            const ImVec2 ls = ImGui::CalcTextSize(label.c_str());
            dl->AddText(ImVec2(x0 + std::max(0.0f, (cell - ls.x) * 0.5f), p.y + spec.height + 2.0f),
                        masked ? IM_COL32(130, 130, 135, 255) : IM_COL32(220, 220, 225, 255), label.c_str());
        }
        if (i == spec.marked)
            dl->AddRect(ImVec2(x0, p.y), ImVec2(x1 - 1.0f, p.y + spec.height), IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
        if (hovered) {
            const float mx = ImGui::GetIO().MousePos.x;
            if (mx >= x0 && mx < x1) hover = i;
        }
    }
    if (hover >= 0) {
        std::string text;
        if (spec.tooltip) text = spec.tooltip(hover);
        else {
            const std::string label = spec.labels && hover < static_cast<int>(spec.labels->size()) ? (*spec.labels)[static_cast<size_t>(hover)] : std::to_string(hover);
            text = label + ": " + (std::isnan(spec.values[hover]) ? std::string("masked (\xE2\x88\x92\xE2\x88\x9E)") : format_value(spec.values[hover]));
        }
        ImGui::SetTooltip("%s", text.c_str());
    }
    return hover;
}

}  // namespace tx::app
