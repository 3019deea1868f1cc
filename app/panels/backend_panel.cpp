// Backend panel (see backend_panel.h). This binary has the CPU (Eigen) backend only.
#include "panels/backend_panel.h"

#include <map>

#include "widgets/plot.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {
constexpr const char* CUDA_REASON = "CUDA backend not built in this binary";
}

BackendPanel::BackendPanel()
    : Panel("Backend", "backend",
            "The same list of steps runs on a backend: the CPU one (Eigen) is the reference; a CUDA one runs the same "
            "ops with the same names on the GPU. Times are of the last full forward pass.") {}

void BackendPanel::draw_content(PanelContext& ctx) {
    const SessionView& v = ctx.view;
    int which = v.backend == "cuda" ? 1 : 0;
    if (ImGui::RadioButton("CPU (Eigen)", which == 0)) ctx.commands.set_backend("cpu");
    ImGui::SameLine();
    ImGui::BeginDisabled(true);
    ImGui::RadioButton("CUDA (GPU)", which == 1);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", CUDA_REASON);
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", CUDA_REASON);
    ImGui::Text("Forward pass on %s: %.3f ms for %zu steps (B=%d, S=%d, T=%d)", v.backend.c_str(), v.forward_ms, v.steps.size(),
                v.B, v.S, v.T);
    ImGui::SameLine();
    if (ImGui::SmallButton("time again")) ctx.commands.set_input(v.sentences, v.target_text);
    item_tooltip("Re-runs greedy decoding and the forward pass; times vary from run to run by a few percent.");
    ImGui::TextDisabled("With a CUDA backend, its times appear as a second bar next to the CPU's.");
    ImGui::Checkbox("group by layer", &m_by_layer);
    ImGui::Separator();

    std::vector<std::string> labels;
    PlotSeries cpu;
    cpu.name = v.backend;
    cpu.colour = IM_COL32(90, 170, 255, 255);
    int highlight = -1;
    if (m_by_layer) {
        std::string last;
        for (size_t i = 0; i < v.steps.size(); ++i) {
            const StepInfo& s = v.steps[i];
            std::string g = s.layer >= 0 ? std::string(to_string(s.stack)) + " layer " + std::to_string(s.layer)
                                         : std::string(to_string(s.stack)) + " (outside layers)";
            if (labels.empty() || g != last) {
                labels.push_back(g);
                cpu.y.push_back(0.0);
                last = g;
            }
            cpu.y.back() += s.ms;
            if (v.cursor > 0 && i == v.cursor - 1) highlight = static_cast<int>(labels.size()) - 1;
        }
    } else {
        for (size_t i = 0; i < v.steps.size(); ++i) {
            labels.push_back(v.steps[i].name);
            cpu.y.push_back(v.steps[i].ms);
        }
        if (v.cursor > 0) highlight = static_cast<int>(v.cursor) - 1;
    }
    for (size_t i = 0; i < cpu.y.size(); ++i) cpu.x.push_back(static_cast<double>(i));
    ImGui::BeginChild("##times", ImVec2(0, 0), false);
    BarSpec spec;
    spec.id = "times";
    spec.title = m_by_layer ? "time per layer (ms)" : "time per step (ms)";
    spec.value_label = "ms";
    spec.label_width = m_by_layer ? 200.0f : 330.0f;
    draw_bars(spec, labels, {cpu}, &ctx.commands, highlight);
    ImGui::EndChild();
}

}  // namespace tx::app
