// Positional encoding panel (see positional_panel.h). PE is the session view's positional_table,
// the same table the model adds to its embeddings.
#include "panels/positional_panel.h"

#include <algorithm>
#include <cstdio>

#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace tx::app {

PositionalPanel::PositionalPanel()
    : Panel("Attention itself ignores order, so each position p gets a fixed vector added to its embedding: "
            "PE[p,2i] = sin(p/10000^(2i/d_model)), PE[p,2i+1] = cos(\xE2\x80\xA6). Low dimensions oscillate fast, high "
            "ones slowly. For a fixed offset k, PE(p+k) is a fixed rotation of each (sin, cos) pair of PE(p); the "
            "paper hypothesised that this makes relative positions easy to attend to.") {}

void PositionalPanel::draw_content(PanelContext& ctx) {
    const SessionView& v = ctx.view;
    bool on = v.options.positional_encoding;
    // The switch acts where this model's positions enter (config "positional").
    const PositionalKind kind = v.config.positional;
    const char* label = kind == PositionalKind::Rope    ? "rotate q and k by their positions (RoPE)"
                        : kind == PositionalKind::Alibi ? "add the ALiBi distance bias to the scores"
                        : kind == PositionalKind::Learned ? "add the learned position table to the embeddings"
                                                          : "add the positional encoding to the embeddings";
    if (kind == PositionalKind::None)
        ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.35f, 1.0f), "This model has no positions (positional: none).");
    else if (ImGui::Checkbox(label, &on))
        ctx.commands.set_positional_encoding(on);
    if (kind != PositionalKind::Sinusoidal)
        ImGui::TextDisabled("This model's positions are \"%s\": the curves and matrices below show the paper's "
                            "sinusoidal code for comparison; the model does not add it.", to_string(kind));
    item_tooltip(v.decoder_only
                     ? "Off: no token's vector carries its position any more. Attention treats the keys it may see as a "
                       "set; only the causal mask still tells a position how many tokens precede it. Try it, then swap "
                       "two words of the prompt."
                     : "Off: no token's vector depends on its position any more (encoder and decoder). Attention treats its "
                       "keys as a set, so the encoder's outputs are the same vectors whatever the source word order, and the "
                       "translation cannot depend on it. Try it, then swap two words of the sentence.");
    if (!on) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.35f, 1.0f),
                           v.decoder_only ? "OFF: no positions are added; the continuation (Input panel) may change."
                                          : "OFF: the encoder now sees a bag of tokens; the decode (Input panel) may change.");
    }
    const int D = v.config.d_model;
    const int follow = std::max({v.decoder_only ? 0 : v.S, v.T, 2});
    ImGui::SetNextItemWidth(220);
    int shown = m_length > 0 ? m_length : follow;
    if (ImGui::SliderInt("positions", &shown, 2, std::max(2, v.config.max_len))) m_length = shown;
    ImGui::SameLine();
    if (ImGui::SmallButton("follow the input")) m_length = 0;
    ImGui::SameLine();
    if (v.decoder_only)
        ImGui::TextDisabled("d_model = %d, length = %d (decoder T = %d)", D, shown, v.T);
    else
        ImGui::TextDisabled("d_model = %d, length = %d (source S = %d, decoder T = %d)", D, shown, v.S, v.T);
    const int L = std::min(shown, static_cast<int>(v.positional_table.size() / std::max(D, 1)));
    if (m_cached_l != L || m_cached_d != D) {
        // The first L rows of the model's table (the slider stops at max_len).
        m_pe.assign(v.positional_table.begin(), v.positional_table.begin() + static_cast<std::ptrdiff_t>(L) * D);
        m_sim.assign(static_cast<size_t>(L) * L, 0.0f);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j) {
                double dot = 0;
                for (int d = 0; d < D; ++d) dot += static_cast<double>(m_pe[static_cast<size_t>(i * D + d)]) * m_pe[static_cast<size_t>(j * D + d)];
                m_sim[static_cast<size_t>(i * L + j)] = static_cast<float>(dot);
            }
        m_cached_l = L;
        m_cached_d = D;
    }

    // Curves.
    ImGui::TextUnformatted("dimensions:");
    for (int k = 0; k < 4; ++k) {
        ImGui::SameLine();
        ImGui::PushID(k);
        ImGui::SetNextItemWidth(90);
        ImGui::InputInt("##dim", &m_dims[k]);
        m_dims[k] = std::clamp(m_dims[k], 0, D - 1);
        ImGui::PopID();
    }
    help_marker("Even dimensions are sines, odd ones cosines; dimension pair i has wavelength 2\xCF\x80\xC2\xB7" "10000^(2i/d_model).");
    const ImU32 colours[4] = {IM_COL32(90, 170, 255, 255), IM_COL32(255, 150, 60, 255), IM_COL32(110, 210, 110, 255),
                              IM_COL32(230, 90, 200, 255)};
    std::vector<PlotSeries> series;
    for (int k = 0; k < 4; ++k) {
        PlotSeries s;
        const int d = m_dims[k];
        char name[48];
        std::snprintf(name, sizeof name, "dim %d (%s)", d, d % 2 == 0 ? "sin" : "cos");
        s.name = name;
        s.colour = colours[k];
        for (int p = 0; p < L; ++p) {
            s.x.push_back(p);
            s.y.push_back(m_pe[static_cast<size_t>(p * D + d)]);
        }
        series.push_back(std::move(s));
    }
    PlotSpec plot;
    plot.id = "curves";
    plot.title = "PE[position, dimension] over positions";
    plot.x_label = "position p";
    plot.y_label = "PE value";
    plot.y_min = -1.1;
    plot.y_max = 1.1;
    plot.size = ImVec2(0, 230);
    plot.markers = L <= 40;
    plot.integer_x = true;
    draw_plot(plot, series, &ctx.commands);

    std::vector<std::string> pos, dims;
    for (int p = 0; p < L; ++p) pos.push_back(std::to_string(p));
    for (int d = 0; d < D; ++d) dims.push_back(std::to_string(d));
    const float w = ImGui::GetContentRegionAvail().x * 0.5f - 10;
    ImGui::BeginGroup();
    HeatmapSpec pe;
    pe.id = "pe";
    pe.title = "PE matrix (positions \xC3\x97 dimensions)";
    pe.show_title = true;
    pe.values = m_pe.data();
    pe.rows = L;
    pe.cols = D;
    pe.row_labels = &pos;
    pe.col_labels = &dims;
    pe.row_axis = "position";
    pe.col_axis = "dimension";
    pe.map = Colormap::Diverging;
    pe.vmin = -1.0f;
    pe.vmax = 1.0f;
    pe.size = ImVec2(w, 0);
    pe.max_cell = 20.0f;
    pe.max_aspect = 3.0f;   // 64+ dimensions make narrow columns: taller rows keep positions readable
    pe.values_in_cells = false;
    draw_heatmap(pe, &ctx.commands);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    HeatmapSpec sim;
    sim.id = "sim";
    sim.title = "similarity PE(i)\xC2\xB7PE(j)";
    sim.show_title = true;
    sim.values = m_sim.data();
    sim.rows = L;
    sim.cols = L;
    sim.row_labels = &pos;
    sim.col_labels = &pos;
    // The colour bar starts at 0 (or below, where a distance gives a negative dot product), so the
    // colours show how far from orthogonal two codes are, not just the spread between them.
    if (!m_sim.empty()) sim.vmin = std::min(0.0f, *std::min_element(m_sim.begin(), m_sim.end()));
    sim.row_axis = "position i";
    sim.col_axis = "position j";
    sim.size = ImVec2(w, 0);
    sim.max_cell = 20.0f;
    sim.values_in_cells = false;
    sim.tooltip = [&](int r, int c, float value) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "PE(%d)\xC2\xB7PE(%d) = %.3f (|i\xE2\x88\x92j| = %d)", r, c, static_cast<double>(value), std::abs(r - c));
        return std::string(buf);
    };
    draw_heatmap(sim, &ctx.commands);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::TextDisabled("The dot product depends only on the distance |i\xE2\x88\x92j|: the bright diagonal is each position "
                        "with itself (d_model/2 for even d_model: sin\xC2\xB2 + cos\xC2\xB2 = 1 per pair). "
                        "Away from it the value falls roughly with distance, but it ripples and never reaches 0.");
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
}

}  // namespace tx::app
