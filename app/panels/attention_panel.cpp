// Attention panel (see attention_panel.h). Rows are queries (the positions that look), columns
// are keys (the positions looked at); each row of probabilities sums to 1 (eval mode, no dropout).
#include "panels/attention_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "setting_texts.h"
#include "widgets/attention_lines.h"
#include "widgets/heatmap.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

struct Axes {
    std::vector<std::string> rows, cols;
    std::string row_axis, col_axis;
};

Axes axes_of(const explain::SessionView& v, const AttentionBlock& a, int row) {
    Axes x;
    const bool dec_rows = a.kind != AttentionKind::EncoderSelf;
    const bool dec_cols = a.kind == AttentionKind::DecoderSelf;
    x.rows = dec_rows ? v.tgt_labels(row) : v.src_labels(row);
    x.cols = dec_cols ? v.tgt_labels(row) : v.src_labels(row);
    x.row_axis = dec_rows ? "query (decoder position)" : "query (source token)";
    x.col_axis = dec_cols ? "key (decoder position)" : "key (source token)";
    return x;
}

}  // namespace

AttentionPanel::AttentionPanel()
    : Panel("Each head turns its queries and keys into weights: row i shows how much query position i takes from "
            "every key position (rows sum to 1). Encoder self-attention relates source tokens, the decoder's masked "
            "self-attention only looks back (while the causal mask is on; a sliding window narrows it further), and "
            "cross-attention lets each output position read the source. Weights are shown before dropout.") {}

std::string AttentionPanel::explanation_for(const explain::SessionView& v) const {
    if (!v.decoder_only) return explanation();
    return "Each head turns its queries and keys into weights: row i shows how much query position i takes from every "
           "key position (rows sum to 1). A decoder-only model has one kind of attention: masked self-attention over "
           "BOS + prompt + continuation, in which each position looks only at itself and earlier positions (while the "
           "causal mask is on; a sliding window narrows it further).";
}

void AttentionPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (v.attention.empty()) {
        ImGui::TextDisabled("This model has no attention blocks.");
        return;
    }
    Selection& sel = ctx.selection;
    sel.attention_block = std::clamp(sel.attention_block, 0, static_cast<int>(v.attention.size()) - 1);
    const AttentionBlock& cur = v.attention[static_cast<size_t>(sel.attention_block)];

    // Kind and layer.
    const AttentionKind kinds[3] = {AttentionKind::EncoderSelf, AttentionKind::DecoderSelf, AttentionKind::Cross};
    for (AttentionKind k : kinds) {
        // Only the kinds this model has (a decoder-only model: masked self-attention alone).
        if (std::none_of(v.attention.begin(), v.attention.end(), [k](const AttentionBlock& b) { return b.kind == k; }))
            continue;
        if (ImGui::RadioButton(explain::attention_kind_title(k), cur.kind == k)) {
            for (size_t i = 0; i < v.attention.size(); ++i)
                if (v.attention[i].kind == k && (v.attention[i].layer == cur.layer || v.attention[i].layer == 0)) {
                    sel.attention_block = static_cast<int>(i);
                    if (v.attention[i].layer == cur.layer) break;
                }
        }
        ImGui::SameLine();
    }
    ImGui::NewLine();
    int layers = 0;
    for (const auto& a : v.attention)
        if (a.kind == cur.kind) layers = std::max(layers, a.layer + 1);
    int layer = cur.layer;
    ImGui::SetNextItemWidth(160);
    if (layers > 1 && ImGui::SliderInt("layer", &layer, 0, layers - 1)) {
        for (size_t i = 0; i < v.attention.size(); ++i)
            if (v.attention[i].kind == cur.kind && v.attention[i].layer == layer) sel.attention_block = static_cast<int>(i);
    }
    if (layers > 1) ImGui::SameLine();
    ImGui::TextUnformatted("show:");
    ImGui::SameLine();
    ImGui::RadioButton("probabilities", &m_values, 0);
    item_tooltip("P = softmax(masked scores): what the head actually uses (eval mode, before dropout).");
    ImGui::SameLine();
    ImGui::RadioButton("raw scores", &m_values, 1);
    item_tooltip(explain::raw_scores_text(v.config, v.options).c_str());
    ImGui::SameLine();
    ImGui::RadioButton("masked scores", &m_values, 2);
    item_tooltip(v.options.causal_mask && v.options.padding_mask
                     ? "Scores after the mask: forbidden keys are \xE2\x88\x92\xE2\x88\x9E (grey) and get weight exactly 0."
                     : "Scores after the mask: forbidden keys are \xE2\x88\x92\xE2\x88\x9E (grey) and get weight exactly 0. "
                       "Some masks are off now (Masks panel), so fewer keys are forbidden.");
    ImGui::SameLine();
    ImGui::Checkbox("selected head only", &sel.single_head);
    sel.show_scores = m_values != 0;
    if (v.B > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(100);
        ImGui::SliderInt("batch row", &sel.batch_row, 0, v.B - 1);
    }

    const float left_w = std::min(330.0f, ImGui::GetContentRegionAvail().x * 0.32f);
    ImGui::BeginChild("##overview", ImVec2(left_w, 0), true);
    draw_overview(ctx);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##heads", ImVec2(0, 0), false);
    ImGui::TextUnformatted("view:");
    ImGui::SameLine();
    if (ImGui::RadioButton("heatmaps", !sel.attention_lines)) sel.attention_lines = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("lines", sel.attention_lines)) sel.attention_lines = true;
    item_tooltip("Lines: every query token (right) joined to the key tokens (left) it attends to, as opaque as the "
                 "weight, one colour per head; hover a token to keep only its lines. For cross-attention this is the "
                 "alignment picture: the lines cross where Spanish changes the English word order.");
    if (sel.attention_lines) draw_lines(ctx);
    else draw_heads(ctx);
    ImGui::EndChild();
}

void AttentionPanel::draw_overview(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    Selection& sel = ctx.selection;
    const int H = v.config.heads;
    ImGui::TextUnformatted("All layers \xC3\x97 heads");
    help_marker("Every attention block of the model (rows) and its heads (columns), as small probability maps. "
                "Click one to open it on the right.");
    const float label_w = 78.0f;
    const float thumb = std::clamp((ImGui::GetContentRegionAvail().x - label_w) / static_cast<float>(H) - 4.0f, 18.0f, 64.0f);
    ImGui::Dummy(ImVec2(label_w, 0));
    for (int h = 0; h < H; ++h) {
        ImGui::SameLine(label_w + 8 + static_cast<float>(h) * (thumb + 4));
        ImGui::TextDisabled("h%d", h);
    }
    for (size_t i = 0; i < v.attention.size(); ++i) {
        const AttentionBlock& a = v.attention[i];
        ImGui::PushID(static_cast<int>(i));
        ImGui::BeginGroup();
        ImGui::Dummy(ImVec2(0, thumb * 0.5f - ImGui::GetFontSize() * 0.6f));
        ImGui::Text("%s %d", explain::attention_kind_short(a.kind), a.layer);
        ImGui::EndGroup();
        const std::vector<float>* probs = v.output(a.probs);
        const int R = a.kind == AttentionKind::EncoderSelf ? v.S : v.T;
        const int C = a.kind == AttentionKind::DecoderSelf ? v.T : v.S;
        const int row = std::clamp(sel.batch_row, 0, std::max(v.B - 1, 0));
        const Axes ax = axes_of(v, a, row);
        for (int h = 0; h < H; ++h) {
            ImGui::SameLine(label_w + 8 + static_cast<float>(h) * (thumb + 4));
            ImGui::PushID(h);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (probs && static_cast<int>(probs->size()) >= v.B * H * R * C) {
                HeatmapSpec spec;
                spec.id = "thumb";
                spec.values = probs->data() + ((static_cast<size_t>(row) * H + h) * R) * C;
                spec.version = v.version;
                spec.rows = R;
                spec.cols = C;
                spec.compact = true;
                spec.vmin = 0.0f;
                spec.vmax = 1.0f;
                spec.size = ImVec2(thumb, thumb);
                spec.max_cell = thumb;
                spec.max_aspect = 1000.0f;   // fill the square: cross-attention of 10 × 500 is a thumbnail too
                spec.row_labels = &ax.rows;
                spec.col_labels = &ax.cols;
                spec.row_axis = "query";
                spec.col_axis = "key";
                ImGui::BeginGroup();
                const HeatmapResult r = draw_heatmap(spec, nullptr);
                ImGui::EndGroup();
                if (r.clicked) {
                    sel.attention_block = static_cast<int>(i);
                    sel.head = h;
                }
            } else {
                ImGui::Button(v.finished(a.probs) ? "fused" : "?", ImVec2(thumb, thumb));
                item_tooltip(v.missing_reason(a.probs).c_str());
            }
            const bool off = !v.options.disabled_heads.empty() && v.options.disabled_heads.count(a.prefix) &&
                             std::count(v.options.disabled_heads.at(a.prefix).begin(), v.options.disabled_heads.at(a.prefix).end(), h);
            ImDrawList* dl = ImGui::GetWindowDrawList();
            if (off) dl->AddLine(p, ImVec2(p.x + thumb, p.y + thumb), IM_COL32(255, 80, 80, 255), 2.0f);
            if (static_cast<int>(i) == sel.attention_block && h == sel.head)
                dl->AddRect(ImVec2(p.x - 2, p.y - 2), ImVec2(p.x + thumb + 2, p.y + thumb + 2), IM_COL32(255, 200, 60, 255), 0, 0, 2.0f);
            ImGui::PopID();
        }
        ImGui::PopID();
    }
    // The bright <eos> column a learner sees first, explained where it appears.
    const int parking_row = std::clamp(sel.batch_row, 0, std::max(v.B - 1, 0));
    if (v.version != m_parking_version || parking_row != m_parking_row) {
        m_parking = explain::eos_parking(v, parking_row);
        m_parking_version = v.version;
        m_parking_row = parking_row;
    }
    const explain::EosParking& parking = m_parking;
    if (parking.parked > 0)
        ImGui::TextWrapped("%d of these %d encoder and cross-attention heads put most of their weight on <eos> (a bright "
                           "column on the right): a head with nothing to look for parks its weight there, and every row "
                           "that does reads the same value vector. BERT's heads do the same on [SEP] (Clark et al. 2019).",
                           parking.parked, parking.heads);

    ImGui::Separator();
    ImGui::TextUnformatted("Head ablation");
    help_marker("Switch a head off: its context is replaced by zeros before the output projection, as if the head "
                "did not exist. The decode (greedy or beam search) reruns, so you can see what the head contributes.");
    const AttentionBlock& cur = v.attention[static_cast<size_t>(sel.attention_block)];
    ImGui::TextDisabled("%s", cur.prefix.c_str());
    for (int h = 0; h < H; ++h) {
        bool on = true;
        if (auto it = v.options.disabled_heads.find(cur.prefix); it != v.options.disabled_heads.end())
            on = std::find(it->second.begin(), it->second.end(), h) == it->second.end();
        ImGui::PushID(h);
        if (ImGui::Checkbox(("head " + std::to_string(h)).c_str(), &on)) ctx.commands.send(SetHeadEnabled{cur.prefix, h, on});
        ImGui::PopID();
        if (h % 2 == 0 && h + 1 < H) ImGui::SameLine(150);
    }
    if (!v.options.disabled_heads.empty()) {
        int n = 0;
        for (const auto& [prefix, heads] : v.options.disabled_heads) n += static_cast<int>(heads.size());
        ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.4f, 1.0f), "%d head(s) switched off", n);
        if (ImGui::SmallButton("switch every head back on")) ctx.commands.send(EnableAllHeads{});
    }
    ImGui::Separator();
    if (v.decoder_only)
        ImGui::TextUnformatted(v.beam_size > 1 ? "Continuation now (beam search):" : "Continuation now (greedy):");
    else
        ImGui::TextUnformatted(v.beam_size > 1 ? "Beam search output now:" : "Greedy decode now:");
    for (size_t b = 0; b < v.decoded_text.size(); ++b) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(0.55f, 0.85f, 1.0f, 1.0f), "%zu: %s", b + 1,
                           fit_text(v.decoded_text[b].empty() ? "(empty)" : v.decoded_text[b], 900.0f).c_str());
        ImGui::PopTextWrapPos();
    }
}

void AttentionPanel::draw_lines(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const Selection& sel = ctx.selection;
    const AttentionBlock& a = v.attention[static_cast<size_t>(sel.attention_block)];
    const int H = v.config.heads;
    const std::vector<float>* data = v.output(a.probs);
    const int row = std::clamp(sel.batch_row, 0, std::max(v.B - 1, 0));
    const int R = a.kind == AttentionKind::EncoderSelf ? v.S : v.T;
    const int C = a.kind == AttentionKind::DecoderSelf ? v.T : v.S;
    ImGui::Text("%s, layer %d: probabilities as lines", explain::attention_kind_title(a.kind), a.layer);
    if (!data || static_cast<int>(data->size()) < v.B * H * R * C) {
        ImGui::TextWrapped("%s", v.missing_reason(a.probs).c_str());
        if (!v.finished(a.probs) && ImGui::Button("Run to end")) ctx.commands.send(RunToEnd{});
        return;
    }
    if (static_cast<int>(m_line_heads.size()) != H) m_line_heads.assign(static_cast<size_t>(H), true);
    ImGui::TextUnformatted("heads:");
    for (int h = 0; h < H; ++h) {
        ImGui::SameLine();
        ImGui::PushID(h);
        bool on = m_line_heads[static_cast<size_t>(h)];
        ImGui::PushStyleColor(ImGuiCol_CheckMark, head_colour(h));
        ImGui::PushStyleColor(ImGuiCol_Text, head_colour(h));
        char label[16];
        std::snprintf(label, sizeof label, "h%d", h);
        if (ImGui::Checkbox(label, &on)) m_line_heads[static_cast<size_t>(h)] = on;
        ImGui::PopStyleColor(2);
        ImGui::PopID();
    }
    const Axes ax = axes_of(v, a, row);
    // A decoder query row holds its input token and writes the next one: both are named, so the
    // line from "▁coche → ▁rojo" to "red" reads as the alignment it is. The next token is the
    // sequence's (decode or teacher-forced target); after the last one, the model's most probable
    // token there (EOS when the decode ended).
    std::vector<std::string> queries = ax.rows;
    if (a.kind != AttentionKind::EncoderSelf) {
        const int pad = v.config.special.pad;
        const auto id_at = [&](int t) { return v.tgt_ids[static_cast<size_t>(row) * v.T + t]; };
        const std::vector<float>* log_probs = v.output(v.steps.size() - 1);   // [B,T,V]
        for (int t = 0; t < v.T; ++t) {
            if (id_at(t) == pad) continue;
            std::string next = "\xE2\x80\xA6";   // not computed yet
            if (t + 1 < v.T && id_at(t + 1) != pad) {
                next = ax.rows[static_cast<size_t>(t) + 1];
            } else if (log_probs && static_cast<int>(log_probs->size()) >= v.B * v.T * v.vocab_size) {
                const float* lp = log_probs->data() + (static_cast<size_t>(row) * v.T + t) * v.vocab_size;
                next = v.token_text(static_cast<int>(std::max_element(lp, lp + v.vocab_size) - lp));
            } else if (!v.target_text && row < static_cast<int>(v.decoded_ids.size()) &&
                       row < static_cast<int>(v.output_limit.size()) &&
                       static_cast<int>(v.decoded_ids[static_cast<size_t>(row)].size()) < v.output_limit[static_cast<size_t>(row)]) {
                next = v.token_text(v.config.special.eos);   // the decode stopped there: it wrote EOS
            }
            queries[static_cast<size_t>(t)].append(" \xE2\x86\x92 ").append(next);
        }
    }
    ImGui::TextDisabled(a.kind == AttentionKind::EncoderSelf
                            ? "left: keys (source tokens) \xC2\xB7 right: queries (source tokens)"
                            : a.kind == AttentionKind::Cross
                                  ? "left: keys (source tokens) \xC2\xB7 right: queries (decoder position: input \xE2\x86\x92 the token it writes)"
                                  : v.decoder_only
                                        ? "left: keys (BOS + prompt + continuation) \xC2\xB7 right: queries (position: input "
                                          "\xE2\x86\x92 the next token; in the prompt, the prompt's own next token)"
                                        : "left: keys (decoder inputs) \xC2\xB7 right: queries (decoder position: input \xE2\x86\x92 the token it writes)");
    ImGui::Separator();
    AttentionLinesSpec spec;
    spec.probs = data->data() + static_cast<size_t>(row) * H * R * C;
    spec.heads = H;
    spec.rows = R;
    spec.cols = C;
    spec.row_labels = &queries;
    spec.col_labels = &ax.cols;
    spec.head_on = m_line_heads;
    // PAD query rows are computed but never used (only keys are masked): no lines for them.
    const std::vector<int32_t>& query_ids = a.kind == AttentionKind::EncoderSelf ? v.src_ids : v.tgt_ids;
    for (int q = 0; q < R; ++q)
        spec.row_used.push_back(query_ids[static_cast<size_t>(row) * R + q] != v.config.special.pad);
    draw_attention_lines(spec);
}

void AttentionPanel::draw_heads(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    Selection& sel = ctx.selection;
    const AttentionBlock& a = v.attention[static_cast<size_t>(sel.attention_block)];
    const int H = v.config.heads;
    const size_t step = m_values == 0 ? a.probs : m_values == 1 ? a.scores : a.masked_scores;
    ImGui::Text("%s, layer %d", explain::attention_kind_title(a.kind), a.layer);
    ImGui::SameLine();
    ImGui::TextDisabled("\xC2\xB7 %s \xC2\xB7 %s", v.steps[step].name.c_str(), v.steps[step].shape.str().c_str());
    const std::vector<float>* data = v.output(step);
    const int row = std::clamp(sel.batch_row, 0, std::max(v.B - 1, 0));
    const int R = a.kind == AttentionKind::EncoderSelf ? v.S : v.T;
    const int C = a.kind == AttentionKind::DecoderSelf ? v.T : v.S;
    if (!data || static_cast<int>(data->size()) < v.B * H * R * C) {
        ImGui::TextWrapped("%s", v.missing_reason(step).c_str());
        if (!v.finished(step) && ImGui::Button("Run to end")) ctx.commands.send(RunToEnd{});
        return;
    }
    const Axes ax = axes_of(v, a, row);
    const int first = sel.single_head ? sel.head : 0, last = sel.single_head ? sel.head + 1 : H;
    const int per_line = sel.single_head ? 1 : (ImGui::GetContentRegionAvail().x > 900 ? 2 : 1);
    const float w = ImGui::GetContentRegionAvail().x / static_cast<float>(per_line) - 10;
    for (int h = first; h < last; ++h) {
        ImGui::PushID(h);
        ImGui::BeginGroup();
        HeatmapSpec spec;
        spec.id = "head";
        spec.values = data->data() + ((static_cast<size_t>(row) * H + h) * R) * C;
        spec.version = v.version;
        spec.rows = R;
        spec.cols = C;
        spec.row_labels = &ax.rows;
        spec.col_labels = &ax.cols;
        spec.row_axis = ax.row_axis;
        spec.col_axis = ax.col_axis;
        char title[160];
        std::snprintf(title, sizeof title, "%s head %d %s", a.prefix.c_str(), h,
                      m_values == 0 ? "probabilities" : m_values == 1 ? "scores" : "masked scores");
        spec.title = title;
        spec.show_title = true;
        spec.size = ImVec2(w, 0);
        spec.max_cell = sel.single_head ? 48.0f : 34.0f;
        if (m_values == 0) {
            spec.vmin = 0.0f;
            spec.vmax = 1.0f;
        } else {
            spec.map = Colormap::Diverging;
            spec.symmetric = true;
        }
        const std::string what = m_values == 0 ? "weight" : "score";
        spec.tooltip = [&](int r, int c, float value) {
            std::string s = "query \"" + ax.rows[static_cast<size_t>(r)] + "\" (" + std::to_string(r) + ") \xE2\x86\x92 key \"" +
                            ax.cols[static_cast<size_t>(c)] + "\" (" + std::to_string(c) + ") = " + format_value(value) + " " + what;
            if (std::isinf(value)) s += " (masked)";
            return s + "\nclick: work this cell out in the Neuron view";
        };
        const HeatmapResult r = draw_heatmap(spec, &ctx.commands);
        if (r.clicked) sel.head = h;
        if (r.clicked && r.row >= 0 && r.col >= 0) {
            sel.neuron_query = r.row;
            sel.neuron_key = r.col;
            ctx.commands.send(ShowPanel{"neuron"});
        }
        ImGui::EndGroup();
        if (h == sel.head && !sel.single_head) {
            const ImVec2 mn = ImGui::GetItemRectMin(), mx = ImGui::GetItemRectMax();
            ImGui::GetWindowDrawList()->AddRect(ImVec2(mn.x - 3, mn.y - 3), ImVec2(mx.x + 3, mx.y + 3), IM_COL32(255, 200, 60, 160), 4.0f);
        }
        ImGui::PopID();
        if ((h - first) % per_line != per_line - 1 && h + 1 < last) ImGui::SameLine();
    }
}

}  // namespace tx::app
