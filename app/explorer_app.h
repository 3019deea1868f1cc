// ExplorerApp: the window around a Workbench (workbench.h, which owns the Session, the Trainer and
// the selections): the panels, the menu bar, the status line, the settings, the launch options.
// main.cpp calls draw() once per frame and after_render() once the frame is drawn. Panels send
// Commands (command.h); the app applies them between frames through apply(). An AppDriver
// (app_driver.h, e.g. tests/app/self_test.cpp) may drive it from outside, one frame at a time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app_driver.h"
#include "command.h"
#include "lesson_progress.h"
#include "options.h"
#include "panel.h"
#include "panel_registry.h"
#include "workbench.h"

namespace tx::app {

class ExplorerApp final : public CommandSink {
public:
    // driver: drives the app after each frame's commands, which makes the run headless
    // (AppOptions::driven); null: a learner does.
    explicit ExplorerApp(AppOptions options, std::unique_ptr<AppDriver> driver = nullptr);
    ~ExplorerApp() override;

    void draw();                                   // one frame of UI
    void after_render(int framebuffer_w, int framebuffer_h);
    bool should_quit() const { return m_quit; }
    int exit_code() const { return m_exit_code; }
    bool idle() const;                             // nothing animating: the loop may wait for input
    void shutdown();                               // frees GL textures; before the context goes

    // Queued and applied after the frame's panels are drawn, so a frame reads one snapshot; the
    // window's immediate requests (applies_at_once) are applied now, as a click's direct effect.
    void send(Command command) override;
    // Carries one command out now: the window's part here, the rest by the Workbench.
    void apply(const Command& command);
    Workbench& workbench() { return m_workbench; }

    // Read access for an AppDriver.
    const explain::SessionView& view() const { return m_workbench.view(); }
    const TrainingSnapshot& training() const { return m_workbench.training(); }
    Selection& selection() { return m_workbench.selection(); }
    int error_count() const { return m_workbench.error_count(); }
    const std::vector<std::unique_ptr<Panel>>& panels() const { return m_panels; }
    const PanelHandles& panel_handles() const { return m_handles; }   // the panels by their own type
    const std::string& config_dir() const { return m_config_dir; }
    void finish(int exit_code) { m_exit_code = exit_code; m_quit = true; }
    const TrainerInfo& trainer_info() const { return m_workbench.trainer_info(); }
    const std::string& highlighted_panel() const { return m_highlight; }   // "" when none is framed

    // Settings persisted in the .ini (see settings.cpp).
    struct Settings {
        std::string layout = "default";
        // The export folder and the last input are the Workbench's (Workbench::remembered()).
        std::vector<std::pair<std::string, bool>> panels_open;
        // Orders each lesson question's choices for this learner (quiz.h); 0 until drawn or read.
        uint64_t quiz_seed = 0;
        // The Lessons panel's progress (lesson_progress.h): done lessons, the open one, the offer made.
        explain::LessonProgress lessons;
        bool loaded = false;
    };
    Settings& settings() { return m_settings; }

private:
    static constexpr double HIGHLIGHT_S = 4.0;   // how long HighlightPanel frames a panel
    static double now_s();                        // ImGui's clock; 0 before a context exists
    // The commands a click applies at once rather than after the frame: a panel shown, the
    // Precision panel's settings, a picture of the screen (itself read after rendering).
    static bool applies_at_once(const Command& command);
    void load_fonts();
    void make_panels();
    void apply_commands();                         // the queue, after the frame's panels
    void apply_launch_commands();                  // AppOptions::launch, in the constructor
    void show_panel(const std::string& key);
    void print_frame_times() const;
    void draw_menu_bar();
    void draw_status_bar();
    void draw_log_window();
    void draw_panels();
    // The default layout's left column: Input on top, below it the last open LeftBottom panel.
    std::string left_bottom_panel() const;
    bool in_left_column(const Panel& panel) const;
    void handle_keys();
    void follow_launch_training();   // --train N: pause the trainer once it has done N steps

    AppOptions m_options;
    std::string m_config_dir;
    std::string m_ini_path;
    Settings m_settings;
    Workbench m_workbench;

    std::vector<std::unique_ptr<Panel>> m_panels;
    PanelHandles m_handles;   // into m_panels
    std::vector<Command> m_commands;
    bool m_show_log = false;
    bool m_show_about = false;

    struct RegionExport {
        ImVec2 min, max;
        std::string path;
    };
    std::vector<RegionExport> m_region_exports;
    int m_frame = 0;
    int m_launch_training_done_frame = -1;   // --train N: the frame at which training paused (or ended)
    bool m_quit = false;
    int m_exit_code = 0;
    ImWchar* m_glyph_ranges = nullptr;
    ImVector<ImWchar> m_ranges;
    std::unique_ptr<AppDriver> m_driver;
    std::string m_focus_panel;
    float m_frame_ms = 0.0f;
    std::vector<float> m_frame_times;   // --frame-times: ms per frame after the first 10
    std::string m_highlight;         // HighlightPanel: the panel framed until m_highlight_until (ImGui time)
    double m_highlight_until = 0.0;
    std::string m_left_bottom;   // the panel below Input at the last layout (it is laid out again on a change)
    int m_lesson_steps_left = 0;          // --lesson N,STEPS: steps still to do
    void draw_highlight();
};

}  // namespace tx::app
