// ExplorerApp's layout and menus: the default layout (Input and its partner in the left column,
// the other panels as tabs; panel_registry.h says which goes where), the windows layout, a
// single panel, the lesson highlight, the menu bar, the status line and the log window.
#include "explorer_app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "imgui_internal.h"
#include "imgui_stdlib.h"
#include "panel_registry.h"
#include "panels/lessons_panel.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

constexpr float LEFT_COLUMN = 0.33f;    // share of the width for Input and the panel below it

}  // namespace

void ExplorerApp::draw_highlight() {
    if (m_highlight.empty()) return;
    const double left = m_highlight_until - now_s();
    if (left <= 0.0) {
        m_highlight.clear();
        return;
    }
    for (const auto& p : m_panels) {
        if (p->key() != m_highlight || p->drawn_frame() != ImGui::GetFrameCount()) continue;
        // A slow pulse, fading out over the last second.
        const float pulse = 0.75f + 0.25f * static_cast<float>(std::sin(now_s() * 6.0));
        const float alpha = std::min(1.0f, static_cast<float>(left)) * pulse;
        const ImU32 colour = ImGui::GetColorU32(ImVec4(1.0f, 0.78f, 0.2f, alpha));
        ImDrawList* draw = ImGui::GetForegroundDrawList();
        const ImVec2 a(p->drawn_min().x - 1, p->drawn_min().y - 1), b(p->drawn_max().x + 1, p->drawn_max().y + 1);
        draw->AddRect(a, b, colour, 6.0f, 0, 3.0f);
        // The tag covers no content: a window's sits in its title bar, left of the close button.
        // A tab has no title bar of its own (a tag on the full tab bar would hide other tabs): its
        // tab is outlined instead, so the learner sees which one to pick.
        const bool tab = m_options.panel.empty() && m_settings.layout != "windows" && !in_left_column(*p);
        if (tab) {
            if (p->tab_frame() == ImGui::GetFrameCount())
                draw->AddRect(ImVec2(p->tab_min().x - 1, p->tab_min().y - 1), ImVec2(p->tab_max().x + 1, p->tab_max().y + 1),
                              colour, 4.0f, 0, 3.0f);
            continue;
        }
        const std::string tag = "Lesson: look here";
        const ImVec2 tag_size = ImGui::CalcTextSize(tag.c_str());
        const float h = ImGui::GetFrameHeight();
        const float right = b.x - h - 6;
        const float top = a.y + 2;
        const ImVec2 t0(right - tag_size.x - 16, top), t1(right, top + h - 2);
        draw->AddRectFilled(t0, t1, colour, 5.0f);
        draw->AddText(ImVec2(t0.x + 8, t0.y + (h - 2 - tag_size.y) * 0.5f), ImGui::GetColorU32(ImVec4(0.1f, 0.08f, 0.0f, alpha)), tag.c_str());
    }
}

std::string ExplorerApp::left_bottom_panel() const {
    std::string key;
    for (const auto& p : m_panels)
        if (const PanelEntry* e = find_panel_entry(p->key()); e && e->placement == PanelPlacement::LeftBottom && p->open())
            key = p->key();
    return key;
}

bool ExplorerApp::in_left_column(const Panel& panel) const {
    const PanelEntry* e = find_panel_entry(panel.key());
    return e && (e->placement == PanelPlacement::LeftTop || panel.key() == left_bottom_panel());
}

void ExplorerApp::draw_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::BeginMenu("Models", !m_workbench.catalog().empty())) {
            for (const explain::CatalogModel& m : m_workbench.catalog())
                if (ImGui::MenuItem(m.name.c_str(), nullptr, m_workbench.is_open_model(m)))
                    send(OpenModel{std::filesystem::path(m.file).stem().string()});
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Load or save a checkpoint...")) show_panel("model");
        if (ImGui::MenuItem("Open the settings folder path in the log")) m_workbench.report_status("settings: " + (m_ini_path.empty() ? std::string("not saved") : m_ini_path));
        ImGui::Separator();
        ImGui::TextDisabled("Exports go to:");
        ImGui::SetNextItemWidth(360);
        ImGui::InputText("##exportdir", &m_workbench.remembered().export_dir);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) finish(0);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (auto& p : m_panels) ImGui::MenuItem(p->title().c_str(), nullptr, &p->open());
        ImGui::Separator();
        if (ImGui::MenuItem("Layout: main area with tabs", nullptr, m_settings.layout == "default")) m_settings.layout = "default";
        if (ImGui::MenuItem("Layout: every panel a window", nullptr, m_settings.layout == "windows")) m_settings.layout = "windows";
        if (ImGui::MenuItem("Reset window positions")) m_focus_panel = "__reset__";
        ImGui::Separator();
        ImGui::MenuItem("Log", nullptr, &m_show_log);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Step")) {
        if (ImGui::MenuItem("Next step", "\xE2\x86\x92 / Space")) send(StepForward{});
        if (ImGui::MenuItem("Previous step", "\xE2\x86\x90")) send(StepBack{});
        if (ImGui::MenuItem("Next layer", "\xE2\x86\x93")) send(NextLayer{});
        if (ImGui::MenuItem("Previous layer", "\xE2\x86\x91")) send(PreviousLayer{});
        if (ImGui::MenuItem("Run to end", "End")) send(RunToEnd{});
        if (ImGui::MenuItem("Restart", "Home")) send(Restart{});
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        // Every lesson by number, ticked when done: a click opens the Lessons panel on it.
        LessonsPanel* lessons = m_handles.lessons;
        if (ImGui::BeginMenu("Lessons: a guided tour", lessons && !lessons->lessons().empty())) {
            for (int i = 0; i < static_cast<int>(lessons->lessons().size()); ++i) {
                const std::string label = std::to_string(i + 1) + ". " + lessons->lessons()[static_cast<size_t>(i)].title;
                if (ImGui::MenuItem(label.c_str(), lessons->done(i) ? "\xE2\x9C\x93 done" : nullptr, i == lessons->current())) {
                    lessons->open_lesson(i);
                    show_panel("lessons");
                }
            }
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("About and keyboard")) m_show_about = true;
        ImGui::EndMenu();
    }
    // What the model was trained to do, always in sight, so nobody looks for meaning in a copy model.
    if (view().valid && !view().model_description.empty()) {
        const float x = ImGui::GetCursorPosX() + 16;
        const float avail = ImGui::GetWindowWidth() - x - 10;
        const std::string line = fit_text("Model: " + view().model_description, std::max(avail, 50.0f));
        ImGui::SetCursorPosX(std::max(x, ImGui::GetWindowWidth() - ImGui::CalcTextSize(line.c_str()).x - 10));
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.55f, 1.0f), "%s", line.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view().model_description.c_str());
    }
    ImGui::EndMainMenuBar();
}

void ExplorerApp::draw_status_bar() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float h = ImGui::GetFrameHeight() + 6;
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - h));
    ImGui::SetNextWindowSize(ImVec2(vp->Size.x, h));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 3));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    if (ImGui::Begin("##status", nullptr, flags)) {
        if (ImGui::SmallButton(m_show_log ? "Log \xE2\x96\xBE" : "Log \xE2\x96\xB8")) m_show_log = !m_show_log;
        ImGui::SameLine();
        const ImVec4 colour = m_workbench.status_is_error() ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.75f, 0.85f, 0.75f, 1.0f);
        // A checkpoint is named by its file name (the whole path is in the tooltip); a model made in
        // the app ("trainer (…)") by its description.
        const std::filesystem::path source(m_workbench.model_source());
        const std::string model_name =
            source.extension() == ".safetensors" ? source.filename().string() : m_workbench.model_source();
        char right[256];
        std::snprintf(right, sizeof right, "model: %s  \xC2\xB7  %s  \xC2\xB7  forward %.2f ms  \xC2\xB7  frame %.1f ms",
                      model_name.c_str(), view().backend.c_str(), view().forward_ms, m_frame_ms);
        const float right_w = ImGui::CalcTextSize(right).x;
        const float avail = ImGui::GetContentRegionAvail().x - right_w - 20;
        ImGui::TextColored(colour, "%s", fit_text(m_workbench.status().empty() ? "ready" : m_workbench.status(), std::max(avail, 50.0f)).c_str());
        if (ImGui::IsItemHovered() && !m_workbench.status().empty()) ImGui::SetTooltip("%s", m_workbench.status().c_str());
        ImGui::SameLine(ImGui::GetWindowWidth() - right_w - 10);
        ImGui::TextDisabled("%s", right);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("model: %s", m_workbench.model_source().c_str());
    }
    ImGui::End();
    ImGui::PopStyleVar(2);
}

void ExplorerApp::draw_log_window() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + 20, vp->Pos.y + vp->Size.y - 300), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(700, 250), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Log", &m_show_log)) {
        if (ImGui::SmallButton("Clear")) m_workbench.clear_log();
        ImGui::Separator();
        ImGui::BeginChild("##loglines");
        for (const LogMessage& m : m_workbench.log()) {
            if (m.error) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "[%7.1f s] %s", m.time, m.text.c_str());
            else ImGui::Text("[%7.1f s] %s", m.time, m.text.c_str());
        }
        if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
        ImGui::EndChild();
    }
    ImGui::End();
}

void ExplorerApp::draw_panels() {
    PanelContext ctx{view(), training(), trainer_info(), *this, selection(), m_workbench.precision_settings(),
                     m_workbench.patching_settings(), m_options.driven};
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float status_h = ImGui::GetFrameHeight() + 6;
    // Below the main menu bar. ImGui 1.86 moves WorkPos below it only from the next frame on,
    // and the panels take their first-use positions in the first frame.
    const float menu_h = ImGui::GetFrameHeight();
    const ImVec2 pos(vp->Pos.x, vp->Pos.y + menu_h);
    const ImVec2 size(vp->Size.x, vp->Size.y - menu_h - status_h);
    const bool reset = m_focus_panel == "__reset__";
    if (reset) m_focus_panel.clear();
    const ImGuiCond cond = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;

    if (!m_options.panel.empty()) {
        // One panel filling the window (--panel).
        for (auto& p : m_panels)
            if (p->key() == m_options.panel) {
                ImGui::SetNextWindowPos(pos);
                ImGui::SetNextWindowSize(size);
                p->open() = true;
                p->draw_window(ctx, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
            }
        return;
    }

    if (m_settings.layout == "windows") {
        // A grid of the open panels, three to a row: more open panels than nine add a row.
        const int cols = 3;
        int open = 0;
        for (const auto& p : m_panels) open += p->open() ? 1 : 0;
        const int rows = std::max(3, (open + cols - 1) / cols);
        const float w = size.x / cols, h = size.y / static_cast<float>(rows);
        int slot = 0;
        for (auto& p : m_panels) {
            if (!p->open()) continue;
            ImGui::SetNextWindowPos(ImVec2(pos.x + w * static_cast<float>(slot % cols), pos.y + h * static_cast<float>(slot / cols)), cond);
            ImGui::SetNextWindowSize(ImVec2(w, h), cond);
            p->draw_window(ctx);
            ++slot;
        }
        return;
    }

    // Default: Input and Shapes (or Lessons) on the left, the other panels as tabs of the main area.
    const std::string bottom = left_bottom_panel();
    const bool lessons_open = bottom == "lessons";
    const float left_w = std::max(380.0f, size.x * LEFT_COLUMN);
    // A lesson has more to say than Shapes: it gets a larger share. The column is laid out again
    // when Lessons opens or closes, so the two never overlap.
    const float input_h = size.y * (lessons_open ? 0.45f : 0.52f);
    const ImGuiCond left_cond = bottom != m_left_bottom ? ImGuiCond_Always : cond;
    m_left_bottom = bottom;
    for (auto& p : m_panels) {
        if (!in_left_column(*p) || !p->open()) continue;
        const bool input = p->key() != m_left_bottom;   // the top slot
        ImGui::SetNextWindowPos(ImVec2(pos.x, input ? pos.y : pos.y + input_h), left_cond);
        ImGui::SetNextWindowSize(ImVec2(left_w, input ? input_h : size.y - input_h), left_cond);
        p->draw_window(ctx);
    }
    ImGui::SetNextWindowPos(ImVec2(pos.x + left_w, pos.y), cond);
    ImGui::SetNextWindowSize(ImVec2(size.x - left_w, size.y), cond);
    if (ImGui::Begin("Views", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar)) {
        bool any = false;
        if (ImGui::BeginTabBar("##views", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
            for (auto& p : m_panels) {
                if (in_left_column(*p) || !p->open()) continue;
                any = true;
                p->draw_tab(ctx);
            }
            ImGui::EndTabBar();
        }
        if (!any) ImGui::TextDisabled("Every view is closed: open one from the View menu.");
    }
    ImGui::End();
}

}  // namespace tx::app
