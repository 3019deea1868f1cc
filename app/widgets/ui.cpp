// Drawing helpers (see ui.h).
#include "widgets/ui.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "widgets/font_sampling.h"

namespace tx::app {

void draw_text_rotated(ImDrawList* dl, ImVec2 pos, ImU32 colour, const char* text, float angle) {
    const int begin = dl->VtxBuffer.Size;
    dl->AddText(pos, colour, text);
    const float c = std::cos(angle), s = std::sin(angle);
    for (int i = begin; i < dl->VtxBuffer.Size; ++i) {
        ImDrawVert& v = dl->VtxBuffer[i];
        const float x = v.pos.x - pos.x, y = v.pos.y - pos.y;
        v.pos = ImVec2(pos.x + x * c - y * s, pos.y + x * s + y * c);
    }
}

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    item_tooltip(text);
}

void item_tooltip(const char* text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

ImVec2 token_chip_size(const std::string& text, int id) {
    const ImVec2 ts = ImGui::CalcTextSize(fit_text(text, 140.0f).c_str());
    const ImVec2 is = ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize() * 0.8f, FLT_MAX, 0.0f, std::to_string(id).c_str());
    const float pad = 5.0f;
    return ImVec2(std::max(ts.x, is.x) + 2 * pad, ts.y + is.y + 2 * pad);
}

void token_chip(const std::string& text, int id, ChipKind kind, const char* tooltip) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::string shown = fit_text(text, 140.0f);
    const std::string id_text = std::to_string(id);
    const ImVec2 ts = ImGui::CalcTextSize(shown.c_str());
    const float small = ImGui::GetFontSize() * 0.8f;
    const ImVec2 is = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, id_text.c_str());
    const float pad = 5.0f;
    const ImVec2 size = token_chip_size(text, id);
    if (ImGui::GetContentRegionAvail().x < size.x && ImGui::GetCursorPosX() > ImGui::GetStyle().WindowPadding.x + 1)
        ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImU32 bg = IM_COL32(52, 74, 110, 255), border = IM_COL32(90, 120, 170, 255), fg = IM_COL32(235, 235, 235, 255);
    switch (kind) {
        case ChipKind::Unknown: bg = IM_COL32(120, 40, 40, 255); border = IM_COL32(240, 90, 90, 255); break;
        case ChipKind::Special: bg = IM_COL32(70, 60, 100, 255); border = IM_COL32(150, 130, 210, 255); break;
        case ChipKind::Pad: bg = IM_COL32(45, 45, 48, 255); border = IM_COL32(90, 90, 95, 255); fg = IM_COL32(150, 150, 150, 255); break;
        case ChipKind::Highlight: bg = IM_COL32(150, 110, 30, 255); border = IM_COL32(250, 200, 80, 255); break;
        case ChipKind::Normal: break;
    }
    // A long input has hundreds of chips, most scrolled out of view: the draw list gets only the
    // visible ones (a software rasteriser pays for every triangle it is handed, clipped or not).
    if (ImGui::IsRectVisible(p, ImVec2(p.x + size.x, p.y + size.y))) {
        dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), bg, 4.0f);
        dl->AddRect(p, ImVec2(p.x + size.x, p.y + size.y), border, 4.0f, 0, kind == ChipKind::Unknown ? 2.0f : 1.0f);
        dl->AddText(ImVec2(p.x + (size.x - ts.x) * 0.5f, p.y + pad * 0.6f), fg, shown.c_str());
        add_scaled_text(dl, small, ImVec2(p.x + (size.x - is.x) * 0.5f, p.y + pad * 0.6f + ts.y + 1),
                        IM_COL32(190, 190, 190, 220), id_text.c_str());
    }
    ImGui::Dummy(size);
    if (tooltip) item_tooltip(tooltip);
    ImGui::SameLine(0.0f, 4.0f);
}

ImFont*& mono_font() {
    static ImFont* font = nullptr;
    return font;
}

std::string format_bytes(double bytes) {
    char buf[32];
    if (bytes < 1024) std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    else if (bytes < 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024);
    else if (bytes < 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    return buf;
}

std::string format_value(float v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E";
    char buf[32];
    const float a = std::fabs(v);
    if (a != 0.0f && (a < 1e-3f || a >= 1e5f)) std::snprintf(buf, sizeof buf, "%.2e", static_cast<double>(v));
    else std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
    return buf;
}

void disabled_paragraph(const std::string& text) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", text.c_str());
    ImGui::PopTextWrapPos();
}

std::string fit_text(const std::string& text, float max_width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= max_width) return text;
    std::string s = text;
    while (!s.empty()) {
        // Drop whole UTF-8 code points from the end.
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
        if (!s.empty()) s.pop_back();
        if (ImGui::CalcTextSize((s + "\xE2\x80\xA6").c_str()).x <= max_width) return s + "\xE2\x80\xA6";
    }
    return "\xE2\x80\xA6";
}

}  // namespace tx::app
