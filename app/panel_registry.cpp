// The panel list (see panel_registry.h). Order = View menu order = tab order.
#include "panel_registry.h"

#include "panels/attention_panel.h"
#include "panels/backend_panel.h"
#include "panels/decoding_panel.h"
#include "panels/generate_panel.h"
#include "panels/input_panel.h"
#include "panels/lessons_panel.h"
#include "panels/look_inside_panel.h"
#include "panels/masks_panel.h"
#include "panels/model_panel.h"
#include "panels/neuron_panel.h"
#include "panels/positional_panel.h"
#include "panels/precision_panel.h"
#include "panels/shapes_panel.h"
#include "panels/step_panel.h"
#include "panels/training_panel.h"

namespace tx::app {

namespace {

template <typename P>
std::function<std::unique_ptr<Panel>(PanelHandles&)> factory() {
    return [](PanelHandles&) { return std::make_unique<P>(); };
}

// A panel with a handle: built, and noted in its PanelHandles member.
template <typename P, P* PanelHandles::*handle>
std::function<std::unique_ptr<Panel>(PanelHandles&)> factory() {
    return [](PanelHandles& handles) {
        auto panel = std::make_unique<P>();
        handles.*handle = panel.get();
        return panel;
    };
}

}  // namespace

const std::vector<PanelEntry>& panel_registry() {
    using P = PanelPlacement;
    static const std::vector<PanelEntry> entries = {
        {"input", "Input", P::LeftTop, true, factory<InputPanel>()},
        {"steps", "Step-through", P::Tab, true, factory<StepPanel>()},
        {"attention", "Attention", P::Tab, true, factory<AttentionPanel>()},
        {"masks", "Masks", P::Tab, true, factory<MasksPanel>()},
        {"positional", "Positional encoding", P::Tab, true, factory<PositionalPanel, &PanelHandles::positional>()},
        {"shapes", "Shapes", P::LeftBottom, true, factory<ShapesPanel>()},
        {"model", "Model", P::Tab, true, factory<ModelPanel>()},
        {"backend", "Backend", P::Tab, true, factory<BackendPanel>()},
        {"training", "Training", P::Tab, true, factory<TrainingPanel, &PanelHandles::training>()},
        {"decoding", "Decoding", P::Tab, true, factory<DecodingPanel>()},
        {"neuron", "Neuron view", P::Tab, true, factory<NeuronPanel, &PanelHandles::neuron>()},
        // A guided tour on request (Help or View menu, --lesson).
        {"lessons", "Lessons", P::LeftBottom, false, factory<LessonsPanel, &PanelHandles::lessons>()},
        {"generate", "Generate", P::Tab, true, factory<GeneratePanel>()},
        // Five measurements of the first sentence's run (explain/look_inside.h), computed on request.
        {"inspect", "Look inside", P::Tab, true, factory<LookInsidePanel, &PanelHandles::look_inside>()},
        // The first sentence in FP32 and in BF16 / FP16 / INT8, compared step by step (explain/precision_view.h).
        {"precision", "Precision", P::Tab, true, factory<PrecisionPanel>()},
    };
    return entries;
}

std::vector<std::string> panel_keys() {
    std::vector<std::string> keys;
    for (const PanelEntry& e : panel_registry()) keys.push_back(e.key);
    return keys;
}

std::string panel_key_list() {
    const auto keys = panel_keys();
    std::string list;
    for (size_t i = 0; i < keys.size(); ++i)
        list += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + keys[i];
    return list;
}

const PanelEntry* find_panel_entry(const std::string& key) {
    for (const PanelEntry& e : panel_registry())
        if (e.key == key) return &e;
    return nullptr;
}

std::vector<std::unique_ptr<Panel>> make_registered_panels(PanelHandles& handles) {
    std::vector<std::unique_ptr<Panel>> panels;
    for (const PanelEntry& e : panel_registry()) {
        std::unique_ptr<Panel> p = e.make(handles);
        p->set_identity(e.key, e.title);
        p->open() = e.open_at_start;
        panels.push_back(std::move(p));
    }
    return panels;
}

}  // namespace tx::app
