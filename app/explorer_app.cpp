// ExplorerApp (see explorer_app.h), start-up and frame: assets, settings, fonts, the panels, the
// first model and the launch commands, each frame's order (keys, menus, panels, commands,
// exports, screenshots), and the window's part of apply(). The state and the other commands
// live in the Workbench (workbench*.cpp), the layout and menus in app_layout.cpp.
#include "explorer_app.h"

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "tx/asset_paths.h"
#include "backend_names.h"
#include "tx/checkpoint.h"
#include "known_words.h"
#include "tx/memory_reuse.h"
#include "neuron_trace.h"
#include "panel_registry.h"
#include "panels/lessons_panel.h"
#include "panels/training_panel.h"
#include "panels/look_inside_panel.h"
#include "panels/precision_panel.h"
#include "screenshot.h"
#include "tx/session.h"
#include "settings.h"
#include "tx/threads.h"
#include "tx/trainer.h"
#include "widgets/font_sampling.h"
#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

std::string user_config_dir() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/transformer-explorer";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/transformer-explorer";
    return {};
}

// Assets: --assets, else beside the executable (installed) or the source tree (asset_paths.h).
std::string assets_folder(const std::string& given) {
    return !given.empty() && fs::is_directory(given) ? given : assets_root();
}

// A driven app is headless (AppOptions::driven) from its first line on.
AppOptions driven_by(AppOptions options, const std::unique_ptr<AppDriver>& driver) {
    options.driven = options.driven || driver != nullptr;
    return options;
}

}  // namespace

double ExplorerApp::now_s() { return ImGui::GetCurrentContext() ? ImGui::GetTime() : 0.0; }

ExplorerApp::ExplorerApp(AppOptions options, std::unique_ptr<AppDriver> driver)
    : m_options(driven_by(std::move(options), driver)), m_workbench(assets_folder(m_options.assets), m_options.headless()) {
    // One matrix-product thread: the UI and the trainer thread each run on a core of their own;
    // a second pool per thread would spin against the other (docs/design.md §10).
    tx::set_cpu_threads(1);
    tx::keep_freed_memory_for_reuse();
    const std::string& assets = m_workbench.assets_dir();
    if (!m_options.assets.empty() && assets != m_options.assets)
        m_workbench.report_error("assets folder '" + m_options.assets + "' not found; using " +
                                 (assets.empty() ? std::string("none") : assets));

    // Settings live in the user's config directory, never the current one. Headless runs
    // (screenshots, a driven run) neither read nor write them, so they are reproducible.
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    m_config_dir = user_config_dir();
    std::string& export_dir = m_workbench.remembered().export_dir;
    export_dir = m_config_dir.empty() ? std::string() : m_config_dir + "/exports";
    if (const char* home = std::getenv("HOME"); home && *home) export_dir = std::string(home) + "/transformer-explorer-exports";
    register_settings_handler(*this);
    if (!m_options.headless() && !m_config_dir.empty()) {
        std::error_code ec;
        fs::create_directories(m_config_dir, ec);
        if (ec) {
            m_workbench.report_error("cannot create " + m_config_dir + " (" + ec.message() + "): layout and settings are not saved");
        } else {
            m_ini_path = m_config_dir + "/imgui.ini";
            io.IniFilename = m_ini_path.c_str();
            ImGui::LoadIniSettingsFromDisk(m_ini_path.c_str());
        }
    }
    if (!m_options.layout.empty()) m_settings.layout = m_options.layout;
    // Each learner gets their own order of the quiz choices, kept in the settings; headless runs
    // use seed 1 so screenshots and driven runs (the self-test) are reproducible.
    if (m_settings.quiz_seed == 0) {
        std::random_device entropy;
        m_settings.quiz_seed = m_options.headless() ? 1 : (uint64_t{entropy()} << 32 | entropy()) | 1;
    }
    if (m_options.quiz_seed) m_settings.quiz_seed = *m_options.quiz_seed;

    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.TabRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10, 8);
    style.ItemSpacing = ImVec2(8, 6);
    load_fonts();

    make_panels();
    for (const auto& [key, open] : m_settings.panels_open)
        for (auto& p : m_panels)
            if (p->key() == key) p->open() = open;
    m_workbench.open_first_model(m_options.checkpoint, m_options.sentences);
    m_driver = std::move(driver);
    apply_launch_commands();
    // A first launch offers lesson 1, once (lesson_progress.h says when).
    LessonsPanel& lessons = *m_handles.lessons;
    if (!lessons.lessons().empty() && should_offer_first_lesson(lessons.progress(), m_options.headless(), m_options.opens_lesson())) {
        lessons.offer_first_lesson();
        show_panel("lessons");
    }
}

void ExplorerApp::apply_launch_commands() {
    for (const Command& command : m_options.launch) {
        apply(command);
        // --head, --neuron or --generate named something outside the model: as a bad argument.
        if (const auto bad = m_workbench.take_bad_launch_value()) {
            std::fprintf(stderr, "transformer-explorer: %s (see --help)\n", bad->c_str());
            finish(2);
        }
    }
}

ExplorerApp::~ExplorerApp() = default;

void ExplorerApp::shutdown() {
    heatmap_shutdown();
    plot_shutdown();
    m_workbench.pause_trainer_now();
}

void ExplorerApp::load_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    // The default ImGui font lacks the symbols of the formulas: build ranges that hold them.
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar extra[] = {0x0370, 0x03FF,   // Greek
                                    0x2010, 0x205E,   // dashes, ‖, …, ′
                                    0x2070, 0x209F,   // superscripts and subscripts
                                    0x2190, 0x21FF,   // arrows
                                    0x2200, 0x22FF,   // mathematical operators (√ ∞ ≤ − ∑ ·)
                                    0x2300, 0x23FF,   // technical (⏵ ⏸ ⏹)
                                    0x2400, 0x243F,   // control pictures (␣)
                                    0x2580, 0x259F,   // block elements (▁, SentencePiece's word-start mark)
                                    0x25A0, 0x25FF,   // geometric shapes (▶ ■ ●)
                                    0x2700, 0x27BF,   // dingbats (✓ ✗)
                                    0x1D00, 0x1DBF,   // phonetic extensions (ᵀ)
                                    0xFFFD, 0xFFFD,   // � : bytes from byte pieces that form no character
                                    0};
    builder.AddRanges(extra);
    builder.BuildRanges(&m_ranges);
    const std::string sans = m_workbench.resolve_asset("fonts/DejaVuSans.ttf");
    const std::string mono = m_workbench.resolve_asset("fonts/DejaVuSansMono.ttf");
    ImFont* main_font = nullptr;
    if (fs::exists(sans)) main_font = io.Fonts->AddFontFromFileTTF(sans.c_str(), 16.0f, nullptr, m_ranges.Data);
    if (main_font) add_scaled_font_twin(sans.c_str(), 16.0f, m_ranges.Data);
    if (!main_font) {
        m_workbench.report_error("font " + sans + " not found: using ImGui's built-in font (some symbols will show as '?')");
        io.Fonts->AddFontDefault();
    }
    if (fs::exists(mono)) mono_font() = io.Fonts->AddFontFromFileTTF(mono.c_str(), 15.0f, nullptr, m_ranges.Data);
    if (main_font && mono_font()) add_scaled_font_twin(mono.c_str(), 15.0f, m_ranges.Data);
    if (!mono_font()) mono_font() = io.Fonts->Fonts[0];
}

void ExplorerApp::make_panels() {
    m_panels = make_registered_panels(m_handles);
    LessonsPanel& lessons = *m_handles.lessons;
    const std::string path = m_options.lessons.empty() ? m_workbench.resolve_asset("lessons") : m_options.lessons;
    for (const std::string& e : lessons.load(path, panel_keys())) m_workbench.report_error("lesson: " + e);
    for (const auto& q : m_panels) lessons.name_panel(q->key(), q->title());
    lessons.set_quiz_seed(m_settings.quiz_seed);
    // Headless runs start from no progress, so screenshots and the self-test do not depend
    // on what a learner did before.
    if (!m_options.headless()) lessons.set_progress(m_settings.lessons);
    m_handles.training->load_comparison_results(m_workbench.resolve_asset("compare/results.json"));
}

bool ExplorerApp::idle() const {
    if (m_options.headless() || !m_commands.empty() || !m_region_exports.empty() || m_frame < 3) return false;
    if (!m_highlight.empty()) return false;   // the frame fades out
    // A running trainer, or a trainer, Look inside views or Precision runs to adopt once made.
    if (m_workbench.busy()) return false;
    return !ImGui::IsAnyMouseDown();
}

void ExplorerApp::handle_keys() {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId)) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space)))
        send(StepForward{});
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) send(StepBack{});
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) send(NextLayer{});
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) send(PreviousLayer{});
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) send(RunToEnd{});
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) send(Restart{});
}

void ExplorerApp::draw() {
    ++m_frame;
    m_workbench.tick();
    update_font_sampling();
    // Headless runs: wherever the virtual pointer sits, no tooltip or hover lands in a screenshot.
    if (m_options.headless()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    m_frame_ms = 0.9f * m_frame_ms + 0.1f * ImGui::GetIO().DeltaTime * 1000.0f;
    // DeltaTime of frame k is the whole previous frame: its drawing, rendering and presenting.
    if (m_options.frame_times && m_frame > 11) m_frame_times.push_back(ImGui::GetIO().DeltaTime * 1000.0f);
    follow_launch_training();
    handle_keys();
    draw_menu_bar();
    draw_status_bar();
    draw_panels();
    draw_highlight();
    if (m_show_log) draw_log_window();
    if (m_show_about) {
        ImGui::OpenPopup("About Transformer Explorer");
        m_show_about = false;
    }
    if (ImGui::BeginPopupModal("About Transformer Explorer", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextUnformatted("Transformer Explorer: watch an encoder-decoder Transformer compute, step by step.");
        ImGui::TextUnformatted("Keyboard: \xE2\x86\x92 or Space next step, \xE2\x86\x90 previous step,");
        ImGui::TextUnformatted("\xE2\x86\x93 next layer, \xE2\x86\x91 previous layer, End run to end, Home restart.");
        ImGui::Text("Settings: %s", m_ini_path.empty() ? "(not saved in this run)" : m_ini_path.c_str());
        ImGui::Text("Assets: %s", m_workbench.assets_dir().c_str());
        if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
    heatmap_collect_garbage();
    if (m_lesson_steps_left > 0 && m_commands.empty()) {
        --m_lesson_steps_left;
        m_handles.lessons->do_step(*this);
    }
    apply_commands();
    if (m_driver) m_driver->frame(*this);
}

void ExplorerApp::print_frame_times() const {
    if (m_frame_times.empty()) {
        std::printf("frame times: none measured (the first 10 frames are not counted; use --frames 60)\n");
        return;
    }
    std::vector<float> t = m_frame_times;
    std::sort(t.begin(), t.end());
    std::printf("frame times over %zu frames: median %.1f ms, slowest %.1f ms\n", t.size(), t[t.size() / 2], t.back());
}

void ExplorerApp::after_render(int framebuffer_w, int framebuffer_h) {
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    for (const auto& e : m_region_exports) {
        const int x = static_cast<int>(e.min.x * scale.x), y = static_cast<int>(e.min.y * scale.y);
        const int x1 = std::min(static_cast<int>(e.max.x * scale.x), framebuffer_w);
        const int y1 = std::min(static_cast<int>(e.max.y * scale.y), framebuffer_h);
        try {
            write_back_buffer_png(e.path, std::max(x, 0), std::max(y, 0), x1 - std::max(x, 0), y1 - std::max(y, 0), framebuffer_h);
            m_workbench.report_status("wrote " + e.path);
        } catch (const std::exception& ex) {
            m_workbench.report_error(ex.what());
        }
    }
    m_region_exports.clear();
    // With --train N the screenshot waits until training has paused, then draws `frames` more.
    const bool training_settled = m_options.train_steps <= 0 ||
                                  (m_launch_training_done_frame >= 0 && m_frame >= m_launch_training_done_frame + m_options.frames);
    if (!m_options.screenshot.empty() && !m_driver && m_frame >= m_options.frames && training_settled &&
        m_lesson_steps_left == 0) {
        try {
            write_back_buffer_png(m_options.screenshot, 0, 0, framebuffer_w, framebuffer_h, framebuffer_h);
            std::printf("transformer-explorer: wrote %s (%dx%d)\n", m_options.screenshot.c_str(), framebuffer_w, framebuffer_h);
            if (m_options.print_decoded)
                for (size_t b = 0; b < view().decoded_text.size(); ++b)
                    std::printf("decoded %zu: %s\n", b + 1, view().decoded_text[b].c_str());
            if (m_options.print_decoded && !view().generation.stale && view().generation.error.empty())
                std::printf("generated: %s\n", view().generation.text.c_str());
            if (m_options.frame_times) print_frame_times();
            finish(0);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "transformer-explorer: %s\n", e.what());
            finish(1);
        }
    }
    if (m_driver && m_driver->wants_screenshot() && !m_options.screenshot.empty()) {
        try {
            write_back_buffer_png(m_options.screenshot, 0, 0, framebuffer_w, framebuffer_h, framebuffer_h);
        } catch (const std::exception& e) {
            m_workbench.report_error(e.what());
        }
    }
}

}  // namespace tx::app

// ---------------------------------------------------------------------------------------------
// Commands: the window's part here, the rest by the Workbench.

namespace tx::app {

bool ExplorerApp::applies_at_once(const Command& command) {
    return std::holds_alternative<ShowPanel>(command) || std::holds_alternative<SetPrecision>(command) ||
           std::holds_alternative<ExportRegionPng>(command);
}

void ExplorerApp::send(Command command) {
    if (applies_at_once(command)) apply(command);
    else m_commands.push_back(std::move(command));
}

void ExplorerApp::apply_commands() {
    std::vector<Command> commands = std::move(m_commands);
    m_commands.clear();
    for (const Command& c : commands) apply(c);
}

void ExplorerApp::show_panel(const std::string& key) {
    for (auto& p : m_panels)
        if (p->key() == key) {
            p->open() = true;
            p->request_focus();
        }
}

void ExplorerApp::apply(const Command& command) {
    if (!needs_window(command)) {
        m_workbench.apply(command);
        if (std::holds_alternative<OpenNeuronView>(command)) show_panel("neuron");   // its cell is selected now
        return;
    }
    if (const auto* c = std::get_if<ShowPanel>(&command)) {
        show_panel(c->key);
    } else if (const auto* c = std::get_if<HighlightPanel>(&command)) {
        // Queued after a lesson step's other commands: the panel is raised once its model and input are set.
        for (auto& p : m_panels)
            if (p->key() == c->key) {
                show_panel(c->key);
                m_highlight = c->key;
                m_highlight_until = now_s() + HIGHLIGHT_S;
                return;
            }
        m_workbench.report_error("no panel '" + c->key + "' to highlight");
    } else if (const auto* c = std::get_if<SetLookInside>(&command)) {
        PatchingSettings patching = m_workbench.patching_settings();   // the metric stays as it is
        patching.corrupted = c->corrupted;
        m_workbench.apply(SetPatching{patching});
        if (!c->view.empty()) m_handles.look_inside->select_view(c->view);
        else if (!c->corrupted.empty()) m_handles.look_inside->select_view("patch");
    } else if (const auto* c = std::get_if<OpenLesson>(&command)) {
        LessonsPanel& lessons = *m_handles.lessons;
        if (c->number < 1 || c->number > static_cast<int>(lessons.lessons().size())) {
            m_workbench.report_error("--lesson " + std::to_string(c->number) + ": there are " +
                                     std::to_string(lessons.lessons().size()) + " lessons");
            return;
        }
        show_panel("lessons");
        lessons.open_lesson(c->number - 1);
        m_lesson_steps_left = c->steps;   // one "Do it" a frame, as a learner would
    } else if (const auto* c = std::get_if<ExportRegionPng>(&command)) {
        const std::string path = c->path.empty() ? m_workbench.export_path(c->base_name, "png") : c->path;
        m_region_exports.push_back({ImVec2(c->region.x0, c->region.y0), ImVec2(c->region.x1, c->region.y1), path});
    }
}

void ExplorerApp::follow_launch_training() {
    if (m_options.train_steps <= 0 || m_launch_training_done_frame >= 0) return;
    if (m_workbench.trainer_failed()) {   // reported; the screenshot shows the reason
        m_launch_training_done_frame = m_frame;
        return;
    }
    if (!m_workbench.has_trainer()) return;
    const TrainingSnapshot& training = m_workbench.training();
    const TrainerState state = training.state;
    if (state == TrainerState::Running && training.step >= m_options.train_steps) send(PauseTraining{});
    const bool ended = state == TrainerState::Finished || state == TrainerState::Diverged;
    if (ended || (state == TrainerState::Paused && training.step >= m_options.train_steps))
        m_launch_training_done_frame = m_frame;
}

}  // namespace tx::app
