// Neuron view (see neuron_panel.h). Query rows × key columns as everywhere; subscripts are the
// cell's real positions (q₃, k₂, p₃,₂). The panel only draws: every number is in NeuronTrace.
#include "panels/neuron_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "widgets/bar_row.h"
#include "widgets/heatmap.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const ImVec4 QUERY_COLOUR(0.55f, 0.85f, 1.0f, 1.0f);
const ImVec4 KEY_COLOUR(1.0f, 0.78f, 0.35f, 1.0f);
const ImVec4 GOOD_COLOUR(0.55f, 0.9f, 0.55f, 1.0f);
const ImVec4 WARN_COLOUR(1.0f, 0.65f, 0.35f, 1.0f);
const ImVec4 STAGE_COLOUR(0.8f, 0.7f, 1.0f, 1.0f);

// Subscript digits (₀…₉), so formulas carry the cell's real positions.
std::string sub(int n) {
    std::string s;
    for (char c : std::to_string(n)) s += c == '-' ? std::string("\xE2\x82\x8B") : std::string{'\xE2', '\x82', static_cast<char>('\x80' + (c - '0'))};
    return s;
}

// "p₃,₂" (GCC 12 warns falsely on "literal" + std::string&&; building in place avoids it).
std::string indexed(const char* letter, int i, int j) {
    std::string s = letter;
    s += sub(i);
    s += ",";
    s += sub(j);
    return s;
}

// Four significant digits (formulas), −∞ spelled out; more where a sum near 1 must not read as 1.
std::string num(double v, int digits = 4) {
    if (std::isinf(v)) return v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E";
    char buf[32];
    const double a = std::fabs(v);
    if (a != 0.0 && (a < 1e-3 || a >= 1e5)) std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    std::string s = buf;
    if (!s.empty() && s[0] == '-') s.replace(0, 1, "\xE2\x88\x92");   // a real minus sign
    return s;
}

// "3  ▁rojo", a position and its token, for the query and key pickers.
std::string position_text(int position, const std::vector<std::string>& tokens) {
    std::string s = std::to_string(position) + "  ";
    if (position >= 0 && position < static_cast<int>(tokens.size())) s += fit_text(tokens[static_cast<size_t>(position)], 110);
    return s;
}

void stage_title(const char* number, const std::string& title) {
    ImGui::Spacing();
    ImGui::TextColored(STAGE_COLOUR, "%s", number);
    ImGui::SameLine();
    ImGui::TextUnformatted(title.c_str());
}

// "✓ matches the traced …" or the difference, for a recomputed number beside the traced one.
void agreement(double recomputed, double traced, double tolerance, const std::string& step) {
    const double diff = std::fabs(recomputed - traced);
    ImGui::SameLine();
    if (diff <= tolerance)
        ImGui::TextColored(GOOD_COLOUR, "\xE2\x9C\x93");
    else
        ImGui::TextColored(WARN_COLOUR, "differs by %s", num(diff).c_str());
    item_tooltip(("The traced " + step + " holds " + num(traced) + "; recomputed here from its inputs: " + num(recomputed) +
                  ". Small differences are float rounding (the model computes in float, this view sums in double).")
                     .c_str());
}

}  // namespace

NeuronPanel::NeuronPanel()
    : Panel("One attention weight worked out with this run's numbers: query i's vector meets key j's, their product is "
            "summed, scaled and masked into a score, the softmax across query row i turns the scores into weights, and "
            "those weights mix the value vectors into row i's context. Click any cell of a heatmap in the Attention "
            "panel to trace it here.") {}

void NeuronPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (v.attention.empty()) {
        ImGui::TextDisabled("This model has no attention blocks.");
        return;
    }
    const Selection& sel = ctx.selection;
    const auto [query, key] = draw_controls(ctx);
    const bool chosen = sel.neuron_query >= 0 && sel.neuron_key >= 0;
    m_trace = trace_neuron(v, {sel.attention_block, sel.batch_row, sel.head, query, key});
    m_version = v.version;
    if (!chosen) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(WARN_COLOUR, "No cell clicked yet: showing query %d and the key it weights most. Click a cell "
                                        "of a heatmap in the Attention panel, or move the query and key sliders.", query);
        ImGui::PopTextWrapPos();
    }
    const explain::NeuronTrace& t = m_trace;
    if (!t.error.empty()) {
        ImGui::TextColored(WARN_COLOUR, "%s", t.error.c_str());
        return;
    }
    const AttentionBlock& a = v.attention[static_cast<size_t>(t.cell.block)];
    const int i = t.cell.query, j = t.cell.key;

    // The cell, in words.
    ImGui::Separator();
    ImGui::Text("%s, layer %d, head %d%s:", explain::attention_kind_title(t.kind), t.layer, t.cell.head,
                v.B > 1 ? (", batch row " + std::to_string(t.cell.batch_row)).c_str() : "");
    ImGui::SameLine();
    ImGui::TextColored(QUERY_COLOUR, "query %d \"%s\"", i, t.query_tokens[static_cast<size_t>(i)].c_str());
    if (!t.query_writes.empty()) {
        ImGui::SameLine(0, 4);
        ImGui::TextColored(QUERY_COLOUR, "(writes \"%s\")", t.query_writes.c_str());
        item_tooltip("A decoder position holds its input token and predicts the next one: what it reads from the keys "
                     "is what it needs to write that token.");
    }
    ImGui::SameLine();
    ImGui::TextUnformatted("\xE2\x86\x92");
    ImGui::SameLine();
    ImGui::TextColored(KEY_COLOUR, "key %d \"%s\"", j, t.key_tokens[static_cast<size_t>(j)].c_str());
    ImGui::PushTextWrapPos(0.0f);
    if (t.kind == AttentionKind::Cross)
        ImGui::TextDisabled("Cross-attention: the query comes from the decoder (the output so far), keys and values from "
                            "the source tokens (the encoder's output).");
    if (t.query_is_pad)
        ImGui::TextColored(WARN_COLOUR,
                           "Query %d is PAD: its row is computed like any other, but its result is never used (only keys "
                           "are masked; the loss and the decode skip PAD positions).", i);
    if (t.head_disabled)
        ImGui::TextColored(WARN_COLOUR,
                           "Head %d is switched off (head ablation in the Attention panel): its traced context is zeros. "
                           "Below, \xCE\xA3 p\xC2\xB7v shows what it would contribute.", t.cell.head);
    if (!t.complete) {
        ImGui::TextColored(WARN_COLOUR, "%s", v.missing_reason(t.missing_step).c_str());
        if (t.missing_is_fused) {
            if (ImGui::Button("Switch fused attention off")) ctx.commands.send(SetFusedAttention{false});
        } else {
            if (ImGui::Button(("Run to " + v.steps[a.context].name).c_str())) ctx.commands.send(RunTo{a.context});
            item_tooltip("Moves the step cursor just past this block's context step, so every number below exists.");
        }
    }
    ImGui::PopTextWrapPos();
    if (!t.have_qk) return;

    if (ImGui::BeginTable("##stages", 2, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        draw_vectors(ctx);
        ImGui::TableNextColumn();
        draw_softmax(ctx);
        ImGui::EndTable();
    }
    ImGui::Separator();
    draw_weighted_sum(ctx);
}

std::pair<int, int> NeuronPanel::draw_controls(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    Selection& sel = ctx.selection;
    sel.attention_block = std::clamp(sel.attention_block, 0, static_cast<int>(v.attention.size()) - 1);
    const AttentionBlock& a = v.attention[static_cast<size_t>(sel.attention_block)];
    auto block_name = [](const AttentionBlock& b) { return std::string(explain::attention_kind_short(b.kind)) + " " + std::to_string(b.layer); };
    ImGui::SetNextItemWidth(150);
    if (ImGui::BeginCombo("block", block_name(a).c_str())) {
        for (size_t n = 0; n < v.attention.size(); ++n)
            if (ImGui::Selectable(block_name(v.attention[n]).c_str(), static_cast<int>(n) == sel.attention_block))
                sel.attention_block = static_cast<int>(n);
        ImGui::EndCombo();
    }
    item_tooltip(a.prefix.c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90);
    ImGui::SliderInt("head", &sel.head, 0, std::max(v.config.heads - 1, 0));
    if (v.B > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(90);
        ImGui::SliderInt("batch row", &sel.batch_row, 0, v.B - 1);
    }
    const AttentionBlock& cur = v.attention[static_cast<size_t>(sel.attention_block)];
    const int R = neuron_rows(v, cur), C = neuron_cols(v, cur);
    const int row = std::clamp(sel.batch_row, 0, std::max(v.B - 1, 0));
    const auto queries = cur.kind == AttentionKind::EncoderSelf ? v.src_labels(row) : v.tgt_labels(row);
    const auto keys = cur.kind == AttentionKind::DecoderSelf ? v.tgt_labels(row) : v.src_labels(row);
    // A cell chosen in a larger block keeps its place as far as this block reaches.
    if (sel.neuron_query >= R) sel.neuron_query = R - 1;
    if (sel.neuron_key >= C) sel.neuron_key = C - 1;
    int q = sel.neuron_query, k = sel.neuron_key;
    if (q < 0 || k < 0) {
        // Nothing clicked yet: query 1 (0 in a one-row block) and the key it weights most.
        q = std::min(1, R - 1);
        k = 0;
        if (const std::vector<float>* probs = v.output(cur.probs)) {
            const size_t at = ((static_cast<size_t>(row) * v.config.heads + std::clamp(sel.head, 0, v.config.heads - 1)) * R + q) * C;
            if (probs->size() >= at + C) k = static_cast<int>(std::max_element(probs->begin() + static_cast<std::ptrdiff_t>(at),
                                                                               probs->begin() + static_cast<std::ptrdiff_t>(at + C)) -
                                                              (probs->begin() + static_cast<std::ptrdiff_t>(at)));
        }
    }
    // Query and key by position and token.
    auto pick = [&](const char* label, int& position, const std::vector<std::string>& tokens) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(160);
        bool changed = false;
        if (ImGui::BeginCombo(label, position_text(position, tokens).c_str())) {
            for (int n = 0; n < static_cast<int>(tokens.size()); ++n)
                if (ImGui::Selectable(position_text(n, tokens).c_str(), n == position)) {
                    position = n;
                    changed = true;
                }
            ImGui::EndCombo();
        }
        return changed;
    };
    bool changed = pick("query", q, queries);
    changed |= pick("key", k, keys);
    if (changed) {
        sel.neuron_query = q;
        sel.neuron_key = k;
    }
    return {q, k};
}

void NeuronPanel::draw_vectors(const PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::NeuronTrace& t = m_trace;
    const AttentionBlock& a = v.attention[static_cast<size_t>(t.cell.block)];
    const int i = t.cell.query, j = t.cell.key;
    const std::string qi = "q" + sub(i), kj = "k" + sub(j);

    stage_title("1", "Query and key vectors of head " + std::to_string(t.cell.head) + " (d\xE2\x82\x96 = " +
                         std::to_string(t.dk) + " numbers each)");
    help_marker(qk_source_text(t).c_str());
    float range = 0.0f;
    for (int d = 0; d < t.dk; ++d)
        range = std::max({range, std::fabs(t.q[static_cast<size_t>(d)]), std::fabs(t.k[static_cast<size_t>(d)])});
    BarRowSpec q;
    q.id = "q";
    q.values = t.q.data();
    q.count = t.dk;
    q.caption = qi;
    q.caption_note = fit_text(t.query_tokens[static_cast<size_t>(i)], 90);
    q.range = range;
    q.negative = IM_COL32(60, 125, 205, 255);
    q.show_indices = false;
    q.tooltip = [&](int d, float value) { return qi + "[" + std::to_string(d) + "] = " + num(value); };
    draw_bar_row(q);
    BarRowSpec k = q;
    k.id = "k";
    k.values = t.k.data();
    k.caption = kj;
    k.caption_note = fit_text(t.key_tokens[static_cast<size_t>(j)], 90);
    k.positive = IM_COL32(245, 190, 80, 255);
    k.negative = IM_COL32(205, 145, 55, 255);
    k.show_indices = true;
    k.tooltip = [&](int d, float value) { return kj + "[" + std::to_string(d) + "] = " + num(value); };
    draw_bar_row(k);

    stage_title("2", "Multiply element by element, then add up");
    BarRowSpec p;
    p.id = "qk";
    p.values = t.product.data();
    p.count = t.dk;
    p.caption = qi + "\xE2\x8A\x99" + kj;
    p.caption_note = "product";
    p.positive = IM_COL32(110, 210, 130, 255);
    p.negative = IM_COL32(235, 95, 95, 255);
    p.tooltip = [&](int d, float value) {
        return "d = " + std::to_string(d) + ": " + num(t.q[static_cast<size_t>(d)]) + " \xC3\x97 " +
               num(t.k[static_cast<size_t>(d)]) + " = " + num(value) +
               (value > 0 ? "  (agree in sign: raises the score)" : value < 0 ? "  (disagree: lowers the score)" : "");
    };
    draw_bar_row(p);
    ImGui::PushFont(mono_font());
    ImGui::Text("%s\xC2\xB7%s = \xCE\xA3 of the %d products = %s", qi.c_str(), kj.c_str(), t.dk, num(t.dot).c_str());
    ImGui::PopFont();

    stage_title("3", t.scaled ? "Scale by 1/\xE2\x88\x9A" "d\xE2\x82\x96" : "No scaling");
    ImGui::PushFont(mono_font());
    if (t.scaled)
        ImGui::Text("s%s,%s = %s / \xE2\x88\x9A%d = %s / %s = %s", sub(i).c_str(), sub(j).c_str(), num(t.dot).c_str(), t.dk,
                    num(t.dot).c_str(), num(t.sqrt_dk).c_str(), num(t.score - t.position_bias).c_str());
    else
        ImGui::Text("s%s,%s = %s\xC2\xB7%s = %s", sub(i).c_str(), sub(j).c_str(), qi.c_str(), kj.c_str(),
                    num(t.score - t.position_bias).c_str());
    if (t.alibi)
        ImGui::Text("+ ALiBi \xE2\x88\x92m\xE2\x82\x95\xC2\xB7|i \xE2\x88\x92 j| = %s, so s%s,%s = %s", num(t.position_bias).c_str(),
                    sub(i).c_str(), sub(j).c_str(), num(t.score).c_str());
    if (t.relative)
        ImGui::Text("+ T5 bias b[bucket %d, head %d] = %s, so s%s,%s = %s", t.relative_bucket, t.cell.head,
                    num(t.position_bias).c_str(), sub(i).c_str(), sub(j).c_str(), num(t.score).c_str());
    ImGui::PopFont();
    if (t.have_scores) agreement(t.score, t.traced_score, 1e-5 * t.dot_abs / (t.scaled ? t.sqrt_dk : 1.0) + 1e-6, v.steps[a.scores].name);
    ImGui::PushTextWrapPos(0.0f);
    if (t.scaled)
        ImGui::TextDisabled("%s", scaling_text(t).c_str());
    else
        ImGui::TextColored(WARN_COLOUR, "%s", scaling_text(t).c_str());
    ImGui::PopTextWrapPos();

    stage_title("4", "Mask");
    ImGui::PushFont(mono_font());
    if (t.masked)
        ImGui::Text("s%s,%s + (\xE2\x88\x92\xE2\x88\x9E) = \xE2\x88\x92\xE2\x88\x9E", sub(i).c_str(), sub(j).c_str());
    else
        ImGui::Text("s%s,%s + 0 = %s", sub(i).c_str(), sub(j).c_str(), num(t.score).c_str());
    ImGui::PopFont();
    if (t.have_masked) {
        ImGui::SameLine();
        const bool same = t.masked ? std::isinf(t.traced_masked) && t.traced_masked < 0
                                   : std::fabs(t.traced_masked - t.traced_score) == 0.0f;
        if (same) ImGui::TextColored(GOOD_COLOUR, "\xE2\x9C\x93");
        else ImGui::TextColored(WARN_COLOUR, "the traced masked score is %s", num(t.traced_masked).c_str());
        item_tooltip(("The traced " + v.steps[a.masked_scores].name + " holds " + num(t.traced_masked) + " here.").c_str());
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(t.masked ? WARN_COLOUR : ImGui::GetStyle().Colors[ImGuiCol_Text], "%s", t.mask_text.c_str());
    const char* which = t.kind == AttentionKind::DecoderSelf ? "Decoder self-attention uses the causal mask and the padding mask."
                                                             : t.kind == AttentionKind::Cross
                                                                   ? "Cross-attention uses the padding mask of the source sentence."
                                                                   : "Encoder self-attention uses the padding mask.";
    ImGui::TextDisabled("%s", which);
    ImGui::PopTextWrapPos();
}

void NeuronPanel::draw_softmax(const PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::NeuronTrace& t = m_trace;
    const AttentionBlock& a = v.attention[static_cast<size_t>(t.cell.block)];
    const int i = t.cell.query, j = t.cell.key;
    const std::string ij = sub(i) + "," + sub(j);
    stage_title("5", "Softmax across query row " + std::to_string(i) + " (over its " + std::to_string(t.cols) + " keys)");
    help_marker("The same steps run for every key of the row; the softmax turns the row of scores into weights that "
                "are positive and sum to 1. The outlined column is the traced key.");
    if (!t.have_probs) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", v.missing_reason(t.have_masked ? a.probs : a.masked_scores).c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    BarRowSpec s;
    s.id = "scores";
    s.values = t.masked_row.data();
    s.count = t.cols;
    s.caption = "scores";
    s.caption_note = "masked, row " + std::to_string(i);
    s.marked = j;
    s.show_indices = false;
    s.height = 76.0f;
    s.values_on_bars = true;
    s.decimals = 1;
    s.positive = IM_COL32(110, 170, 240, 255);
    s.negative = IM_COL32(110, 170, 240, 150);
    const auto& keys = t.key_tokens;
    s.tooltip = [&](int c, float value) {
        return indexed("s", i, c) + " (key " + std::to_string(c) + " \"" + keys[static_cast<size_t>(c)] + "\") = " +
               num(value) + (std::isinf(value) ? "  (masked)" : "");
    };
    draw_bar_row(s);
    BarRowSpec p;
    p.id = "probs";
    p.values = t.probs_row.data();
    p.count = t.cols;
    p.caption = "p" + sub(i);
    p.caption_note = "weights";
    p.marked = j;
    p.nonnegative = true;
    p.range = 1.0f;
    p.height = 76.0f;
    p.values_on_bars = true;
    p.decimals = 2;
    p.labels = &t.key_tokens;
    p.positive = IM_COL32(120, 220, 160, 255);
    p.tooltip = [&](int c, float value) {
        return indexed("p", i, c) + " (key " + std::to_string(c) + " \"" + keys[static_cast<size_t>(c)] + "\") = " +
               num(value);
    };
    draw_bar_row(p);

    ImGui::PushFont(mono_font());
    if (t.fully_masked) {
        ImGui::TextUnformatted("every key of this row is masked");
        ImGui::PopFont();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(WARN_COLOUR, "The row has no key left to attend to: its weights are all 0 (by definition here, "
                                        "never NaN), and its context is a zero vector.");
        ImGui::PopTextWrapPos();
        return;
    }
    ImGui::Text("p%s = exp(s%s \xE2\x88\x92 m) / \xCE\xA3\xE2\x82\x96 exp(s%s,\xE2\x82\x96 \xE2\x88\x92 m)", ij.c_str(), ij.c_str(),
                sub(i).c_str());
    if (t.masked) {
        ImGui::Text("    = exp(\xE2\x88\x92\xE2\x88\x9E) / %s = 0 / %s = 0", num(t.exp_sum, 6).c_str(), num(t.exp_sum, 6).c_str());
    } else {
        ImGui::Text("    = exp(%s \xE2\x88\x92 %s) / %s", num(t.traced_masked).c_str(), num(t.row_max).c_str(), num(t.exp_sum, 6).c_str());
        ImGui::Text("    = %s / %s = %s", num(t.exp_j, 6).c_str(), num(t.exp_sum, 6).c_str(), num(t.exp_j / t.exp_sum, 6).c_str());
    }
    ImGui::PopFont();
    agreement(t.masked ? 0.0 : t.exp_j / t.exp_sum, t.traced_prob, 1e-5 * std::fabs(t.traced_prob) + 1e-6, v.steps[a.probs].name);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("m = %s is the row's largest score. Subtracting it from every score changes no weight (it "
                        "cancels between top and bottom) but keeps exp from overflowing. Masked keys add exp(\xE2\x88\x92\xE2\x88\x9E) = 0 "
                        "to the sum.", num(t.row_max).c_str());
    // Where the traced key stands in its row: the picture a learner reads off the bars, in words.
    int rank = 1, open_keys = 0;
    for (int c = 0; c < t.cols; ++c) {
        if (t.keep_row[static_cast<size_t>(c)]) ++open_keys;
        if (t.probs_row[static_cast<size_t>(c)] > t.traced_prob) ++rank;
    }
    ImGui::Spacing();
    if (t.masked)
        ImGui::Text("Key %d \"%s\" is masked: query %d spreads its weight over the %d other keys it may see.", j,
                    t.key_tokens[static_cast<size_t>(j)].c_str(), i, open_keys);
    else {
        const std::string place = rank == 1 ? std::string("the largest") : rank == 2 ? std::string("the 2nd largest")
                                  : rank == 3 ? std::string("the 3rd largest") : "the " + std::to_string(rank) + "th largest";
        ImGui::Text("Key %d \"%s\" gets %.2f%% of query %d's attention, %s weight among the %d keys it may see.", j,
                    t.key_tokens[static_cast<size_t>(j)].c_str(), 100.0 * t.traced_prob, i, place.c_str(), open_keys);
    }
    ImGui::PopTextWrapPos();
}

void NeuronPanel::draw_weighted_sum(const PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::NeuronTrace& t = m_trace;
    const AttentionBlock& a = v.attention[static_cast<size_t>(t.cell.block)];
    const int i = t.cell.query, j = t.cell.key;
    stage_title("6", "Weighted sum of the value vectors: context row " + std::to_string(i) + " of head " +
                         std::to_string(t.cell.head));
    help_marker("Each key's value vector v (the v step, this head's dk columns) is scaled by its weight p from step 5; "
                "the scaled rows are added up. The sum is this head's context for query row i: what the query takes "
                "from the keys. The output projection then mixes the heads' contexts.");
    if (!t.have_context) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", v.missing_reason(!t.have_probs ? a.probs : a.context).c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (!ImGui::BeginTable("##sum", 2, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_BordersInnerV)) return;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    // The rows p_ic·v_c as a matrix: keys down, dk across.
    std::vector<std::string> row_labels, col_labels;
    for (int c = 0; c < t.cols; ++c)
    {
        // The weight to two decimals (the tooltip has it exactly); the traced key marked.
        char weight[16];
        std::snprintf(weight, sizeof weight, "%.2f", static_cast<double>(t.probs_row[static_cast<size_t>(c)]));
        row_labels.push_back(std::string(c == j ? "\xE2\x96\xB8 " : "") + weight + " \xC3\x97 " +
                             fit_text(t.key_tokens[static_cast<size_t>(c)], 60));
    }
    for (int d = 0; d < t.dk; ++d) col_labels.push_back(std::to_string(d));
    HeatmapSpec spec;
    spec.id = "weighted";
    spec.values = t.weighted.data();
    spec.rows = t.cols;
    spec.cols = t.dk;
    spec.row_labels = &row_labels;
    spec.col_labels = &col_labels;
    spec.row_axis = "p \xC3\x97 value of key";
    spec.col_axis = "dimension";
    spec.title = t.prefix + " head " + std::to_string(t.cell.head) + " p*v row " + std::to_string(i);
    spec.map = Colormap::Diverging;
    spec.symmetric = true;
    spec.max_cell = 18.0f;
    // Rows tall enough for every key's label, within the space left (a long sentence's matrix
    // does not push the sum away).
    spec.max_aspect = 2.5f;
    spec.size = ImVec2(0.0f, std::max(ImGui::GetContentRegionAvail().y - 8.0f, 220.0f));
    spec.values_in_cells = false;
    spec.tooltip = [&](int c, int d, float value) {
        const size_t at = static_cast<size_t>(c) * t.dk + d;
        return "key " + std::to_string(c) + " \"" + t.key_tokens[static_cast<size_t>(c)] + "\", d = " + std::to_string(d) +
               ": p = " + num(t.probs_row[static_cast<size_t>(c)]) + " \xC3\x97 v = " + num(t.values[at]) + " = " + num(value);
    };
    draw_heatmap(spec, &ctx.commands);
    ImGui::TableNextColumn();
    float range = 0.0f;
    double largest_diff = 0.0;
    bool tolerance_ok = true;
    for (int d = 0; d < t.dk; ++d) {
        const float s = t.context_sum[static_cast<size_t>(d)], c = t.traced_context[static_cast<size_t>(d)];
        range = std::max({range, std::fabs(s), std::fabs(c)});
        largest_diff = std::max(largest_diff, static_cast<double>(std::fabs(s - c)));
        if (std::fabs(s - c) > 1e-5 * t.context_abs[static_cast<size_t>(d)] + 1e-6) tolerance_ok = false;
    }
    ImGui::TextDisabled("the %d rows on the left, added up:", t.cols);
    BarRowSpec sum;
    sum.id = "sum";
    sum.values = t.context_sum.data();
    sum.count = t.dk;
    sum.caption = "\xCE\xA3 p\xC2\xB7v";
    sum.caption_note = "recomputed";
    sum.range = range;
    sum.show_indices = false;
    sum.positive = IM_COL32(120, 220, 160, 255);
    sum.negative = IM_COL32(235, 120, 150, 255);
    sum.tooltip = [&](int d, float value) { return "\xCE\xA3\xE2\x82\x96 p\xC2\xB7v[" + std::to_string(d) + "] = " + num(value); };
    draw_bar_row(sum);
    BarRowSpec ctx_row = sum;
    ctx_row.id = "context";
    ctx_row.values = t.traced_context.data();
    ctx_row.caption = "context" + sub(i);
    ctx_row.caption_note = "traced";
    ctx_row.show_indices = true;
    ctx_row.tooltip = [&](int d, float value) { return "context" + sub(i) + "[" + std::to_string(d) + "] = " + num(value); };
    draw_bar_row(ctx_row);
    ImGui::PushTextWrapPos(0.0f);
    if (t.head_disabled) {
        ImGui::TextColored(WARN_COLOUR, "The traced context is zeros because head %d is switched off.", t.cell.head);
    } else if (tolerance_ok) {
        ImGui::TextColored(GOOD_COLOUR, "\xE2\x9C\x93 equal to the traced context (largest difference %s: float rounding)",
                           num(largest_diff, 2).c_str());
        item_tooltip(("The context row comes from the step " + v.steps[a.context].name + ".").c_str());
    } else {
        ImGui::TextColored(WARN_COLOUR, "Differs from %s by up to %s.", v.steps[a.context].name.c_str(), num(largest_diff).c_str());
    }
    const float pj = t.probs_row[static_cast<size_t>(j)];
    ImGui::TextDisabled("Key %d \"%s\" contributes p = %s of its value vector%s.", j, t.key_tokens[static_cast<size_t>(j)].c_str(),
                        num(pj).c_str(), t.masked ? " (nothing: it is masked)" : "");
    ImGui::PopTextWrapPos();
    ImGui::EndTable();
}

}  // namespace tx::app
