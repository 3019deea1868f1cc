// Bar row widget (see bar_row.h). Drawn with the window's draw list; one invisible button over
// the strip takes the hover and click.
#include "widgets/bar_row.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "widgets/colormap.h"
#include "widgets/font_sampling.h"
#include "widgets/ui.h"

namespace tx::app {

BarRowResult draw_bar_row(const BarRowSpec& spec) {
    BarRowResult result;
    ImGui::PushID(spec.id);
    const float font = ImGui::GetFontSize();
    const float small = font * 0.8f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float total_w = spec.width > 0 ? spec.width : ImGui::GetContentRegionAvail().x;
    const int n = std::max(spec.count, 1);
    const float strip_x = origin.x + spec.caption_width;
    const float bar_w = std::max((total_w - spec.caption_width) / static_cast<float>(n), 1.0f);
    const float strip_w = bar_w * static_cast<float>(n);
    result.bar_width = bar_w;
    result.strip_x = strip_x;

    float range = spec.range;
    if (range <= 0.0f)
        for (int i = 0; i < spec.count; ++i)
            if (std::isfinite(spec.values[i])) range = std::max(range, std::fabs(spec.values[i]));
    if (range <= 0.0f) range = 1.0f;

    // Labels under the strip: horizontal when every one fits its bar, else rotated 45°.
    float label_h = 0.0f;
    bool rotated = false;
    if (spec.labels) {
        float longest = 0.0f;
        for (int i = 0; i < spec.count && i < static_cast<int>(spec.labels->size()); ++i)
            longest = std::max(longest, ImGui::CalcTextSize((*spec.labels)[static_cast<size_t>(i)].c_str()).x);
        rotated = longest > bar_w - 4.0f;
        label_h = rotated ? std::min(longest, 90.0f) * 0.72f + font : font + 4.0f;
    } else if (spec.show_indices) {
        label_h = small + 4.0f;
    }
    const float top = origin.y, bottom = origin.y + spec.height;
    const float zero_y = spec.nonnegative ? bottom : (top + bottom) * 0.5f;
    const float half = spec.nonnegative ? spec.height : spec.height * 0.5f;

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->AddRectFilled(ImVec2(strip_x, top), ImVec2(strip_x + strip_w, bottom), IM_COL32(255, 255, 255, 10), 3.0f);

    // Caption, vertically centred on the strip.
    {
        const float block_h = font + (spec.caption_note.empty() ? 0.0f : small + 2.0f);
        float y = (top + bottom) * 0.5f - block_h * 0.5f;
        dl->AddText(ImVec2(origin.x, y), text_col, fit_text(spec.caption, spec.caption_width - 8.0f).c_str());
        if (!spec.caption_note.empty()) {
            y += font + 2.0f;
            add_scaled_text(dl, small, ImVec2(origin.x, y), dim_col, spec.caption_note.c_str());
        }
    }

    const float gap = bar_w >= 6.0f ? std::min(bar_w * 0.18f, 4.0f) : 0.0f;
    for (int i = 0; i < spec.count; ++i) {
        const float v = spec.values[i];
        const float x0 = strip_x + bar_w * static_cast<float>(i) + gap * 0.5f, x1 = x0 + bar_w - gap;
        if (!std::isfinite(v)) {
            // A masked score: a grey stub below the zero line, labelled when there is room.
            dl->AddRectFilled(ImVec2(x0, zero_y - 2.0f), ImVec2(x1, bottom), MASKED_COLOUR);
            const char* inf = "\xE2\x88\x92\xE2\x88\x9E";
            const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, inf);
            if (ts.x <= bar_w)
                add_scaled_text(dl, small, ImVec2((x0 + x1 - ts.x) * 0.5f, (zero_y + bottom - ts.y) * 0.5f),
                            IM_COL32(200, 200, 200, 255), inf);
            continue;
        }
        const float len = std::clamp(v / range, -1.0f, 1.0f) * half;
        const ImU32 colour = v >= 0 ? spec.positive : spec.negative;
        dl->AddRectFilled(ImVec2(x0, std::min(zero_y, zero_y - len)), ImVec2(x1, std::max(zero_y, zero_y - len) + 0.5f), colour);
        if (spec.values_on_bars) {
            char buf[32];
            if (spec.decimals >= 0) std::snprintf(buf, sizeof buf, "%.*f", spec.decimals, static_cast<double>(v));
            std::string s = spec.decimals >= 0 ? std::string(buf) : format_value(v);
            if (spec.decimals >= 0 && std::strtod(buf, nullptr) == 0.0) s.clear();
            if (!s.empty() && s[0] == '-') s.replace(0, 1, "\xE2\x88\x92");
            const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, s.c_str());
            if (!s.empty() && ts.x <= bar_w - 1.0f) {
                // Inside the strip: above a short bar, inside a tall one.
                float ty = zero_y - len - ts.y - 1.0f;
                ImU32 fg = text_col;
                if (v >= 0 && ty < top) {
                    ty = zero_y - len + 2.0f;
                    fg = IM_COL32(10, 10, 10, 255);
                } else if (v < 0) {
                    ty = zero_y - len + 1.0f;
                    if (ty + ts.y > bottom) {
                        ty = zero_y - len - ts.y - 1.0f;
                        fg = IM_COL32(10, 10, 10, 255);
                    }
                }
                add_scaled_text(dl, small, ImVec2((x0 + x1 - ts.x) * 0.5f, ty), fg, s.c_str());
            }
        }
    }
    dl->AddLine(ImVec2(strip_x, zero_y), ImVec2(strip_x + strip_w, zero_y), IM_COL32(200, 200, 200, 140));
    if (spec.marked >= 0 && spec.marked < spec.count) {
        const float x0 = strip_x + bar_w * static_cast<float>(spec.marked);
        dl->AddRect(ImVec2(x0, top - 2.0f), ImVec2(x0 + bar_w, bottom + 2.0f), IM_COL32(255, 200, 60, 255), 3.0f, 0, 2.0f);
    }

    // Labels or indices.
    const float ly = bottom + 3.0f;
    if (spec.labels) {
        for (int i = 0; i < spec.count && i < static_cast<int>(spec.labels->size()); ++i) {
            const ImU32 colour = i == spec.marked ? IM_COL32(255, 210, 90, 255) : text_col;
            const float cx = strip_x + bar_w * (static_cast<float>(i) + 0.5f);
            if (rotated) {
                // Slanted up to the right, ending under its bar, so a long label never leaves the strip's side.
                const std::string l = fit_text((*spec.labels)[static_cast<size_t>(i)], 90.0f);
                const float w = ImGui::CalcTextSize(l.c_str()).x * 0.7071f;
                draw_text_rotated(dl, ImVec2(cx - w - font * 0.45f, ly + w + font * 0.1f), colour, l.c_str(), -0.7853982f);
            } else {
                const std::string& l = (*spec.labels)[static_cast<size_t>(i)];
                const float tw = ImGui::CalcTextSize(l.c_str()).x;
                dl->AddText(ImVec2(cx - tw * 0.5f, ly), colour, l.c_str());
            }
        }
    } else if (spec.show_indices) {
        const int every = std::max(1, static_cast<int>(std::ceil(small * 1.6f / bar_w)));
        const int step = every <= 1 ? 1 : every <= 2 ? 2 : every <= 4 ? 4 : every <= 8 ? 8 : 16;
        for (int i = 0; i < spec.count; i += step) {
            const std::string s = std::to_string(i);
            const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, s.c_str());
            add_scaled_text(dl, small, ImVec2(strip_x + bar_w * (static_cast<float>(i) + 0.5f) - ts.x * 0.5f, ly),
                        dim_col, s.c_str());
        }
    }

    // Interaction.
    ImGui::SetCursorScreenPos(ImVec2(strip_x, top));
    ImGui::InvisibleButton("##strip", ImVec2(std::max(strip_w, 1.0f), std::max(spec.height, 1.0f)));
    result.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    if (ImGui::IsItemHovered() && spec.count > 0) {
        const int i = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - strip_x) / bar_w), 0, spec.count - 1);
        result.hovered = i;
        const float x0 = strip_x + bar_w * static_cast<float>(i);
        dl->AddRect(ImVec2(x0, top), ImVec2(x0 + bar_w, bottom), IM_COL32(255, 255, 255, 200));
        const std::string text =
            spec.tooltip ? spec.tooltip(i, spec.values[i]) : std::to_string(i) + ": " + format_value(spec.values[i]);
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(text.c_str());
        ImGui::EndTooltip();
    }
    // Reserve the whole widget (strip and labels) in the layout.
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(total_w, spec.height + label_h + 2.0f));
    ImGui::PopID();
    return result;
}

}  // namespace tx::app
