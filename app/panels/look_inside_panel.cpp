// Look inside panel (see look_inside_panel.h). Grids are query/layer rows × key/position columns,
// as everywhere in the app; the numbers are explain/look_inside.h's, drawn, never recomputed here.
#include "panels/look_inside_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "widgets/heatmap.h"
#include "widgets/token_grid.h"
#include "widgets/ui.h"
#include "widgets/colormap.h"

namespace tx::app {

namespace {

std::vector<std::string> numbered(const char* prefix, int n) {
    std::vector<std::string> labels;
    for (int i = 0; i < n; ++i) labels.push_back(std::string(prefix).append(std::to_string(i)));
    return labels;
}

std::vector<float> to_floats(const std::vector<double>& values) { return {values.begin(), values.end()}; }

// "encoder.self_attn" -> "encoder self-attention output", for grid titles.
std::string patch_title(const explain::PatchGrid& g) {
    std::string where = g.stack == Stack::Encoder ? "encoder " : "decoder ";
    if (g.heads) return where + (g.point == explain::PatchPoint::CrossAttention ? "cross-attention" : "self-attention") + " heads (context, every position)";
    switch (g.point) {
        case explain::PatchPoint::SelfAttention: return where + "self-attention output";
        case explain::PatchPoint::CrossAttention: return where + "cross-attention output";
        case explain::PatchPoint::Ffn: return where + "FFN output";
        case explain::PatchPoint::Layer: return where + "layer output (residual stream)";
    }
    return g.name;
}

std::string kind_title(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::EncoderSelf: return "encoder self-attention";
        case AttentionKind::DecoderSelf: return "decoder self-attention";
        case AttentionKind::Cross: return "cross-attention (decoder \xE2\x86\x92 encoder)";
    }
    return "";
}

void warning(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, WARNING_COLOUR);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

// The clean and corrupted pieces in two aligned rows, differing pieces marked, missing ones "—".
void draw_aligned_pieces(const std::vector<std::string>& clean, const std::vector<std::string>& corrupted) {
    const int n = static_cast<int>(std::max(clean.size(), corrupted.size()));
    if (n == 0) return;
    // A long sentence scrolls sideways: three rows and room for the scroll bar.
    const bool scroll = n > 20;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | (scroll ? ImGuiTableFlags_ScrollX : 0);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float height = scroll ? 3.0f * (ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y + 1.0f) + style.ScrollbarSize + 2.0f : 0.0f;
    if (!ImGui::BeginTable("aligned", n + 1, flags, ImVec2(0, height))) return;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("position");
    for (int i = 0; i < n; ++i) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%d", i);
    }
    for (int row = 0; row < 2; ++row) {
        const auto& mine = row == 0 ? clean : corrupted;
        const auto& other = row == 0 ? corrupted : clean;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row == 0 ? "clean" : "corrupted");
        for (int i = 0; i < n; ++i) {
            ImGui::TableNextColumn();
            const size_t k = static_cast<size_t>(i);
            if (k >= mine.size()) {
                ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "\xE2\x80\x94");
            } else if (k >= other.size() || other[k] != mine[k]) {
                ImGui::TextColored(WARNING_COLOUR, "%s", mine[k].c_str());
            } else {
                ImGui::TextUnformatted(mine[k].c_str());
            }
        }
    }
    ImGui::EndTable();
}

// A grid as a heatmap in the current table cell (or the full width), its title above.
HeatmapResult grid_heatmap(const char* id, const std::string& title, const std::vector<float>& values, int rows, int cols,
                           const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                           const std::string& row_axis, const std::string& col_axis, Colormap map, float vmin, float vmax,
                           std::function<std::string(int, int, float)> tooltip, CommandSink* commands, float max_cell = 36.0f,
                           bool values_in_cells = true, bool fixed_max = true) {
    ImGui::TextUnformatted(title.c_str());
    HeatmapSpec spec;
    spec.id = id;
    spec.values = values.data();
    spec.rows = rows;
    spec.cols = cols;
    spec.row_labels = &row_labels;
    spec.col_labels = &col_labels;
    spec.row_axis = row_axis;
    spec.col_axis = col_axis;
    spec.title = title;
    spec.map = map;
    spec.vmin = vmin;
    if (fixed_max) spec.vmax = vmax;
    spec.values_in_cells = values_in_cells;
    spec.max_cell = max_cell;
    spec.tooltip = std::move(tooltip);
    return draw_heatmap(spec, commands);
}

}  // namespace

LookInsidePanel::LookInsidePanel()
    : Panel("Five measurements of the first sentence's run, on a private copy of the model: what each decoder layer "
            "would predict (logit lens), what restores a changed sentence's output (activation patching), what the "
            "output loses without each head (head importance), where attention moves information (rollout, entropy) "
            "and what each part writes into the chosen token's logit (attribution). None of them says why the model "
            "translated as it did: attention is not explanation, and a patch or an ablation is evidence about this "
            "sentence and this metric, not a proof of a mechanism. Each tab says what its view does not show.") {}

std::string LookInsidePanel::explanation_for(const explain::SessionView& v) const {
    if (!v.decoder_only) return explanation();
    return "Five measurements of the first prompt's run, on a private copy of the model. A decoder-only model has no "
           "encoder and no cross-attention: patching changes the prompt, rollout runs over the causal self-attention, "
           "and there is no decoder-over-source rollout. Attention is not explanation: each view is evidence about this "
           "prompt and this metric, not a proof of a mechanism.";
}

void LookInsidePanel::sync_edits(const PatchingSettings& settings) {
    if (m_synced && *m_synced == settings) return;
    // The settings changed by a command (a lesson, --corrupt, Enter here): the fields show them.
    std::snprintf(m_corrupted_edit, sizeof m_corrupted_edit, "%s", settings.corrupted.c_str());
    m_metric_mode = settings.metric_token.empty() ? 0 : settings.metric_versus.empty() ? 1 : 2;
    m_metric_position_edit = std::max(settings.metric_position, 0);
    std::snprintf(m_token_edit, sizeof m_token_edit, "%s", settings.metric_token.c_str());
    std::snprintf(m_versus_edit, sizeof m_versus_edit, "%s", settings.metric_versus.c_str());
    m_synced = settings;
}

bool LookInsidePanel::select_view(const std::string& key) {
    for (int i = 0; i < static_cast<int>(std::size(VIEWS)); ++i)
        if (key == VIEWS[i]) {
            m_select_tab = i;
            return true;
        }
    return false;
}

PatchingSettings LookInsidePanel::edited_settings() const {
    PatchingSettings s;
    s.corrupted = m_corrupted_edit;
    s.metric_position = m_metric_mode == 0 ? -1 : m_metric_position_edit;
    s.metric_token = m_metric_mode == 0 ? "" : m_token_edit;
    s.metric_versus = m_metric_mode == 2 ? m_versus_edit : "";
    return s;
}

bool LookInsidePanel::open_head(CommandSink& commands, const explain::SessionView& v, AttentionKind kind, int layer, int head) {
    for (const AttentionBlock& a : v.attention)
        if (a.kind == kind && a.layer == layer && a.probs < v.steps.size()) {
            commands.send(GoToStep{v.steps[a.probs].name});
            commands.send(SelectAttention{a.prefix, head});
            commands.send(ShowPanel{"attention"});
            return true;
        }
    return false;
}

void LookInsidePanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (v.sentences.empty() || v.sentences.front().empty()) {
        ImGui::TextUnformatted("Type a sentence in the Input panel to look inside its run.");
        return;
    }
    sync_edits(ctx.patching);
    const std::shared_ptr<const explain::LookInside> result = v.look_inside;
    if (!v.look_inside_current && !v.look_inside_computing) ctx.commands.send(ComputeLookInside{});
    // What these views leave out of the Session's current settings.
    std::string differs;
    if (!v.options.causal_mask || !v.options.padding_mask || !v.options.positional_encoding)
        differs += "the Masks / Positional toggles are off in the explorer, but these views run the model as trained. ";
    if (!v.options.disabled_heads.empty()) differs += "Heads switched off in the explorer are on here. ";
    if (v.beam_size > 1) differs += "The decoder input here is the greedy output, not beam search's. ";
    if (v.B > 1) differs += "Only the first sentence is looked at. ";
    if (!differs.empty()) disabled_paragraph("Note: " + differs);
    if (!result) {
        ImGui::TextUnformatted("Computing the views (a few seconds on the everyday model)\xE2\x80\xA6");
        return;
    }
    if (!v.look_inside_current) ImGui::TextDisabled("Computing for the new settings\xE2\x80\xA6 (showing the previous result)");
    const explain::LookInside& r = *result;
    if (!r.error.empty()) {
        warning("Cannot look inside this input: " + r.error);
        return;
    }
    ImGui::TextDisabled("decoder input: %zu positions; computed in %.2f s", r.target_tokens.size(), r.seconds);
    if (!ImGui::BeginTabBar("##look_inside_views")) return;
    const char* titles[] = {"Logit lens", "Activation patching", "Head importance", "Attention rollout", "Attention entropy",
                            "Logit attribution"};
    static_assert(std::size(titles) == std::size(VIEWS));
    for (int i = 0; i < static_cast<int>(std::size(titles)); ++i) {
        const ImGuiTabItemFlags flags = m_select_tab == i ? ImGuiTabItemFlags_SetSelected : 0;
        if (!ImGui::BeginTabItem(titles[i], nullptr, flags)) continue;
        ImGui::BeginChild("##view", ImVec2(0, 0), false);
        switch (i) {
            case 0: draw_lens(r); break;
            case 1: draw_patching(ctx, r); break;
            case 2: draw_heads(ctx, r); break;
            case 3: draw_rollout(r); break;
            case 4: draw_entropy(r); break;
            default: draw_attribution(r); break;
        }
        ImGui::EndChild();
        ImGui::EndTabItem();
    }
    m_select_tab = -1;
    ImGui::EndTabBar();
}

// ---------------------------------------------------------------------------------------------
// Logit lens: layers × positions, each cell the read-out's top token on p(finally chosen token).

void LookInsidePanel::draw_lens(const explain::LookInside& r) {
    const explain::LogitLens& lens = r.lens;
    disabled_paragraph("Each decoder layer's output (rows) at each decoder position (columns) is read out as if it were the last "
              "layer's: through " + lens.readout + ". A cell shows the read-out's most probable next token; its colour is "
              "the probability it gives the token the model finally chose at that position, so the last row is the model's "
              "own output. It does not prove that an early layer \"knows\" the answer: only the last layer was trained to be read this "
              "way, and an early token may be a by-product of the read-out. Hover a cell for the top 5.");
    if (!lens.error.empty()) {
        warning("No logit lens: " + lens.error);
        return;
    }
    ImGui::Checkbox("log scale", &m_lens_log_scale);
    ImGui::SameLine();
    help_marker("Earlier layers' read-outs are often nearly flat: their top token may have p = 0.003 and look as dark as "
                "p = 0.0002. The log scale colours log10 p from \xE2\x88\x92" "4 (p = 0.0001 and below) to 0 (p = 1).");
    std::vector<std::string> texts, rows, cols;
    std::vector<float> colour;
    for (int l = 0; l < lens.layers; ++l) {
        rows.push_back("layer " + std::to_string(l));
        for (int t = 0; t < lens.positions; ++t) {
            const explain::LensCell& c = lens.cells[static_cast<size_t>(l) * lens.positions + t];
            texts.push_back(c.top.empty() ? "" : r.lens_token(c.top.front()));
            const float p = std::exp(c.chosen_log_prob);
            colour.push_back(m_lens_log_scale ? std::clamp((std::log10(std::max(p, 1e-30f)) + 4.0f) / 4.0f, 0.0f, 1.0f) : p);
        }
    }
    for (int t = 0; t < lens.positions; ++t) cols.push_back(std::to_string(t) + " " + lens.position_tokens[static_cast<size_t>(t)]);
    TokenGridSpec spec;
    spec.id = "lens";
    spec.rows = lens.layers;
    spec.cols = lens.positions;
    spec.texts = &texts;
    spec.colour = &colour;
    spec.row_labels = &rows;
    spec.col_labels = &cols;
    spec.row_axis = "decoder layer (last = the model's output)";
    spec.col_axis = "decoder position and its input token";
    spec.colour_meaning = m_lens_log_scale ? "log10 p(the token finally chosen at that position), \xE2\x88\x92" "4 to 0"
                                           : "p(the token finally chosen at that position), 0 to 1";
    if (m_lens_log_scale) spec.bottom_label = "0.0001";
    spec.tooltip = [&](int l, int t) {
        const explain::LensCell& c = lens.cells[static_cast<size_t>(l) * lens.positions + t];
        ImGui::Text("layer %d, position %d (input %s)", l, t, lens.position_tokens[static_cast<size_t>(t)].c_str());
        ImGui::Text("finally chosen: %s, p = %.4g here", r.lens_token(lens.chosen[static_cast<size_t>(t)]).c_str(),
                    std::exp(c.chosen_log_prob));
        ImGui::Separator();
        for (size_t k = 0; k < c.top.size(); ++k)
            ImGui::Text("%zu. %-16s p = %.4g", k + 1, r.lens_token(c.top[k]).c_str(), std::exp(c.top_log_probs[k]));
    };
    draw_token_grid(spec);
}

// ---------------------------------------------------------------------------------------------
// Activation patching: the corrupted sentence, the metric, the grids (0 = corrupted, 1 = clean).

void LookInsidePanel::draw_patch_settings(PanelContext& ctx, const explain::LookInside& r) {
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x - 120.0f, 720.0f));
    bool commit = ImGui::InputTextWithHint("corrupted sentence", "the first sentence with a word or two changed",
                                           m_corrupted_edit, sizeof m_corrupted_edit, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::RadioButton("automatic metric", &m_metric_mode, 0);
    ImGui::SameLine();
    ImGui::RadioButton("log p(token) at a position", &m_metric_mode, 1);
    ImGui::SameLine();
    ImGui::RadioButton("log p(token) \xE2\x88\x92 log p(versus)", &m_metric_mode, 2);
    ImGui::SameLine();
    help_marker("Automatic: the first decoder position where the clean and the corrupted run's most probable tokens "
                "differ, measuring log p(clean's token) \xE2\x88\x92 log p(corrupted's token) there. A token is a piece as "
                "shown (\xE2\x96\x81" "cansado), a word (cansado, found as its word-start piece) or #id.");
    if (m_metric_mode != 0) {
        const int T = static_cast<int>(r.target_tokens.size());
        m_metric_position_edit = std::clamp(m_metric_position_edit, 0, std::max(0, T - 1));
        ImGui::SetNextItemWidth(260.0f);
        const auto label = [&](int t) {
            std::string s = "position " + std::to_string(t) + " (input " + r.target_tokens[static_cast<size_t>(t)] + ")";
            if (r.lens.error.empty() && t < static_cast<int>(r.lens.chosen.size()))
                s += " \xE2\x86\x92 " + r.lens_token(r.lens.chosen[static_cast<size_t>(t)]);
            return s;
        };
        if (T > 0 && ImGui::BeginCombo("position", label(m_metric_position_edit).c_str())) {
            for (int t = 0; t < T; ++t)
                if (ImGui::Selectable(label(t).c_str(), t == m_metric_position_edit)) m_metric_position_edit = t;
            ImGui::EndCombo();
        }
        ImGui::SameLine();
        ImGui::SetNextItemWidth(140.0f);
        commit |= ImGui::InputText("token", m_token_edit, sizeof m_token_edit, ImGuiInputTextFlags_EnterReturnsTrue);
        if (m_metric_mode == 2) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(140.0f);
            commit |= ImGui::InputText("versus", m_versus_edit, sizeof m_versus_edit, ImGuiInputTextFlags_EnterReturnsTrue);
        }
    }
    const bool computing = ctx.view.look_inside_computing;
    if (computing) ImGui::BeginDisabled();
    commit |= ImGui::Button("Compute");
    if (computing) ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled(computing ? "computing\xE2\x80\xA6" : "the patching grids take about 1.5 s on the everyday model (500 patches)");
    if (commit && !computing) ctx.commands.send(SetPatching{edited_settings()});
}

void LookInsidePanel::draw_patching(PanelContext& ctx, const explain::LookInside& r) {
    const explain::ActivationPatching& p = r.patching;
    disabled_paragraph(std::string(r.decoder_only ? "The corrupted prompt, as many pieces long as the clean one, is followed by the clean "
                                           "run's continuation. "
                                         : "The corrupted sentence (as many pieces as the clean one) runs with the clean run's "
                                           "decoder input. ") +
              "It is then re-run with one activation copied from the clean run, from that point on: a sublayer's output "
              "(before the residual addition) or the layer's output at one position, or one head's context at every "
              "position. A cell is (patched \xE2\x88\x92 corrupted) / (clean \xE2\x88\x92 corrupted) of the metric: 0 = still "
              "corrupted, 1 = fully restored. A high cell shows that this activation carries, on this pair, what the "
              "metric needs; a low one does not show that it is unused (the information may be carried redundantly "
              "elsewhere), and the result depends on the corruption chosen.");
    draw_patch_settings(ctx, r);
    if (!p.clean_tokens.empty() || !p.corrupted_tokens.empty()) draw_aligned_pieces(p.clean_tokens, p.corrupted_tokens);
    if (!p.error.empty()) {
        warning(r.request.corrupted.empty() ? "Type a corrupted sentence above and press Enter: the first sentence with a word or two "
                                      "changed, with as many pieces."
                                    : "No patching: " + p.error);
        return;
    }
    const int at = p.metric.position;
    const std::string input = at >= 0 && at < static_cast<int>(r.target_tokens.size()) ? r.target_tokens[static_cast<size_t>(at)] : "?";
    ImGui::Text("metric: %s (the prediction after %s); clean run %.3f, corrupted run %.3f", p.metric_text.c_str(), input.c_str(),
                p.clean, p.corrupted);
    if (!p.note.empty()) warning(p.note);
    const std::vector<std::string> source_cols = r.source_tokens, target_cols = r.target_tokens;
    const auto draw_group = [&](const char* table_id, auto keep, int columns) {
        std::vector<const explain::PatchGrid*> grids;
        for (const explain::PatchGrid& g : p.grids)
            if (keep(g)) grids.push_back(&g);
        if (grids.empty()) return;
        if (!ImGui::BeginTable(table_id, columns, ImGuiTableFlags_SizingStretchSame)) return;
        for (const explain::PatchGrid* g : grids) {
            ImGui::TableNextColumn();
            ImGui::PushID(g->name.c_str());
            const std::vector<std::string> rows = numbered("layer ", g->rows);
            const std::vector<std::string> cols = g->heads ? numbered("h", g->cols) : g->stack == Stack::Encoder ? source_cols : target_cols;
            const std::vector<float> values = to_floats(g->normalised);
            const std::vector<double>& metric = g->metric;
            const bool heads = g->heads;
            grid_heatmap("grid", patch_title(*g), values, g->rows, g->cols, rows, cols, "layer",
                         heads ? "head" : g->stack == Stack::Encoder ? "source position" : "decoder position",
                         Colormap::Viridis, 0.0f, 1.0f,
                         [&, heads](int row, int col, float value) {
                             char buf[200];
                             std::snprintf(buf, sizeof buf, "layer %d, %s %s: restored %.3f (metric %.3f; 0 = corrupted, 1 = clean)",
                                           row, heads ? "head" : "position",
                                           heads ? std::to_string(col).c_str() : cols[static_cast<size_t>(col)].c_str(), value,
                                           metric[static_cast<size_t>(row) * cols.size() + col]);
                             return std::string(buf);
                         },
                         &ctx.commands, 30.0f);
            ImGui::PopID();
        }
        ImGui::EndTable();
    };
    ImGui::Separator();
    ImGui::TextUnformatted("Patched at one position: layers \xC3\x97 positions per sublayer");
    draw_group("encoder_grids", [](const explain::PatchGrid& g) { return !g.heads && g.stack == Stack::Encoder; }, 3);
    draw_group("decoder_grids", [](const explain::PatchGrid& g) { return !g.heads && g.stack == Stack::Decoder; }, 4);
    ImGui::Separator();
    ImGui::TextUnformatted("Patched per head at every position: layers \xC3\x97 heads per attention kind");
    draw_group("head_grids", [](const explain::PatchGrid& g) { return g.heads; }, 3);
}

// ---------------------------------------------------------------------------------------------
// Head importance: layers × heads per attention kind; a click opens the head in the Attention panel.

void LookInsidePanel::draw_heads(PanelContext& ctx, const explain::LookInside& r) {
    const explain::HeadImportance& h = r.heads;
    disabled_paragraph("Each head in turn is switched off (its context zeroed, as the Attention panel's head switches do) and the change "
              "in " + (h.metric_text.empty() ? std::string("the log-probability of the tokens the model chose") : h.metric_text) +
              " is shown: negative (blue) = the output got less likely without the head. Click a cell to open that head in "
              "the Attention panel. Zeroing is not neutral (the next layers never saw a silent head in training), and heads "
              "can stand in for each other, so two heads that each look unimportant may matter together.");
    if (!h.error.empty()) {
        warning("No head importance: " + h.error);
        return;
    }
    // One colour range for every grid, so that colours compare across attention kinds.
    float range = 1e-9f;
    const explain::HeadGrid* top_grid = nullptr;
    size_t top_cell = 0;
    for (const explain::HeadGrid& g : h.grids)
        for (size_t i = 0; i < g.delta.size(); ++i)
            if (std::fabs(static_cast<float>(g.delta[i])) > range) {
                range = std::fabs(static_cast<float>(g.delta[i]));
                top_grid = &g;
                top_cell = i;
            }
    ImGui::Text("with every head on: %.3f (the whole output's probability %.3f)", h.intact, std::exp(h.intact));
    if (top_grid)
        ImGui::Text("largest change: %s layer %zu head %zu off, %+.4f", kind_title(top_grid->kind).c_str(),
                    top_cell / static_cast<size_t>(top_grid->heads), top_cell % static_cast<size_t>(top_grid->heads),
                    top_grid->delta[top_cell]);
    if (!ImGui::BeginTable("head_grids", static_cast<int>(std::max<size_t>(1, h.grids.size())), ImGuiTableFlags_SizingStretchSame)) return;
    for (const explain::HeadGrid& g : h.grids) {
        ImGui::TableNextColumn();
        ImGui::PushID(g.name.c_str());
        const std::vector<float> values = to_floats(g.delta);
        const AttentionKind kind = g.kind;
        const HeatmapResult hit = grid_heatmap(
            "grid", kind_title(kind), values, g.layers, g.heads, numbered("layer ", g.layers), numbered("h", g.heads), "layer",
            "head", Colormap::Diverging, -range, range,
            [kind](int layer, int head, float value) {
                char buf[200];
                std::snprintf(buf, sizeof buf, "%s layer %d head %d off: %+.5f\nclick: open it in the Attention panel",
                              kind_title(kind).c_str(), layer, head, value);
                return std::string(buf);
            },
            &ctx.commands, 36.0f, false);
        if (hit.clicked && hit.row >= 0 && hit.col >= 0) open_head(ctx.commands, ctx.view, kind, hit.row, hit.col);
        ImGui::PopID();
    }
    ImGui::EndTable();
}

// ---------------------------------------------------------------------------------------------
// Rollout (source × source, and decoder positions over source tokens); per-head entropy.

void LookInsidePanel::draw_rollout(const explain::LookInside& r) {
    const explain::AttentionRollout& ro = r.rollout;
    disabled_paragraph("Rollout averages each " + (ro.stack.empty() ? std::string("self-attention") : ro.stack) + " layer over its "
              "heads (A), adds the residual connection as 0.5\xC2\xB7" "A + 0.5\xC2\xB7I with rows renormalised, and multiplies "
              "the layers: how much each position's state (rows) draws on each input token (columns) if attention were the "
              "only thing that moved information between positions; the values' sizes, the FFNs and the norms are ignored. " +
              std::string(r.decoder_only ? "A decoder-only model rolls out its causal self-attention; it has no cross-attention. "
                                         : "Decoder positions over source tokens multiply each decoder layer's head-averaged "
                                           "cross-attention by the encoder rollout: our extension, with no identity term and "
                                           "without the decoder's own self-attention. ") +
              "Attention is not explanation: it says where heads read from, not how much that mattered.");
    if (!ro.error.empty()) {
        warning("No rollout: " + ro.error);
    } else if (ro.layers > 0) {
        const int N = ro.positions;
        m_rollout_layer = std::clamp(m_rollout_layer < 0 ? ro.layers - 1 : m_rollout_layer, 0, ro.layers - 1);
        if (!ImGui::BeginTable("rollout", ro.cross_layers > 0 ? 2 : 1, ImGuiTableFlags_SizingStretchSame)) return;
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(200.0f);
        ImGui::SliderInt("after layer##roll", &m_rollout_layer, 0, ro.layers - 1);
        const size_t offset = static_cast<size_t>(m_rollout_layer) * N * N;
        const std::vector<float> values(ro.per_layer.begin() + static_cast<std::ptrdiff_t>(offset),
                                        ro.per_layer.begin() + static_cast<std::ptrdiff_t>(offset + static_cast<size_t>(N) * N));
        grid_heatmap("rollout", ro.stack + " rollout, layers 0 to " + std::to_string(m_rollout_layer), values, N, N, ro.tokens,
                     ro.tokens, "position (query)", "input token (key)", Colormap::Viridis, 0.0f, 1.0f, nullptr, nullptr, 24.0f, true, false);
        if (ro.cross_layers > 0) {
            ImGui::TableNextColumn();
            const int T = ro.target_positions, S = N;
            m_cross_layer = std::clamp(m_cross_layer < 0 ? ro.cross_layers - 1 : m_cross_layer, 0, ro.cross_layers - 1);
            ImGui::SetNextItemWidth(200.0f);
            ImGui::SliderInt("decoder layer##cross", &m_cross_layer, 0, ro.cross_layers - 1);
            const size_t at = static_cast<size_t>(m_cross_layer) * T * S;
            const std::vector<float> cross(ro.cross.begin() + static_cast<std::ptrdiff_t>(at),
                                           ro.cross.begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(T) * S));
            grid_heatmap("cross", "decoder layer " + std::to_string(m_cross_layer) + " cross-attention \xC3\x97 encoder rollout",
                         cross, T, S, ro.target_tokens, ro.tokens, "decoder position (query)", "source token (key)",
                         Colormap::Viridis, 0.0f, 1.0f, nullptr, nullptr, 24.0f, true, false);
        }
        ImGui::EndTable();
    }
}

void LookInsidePanel::draw_entropy(const explain::LookInside& r) {
    const explain::AttentionEntropy& e = r.entropy;
    disabled_paragraph("Entropy: each head's \xE2\x88\x92\xCE\xA3 p\xC2\xB7ln p per query row in nats, averaged over the rows, against the "
              "uniform maximum ln(keys the row may see) averaged the same way (masked keys do not count). A low entropy means a "
              "sharp head, not an important one.");
    if (!e.error.empty()) {
        warning("No entropy: " + e.error);
        return;
    }
    if (!ImGui::BeginTable("entropy", static_cast<int>(std::max<size_t>(1, e.grids.size())), ImGuiTableFlags_SizingStretchSame)) return;
    for (const explain::EntropyGrid& g : e.grids) {
        ImGui::TableNextColumn();
        ImGui::PushID(g.name.c_str());
        const std::vector<float> values = to_floats(g.entropy);
        char title[160];
        std::snprintf(title, sizeof title, "%s (uniform: %.2f nats)", kind_title(g.kind).c_str(), g.max_entropy);
        const double max_entropy = g.max_entropy;
        grid_heatmap("grid", title, values, g.layers, g.heads, numbered("layer ", g.layers), numbered("h", g.heads), "layer", "head",
                     Colormap::Viridis, 0.0f, static_cast<float>(std::max(max_entropy, 1e-6)),
                     [max_entropy](int layer, int head, float value) {
                         char buf[160];
                         std::snprintf(buf, sizeof buf, "layer %d head %d: %.3f nats of at most %.3f (uniform)", layer, head, value,
                                       max_entropy);
                         return std::string(buf);
                     },
                     nullptr);
        ImGui::PopID();
    }
    ImGui::EndTable();
}

// ---------------------------------------------------------------------------------------------
// Direct logit attribution: one bar per part, the remainder, and their sum against the logit.

void LookInsidePanel::draw_attribution(const explain::LookInside& r) {
    disabled_paragraph(std::string("The chosen token's logit at one position is split into what each part wrote into the residual "
                          "stream: each head's context through its slice of W_O, each FFN's output, the embeddings. The norms "
                          "on the way to the generator are treated as linear at this point (each divides by the \xCF\x83 the "
                          "forward computed). The remainder is the biases no part owns (attention b_O, the norms' and the "
                          "generator's); parts + remainder = the logit. ") +
              "What is split for this model is said below the total. \"Direct\" means only the path straight to the logit: a head that matters by changing what later heads do "
              "scores nothing here.");
    const int T = static_cast<int>(r.attribution.size());
    if (T == 0) return;
    int position = m_attribution_position;
    if (position < 0) position = r.patching.error.empty() && r.patching.metric.position >= 0 ? r.patching.metric.position : T - 1;
    position = std::clamp(position, 0, T - 1);
    const auto label = [&](int t) {
        const explain::LogitAttribution& a = r.attribution[static_cast<size_t>(t)];
        return "position " + std::to_string(t) + " (input " + r.target_tokens[static_cast<size_t>(t)] + ")" +
               (a.error.empty() ? " \xE2\x86\x92 " + a.token_text : "");
    };
    ImGui::SetNextItemWidth(340.0f);
    if (ImGui::BeginCombo("position##attr", label(position).c_str())) {
        for (int t = 0; t < T; ++t)
            if (ImGui::Selectable(label(t).c_str(), t == position)) m_attribution_position = t;
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::Checkbox("largest first", &m_attribution_sorted);
    const explain::LogitAttribution& a = r.attribution[static_cast<size_t>(position)];
    if (!a.error.empty()) {
        warning("No attribution: " + a.error);
        return;
    }
    double sum = 0.0;
    for (const explain::Contribution& c : a.parts) sum += c.value;
    ImGui::Text("logit of %s at position %d = %.3f;  \xCE\xA3 %zu parts %.3f + remainder %.3f = %.3f", a.token_text.c_str(),
                a.position, a.logit, a.parts.size(), sum, a.remainder, sum + a.remainder);
    if (!a.method.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(a.method.c_str());
        ImGui::PopTextWrapPos();
    }
    struct Row {
        std::string name;
        double value;
        bool remainder;
    };
    std::vector<Row> rows;
    for (const explain::Contribution& c : a.parts) rows.push_back({c.name, c.value, false});
    if (m_attribution_sorted)
        std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return std::fabs(x.value) > std::fabs(y.value); });
    rows.push_back({"remainder (biases no part owns)", a.remainder, true});
    double range = 1e-9;
    for (const Row& row : rows) range = std::max(range, std::fabs(row.value));
    ImGui::BeginChild("##bars", ImVec2(0, 0), true);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float name_w = 300.0f, value_w = 70.0f, row_h = ImGui::GetTextLineHeight() + 4.0f;
    const float bar_w = std::max(120.0f, ImGui::GetContentRegionAvail().x - name_w - value_w);
    for (const Row& row : rows) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        dl->AddText(at, ImGui::GetColorU32(row.remainder ? ImGuiCol_TextDisabled : ImGuiCol_Text), fit_text(row.name, name_w - 8.0f).c_str());
        const float zero = at.x + name_w + bar_w * 0.5f;
        const float len = static_cast<float>(row.value / range) * bar_w * 0.5f;
        const ImU32 fill = row.remainder ? IM_COL32(150, 150, 150, 255) : row.value >= 0 ? IM_COL32(90, 170, 250, 255) : IM_COL32(245, 130, 80, 255);
        dl->AddRectFilled(ImVec2(std::min(zero, zero + len), at.y + 2.0f), ImVec2(std::max(zero, zero + len), at.y + row_h - 2.0f), fill);
        dl->AddLine(ImVec2(zero, at.y), ImVec2(zero, at.y + row_h), IM_COL32(200, 200, 200, 160));
        char value[32];
        std::snprintf(value, sizeof value, "%+.3f", row.value);
        dl->AddText(ImVec2(at.x + name_w + bar_w + 6.0f, at.y), ImGui::GetColorU32(ImGuiCol_Text), value);
        ImGui::Dummy(ImVec2(name_w + bar_w + value_w, row_h));
    }
    ImGui::EndChild();
}

}  // namespace tx::app
