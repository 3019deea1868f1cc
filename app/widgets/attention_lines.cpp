// draw_attention_lines (attention_lines.h). Lines below 1% weight are left out: they would be
// invisible and cost draw calls (a 64 × 64 map with 8 heads is 32k lines).
#include "widgets/attention_lines.h"

#include <algorithm>
#include <cstdio>

namespace tx::app {

namespace {

constexpr float MIN_WEIGHT = 0.01f;

}  // namespace

ImU32 head_colour(int h, float alpha) {
    // Distinct hues that stay readable on the dark background (Tableau 10).
    static const ImVec4 palette[] = {{0.12f, 0.47f, 0.71f, 1}, {1.00f, 0.50f, 0.05f, 1}, {0.17f, 0.63f, 0.17f, 1},
                                     {0.84f, 0.15f, 0.16f, 1}, {0.58f, 0.40f, 0.74f, 1}, {0.55f, 0.34f, 0.29f, 1},
                                     {0.89f, 0.47f, 0.76f, 1}, {0.74f, 0.74f, 0.13f, 1}, {0.09f, 0.75f, 0.81f, 1},
                                     {0.50f, 0.50f, 0.50f, 1}};
    ImVec4 c = palette[static_cast<size_t>(h) % (sizeof palette / sizeof palette[0])];
    // Brighter than the print palette: lines are thin and drawn over a dark background.
    c.x = std::min(1.0f, c.x * 1.25f + 0.1f);
    c.y = std::min(1.0f, c.y * 1.25f + 0.1f);
    c.z = std::min(1.0f, c.z * 1.25f + 0.1f);
    c.w = alpha;
    return ImGui::ColorConvertFloat4ToU32(c);
}

void draw_attention_lines(const AttentionLinesSpec& s) {
    if (!s.probs || s.rows <= 0 || s.cols <= 0 || !s.row_labels || !s.col_labels) return;
    ImGui::PushID(s.id);
    const float line_h = ImGui::GetTextLineHeightWithSpacing() + 2.0f;
    float key_w = 0, query_w = 0;
    for (const auto& l : *s.col_labels) key_w = std::max(key_w, ImGui::CalcTextSize(l.c_str()).x);
    for (const auto& l : *s.row_labels) query_w = std::max(query_w, ImGui::CalcTextSize(l.c_str()).x);
    const float width = s.width > 0 ? s.width : ImGui::GetContentRegionAvail().x;
    const float gap = std::clamp(width - key_w - query_w - 24.0f, 120.0f, 420.0f);
    const int n = std::max(s.rows, s.cols);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float height = n * line_h;
    // Each column is centred vertically when it has fewer tokens than the other.
    const float key_top = origin.y + (n - s.cols) * line_h * 0.5f;
    const float query_top = origin.y + (n - s.rows) * line_h * 0.5f;
    const float key_x = origin.x + key_w, query_x = key_x + 12.0f + gap;
    ImGui::InvisibleButton("##area", ImVec2(query_x + 12.0f + query_w - origin.x, height));
    const bool hovered_area = ImGui::IsItemHovered();
    const ImVec2 mouse = ImGui::GetIO().MousePos;

    // Which token is hovered: a key (left) or a query (right), else none.
    int hover_key = -1, hover_query = -1;
    if (hovered_area) {
        if (mouse.x <= key_x + 6.0f) {
            const int k = static_cast<int>((mouse.y - key_top) / line_h);
            if (k >= 0 && k < s.cols && mouse.y >= key_top) hover_key = k;
        } else if (mouse.x >= query_x + 6.0f) {
            const int q = static_cast<int>((mouse.y - query_top) / line_h);
            if (q >= 0 && q < s.rows && mouse.y >= query_top) hover_query = q;
        }
    }
    const bool focus = hover_key >= 0 || hover_query >= 0;

    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int h = 0; h < s.heads; ++h) {
        if (h < static_cast<int>(s.head_on.size()) && !s.head_on[static_cast<size_t>(h)]) continue;
        const float* p = s.probs + static_cast<size_t>(h) * s.rows * s.cols;
        for (int q = 0; q < s.rows; ++q) {
            if (q < static_cast<int>(s.row_used.size()) && !s.row_used[static_cast<size_t>(q)]) continue;
            for (int k = 0; k < s.cols; ++k) {
                const float w = p[static_cast<size_t>(q) * s.cols + k];
                if (!(w >= MIN_WEIGHT)) continue;
                const bool mine = q == hover_query || k == hover_key;
                if (focus && !mine) continue;
                const ImVec2 a(key_x + 6.0f, key_top + (k + 0.5f) * line_h);
                const ImVec2 b(query_x + 6.0f, query_top + (q + 0.5f) * line_h);
                dl->AddLine(a, b, head_colour(h, std::min(1.0f, w * (focus ? 1.0f : 0.85f))), 1.0f + 2.0f * w);
            }
        }
    }
    // Labels last, over the line ends: keys right-aligned on the left, queries left-aligned on the right.
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (int k = 0; k < s.cols; ++k) {
        const std::string& l = (*s.col_labels)[static_cast<size_t>(k)];
        const float tw = ImGui::CalcTextSize(l.c_str()).x;
        const float y = key_top + k * line_h + 1.0f;
        if (k == hover_key) dl->AddRectFilled(ImVec2(key_x - tw - 3, y - 1), ImVec2(key_x + 3, y + line_h - 3), IM_COL32(80, 80, 110, 255));
        dl->AddText(ImVec2(key_x - tw, y), focus && k != hover_key && hover_query < 0 ? dim : text, l.c_str());
    }
    for (int q = 0; q < s.rows; ++q) {
        const std::string& l = (*s.row_labels)[static_cast<size_t>(q)];
        const float y = query_top + q * line_h + 1.0f;
        const float x = query_x + 12.0f;
        if (q == hover_query)
            dl->AddRectFilled(ImVec2(x - 3, y - 1), ImVec2(x + ImGui::CalcTextSize(l.c_str()).x + 3, y + line_h - 3),
                              IM_COL32(80, 80, 110, 255));
        const bool used = q >= static_cast<int>(s.row_used.size()) || s.row_used[static_cast<size_t>(q)];
        dl->AddText(ImVec2(x, y), !used || (focus && q != hover_query && hover_key < 0) ? dim : text, l.c_str());
    }
    if (hover_query >= 0 || hover_key >= 0) {
        // The strongest link of the hovered token, summed over the drawn heads, in words.
        int best = -1;
        float best_w = -1;
        int drawn = 0;
        const int count = hover_query >= 0 ? s.cols : s.rows;
        for (int i = 0; i < count; ++i) {
            if (hover_key >= 0 && i < static_cast<int>(s.row_used.size()) && !s.row_used[static_cast<size_t>(i)]) continue;
            float w = 0;
            drawn = 0;
            for (int h = 0; h < s.heads; ++h) {
                if (h < static_cast<int>(s.head_on.size()) && !s.head_on[static_cast<size_t>(h)]) continue;
                const int q = hover_query >= 0 ? hover_query : i, k = hover_query >= 0 ? i : hover_key;
                w += s.probs[(static_cast<size_t>(h) * s.rows + q) * s.cols + k];
                ++drawn;
            }
            if (drawn > 0) w /= static_cast<float>(drawn);
            if (w > best_w) best_w = w, best = i;
        }
        if (best >= 0 && drawn > 0) {
            char tip[256];
            if (hover_query >= 0)
                std::snprintf(tip, sizeof tip, "%s looks most at %s (%.2f, mean of %d head%s)",
                              (*s.row_labels)[static_cast<size_t>(hover_query)].c_str(),
                              (*s.col_labels)[static_cast<size_t>(best)].c_str(), static_cast<double>(best_w), drawn,
                              drawn == 1 ? "" : "s");
            else
                std::snprintf(tip, sizeof tip, "%s is looked at most by %s (%.2f, mean of %d head%s)",
                              (*s.col_labels)[static_cast<size_t>(hover_key)].c_str(),
                              (*s.row_labels)[static_cast<size_t>(best)].c_str(), static_cast<double>(best_w), drawn,
                              drawn == 1 ? "" : "s");
            ImGui::SetTooltip("%s", tip);
        }
    }
    ImGui::PopID();
}

}  // namespace tx::app
