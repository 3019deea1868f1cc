// Heatmap widget (see heatmap.h). One RGBA texture per heatmap, re-uploaded only when the
// values or the range change (a hash), so a still frame costs a few quads.
#include "widgets/heatmap.h"
#include "widgets/rgba_texture.h"

#include <GL/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "command.h"
#include "panel.h"
#include "widgets/export.h"
#include "widgets/font_sampling.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

struct Texture {
    GLuint id = 0;
    int w = 0, h = 0;
    uint64_t hash = 0;
    int last_frame = 0;
    // What the texture was made from, for callers that give a version (HeatmapSpec::version):
    // the same address, size and version mean the same values, so range and hash are reused.
    const float* values = nullptr;
    uint64_t version = 0;
    float lo = 0.0f, hi = 0.0f;
};

// The range of the colour map: fixed, symmetric around 0, or the finite min/max of the values.
void value_range(const HeatmapSpec& spec, size_t n, float& lo, float& hi) {
    lo = std::numeric_limits<float>::infinity();
    hi = -lo;
    for (size_t i = 0; i < n; ++i) {
        const float v = spec.values[i];
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (!std::isfinite(lo)) lo = hi = 0.0f;
    if (spec.symmetric) {
        const float m = std::max(std::fabs(lo), std::fabs(hi));
        lo = -m;
        hi = m;
    }
    if (spec.vmin) lo = *spec.vmin;
    if (spec.vmax) hi = *spec.vmax;
}

std::unordered_map<ImGuiID, Texture>& textures() {
    static std::unordered_map<ImGuiID, Texture> map;
    return map;
}

uint64_t fnv(uint64_t h, const void* data, size_t bytes) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

float luminance(ImU32 c) {
    const float r = static_cast<float>((c >> IM_COL32_R_SHIFT) & 0xFF), g = static_cast<float>((c >> IM_COL32_G_SHIFT) & 0xFF),
                b = static_cast<float>((c >> IM_COL32_B_SHIFT) & 0xFF);
    return (0.2126f * r + 0.7152f * g + 0.0722f * b) / 255.0f;
}

// The value one pixel shows for the cells [r0,r1) × [c0,c1) it covers: the largest (the strongest
// attention weight stays visible however small the picture), or for a diverging map the one of
// largest magnitude with its sign. Masked only if every cell is masked.
float pooled_value(const HeatmapSpec& spec, int r0, int r1, int c0, int c1) {
    float best = -std::numeric_limits<float>::infinity();
    bool any = false;
    for (int r = r0; r < std::max(r1, r0 + 1); ++r)
        for (int c = c0; c < std::max(c1, c0 + 1); ++c) {
            const float v = spec.values[static_cast<size_t>(r) * spec.cols + c];
            if (!std::isfinite(v)) continue;
            if (!any || (spec.symmetric ? std::fabs(v) > std::fabs(best) : v > best)) best = v;
            any = true;
        }
    return best;
}

}  // namespace

void heatmap_collect_garbage() {
    const int frame = ImGui::GetFrameCount();
    auto& map = textures();
    for (auto it = map.begin(); it != map.end();) {
        if (frame - it->second.last_frame > 120) {
            glDeleteTextures(1, &it->second.id);
            it = map.erase(it);
        } else {
            ++it;
        }
    }
}

void heatmap_shutdown() {
    for (auto& [key, tex] : textures()) glDeleteTextures(1, &tex.id);
    textures().clear();
}

HeatmapResult draw_heatmap(const HeatmapSpec& spec, CommandSink* commands) {
    HeatmapResult result;
    if (!spec.values || spec.rows <= 0 || spec.cols <= 0) {
        ImGui::TextDisabled("(nothing to show yet)");
        return result;
    }
    ImGui::PushID(spec.id);
    const ImGuiID key = ImGui::GetID("##tex");
    const size_t n = static_cast<size_t>(spec.rows) * static_cast<size_t>(spec.cols);

    // Layout.
    const bool labels = spec.labels && !spec.compact && spec.row_labels && spec.col_labels;
    const bool colorbar = spec.colorbar && !spec.compact;
    const float font = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float avail_w = spec.size.x > 0 ? spec.size.x : ImGui::GetContentRegionAvail().x;
    float label_w = 0.0f, label_h = 0.0f;
    if (labels) {
        for (const auto& l : *spec.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
        for (const auto& l : *spec.col_labels) label_h = std::max(label_h, ImGui::CalcTextSize(l.c_str()).x);
        label_w = std::min(label_w, 120.0f) + 8.0f;
        label_h = std::min(label_h, 90.0f) + 8.0f;
    }
    const float header = (spec.compact ? 0.0f : font + 4.0f) + (spec.show_title ? font + 4.0f : 0.0f);
    const float bar_w = colorbar ? 78.0f : 0.0f;
    // Cells are square unless max_aspect lets a wide matrix's rows be taller than its columns.
    float cell_w = std::min(spec.max_cell, (avail_w - label_w - bar_w) / static_cast<float>(spec.cols));
    float cell_h = std::min(spec.max_cell, cell_w * std::max(spec.max_aspect, 1.0f));
    if (spec.size.y > 0)
        cell_h = std::min(cell_h, (spec.size.y - header - label_h) / static_cast<float>(spec.rows));
    if (spec.max_aspect <= 1.0f) cell_w = cell_h = std::min(cell_w, cell_h);
    // Cells may be narrower than a pixel (a 512-token map in a 64-pixel thumbnail): the texture is
    // then pooled down to the pixels it covers (below).
    cell_w = std::max(cell_w, 1e-3f);
    cell_h = std::max(cell_h, 1e-3f);
    const float cell = std::min(cell_w, cell_h);   // the smaller edge: grid lines, numbers in cells
    const ImVec2 grid_min(origin.x + label_w, origin.y + header + label_h);
    const ImVec2 grid_size(cell_w * static_cast<float>(spec.cols), cell_h * static_cast<float>(spec.rows));
    const ImVec2 grid_max(grid_min.x + grid_size.x, grid_min.y + grid_size.y);
    const float total_h = std::max(header + label_h + grid_size.y, colorbar ? header + label_h + 90.0f : 0.0f);
    const ImVec2 total_max(std::max(grid_max.x + bar_w, origin.x + (spec.size.x > 0 ? spec.size.x : 0.0f)),
                           origin.y + total_h);

    // Scrolled out of view: keep the space, skip the work.
    if (!ImGui::IsRectVisible(origin, total_max)) {
        ImGui::Dummy(ImVec2(total_max.x - origin.x, total_max.y - origin.y));
        ImGui::PopID();
        return result;
    }

    // Range and texture, remade when the content changed (or, without a version, whenever the
    // values' hash differs). Only for a visible heatmap: a long input has many large ones.
    Texture& tex = textures()[key];
    tex.last_frame = ImGui::GetFrameCount();
    // One texel per cell, or per pixel where cells are smaller than a pixel.
    const int tex_w = std::min(spec.cols, std::max(1, static_cast<int>(std::ceil(grid_size.x))));
    const int tex_h = std::min(spec.rows, std::max(1, static_cast<int>(std::ceil(grid_size.y))));
    const int dims[5] = {spec.rows, spec.cols, static_cast<int>(spec.map), tex_w, tex_h};
    const bool known = spec.version != 0 && tex.id != 0 && tex.values == spec.values && tex.version == spec.version &&
                       tex.w == tex_w && tex.h == tex_h;
    float lo = tex.lo, hi = tex.hi;
    uint64_t hash = tex.hash;
    if (!known) {
        value_range(spec, n, lo, hi);
        // With a version, (address, version) names the content: one version's trace never changes.
        const uint64_t source[2] = {spec.version, reinterpret_cast<uintptr_t>(spec.values)};
        hash = spec.version != 0 ? fnv(1469598103934665603ull, source, sizeof source)
                                 : fnv(1469598103934665603ull, spec.values, n * sizeof(float));
        const float range[2] = {lo, hi};
        hash = fnv(fnv(hash, range, sizeof range), dims, sizeof dims);
    }
    const float span = hi > lo ? hi - lo : 1.0f;
    auto cell_colour = [&](float v) {
        if (!std::isfinite(v)) return MASKED_COLOUR;
        return colormap(spec.map, (v - lo) / span);
    };
    if (tex.id == 0 || tex.hash != hash || tex.w != tex_w || tex.h != tex_h) {
        std::vector<ImU32> pixels(static_cast<size_t>(tex_w) * tex_h);
        if (tex_w == spec.cols && tex_h == spec.rows) {
            for (size_t i = 0; i < n; ++i) pixels[i] = cell_colour(spec.values[i]);
        } else {
            for (int ty = 0; ty < tex_h; ++ty)
                for (int tx = 0; tx < tex_w; ++tx)
                    pixels[static_cast<size_t>(ty) * tex_w + tx] =
                        cell_colour(pooled_value(spec, ty * spec.rows / tex_h, (ty + 1) * spec.rows / tex_h,
                                                 tx * spec.cols / tex_w, (tx + 1) * spec.cols / tex_w));
        }
        upload_rgba_texture(tex.id, tex_w, tex_h, pixels.data());
        tex.w = tex_w;
        tex.h = tex_h;
        tex.hash = hash;
    }
    tex.values = spec.values;
    tex.version = spec.version;
    tex.lo = lo;
    tex.hi = hi;

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    float y = origin.y;
    if (spec.show_title) {
        dl->AddText(ImVec2(origin.x, y), text_col, fit_text(spec.title, std::max(grid_max.x + bar_w - origin.x, 60.0f)).c_str());
        y += font + 4.0f;
    }
    if (!spec.compact) {
        const float width = std::max(grid_max.x + bar_w - origin.x, 60.0f);
        std::string axes = "rows: " + spec.row_axis + " \xE2\x86\x93   columns: " + spec.col_axis + " \xE2\x86\x92";
        if (ImGui::CalcTextSize(axes.c_str()).x > width)
            axes = spec.row_axis.substr(0, spec.row_axis.find(' ')) + " \xE2\x86\x93 \xC2\xB7 " +
                   spec.col_axis.substr(0, spec.col_axis.find(' ')) + " \xE2\x86\x92";
        dl->AddText(ImVec2(origin.x, y), dim_col, fit_text(axes, width).c_str());
    }

    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex.id)), grid_min, grid_max);
    if (cell >= 6.0f && !spec.compact) {
        const ImU32 grid_col = IM_COL32(0, 0, 0, 60);
        for (int c = 1; c < spec.cols; ++c)
            dl->AddLine(ImVec2(grid_min.x + cell_w * c, grid_min.y), ImVec2(grid_min.x + cell_w * c, grid_max.y), grid_col);
        for (int r = 1; r < spec.rows; ++r)
            dl->AddLine(ImVec2(grid_min.x, grid_min.y + cell_h * r), ImVec2(grid_max.x, grid_min.y + cell_h * r), grid_col);
    }
    if (spec.values_in_cells && !spec.compact && cell >= 2.2f * font) {
        const float small = font * 0.8f;
        for (int r = 0; r < spec.rows; ++r)
            for (int c = 0; c < spec.cols; ++c) {
                const float v = spec.values[static_cast<size_t>(r) * spec.cols + c];
                char buf[16];
                if (std::isinf(v)) std::snprintf(buf, sizeof buf, "%s", v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E");
                else if (std::fabs(v) >= 10.0f) std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(v));
                else std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
                const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, buf);
                if (ts.x > cell_w - 2) continue;
                const ImU32 fg = luminance(cell_colour(v)) > 0.5f ? IM_COL32(0, 0, 0, 230) : IM_COL32(255, 255, 255, 230);
                add_scaled_text(dl, small,
                            ImVec2(grid_min.x + cell_w * c + (cell_w - ts.x) * 0.5f, grid_min.y + cell_h * r + (cell_h - ts.y) * 0.5f),
                            fg, buf);
            }
    }

    // Labels. Rows shorter than the font get every label in a smaller font, down to 55% of it (a
    // thinned list reads as a sentence of its own: "▁My ster ads ▁book"); below that, and for the
    // columns (rotated text), every k-th label. The hover read-out names any cell's row and column.
    if (labels) {
        const float row_font = std::clamp(cell_h * 0.95f, font * 0.55f, font);
        const int row_step = std::max(1, static_cast<int>(std::ceil(row_font * 0.95f / cell_h)));
        const int col_step = std::max(1, static_cast<int>(std::ceil(font * 0.95f / cell_w)));
        const float shrink = row_font / font;
        for (int r = 0; r < spec.rows && r < static_cast<int>(spec.row_labels->size()); r += row_step) {
            const std::string l = fit_text((*spec.row_labels)[static_cast<size_t>(r)], (label_w - 8.0f) / shrink);
            const ImVec2 ts = ImGui::CalcTextSize(l.c_str());
            const ImVec2 at(grid_min.x - 5.0f - ts.x * shrink, grid_min.y + cell_h * (static_cast<float>(r) + 0.5f) - ts.y * shrink * 0.5f);
            if (shrink < 1.0f) add_scaled_text(dl, row_font, at, text_col, l.c_str());
            else dl->AddText(at, text_col, l.c_str());
        }
        for (int c = 0; c < spec.cols && c < static_cast<int>(spec.col_labels->size()); c += col_step) {
            const std::string l = fit_text((*spec.col_labels)[static_cast<size_t>(c)], label_h - 8.0f);
            draw_text_rotated(dl, ImVec2(grid_min.x + cell_w * (static_cast<float>(c) + 0.5f) - font * 0.5f, grid_min.y - 5.0f),
                              text_col, l.c_str(), -1.5707964f);
        }
    }

    // Colour bar with min / middle / max ticks.
    if (colorbar) {
        const float bx = grid_max.x + 10.0f, bw = 14.0f;
        const float by0 = grid_min.y, by1 = grid_min.y + std::max(grid_size.y, 90.0f);
        const int segments = 48;
        for (int i = 0; i < segments; ++i) {
            const float t0 = static_cast<float>(i) / segments, t1 = static_cast<float>(i + 1) / segments;
            const ImU32 c0 = colormap(spec.map, 1.0f - t0), c1 = colormap(spec.map, 1.0f - t1);
            dl->AddRectFilledMultiColor(ImVec2(bx, by0 + (by1 - by0) * t0), ImVec2(bx + bw, by0 + (by1 - by0) * t1), c0, c0, c1, c1);
        }
        dl->AddRect(ImVec2(bx, by0), ImVec2(bx + bw, by1), IM_COL32(160, 160, 160, 160));
        for (int i = 0; i <= 2; ++i) {
            const float t = static_cast<float>(i) / 2.0f;
            const float v = hi - (hi - lo) * t;
            const float ty = by0 + (by1 - by0) * t;
            dl->AddLine(ImVec2(bx + bw, ty), ImVec2(bx + bw + 4, ty), text_col);
            const std::string s = format_value(v);
            dl->AddText(ImVec2(bx + bw + 6, ty - font * 0.5f), text_col, s.c_str());
        }
    }

    // Interaction over the grid: hover read-out, click, export menu.
    ImGui::SetCursorScreenPos(grid_min);
    ImGui::InvisibleButton("##grid", ImVec2(std::max(grid_size.x, 1.0f), std::max(grid_size.y, 1.0f)));
    result.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    if (ImGui::IsItemHovered()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const int c = std::clamp(static_cast<int>((m.x - grid_min.x) / cell_w), 0, spec.cols - 1);
        const int r = std::clamp(static_cast<int>((m.y - grid_min.y) / cell_h), 0, spec.rows - 1);
        result.hovered = true;
        result.row = r;
        result.col = c;
        dl->AddRect(ImVec2(grid_min.x + cell_w * c, grid_min.y + cell_h * r),
                    ImVec2(grid_min.x + cell_w * (c + 1), grid_min.y + cell_h * (r + 1)), IM_COL32(255, 80, 80, 255), 0, 0, 2.0f);
        if (!spec.compact) {
            dl->AddRect(ImVec2(grid_min.x, grid_min.y + cell_h * r), ImVec2(grid_max.x, grid_min.y + cell_h * (r + 1)),
                        IM_COL32(255, 255, 255, 90));
            dl->AddRect(ImVec2(grid_min.x + cell_w * c, grid_min.y), ImVec2(grid_min.x + cell_w * (c + 1), grid_max.y),
                        IM_COL32(255, 255, 255, 90));
        }
        const float v = spec.values[static_cast<size_t>(r) * spec.cols + c];
        std::string text;
        if (spec.tooltip) {
            text = spec.tooltip(r, c, v);
        } else {
            const std::string rl = spec.row_labels && r < static_cast<int>(spec.row_labels->size())
                                       ? (*spec.row_labels)[static_cast<size_t>(r)] : std::to_string(r);
            const std::string cl = spec.col_labels && c < static_cast<int>(spec.col_labels->size())
                                       ? (*spec.col_labels)[static_cast<size_t>(c)] : std::to_string(c);
            text = spec.row_axis + " " + std::to_string(r) + " \"" + rl + "\" \xE2\x86\x92 " + spec.col_axis + " " +
                   std::to_string(c) + " \"" + cl + "\" = " + format_value(v);
            if (std::isinf(v) && v < 0) text += "  (masked)";
        }
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(text.c_str());
        ImGui::TextDisabled("right-click: export PNG / CSV");
        ImGui::EndTooltip();
    }
    if (commands && ImGui::BeginPopupContextItem("##export")) {
        const std::string base = safe_file_name(spec.title.empty() ? spec.id : spec.title);
        if (ImGui::MenuItem("Export picture (PNG)"))
            commands->send(ExportRegionPng{{origin.x, origin.y, total_max.x, total_max.y}, base, ""});
        if (ImGui::MenuItem("Export numbers (CSV)")) {
            const std::vector<std::string> empty;
            commands->send(ExportCsv{base, matrix_csv(spec.values, spec.rows, spec.cols, spec.row_labels ? *spec.row_labels : empty,
                                                      spec.col_labels ? *spec.col_labels : empty,
                                                      spec.row_axis + " \\ " + spec.col_axis)});
        }
        ImGui::EndPopup();
    }

    // Reserve the whole widget's space.
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(total_max.x - origin.x, total_max.y - origin.y));
    ImGui::PopID();
    return result;
}

}  // namespace tx::app
