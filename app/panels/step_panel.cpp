// Step-through panel (see step_panel.h).
#include "panels/step_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "setting_texts.h"
#include "widgets/heatmap.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

bool same_group(const StepInfo& a, const StepInfo& b) { return a.stack == b.stack && a.layer == b.layer; }

// Labels for one dimension of a step's output, from its name: S = source tokens, T = target tokens.
std::vector<std::string> dim_labels(const explain::SessionView& v, const std::string& name, int64_t n, int row) {
    if (name == "S" && n == v.S) return v.src_labels(row);
    if (name == "T" && n == v.T) return v.tgt_labels(row);
    std::vector<std::string> labels;
    for (int64_t i = 0; i < n; ++i) labels.push_back(std::to_string(i));
    return labels;
}

struct Stats {
    float min = 0, max = 0, mean = 0, std = 0;
    int64_t masked = 0, count = 0;
};

Stats stats(const std::vector<float>& x) {
    Stats s;
    double sum = 0, sq = 0;
    s.min = std::numeric_limits<float>::infinity();
    s.max = -s.min;
    for (float v : x) {
        if (!std::isfinite(v)) {
            ++s.masked;
            continue;
        }
        ++s.count;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        sq += static_cast<double>(v) * v;
    }
    if (s.count) {
        s.mean = static_cast<float>(sum / s.count);
        s.std = static_cast<float>(std::sqrt(std::max(0.0, sq / s.count - (sum / s.count) * (sum / s.count))));
    } else {
        s.min = s.max = 0;
    }
    return s;
}

}  // namespace

StepPanel::StepPanel()
    : Panel("The forward pass is a list of named steps. Run them one at a time and look at each output: what it "
            "computes, its formula, its shape and its values. Keys: \xE2\x86\x92/Space next, \xE2\x86\x90 back, "
            "\xE2\x86\x93/\xE2\x86\x91 next/previous layer, End run to end, Home restart.") {}

void StepPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    // Controls.
    if (ImGui::Button("\xE2\x86\xBA Restart")) ctx.commands.send(Restart{});
    item_tooltip("Forget every output and start before the first step (Home).");
    ImGui::SameLine();
    if (ImGui::Button("\xE2\x86\x91 Prev layer")) ctx.commands.send(PreviousLayer{});
    ImGui::SameLine();
    if (ImGui::Button("\xE2\x86\x90 Prev step")) ctx.commands.send(StepBack{});
    ImGui::SameLine();
    if (ImGui::Button("Next step \xE2\x86\x92")) ctx.commands.send(StepForward{});
    ImGui::SameLine();
    if (ImGui::Button("Next layer \xE2\x86\x93")) ctx.commands.send(NextLayer{});
    ImGui::SameLine();
    if (ImGui::Button("Run to end \xE2\x87\xA5")) ctx.commands.send(RunToEnd{});
    ImGui::SameLine();
    ImGui::Text("%zu / %zu steps done", v.cursor, v.steps.size());
    ImGui::ProgressBar(v.steps.empty() ? 0.0f : static_cast<float>(v.cursor) / static_cast<float>(v.steps.size()), ImVec2(-1, 4), "");

    const float list_w = std::min(340.0f, ImGui::GetContentRegionAvail().x * 0.34f);
    ImGui::BeginChild("##steplist", ImVec2(list_w, 0), true);
    draw_list(ctx);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##stepdetail", ImVec2(0, 0), false);
    if (v.cursor == 0) {
        ImGui::TextWrapped("Nothing has run yet. Press \"Next step\" (or \xE2\x86\x92) to run the first step: the %s "
                           "embedding, which looks up one vector per token id and scales it by \xE2\x88\x9A" "d_model.",
                           v.decoder_only ? "decoder input's (BOS + prompt + continuation)" : "source");
        if (!v.steps.empty()) draw_detail(ctx, 0);
    } else {
        draw_detail(ctx, v.cursor - 1);
    }
    ImGui::EndChild();
}

void StepPanel::draw_list(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const size_t current = v.cursor == 0 ? static_cast<size_t>(-1) : v.cursor - 1;
    size_t i = 0;
    while (i < v.steps.size()) {
        const StepInfo& first = v.steps[i];
        size_t end = i;
        while (end < v.steps.size() && same_group(v.steps[end], first)) ++end;
        const bool holds_current = current >= i && current < end;
        const std::string header = explain::step_group_name(first, v.config) + "##g" + std::to_string(i);
        ImGui::SetNextItemOpen(true, ImGuiCond_Once);
        if (holds_current) ImGui::SetNextItemOpen(true);
        if (ImGui::TreeNodeEx(header.c_str(), ImGuiTreeNodeFlags_SpanAvailWidth)) {
            for (size_t k = i; k < end; ++k) {
                const StepInfo& s = v.steps[k];
                // Show the part after the layer prefix: "self_attn.probs" rather than the full name.
                std::string label = s.name;
                const std::string prefix = first.layer >= 0 ? (first.stack == Stack::Encoder ? "encoder" : "decoder") + std::string(".layers.") +
                                                                  std::to_string(first.layer) + "."
                                                            : std::string();
                if (!prefix.empty() && label.rfind(prefix, 0) == 0) label = label.substr(prefix.size());
                const bool done = v.finished(k);
                ImGui::PushID(static_cast<int>(k));
                if (!done) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
                const std::string text = std::string(done ? "\xE2\x9C\x93 " : "   ") + label;
                if (ImGui::Selectable(text.c_str(), k == current)) ctx.commands.send(RunTo{k});
                if (!done) ImGui::PopStyleColor();
                if (ImGui::IsItemHovered()) {
                    ImGui::BeginTooltip();
                    ImGui::TextUnformatted(s.name.c_str());
                    ImGui::PushFont(mono_font());
                    ImGui::TextUnformatted(s.formula.c_str());
                    ImGui::PopFont();
                    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
                    ImGui::TextDisabled("%s", s.explanation.c_str());
                    ImGui::PopTextWrapPos();
                    ImGui::EndTooltip();
                }
                if (k == current && m_scrolled_to != current) {
                    ImGui::SetScrollHereY(0.4f);
                    m_scrolled_to = current;
                }
                ImGui::PopID();
            }
            ImGui::TreePop();
        }
        i = end;
    }
}

void StepPanel::draw_detail(PanelContext& ctx, size_t index) {
    const explain::SessionView& v = ctx.view;
    const StepInfo& s = v.steps[index];
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%s", s.name.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("(%s \xC2\xB7 %s%s)", to_string(s.kind), to_string(s.stack),
                        s.layer >= 0 ? (" \xC2\xB7 layer " + std::to_string(s.layer)).c_str() : "");
    ImGui::PushFont(mono_font());
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(35, 38, 48, 255));
    ImGui::BeginChild("##formula", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() + 12), true);
    ImGui::TextUnformatted(s.formula.c_str());
    ImGui::EndChild();
    ImGui::PopStyleColor();
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(s.explanation.c_str());
    if (const std::string note = explain::step_toggle_note(s, v.options, v.config); !note.empty())
        ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.35f, 1.0f), "%s", note.c_str());
    if (const std::string note = explain::step_training_note(s, v.label_smoothing); !note.empty()) ImGui::TextDisabled("%s", note.c_str());
    ImGui::PopTextWrapPos();

    const std::vector<float>* out = v.output(index);
    ImGui::Text("shape %s", s.shape.str().c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("\xC2\xB7 %lld values \xC2\xB7 %s \xC2\xB7 %.3f ms", static_cast<long long>(s.shape.numel()),
                        format_bytes(static_cast<double>(s.shape.numel()) * 4.0).c_str(), s.ms);
    if (!out) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", v.missing_reason(index).c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const Stats st = stats(*out);
    ImGui::Text("min %s   max %s   mean %s   std %s", format_value(st.min).c_str(), format_value(st.max).c_str(),
                format_value(st.mean).c_str(), format_value(st.std).c_str());
    if (st.masked) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(0.7f, 0.7f, 0.75f, 1.0f), "\xC2\xB7 %lld masked (\xE2\x88\x92\xE2\x88\x9E)", static_cast<long long>(st.masked));
    }

    // Which slice: batch row, and head for per-head tensors.
    const auto& dims = s.shape.dims;
    const auto& names = s.shape.names;
    const int rank = s.shape.rank();
    if (rank < 2 || static_cast<int64_t>(out->size()) != s.shape.numel()) {
        ImGui::TextDisabled("(no matrix view for this tensor)");
        return;
    }
    const int B = static_cast<int>(dims[0]);
    int row = std::clamp(ctx.selection.batch_row, 0, std::max(0, B - 1));
    if (B > 1) {
        ImGui::SetNextItemWidth(120);
        if (ImGui::SliderInt("batch row", &row, 0, B - 1)) ctx.selection.batch_row = row;
    }
    auto name_of = [&](int i) { return i < static_cast<int>(names.size()) ? names[static_cast<size_t>(i)] : std::string(); };

    // Large vocabularies: the generator's output as the top predictions per position.
    if ((s.kind == StepKind::Generator || s.kind == StepKind::LogSoftmax) && rank == 3) {
        const int T = static_cast<int>(dims[1]), V = static_cast<int>(dims[2]);
        const auto rows = v.tgt_labels(row);
        ImGui::TextUnformatted(s.kind == StepKind::LogSoftmax ? "Most probable next tokens at each decoder position:"
                                                              : "Largest logits at each decoder position:");
        const bool probabilities = s.kind == StepKind::LogSoftmax;   // logits get no p(top 1) column
        if (ImGui::BeginTable("##top", probabilities ? 4 : 3, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY, ImVec2(0, 0))) {
            ImGui::TableSetupScrollFreeze(0, 1);
            ImGui::TableSetupColumn("pos", ImGuiTableColumnFlags_WidthFixed, 40.0f);
            ImGui::TableSetupColumn("decoder input", ImGuiTableColumnFlags_WidthFixed, 110.0f);
            ImGui::TableSetupColumn(s.kind == StepKind::LogSoftmax ? "top 5 next tokens (token: log-probability)" : "top 5 (token: logit)",
                                    ImGuiTableColumnFlags_WidthStretch);
            if (probabilities) ImGui::TableSetupColumn("p(top 1)", ImGuiTableColumnFlags_WidthFixed, 70.0f);
            ImGui::TableHeadersRow();
            for (int t = 0; t < T; ++t) {
                const float* p = out->data() + (static_cast<size_t>(row) * T + t) * V;
                std::vector<int> idx(static_cast<size_t>(V));
                for (int k = 0; k < V; ++k) idx[static_cast<size_t>(k)] = k;
                const int top = std::min(5, V);
                std::partial_sort(idx.begin(), idx.begin() + top, idx.end(), [&](int a, int b) { return p[a] > p[b]; });
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d", t);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(t < static_cast<int>(rows.size()) ? rows[static_cast<size_t>(t)].c_str() : "");
                ImGui::TableNextColumn();
                std::string text;
                for (int k = 0; k < top; ++k)
                    text += (k ? "   " : "") + v.token_text(idx[static_cast<size_t>(k)]) + ": " + format_value(p[idx[static_cast<size_t>(k)]]);
                ImGui::TextUnformatted(text.c_str());
                if (probabilities) {
                    ImGui::TableNextColumn();
                    ImGui::Text("%.3f", std::exp(p[idx[0]]));
                }
            }
            ImGui::EndTable();
        }
        return;
    }

    HeatmapSpec spec;
    spec.title = s.name;
    spec.symmetric = s.kind != StepKind::Softmax;
    spec.map = s.kind == StepKind::Softmax ? Colormap::Viridis : Colormap::Diverging;
    if (s.kind == StepKind::Softmax) {
        spec.vmin = 0.0f;
        spec.vmax = 1.0f;
    }
    if (s.per_head && rank == 4) {
        const int H = static_cast<int>(dims[1]), R = static_cast<int>(dims[2]), C = static_cast<int>(dims[3]);
        const auto rl = dim_labels(v, name_of(2), R, row);
        const auto cl = dim_labels(v, name_of(3), C, row);
        ImGui::SetNextItemWidth(160);
        std::string current = m_head < 0 ? "every head" : "head " + std::to_string(m_head);
        if (ImGui::BeginCombo("##head", current.c_str())) {
            if (ImGui::Selectable("every head", m_head < 0)) m_head = -1;
            for (int h = 0; h < H; ++h)
                if (ImGui::Selectable(("head " + std::to_string(h)).c_str(), m_head == h)) m_head = h;
            ImGui::EndCombo();
        }
        if (m_head >= H) m_head = -1;
        const bool attention_like = name_of(3) == "S" || name_of(3) == "T";
        spec.row_axis = name_of(2) == "T" ? "query (decoder position)" : name_of(2) == "S" ? "query (source position)" : name_of(2);
        spec.col_axis = attention_like ? (name_of(3) == "S" ? "key (source token)" : "key (decoder position)") : name_of(3);
        if (!attention_like) spec.row_axis = name_of(2) == "T" ? "decoder position" : "source position";
        spec.row_labels = &rl;
        spec.col_labels = &cl;
        const int first = m_head < 0 ? 0 : m_head, last = m_head < 0 ? H : m_head + 1;
        const int per_line = m_head < 0 ? std::min(H, 2) : 1;
        const float w = ImGui::GetContentRegionAvail().x / static_cast<float>(per_line) - 8;
        for (int h = first; h < last; ++h) {
            const size_t offset = ((static_cast<size_t>(row) * H + h) * R) * C;
            const std::string id = "h" + std::to_string(h);
            spec.id = id.c_str();
            spec.title = s.name + " head " + std::to_string(h);
            spec.show_title = true;
            spec.values = out->data() + offset;
            spec.version = v.version;
            spec.rows = R;
            spec.cols = C;
            spec.size = ImVec2(w, 0);
            spec.max_cell = m_head < 0 ? 30.0f : 44.0f;
            spec.max_aspect = attention_like ? 1.0f : 8.0f;   // q/k/v/context: dk columns may be narrow
            ImGui::BeginGroup();
            draw_heatmap(spec, &ctx.commands);
            ImGui::EndGroup();
            if ((h - first) % per_line != per_line - 1 && h + 1 < last) ImGui::SameLine();
        }
        return;
    }
    // [B, rows, cols] (or [B, rows]): one matrix per batch row.
    const int R = static_cast<int>(dims[1]);
    const int C = rank >= 3 ? static_cast<int>(dims[2]) : 1;
    const auto rl = dim_labels(v, name_of(1), R, row);
    const auto cl = dim_labels(v, rank >= 3 ? name_of(2) : "", C, row);
    spec.id = "m";
    spec.values = out->data() + static_cast<size_t>(row) * R * C;
    spec.version = v.version;
    spec.rows = R;
    spec.cols = C;
    spec.row_labels = &rl;
    spec.col_labels = &cl;
    spec.row_axis = name_of(1) == "T" ? "decoder position" : name_of(1) == "S" ? "source position" : name_of(1);
    spec.col_axis = rank >= 3 ? (name_of(2) == "D" ? "feature (d_model)" : name_of(2) == "F" ? "hidden unit (d_ff)" : name_of(2)) : "";
    spec.max_cell = 24.0f;
    // Positions × features: with 64..2048 feature columns, square cells would make a strip a
    // few pixels tall; let each position's row be up to max_cell tall however narrow the columns.
    spec.max_aspect = 1000.0f;
    spec.values_in_cells = C <= 16;
    draw_heatmap(spec, &ctx.commands);
}

}  // namespace tx::app
