// Settings handler (see settings.h). Values are one per line, key=value; sentences repeat.
// The lesson progress is three lines: lessons_done=KEY,KEY… lesson_current=KEY lesson_offered=0|1.
#include "settings.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "explorer_app.h"
#include "imgui_internal.h"
#include "panels/lessons_panel.h"

namespace tx::app {

namespace {

void* read_open(ImGuiContext*, ImGuiSettingsHandler* handler, const char* name) {
    auto* app = static_cast<ExplorerApp*>(handler->UserData);
    if (std::strcmp(name, "Settings") != 0) return nullptr;
    app->workbench().remembered().sentences.clear();
    return app;
}

void read_line(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
    auto* app = static_cast<ExplorerApp*>(entry);
    const std::string l = line;
    const size_t eq = l.find('=');
    if (eq == std::string::npos) return;
    const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
    auto& s = app->settings();
    auto& remembered = app->workbench().remembered();
    s.loaded = true;
    if (key == "layout" && (value == "default" || value == "windows")) s.layout = value;
    else if (key == "export_dir" && !value.empty()) remembered.export_dir = value;
    else if (key == "sentence" && !value.empty() && remembered.sentences.size() < 4) remembered.sentences.push_back(value);
    else if (key == "quiz_seed" && !value.empty()) s.quiz_seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "lessons_done") s.lessons.done = explain::decode_done(value);
    else if (key == "lesson_current") s.lessons.current = value;
    else if (key == "lesson_offered") s.lessons.offered = value == "1";
    else if (key.rfind("panel.", 0) == 0) s.panels_open.emplace_back(key.substr(6), value == "1");
}

void write_all(ImGuiContext*, ImGuiSettingsHandler* handler, ImGuiTextBuffer* out) {
    auto* app = static_cast<ExplorerApp*>(handler->UserData);
    const auto& s = app->settings();
    const auto& remembered = app->workbench().remembered();
    out->appendf("[%s][Settings]\n", handler->TypeName);
    out->appendf("layout=%s\n", s.layout.c_str());
    out->appendf("export_dir=%s\n", remembered.export_dir.c_str());
    out->appendf("quiz_seed=%llu\n", static_cast<unsigned long long>(s.quiz_seed));
    // The Lessons panel holds the live progress; the settings' copy is what was read at start.
    const LessonsPanel* lessons = app->panel_handles().lessons;
    const explain::LessonProgress progress = lessons ? lessons->progress() : s.lessons;
    out->appendf("lessons_done=%s\n", explain::encode_done(progress.done).c_str());
    out->appendf("lesson_current=%s\n", progress.current.c_str());
    out->appendf("lesson_offered=%d\n", progress.offered ? 1 : 0);
    for (const auto& sentence : remembered.sentences) {
        std::string one_line = sentence;
        for (char& c : one_line)
            if (c == '\n' || c == '\r') c = ' ';
        out->appendf("sentence=%s\n", one_line.c_str());
    }
    for (const auto& p : app->panels()) out->appendf("panel.%s=%d\n", p->key().c_str(), p->open() ? 1 : 0);
    out->append("\n");
}

}  // namespace

void register_settings_handler(ExplorerApp& app) {
    ImGuiSettingsHandler handler;
    handler.TypeName = "TransformerExplorer";
    handler.TypeHash = ImHashStr("TransformerExplorer");
    handler.ReadOpenFn = read_open;
    handler.ReadLineFn = read_line;
    handler.WriteAllFn = write_all;
    handler.UserData = &app;
    ImGui::GetCurrentContext()->SettingsHandlers.push_back(handler);
}

}  // namespace tx::app
