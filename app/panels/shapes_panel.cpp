// Shapes panel (see shapes_panel.h). Sizes are float32: 4 bytes per value.
#include "panels/shapes_panel.h"

#include <algorithm>
#include <utility>

#include "tx/parameters.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

// "decoder.layers.1.cross_attn.q" -> "dec.1.cross_attn.q": fits the narrow left column.
std::string short_name(const std::string& name) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"encoder.layers.", "enc."}, {"decoder.layers.", "dec."}})
        if (name.rfind(from, 0) == 0) return to + name.substr(from.size());
    return name;
}

}  // namespace

ShapesPanel::ShapesPanel()
    : Panel("Every tensor of the pass with its shape: B batch, S source length, T decoder length, D = d_model, "
            "H heads, dk = D/H per head, F the FFN's hidden width (d_ff; 2/3 of it with SwiGLU), V vocabulary; G "
            "shared key/value heads and r the FFN's rank where the model has them. Attention maps are S\xC3\x97S per head in the "
            "encoder, T\xC3\x97T in the decoder's self-attention and T\xC3\x97S in cross-attention; the rest grow with "
            "length \xC3\x97 width. enc./dec. abbreviate encoder.layers./decoder.layers.") {}

std::string ShapesPanel::explanation_for(const explain::SessionView& v) const {
    if (!v.decoder_only) return explanation();
    return "Every tensor of the pass with its shape: B batch, T decoder length (BOS + prompt + continuation), D = d_model, "
           "H heads, dk = D/H per head, F the FFN's hidden width (d_ff; 2/3 of it with SwiGLU), V vocabulary; G shared "
           "key/value heads and r the FFN's rank where the model has them. A decoder-only model has no encoder and no S: its "
           "attention maps are T\xC3\x97T per head, the rest grow with length \xC3\x97 width. dec. abbreviates "
           "decoder.layers.";
}

void ShapesPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const ModelConfig& c = v.config;
    double total = 0;
    for (const auto& s : v.steps) total += static_cast<double>(s.shape.numel()) * 4.0;
    int64_t params = 0;
    try {
        params = ParameterTable(c).total();
    } catch (const std::exception&) {
    }
    // The letters of the shapes below, with the variants' own: G shared key/value heads, r the FFN's rank.
    std::string sizes = "B=" + std::to_string(v.B) + (v.decoder_only ? "" : "  S=" + std::to_string(v.S)) +
                        "  T=" + std::to_string(v.T) + "  D=" + std::to_string(c.d_model) + "  H=" + std::to_string(c.heads);
    if (c.kv_head_count() < c.heads) sizes += "  G=" + std::to_string(c.kv_head_count());
    sizes += "  dk=" + std::to_string(c.d_k()) + "  F=" + std::to_string(c.ffn_width());
    if (c.ffn_rank > 0) sizes += "  r=" + std::to_string(c.ffn_rank);
    sizes += "  V=" + std::to_string(v.vocab_size);
    ImGui::TextUnformatted(sizes.c_str());
    ImGui::TextWrapped("activations of all %zu steps: %s \xC2\xB7 parameters: %lld (%s)", v.steps.size(), format_bytes(total).c_str(),
                static_cast<long long>(params), format_bytes(static_cast<double>(params) * 4.0).c_str());
    const size_t current = v.cursor == 0 ? static_cast<size_t>(-1) : v.cursor - 1;
    const float table_h = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() - 4;
    if (ImGui::BeginTable("##shapes", 3,
                          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                              ImGuiTableFlags_SizingStretchProp,
                          ImVec2(0, std::max(table_h, 120.0f)))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        // Columns share the width in proportion to their widest text, so a name is cut only when
        // the whole table is too narrow.
        float name_w = ImGui::CalcTextSize("tensor").x, shape_w = ImGui::CalcTextSize("shape").x;
        for (const StepInfo& s : v.steps) {
            name_w = std::max(name_w, ImGui::CalcTextSize(short_name(s.name).c_str()).x);
            shape_w = std::max(shape_w, ImGui::CalcTextSize(s.shape.str().c_str()).x);
        }
        ImGui::TableSetupColumn("tensor", ImGuiTableColumnFlags_WidthStretch, name_w);
        ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch, shape_w);
        ImGui::TableSetupColumn("size", ImGuiTableColumnFlags_WidthStretch, ImGui::CalcTextSize("999.9 KiB").x);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < v.steps.size(); ++i) {
            const StepInfo& s = v.steps[i];
            ImGui::TableNextRow();
            if (i == current) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(120, 95, 25, 200));
            ImGui::TableNextColumn();
            if (!v.finished(i)) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::PushID(static_cast<int>(i));
            if (ImGui::Selectable(short_name(s.name).c_str(), i == current, ImGuiSelectableFlags_SpanAllColumns)) ctx.commands.send(RunTo{i});
            ImGui::PopID();
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s\n%s\n%lld values", s.name.c_str(), s.formula.c_str(), static_cast<long long>(s.shape.numel()));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.shape.str().c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_bytes(static_cast<double>(s.shape.numel()) * 4.0).c_str());
            if (!v.finished(i)) ImGui::PopStyleColor();
            if (i == current && m_scrolled_to != current) {
                ImGui::SetScrollHereY(0.5f);
                m_scrolled_to = current;
            }
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("Highlighted: the step just computed. Click a row to move the cursor there.");
}

}  // namespace tx::app
