// The app's own lines in imgui.ini ([TransformerExplorer][Settings]): layout, open panels,
// export folder, the last sentences, the quiz seed and the lesson progress, through ImGui's
// settings-handler mechanism.
#pragma once

namespace tx::app {

class ExplorerApp;
void register_settings_handler(ExplorerApp& app);

}  // namespace tx::app
