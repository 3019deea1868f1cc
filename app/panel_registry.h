// The explorer's panels, each declared once: {key, title, placement, open at start, factory}.
// make_panels, the View menu, --panel / --layout and their messages, the default layout, the
// self-test and the app tests (through --list-panels) all read this list; adding a panel is one
// entry here (and its file in panels/).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "panel.h"

namespace tx::app {

// Where the default layout puts a panel: the left column's top (Input), its bottom slot (held
// by the last open panel placed there, in list order: Lessons, when open, takes Shapes' place so
// a lesson never covers the tab it talks about), or a tab of the main area.
enum class PanelPlacement { LeftTop, LeftBottom, Tab };

class LessonsPanel;
class LookInsidePanel;
class NeuronPanel;
class PositionalPanel;
class TrainingPanel;

// The panels that the app and its self-test talk to by their own type (the lessons it drives, the
// training panel's comparison results, Look inside's sentence that lessons set), filled in as
// make_registered_panels builds them: nobody casts a Panel to find one.
struct PanelHandles {
    LessonsPanel* lessons = nullptr;
    LookInsidePanel* look_inside = nullptr;
    NeuronPanel* neuron = nullptr;
    PositionalPanel* positional = nullptr;
    TrainingPanel* training = nullptr;
};

struct PanelEntry {
    std::string key;     // --panel KEY, the settings file, the ShowPanel command
    std::string title;   // window and tab title, View menu
    PanelPlacement placement = PanelPlacement::Tab;
    bool open_at_start = true;
    std::function<std::unique_ptr<Panel>(PanelHandles&)> make;   // builds the panel, notes it in its handle if it has one
};

const std::vector<PanelEntry>& panel_registry();
std::vector<std::string> panel_keys();
// "input, steps, ... or lessons", for messages.
std::string panel_key_list();
const PanelEntry* find_panel_entry(const std::string& key);   // nullptr when unknown
// Every registered panel, built and named, open or closed as its entry says; `handles` points at
// the ones PanelHandles names.
std::vector<std::unique_ptr<Panel>> make_registered_panels(PanelHandles& handles);

}  // namespace tx::app
