// Line plots and bar charts (see plot.h).
#include "widgets/plot.h"
#include "command.h"
#include "widgets/rgba_texture.h"

#include <GL/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <unordered_map>

#include "panel.h"
#include "widgets/export.h"
#include "widgets/font_sampling.h"
#include "widgets/polyline_envelope.h"
#include "widgets/ui.h"

namespace tx::app {

std::vector<double> nice_ticks(double lo, double hi, int target) {
    std::vector<double> ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
    // A 1-2-5 step near (hi - lo) / target; a finer one while fewer than two ticks fall inside
    // (a range of 25..800 with target 2 would otherwise get the single tick 500).
    for (int want = std::max(target, 1); want <= 4 * std::max(target, 2); want *= 2) {
        const double raw = (hi - lo) / want;
        const double mag = std::pow(10.0, std::floor(std::log10(raw)));
        const double norm = raw / mag;
        const double step = (norm < 1.5 ? 1.0 : norm < 3.5 ? 2.0 : norm < 7.5 ? 5.0 : 10.0) * mag;
        ticks.clear();
        for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-6; t += step)
            ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
        if (ticks.size() >= 2) break;
    }
    return ticks;
}

namespace {

std::string tick_text(double v, bool log_axis) {
    char buf[32];
    if (log_axis) {
        const double p = std::pow(10.0, v);
        std::snprintf(buf, sizeof buf, "%g", p);
    } else if (v != 0.0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3)) {
        std::snprintf(buf, sizeof buf, "%.0e", v);
    } else {
        std::snprintf(buf, sizeof buf, "%g", v);
    }
    return buf;
}

void export_menu(const std::string& title, const char* id, ImVec2 min, ImVec2 max, CommandSink* commands,
                 const std::function<std::string()>& csv) {
    if (!commands || !ImGui::BeginPopupContextItem("##export")) return;
    const std::string base = safe_file_name(title.empty() ? id : title);
    if (ImGui::MenuItem("Export picture (PNG)")) commands->send(ExportRegionPng{{min.x, min.y, max.x, max.y}, base, ""});
    if (ImGui::MenuItem("Export numbers (CSV)")) commands->send(ExportCsv{base, csv()});
    ImGui::EndPopup();
}

// Lines with more points than half the plot's pixel columns are drawn as one vertical span per
// column (their min..max there, see polyline_envelope.h), which is what the pixels can show, into
// one texture per plot, remade only when the points, colours or plot rectangle change: a still
// frame then costs one quad, where the anti-aliased polylines cost thousands of long thin
// triangles that software rasterisers fill slowly. ImGui's 1.8 px look: where a line is nearly
// flat in a column, a 0.8 px core and 1 px fringes fading above and below; where it is steep, an
// opaque span 2 px wide (the column and the one to its left), as wide as the polyline.
struct DenseLines {
    std::vector<std::vector<ImVec2>> pts;
    std::vector<ImU32> colours;
};

struct LineTexture {
    GLuint id = 0;
    int w = 0, h = 0;
    uint64_t hash = 0;
    int last_frame = 0;
};

std::unordered_map<ImGuiID, LineTexture>& line_textures() {
    static std::unordered_map<ImGuiID, LineTexture> map;
    return map;
}

void draw_dense_lines(ImDrawList* dl, ImGuiID key, const DenseLines& lines, ImVec2 pmin, ImVec2 pmax) {
    const int x0 = static_cast<int>(std::floor(pmin.x)), y0 = static_cast<int>(std::floor(pmin.y));
    const int w = static_cast<int>(std::ceil(pmax.x)) - x0, h = static_cast<int>(std::ceil(pmax.y)) - y0;
    if (w <= 0 || h <= 0) return;
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) hash = (hash ^ b[i]) * 1099511628211ull;
    };
    const int rect[4] = {x0, y0, w, h};
    mix(rect, sizeof rect);
    for (size_t k = 0; k < lines.pts.size(); ++k) {
        mix(&lines.colours[k], sizeof(ImU32));
        mix(lines.pts[k].data(), lines.pts[k].size() * sizeof(ImVec2));
    }
    const int frame = ImGui::GetFrameCount();
    auto& map = line_textures();
    for (auto it = map.begin(); it != map.end();) {   // textures of plots no longer drawn
        if (frame - it->second.last_frame > 120) {
            glDeleteTextures(1, &it->second.id);
            it = map.erase(it);
        } else {
            ++it;
        }
    }
    LineTexture& tex = map[key];
    tex.last_frame = frame;
    if (tex.id == 0 || tex.hash != hash) {
        std::vector<std::vector<float>> xs(lines.pts.size()), ys(lines.pts.size());
        for (size_t k = 0; k < lines.pts.size(); ++k)
            for (const ImVec2& p : lines.pts[k]) {
                xs[k].push_back(p.x);
                ys[k].push_back(p.y);
            }
        const std::vector<unsigned> colours(lines.colours.begin(), lines.colours.end());
        const std::vector<unsigned char> pixels = rasterise_dense_lines(xs, ys, colours, x0, y0, w, h);
        upload_rgba_texture(tex.id, w, h, pixels.data());
        tex.w = w;
        tex.h = h;
        tex.hash = hash;
    }
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex.id)), ImVec2(static_cast<float>(x0), static_cast<float>(y0)),
                 ImVec2(static_cast<float>(x0 + w), static_cast<float>(y0 + h)));
}

}  // namespace

void plot_shutdown() {
    for (auto& [key, tex] : line_textures()) glDeleteTextures(1, &tex.id);
    line_textures().clear();
}

void draw_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series, CommandSink* commands) {
    ImGui::PushID(spec.id);
    const float font = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(spec.size.x > 0 ? spec.size.x : ImGui::GetContentRegionAvail().x, spec.size.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);

    // Data range.
    auto ty = [&](double v) { return spec.log_y ? std::log10(v) : v; };
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& s : series)
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!std::isfinite(s.y[i]) || (spec.log_y && s.y[i] <= 0)) continue;
            x0 = std::min(x0, s.x[i]);
            x1 = std::max(x1, s.x[i]);
            y0 = std::min(y0, ty(s.y[i]));
            y1 = std::max(y1, ty(s.y[i]));
        }
    const bool empty = !std::isfinite(x0);
    if (empty) { x0 = 0; x1 = 1; y0 = 0; y1 = 1; }
    if (spec.x_min) x0 = *spec.x_min;
    if (spec.x_max) x1 = *spec.x_max;
    if (spec.y_min) y0 = ty(*spec.y_min);
    if (spec.y_max) y1 = ty(*spec.y_max);
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) { y1 = y0 + (y0 == 0 ? 1 : std::fabs(y0) * 0.1); y0 -= (y1 - y0) * 0.5; }
    else if (!spec.y_min && !spec.y_max) { const double pad = (y1 - y0) * 0.06; y0 -= pad; y1 += pad; }

    // Frame: title, y label (rotated), tick labels, x label.
    const float title_h = spec.title.empty() ? 0.0f : font + 4;
    const float left = font + 8 + 52, bottom = font * 2 + 10, right = font * 1.4f;   // half the last x label
    const ImVec2 pmin(origin.x + left, origin.y + title_h + 6), pmax(origin.x + size.x - right, origin.y + size.y - bottom);
    if (!spec.title.empty()) dl->AddText(ImVec2(origin.x + left, origin.y), text_col, spec.title.c_str());
    dl->AddRectFilled(pmin, pmax, IM_COL32(30, 30, 34, 255));
    dl->AddRect(pmin, pmax, IM_COL32(110, 110, 115, 255));
    auto sx = [&](double x) { return pmin.x + static_cast<float>((x - x0) / (x1 - x0)) * (pmax.x - pmin.x); };
    auto sy = [&](double y) { return pmax.y - static_cast<float>((y - y0) / (y1 - y0)) * (pmax.y - pmin.y); };

    std::vector<double> yt;
    if (spec.log_y) {
        for (double p = std::floor(y0); p <= std::ceil(y1); p += 1.0)
            if (p >= y0 - 1e-9 && p <= y1 + 1e-9) yt.push_back(p);
        if (yt.size() < 2) yt = nice_ticks(y0, y1, 4);
    } else {
        yt = nice_ticks(y0, y1, std::max(2, static_cast<int>((pmax.y - pmin.y) / (font * 2.5f))));
    }
    for (double t : yt) {
        const float y = sy(t);
        dl->AddLine(ImVec2(pmin.x, y), ImVec2(pmax.x, y), IM_COL32(255, 255, 255, 22));
        dl->AddLine(ImVec2(pmin.x - 4, y), ImVec2(pmin.x, y), text_col);
        const std::string s = tick_text(t, spec.log_y);
        const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        dl->AddText(ImVec2(pmin.x - 6 - ts.x, y - ts.y * 0.5f), text_col, s.c_str());
    }
    std::vector<double> xt = nice_ticks(x0, x1, std::max(2, static_cast<int>((pmax.x - pmin.x) / (font * 6))));
    if (spec.integer_x && xt.size() >= 2 && xt[1] - xt[0] < 1.0) {
        xt.clear();
        for (double t = std::ceil(x0); t <= x1; t += 1.0) xt.push_back(t);
    }
    for (double t : xt) {
        const float x = sx(t);
        dl->AddLine(ImVec2(x, pmin.y), ImVec2(x, pmax.y), IM_COL32(255, 255, 255, 22));
        dl->AddLine(ImVec2(x, pmax.y), ImVec2(x, pmax.y + 4), text_col);
        const std::string s = tick_text(t, false);
        const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        dl->AddText(ImVec2(x - ts.x * 0.5f, pmax.y + 5), text_col, s.c_str());
    }
    {
        const ImVec2 ts = ImGui::CalcTextSize(spec.x_label.c_str());
        dl->AddText(ImVec2((pmin.x + pmax.x - ts.x) * 0.5f, pmax.y + font + 8), dim_col, spec.x_label.c_str());
        const std::string yl = spec.y_label + (spec.log_y ? " (log)" : "");
        const ImVec2 ys = ImGui::CalcTextSize(yl.c_str());
        draw_text_rotated(dl, ImVec2(origin.x + 2, (pmin.y + pmax.y + ys.x) * 0.5f), dim_col, yl.c_str(), -1.5707964f);
    }

    // Lines.
    dl->PushClipRect(pmin, pmax, true);
    DenseLines dense;
    for (const auto& s : series) {
        std::vector<ImVec2> pts;
        pts.reserve(s.x.size());
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!std::isfinite(s.y[i]) || (spec.log_y && s.y[i] <= 0)) continue;
            pts.emplace_back(sx(s.x[i]), sy(ty(s.y[i])));
        }
        if (pts.size() >= 2 && !spec.markers && static_cast<float>(pts.size()) > (pmax.x - pmin.x) * 0.5f) {
            dense.pts.push_back(std::move(pts));
            dense.colours.push_back(s.colour);
            continue;
        }
        if (pts.size() >= 2)
            dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), s.colour, 0, 1.8f);
        if (spec.markers || pts.size() == 1)
            for (const ImVec2& p : pts) dl->AddCircleFilled(p, 2.5f, s.colour);
    }
    if (!dense.pts.empty()) draw_dense_lines(dl, ImGui::GetID("##dense"), dense, pmin, pmax);
    dl->PopClipRect();
    if (empty) {
        const char* msg = "no data yet";
        const ImVec2 ts = ImGui::CalcTextSize(msg);
        dl->AddText(ImVec2((pmin.x + pmax.x - ts.x) * 0.5f, (pmin.y + pmax.y - ts.y) * 0.5f), dim_col, msg);
    }

    // Legend (top right, inside).
    if (spec.legend && series.size() > 1) {
        float ly = pmin.y + 4;
        for (const auto& s : series) {
            const ImVec2 ts = ImGui::CalcTextSize(s.name.c_str());
            const float lx = pmax.x - ts.x - 26;
            dl->AddRectFilled(ImVec2(lx - 4, ly - 1), ImVec2(pmax.x - 2, ly + ts.y + 1), IM_COL32(30, 30, 34, 200));
            dl->AddLine(ImVec2(lx, ly + ts.y * 0.5f), ImVec2(lx + 16, ly + ts.y * 0.5f), s.colour, 2.5f);
            dl->AddText(ImVec2(lx + 20, ly), text_col, s.name.c_str());
            ly += ts.y + 2;
        }
    }

    // Hover: nearest x of the first series with data, every series' value there.
    ImGui::SetCursorScreenPos(pmin);
    ImGui::InvisibleButton("##plot", ImVec2(std::max(pmax.x - pmin.x, 1.0f), std::max(pmax.y - pmin.y, 1.0f)));
    if (ImGui::IsItemHovered() && !empty) {
        const double mx = x0 + (ImGui::GetIO().MousePos.x - pmin.x) / (pmax.x - pmin.x) * (x1 - x0);
        ImGui::BeginTooltip();
        bool first = true;
        for (const auto& s : series) {
            if (s.x.empty()) continue;
            const auto it = std::lower_bound(s.x.begin(), s.x.end(), mx);
            size_t i = static_cast<size_t>(it - s.x.begin());
            if (i >= s.x.size()) i = s.x.size() - 1;
            if (i > 0 && std::fabs(s.x[i - 1] - mx) < std::fabs(s.x[i] - mx)) --i;
            if (first) {
                ImGui::Text("%s = %g", spec.x_label.c_str(), s.x[i]);
                dl->AddLine(ImVec2(sx(s.x[i]), pmin.y), ImVec2(sx(s.x[i]), pmax.y), IM_COL32(255, 255, 255, 90));
                first = false;
            }
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.colour), "%s: %.4g", s.name.c_str(), s.y[i]);
        }
        ImGui::TextDisabled("right-click: export PNG / CSV");
        ImGui::EndTooltip();
    }
    // CSV: one row per point of each series (series may have different x).
    auto csv = [&] {
        std::string out = "series," + csv_field(spec.x_label) + "," + csv_field(spec.y_label) + "\n";
        char buf[64];
        for (const auto& s : series)
            for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
                std::snprintf(buf, sizeof buf, ",%.9g,%.9g\n", s.x[i], s.y[i]);
                out += csv_field(s.name) + buf;
            }
        return out;
    };
    export_menu(spec.title, spec.id, origin, ImVec2(origin.x + size.x, origin.y + size.y), commands, csv);
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(size);
    ImGui::PopID();
}

void draw_bars(const BarSpec& spec, const std::vector<std::string>& labels, const std::vector<PlotSeries>& series,
               CommandSink* commands, int highlight) {
    ImGui::PushID(spec.id);
    const float font = ImGui::GetFontSize();
    const float bar_h = spec.bar_height > 0 ? spec.bar_height : font;
    const float row_h = bar_h * static_cast<float>(std::max<size_t>(series.size(), 1)) + 4;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float title_h = spec.title.empty() ? 0.0f : font + 4;
    const float height = title_h + row_h * static_cast<float>(labels.size()) + font + 8;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    if (!spec.title.empty()) dl->AddText(origin, text_col, spec.title.c_str());
    double vmax = 0;
    for (const auto& s : series)
        for (double v : s.y) vmax = std::max(vmax, v);
    if (vmax <= 0) vmax = 1;
    const float x0 = origin.x + spec.label_width, x1 = origin.x + width - 70;
    const float y0 = origin.y + title_h;
    for (size_t i = 0; i < labels.size(); ++i) {
        const float y = y0 + row_h * static_cast<float>(i);
        if (static_cast<int>(i) == highlight)
            dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + width, y + row_h - 2), IM_COL32(120, 100, 30, 90));
        const std::string l = fit_text(labels[i], spec.label_width - 8);
        dl->AddText(ImVec2(origin.x, y + (row_h - font) * 0.5f - 2), text_col, l.c_str());
        for (size_t k = 0; k < series.size(); ++k) {
            if (i >= series[k].y.size()) continue;
            const double v = series[k].y[i];
            const float by = y + bar_h * static_cast<float>(k);
            const float bx = x0 + static_cast<float>(v / vmax) * (x1 - x0);
            dl->AddRectFilled(ImVec2(x0, by + 1), ImVec2(std::max(bx, x0 + 1), by + bar_h - 1), series[k].colour);
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.3f", v);
            add_scaled_text(dl, font * 0.85f, ImVec2(std::max(bx, x0 + 1) + 4, by + 1), text_col, buf);
        }
    }
    // Axis with ticks.
    const float ay = y0 + row_h * static_cast<float>(labels.size()) + 2;
    dl->AddLine(ImVec2(x0, ay), ImVec2(x1, ay), text_col);
    for (double t : nice_ticks(0, vmax, 5)) {
        const float x = x0 + static_cast<float>(t / vmax) * (x1 - x0);
        dl->AddLine(ImVec2(x, ay), ImVec2(x, ay + 4), text_col);
        const std::string s = tick_text(t, false) + (t == 0 ? " " + spec.value_label : "");
        dl->AddText(ImVec2(x - 4, ay + 5), text_col, s.c_str());
    }
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("##bars", ImVec2(std::max(width, 1.0f), height));
    auto csv = [&] {
        std::string out = "step";
        for (const auto& s : series) {
            out += ',';
            out += csv_field(s.name + " " + spec.value_label);
        }
        out += "\n";
        for (size_t i = 0; i < labels.size(); ++i) {
            out += csv_field(labels[i]);
            char buf[32];
            for (const auto& s : series) {
                std::snprintf(buf, sizeof buf, ",%.6g", i < s.y.size() ? s.y[i] : 0.0);
                out += buf;
            }
            out += "\n";
        }
        return out;
    };
    export_menu(spec.title, spec.id, origin, ImVec2(origin.x + width, origin.y + height), commands, csv);
    ImGui::PopID();
}

}  // namespace tx::app
