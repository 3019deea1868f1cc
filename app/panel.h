// Panel: the base of every view (ImHex's View). It owns ImGui::Begin/End (or the tab item) and
// calls draw_content(); panels read the SessionView and TrainingSnapshot and send Commands
// (command.h) to the app, which applies them after the frame. One panel per file in panels/.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "imgui.h"
#include "imgui_internal.h"   // the tab bar's layout, for the lesson highlight
#include "session_view.h"
#include "tx/trainer.h"
#include "workbench.h"        // Selection, TrainerInfo

namespace tx::app {

struct PanelContext {
    const explain::SessionView& view;
    const TrainingSnapshot& training;
    const TrainerInfo& trainer;
    CommandSink& commands;      // send(Command): applied after the frame
    Selection& selection;
    const Workbench::PrecisionSettings& precision;   // the Precision panel's mode and scale (SetPrecision)
    const PatchingSettings& patching;                // the Look inside panel's patching settings (SetPatching)
    bool driven = false;         // a program drives the app (AppOptions::driven): deterministic, no confirmations
};

class Panel {
public:
    // Key and title come from the panel registry (panel_registry.h), which names every panel it builds.
    explicit Panel(std::string explanation) : m_explanation(std::move(explanation)) {}
    void set_identity(std::string key, std::string title) {
        m_key = std::move(key);
        m_title = std::move(title);
    }
    virtual ~Panel() = default;
    Panel(const Panel&) = delete;
    Panel& operator=(const Panel&) = delete;

    const std::string& title() const { return m_title; }
    const std::string& key() const { return m_key; }          // for --panel and the settings
    const std::string& explanation() const { return m_explanation; }
    // The explanation as drawn for this model: panels whose text depends on the architecture
    // (a decoder-only model has no encoder) override it.
    virtual std::string explanation_for(const explain::SessionView&) const { return m_explanation; }
    bool& open() { return m_open; }
    void request_focus() { m_focus = true; }
    // Where the panel was last drawn (screen coordinates) and in which ImGui frame: for highlights.
    ImVec2 drawn_min() const { return m_drawn_min; }
    ImVec2 drawn_max() const { return m_drawn_max; }
    int drawn_frame() const { return m_drawn_frame; }
    // The tab's own rectangle in the tab bar, when drawn as a tab this frame (tab_frame()).
    ImVec2 tab_min() const { return m_tab_min; }
    ImVec2 tab_max() const { return m_tab_max; }
    int tab_frame() const { return m_tab_frame; }

    // As a window of its own (Begin/End).
    void draw_window(PanelContext& ctx, ImGuiWindowFlags flags = 0) {
        if (m_focus) ImGui::SetNextWindowFocus();
        m_focus = false;
        if (ImGui::Begin(m_title.c_str(), &m_open, flags)) {
            remember_rect();
            draw_body(ctx);
        }
        ImGui::End();
    }
    // As a tab of the main area's tab bar (BeginTabItem/EndTabItem).
    void draw_tab(PanelContext& ctx) {
        const ImGuiTabItemFlags flags = m_focus ? ImGuiTabItemFlags_SetSelected : 0;
        m_focus = false;
        const ImGuiID tab_id = ImGui::GetID(m_title.c_str());   // as BeginTabItem names it, inside the bar
        if (ImGui::BeginTabItem(m_title.c_str(), &m_open, flags)) {
            ImGui::BeginChild(("##tab_" + m_key).c_str(), ImVec2(0, 0), false);
            remember_rect();
            draw_body(ctx);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        remember_tab(tab_id);
    }

protected:
    virtual void draw_content(PanelContext& ctx) = 0;

private:
    // Where the tab bar placed this tab (as ImGui 1.86's TabItemEx computes it: the bar's left edge
    // + the tab's offset - the bar's scrolling).
    void remember_tab(ImGuiID id) {
        ImGuiTabBar* bar = ImGui::GetCurrentContext()->CurrentTabBar;
        const ImGuiTabItem* tab = bar ? ImGui::TabBarFindTabByID(bar, id) : nullptr;
        if (!tab) return;
        m_tab_min = ImVec2(bar->BarRect.Min.x + tab->Offset - bar->ScrollingAnim, bar->BarRect.Min.y);
        m_tab_max = ImVec2(m_tab_min.x + tab->Width, bar->BarRect.Max.y);
        m_tab_frame = ImGui::GetFrameCount();
    }
    void remember_rect() {
        m_drawn_min = ImGui::GetWindowPos();
        m_drawn_max = ImVec2(m_drawn_min.x + ImGui::GetWindowWidth(), m_drawn_min.y + ImGui::GetWindowHeight());
        m_drawn_frame = ImGui::GetFrameCount();
    }
    void draw_body(PanelContext& ctx) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", explanation_for(ctx.view).c_str());
        ImGui::PopTextWrapPos();
        ImGui::Separator();
        if (!ctx.view.valid) {
            ImGui::TextUnformatted("No model loaded.");
            return;
        }
        draw_content(ctx);
    }

    std::string m_title, m_key, m_explanation;
    bool m_open = true;
    bool m_focus = false;
    ImVec2 m_drawn_min, m_drawn_max;
    int m_drawn_frame = -1;
    ImVec2 m_tab_min, m_tab_max;
    int m_tab_frame = -1;
};

}  // namespace tx::app
