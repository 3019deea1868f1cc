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

struct PanelEntry {
    std::string key;     // --panel KEY, the settings file, the ShowPanel command
    std::string title;   // window and tab title, View menu
    PanelPlacement placement = PanelPlacement::Tab;
    bool open_at_start = true;
    std::function<std::unique_ptr<Panel>()> make;
};

const std::vector<PanelEntry>& panel_registry();
std::vector<std::string> panel_keys();
// "input, steps, ... or lessons", for messages.
std::string panel_key_list();
const PanelEntry* find_panel_entry(const std::string& key);   // nullptr when unknown
// Every registered panel, built and named, open or closed as its entry says.
std::vector<std::unique_ptr<Panel>> make_registered_panels();

}  // namespace tx::app
