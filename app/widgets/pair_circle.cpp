// Pair circle widget (see pair_circle.h).
#include "widgets/pair_circle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tx::app {

void draw_pair_circle(const PairCircleSpec& spec, const std::vector<PairSeries>& series) {
    ImGui::PushID(spec.id);
    if (!spec.title.empty()) ImGui::TextUnformatted(spec.title.c_str());
    const float edge = std::max(spec.size, 120.0f);
    const ImVec2 pmin = ImGui::GetCursorScreenPos();
    const ImVec2 pmax(pmin.x + edge, pmin.y + edge);
    ImGui::InvisibleButton("##plane", ImVec2(edge, edge));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(pmin, pmax, IM_COL32(30, 30, 34, 255));
    dl->AddRect(pmin, pmax, IM_COL32(110, 110, 115, 255));
    const ImVec2 c((pmin.x + pmax.x) * 0.5f, (pmin.y + pmax.y) * 0.5f);
    dl->AddLine(ImVec2(pmin.x, c.y), ImVec2(pmax.x, c.y), IM_COL32(255, 255, 255, 40));
    dl->AddLine(ImVec2(c.x, pmin.y), ImVec2(c.x, pmax.y), IM_COL32(255, 255, 255, 40));
    const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    if (!spec.x_label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(spec.x_label.c_str());
        dl->AddText(ImVec2(pmax.x - ts.x - 4, c.y + 2), dim_col, spec.x_label.c_str());
    }
    if (!spec.y_label.empty()) dl->AddText(ImVec2(c.x + 4, pmin.y + 2), dim_col, spec.y_label.c_str());

    double radius = 0.0;
    for (const PairSeries& s : series)
        for (size_t i = 0; i + 1 < s.xy.size(); i += 2) radius = std::max(radius, std::hypot(s.xy[i], s.xy[i + 1]));
    const float margin = ImGui::GetFontSize() + 8.0f;   // room for the labels outside the largest circle
    const double scale = radius > 0.0 ? (edge * 0.5 - margin) / radius : 1.0;
    auto at = [&](double x, double y) {
        return ImVec2(c.x + static_cast<float>(x * scale), c.y - static_cast<float>(y * scale));   // y up
    };
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const PairSeries* hover_series = nullptr;
    size_t hover_index = 0;
    float hover_dist = 7.0f;
    for (const PairSeries& s : series) {
        const size_t n = s.xy.size() / 2;
        if (n == 0) continue;
        const double r = std::hypot(s.xy[0], s.xy[1]);
        const ImU32 faint = (s.colour & 0x00FFFFFFu) | (70u << 24);
        dl->AddCircle(c, static_cast<float>(r * scale), faint, 96, 1.0f);
        for (size_t i = 0; i + 1 < n; ++i)
            dl->AddLine(at(s.xy[2 * i], s.xy[2 * i + 1]), at(s.xy[2 * i + 2], s.xy[2 * i + 3]), faint, 1.0f);
        dl->AddLine(c, at(s.xy[0], s.xy[1]), s.colour, 1.5f);   // position 0: the vector as projected
        // Labels only where they do not pile up: every k-th position, k from the count.
        const size_t every = std::max<size_t>(1, (n + 23) / 24);
        for (size_t i = 0; i < n; ++i) {
            const double x = s.xy[2 * i], y = s.xy[2 * i + 1];
            const ImVec2 p = at(x, y);
            dl->AddCircleFilled(p, i == 0 ? 4.5f : 3.0f, s.colour);
            if (i % every == 0) {
                const double len = std::hypot(x, y);
                const float ox = len > 0 ? static_cast<float>(x / len) : 0.0f, oy = len > 0 ? static_cast<float>(-y / len) : 0.0f;
                const std::string label = std::to_string(i);
                const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
                dl->AddText(ImVec2(p.x + ox * (ts.x * 0.5f + 6) - ts.x * 0.5f, p.y + oy * (ts.y * 0.5f + 4) - ts.y * 0.5f), s.colour,
                            label.c_str());
            }
            const float d = std::hypot(mouse.x - p.x, mouse.y - p.y);
            if (hovered && d < hover_dist) {
                hover_dist = d;
                hover_series = &s;
                hover_index = i;
            }
        }
    }
    if (hover_series) {
        const double x = hover_series->xy[2 * hover_index], y = hover_series->xy[2 * hover_index + 1];
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s at position %zu: (%.4g, %.4g), angle %.3f rad, length %.4g",
                      hover_series->name.c_str(), hover_index, x, y, std::atan2(y, x), std::hypot(x, y));
        ImGui::SetTooltip("%s", buf);
    }
    for (size_t k = 0; k < series.size(); ++k) {
        if (k > 0) ImGui::SameLine();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.3f), ImVec2(p.x + h * 0.4f, p.y + h * 0.7f), series[k].colour);
        ImGui::Dummy(ImVec2(h * 0.5f, h));
        ImGui::SameLine();
        ImGui::TextUnformatted(series[k].name.c_str());
    }
    ImGui::PopID();
}

}  // namespace tx::app
