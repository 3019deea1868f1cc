// Precision panel (see precision_panel.h). Attention maps are query rows × key columns, as
// everywhere in the app; every number is explain/precision_view.h's, drawn, never recomputed here.
#include "panels/precision_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "bit_layout.h"
#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"
#include "widgets/colormap.h"

namespace tx::app {

namespace {

const ImVec4 ERROR_COLOUR(1.0f, 0.45f, 0.45f, 1.0f);
const ImVec4 LOW_COLOUR(0.45f, 0.75f, 1.0f, 1.0f);

void coloured_paragraph(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

std::string number(double x, const char* format = "%.3g") {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, format, x);
    return buffer;
}

std::string block_title(const explain::AttentionPair& p) {
    const char* kind = p.kind == AttentionKind::EncoderSelf   ? "encoder self-attention"
                       : p.kind == AttentionKind::DecoderSelf ? "decoder self-attention"
                                                              : "cross-attention";
    return std::string(kind) + ", layer " + std::to_string(p.layer);
}

// The step table's "ran in" column.
std::string how_text(explain::LowStep how, Precision format) {
    switch (how) {
        case explain::LowStep::Fp32: return "FP32";
        case explain::LowStep::Product: return std::string(explain::format_name(format)) + " product";
        case explain::LowStep::Rounded: return std::string(explain::format_name(format)) + " output";
        case explain::LowStep::Int8Weights: return "INT8 weights";
    }
    return "";
}

// A row of tokens, the one at `highlight` (if any) framed in the warning colour.
void token_row(const char* label, const std::vector<std::string>& tokens, int highlight) {
    ImGui::TextUnformatted(label);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const ImVec2 size = ImGui::CalcTextSize(tokens[i].c_str());
        ImGui::SameLine(0.0f, 6.0f);
        if (ImGui::GetCursorScreenPos().x + size.x > right) ImGui::NewLine();
        const bool marked = static_cast<int>(i) == highlight;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        if (marked) {
            ImGui::TextColored(WARNING_COLOUR, "%s", tokens[i].c_str());
            dl->AddRect(ImVec2(at.x - 2, at.y - 1), ImVec2(at.x + size.x + 2, at.y + size.y + 1),
                        ImGui::GetColorU32(WARNING_COLOUR), 2.0f);
        } else {
            ImGui::TextUnformatted(tokens[i].c_str());
        }
    }
    if (tokens.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("(nothing)");
    }
}

// One number's bits in a format, on one line: the name, sign | exponent | mantissa in three
// colours, and the value the bits hold.
void bit_row(float x, Precision format) {
    const explain::BitLayout b = explain::bit_layout(x, format);
    const ImVec4 sign(1.0f, 0.55f, 0.55f, 1.0f), exponent(0.5f, 0.85f, 0.5f, 1.0f), mantissa(0.5f, 0.75f, 1.0f, 1.0f);
    ImGui::Text("%-5s", explain::format_name(format));
    ImGui::SameLine();
    ImGui::TextColored(sign, "%s", b.sign.c_str());
    ImGui::SameLine(0.0f, 4.0f);
    ImGui::TextColored(exponent, "%s", b.exponent.c_str());
    ImGui::SameLine(0.0f, 4.0f);
    ImGui::TextColored(mantissa, "%s", b.mantissa.c_str());
    // The value beside the bits, or under them where the column is too narrow (FP32's 32 bits).
    char value[40];
    std::snprintf(value, sizeof value, "= %.9g", b.value);
    ImGui::SameLine();
    if (ImGui::CalcTextSize(value).x > ImGui::GetContentRegionAvail().x) {
        ImGui::NewLine();
        ImGui::Indent(ImGui::CalcTextSize("FP32  ").x);
        ImGui::TextUnformatted(value);
        ImGui::Unindent(ImGui::CalcTextSize("FP32  ").x);
    } else {
        ImGui::TextUnformatted(value);
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: sign %s, exponent %s = 2^%d (bias %d), %zu mantissa bits. Relative to FP32: %+.3g.",
                          explain::format_name(format), b.sign.c_str(), b.exponent.c_str(), b.power, b.exponent_bias,
                          b.mantissa.size(), x != 0.0f ? (b.value - x) / std::fabs(static_cast<double>(x)) : 0.0);
}

}  // namespace

PrecisionPanel::PrecisionPanel()
    : Panel("The first sentence run twice on a copy of the model: in FP32 (the reference) and in a lower precision. "
            "Each step's output is compared (largest |difference|, relative error, inf/NaN), both runs reading the "
            "same decoder input: FP32's greedy output. The linear layers read weights stored in the low format and "
            "sum in FP32; this panel shows what rounding does, not the time it saves (txcli bench --precision).") {}

std::string PrecisionPanel::describe_mode(PrecisionMode mode) {
    const std::string f = explain::format_name(mode.format);
    const std::string bits = mode.format == Precision::Bf16 ? "8 significant bits, FP32's range"
                                                            : "11 significant bits, largest value 65504";
    switch (mode.format) {
        case Precision::Fp32:
            return "FP32: the reference, the model as trained. Both runs are the same, so every difference is 0.";
        case Precision::Int8:
            return "INT8 weight-only: each row of a linear layer's weight becomes whole numbers \xE2\x88\x92" "127\xE2\x80\xA6" "127 "
                   "times a scale max|w|/127; activations, attention products and everything else stay FP32.";
        case Precision::Bf16:
        case Precision::Fp16:
            if (mode.all_low)
                return "Everything in " + f + " (" + bits + "), a teaching switch: autocast, and every step's output is "
                       "rounded to " + f + " as well, softmax and the norms included. Nothing stops an overflow.";
            return f + " autocast (" + bits + "), as PyTorch's CPU autocast: the linear layers' weights and each matrix "
                   "product's inputs and output are rounded to " + f + "; softmax, the norms, residuals and activations "
                   "run in FP32.";
    }
    return "";
}

void PrecisionPanel::draw_controls(PanelContext& ctx) {
    // The settings are the Workbench's: edit a copy, send it when a control changed it.
    Workbench::PrecisionSettings want = ctx.precision;
    PrecisionMode& mode = want.mode;
    // The histogram starts relative for BF16 and FP16, absolute for INT8 (whose relative error is unbounded).
    if (mode.format != m_relative_for) {
        m_relative = mode.format != Precision::Int8;
        m_relative_for = mode.format;
    }
    const char* names[] = {"FP32", "BF16", "FP16", "INT8 weight-only"};
    const Precision formats[] = {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Int8};
    int current = 0;
    for (int i = 0; i < 4; ++i)
        if (formats[i] == mode.format) current = i;
    bool changed = false;
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::Combo("precision", &current, names, 4)) {
        mode.format = formats[current];
        if (mode.format != Precision::Bf16 && mode.format != Precision::Fp16) mode.all_low = false;
        changed = true;
    }
    ImGui::SameLine(0.0f, 20.0f);
    const bool can_all_low = mode.format == Precision::Bf16 || mode.format == Precision::Fp16;
    ImGui::BeginDisabled(!can_all_low);
    changed |= ImGui::Checkbox("everything in low precision", &mode.all_low);
    ImGui::EndDisabled();
    item_tooltip("BF16 and FP16 only: every step's output is rounded to the format, not only the matrix products'.");
    ImGui::SameLine(0.0f, 20.0f);
    char label[32];
    std::snprintf(label, sizeof label, "\xC3\x97%g", static_cast<double>(want.embedding_scale));
    ImGui::SetNextItemWidth(90.0f);
    if (ImGui::BeginCombo("embeddings", label)) {
        for (float s : EMBEDDING_SCALES) {
            std::snprintf(label, sizeof label, "\xC3\x97%g", static_cast<double>(s));
            if (ImGui::Selectable(label, s == want.embedding_scale)) {
                want.embedding_scale = s;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    help_marker("Multiplies both embedding tables, in both runs, by this factor. \xC3\x97" "1 is the model as trained; a "
                "large factor makes the activations large enough to pass FP16's largest value, 65504, so that FP16 "
                "overflow shows (FP32 and BF16 reach 3.4\xC2\xB7" "10^38).");
    coloured_paragraph(LOW_COLOUR, describe_mode(mode));
    if (changed) ctx.commands.send(SetPrecision{mode, want.embedding_scale});
}

void PrecisionPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    draw_controls(ctx);
    if (v.sentences.empty() || v.sentences.front().empty()) {
        ImGui::TextUnformatted("Type a sentence in the Input panel to compare precisions on it.");
        return;
    }
    const std::shared_ptr<const explain::PrecisionView> result = v.precision;
    if (!v.precision_current && !v.precision_computing) ctx.commands.send(ComputePrecision{});
    std::string differs;
    if (!v.options.causal_mask || !v.options.padding_mask || !v.options.positional_encoding || !v.options.disabled_heads.empty())
        differs += "The Masks / Positional toggles and switched-off heads do not apply here: both runs use the model as trained. ";
    if (v.B > 1) differs += "Only the first sentence is compared. ";
    if (!differs.empty()) disabled_paragraph("Note: " + differs);
    if (!result) {
        ImGui::TextUnformatted("Running the sentence in both precisions\xE2\x80\xA6");
        return;
    }
    if (!v.precision_current) ImGui::TextDisabled("Computing for the new settings\xE2\x80\xA6 (showing the previous result)");
    const explain::PrecisionView& r = *result;
    if (!r.error.empty()) {
        coloured_paragraph(WARNING_COLOUR, "Cannot compare this input: " + r.error);
        return;
    }
    ImGui::Separator();
    draw_outputs(r);
    if (r.first_nonfinite >= 0) {
        const explain::PrecisionStepRow& s = r.steps[static_cast<size_t>(r.first_nonfinite)];
        coloured_paragraph(ERROR_COLOUR, "First inf/NaN at step " + std::to_string(r.first_nonfinite) + ", " +
                                             s.difference.name + ": " + r.nonfinite_reason);
    } else if (r.request.mode.format != Precision::Fp32) {
        ImGui::TextDisabled("No step holds inf or NaN in the %s run.", explain::format_name(r.request.mode.format));
    }
    if (softmax_hides_nonfinite_scores(r))
        ImGui::TextWrapped("Some probabilities steps show no inf/NaN although their scores were all inf/NaN: this "
                           "project's softmax gives a row with no finite score zeros, as it does a row whose every "
                           "key is masked (PyTorch's softmax would give NaN there).");
    ImGui::Separator();
    if (!ImGui::BeginTable("##precision_layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
    ImGui::TableSetupColumn("steps", ImGuiTableColumnFlags_WidthStretch, 0.42f);
    ImGui::TableSetupColumn("views", ImGuiTableColumnFlags_WidthStretch, 0.58f);
    ImGui::TableNextColumn();
    draw_steps(r);
    ImGui::TableNextColumn();
    ImGui::BeginChild("##precision_views", ImVec2(0, 0), false);
    draw_attention(ctx, r);
    ImGui::Spacing();
    if (ImGui::BeginTable("##logits_and_weights", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("logits", ImGuiTableColumnFlags_WidthStretch, 0.42f);
        ImGui::TableSetupColumn("weights", ImGuiTableColumnFlags_WidthStretch, 0.58f);
        ImGui::TableNextColumn();
        draw_logits(r);
        ImGui::TableNextColumn();
        draw_histogram(r);
        ImGui::EndTable();
    }
    ImGui::EndChild();
    ImGui::EndTable();
}

void PrecisionPanel::draw_outputs(const explain::PrecisionView& r) {
    const std::string low = std::string(explain::format_name(r.request.mode.format)) + " output:";
    token_row("FP32 output:", r.fp32_output, -1);
    token_row(low.c_str(), r.low_output, r.first_change);
    if (r.first_change < 0)
        ImGui::TextDisabled("The greedy outputs are the same, token for token.");
    else
        ImGui::TextColored(WARNING_COLOUR, "The greedy outputs part at output token %d (framed).", r.first_change + 1);
    if (r.bf16_products == "vdpbf16ps")
        disabled_paragraph("BF16 products on this CPU: vdpbf16ps (AVX512_BF16: pairs of BF16 values multiplied and "
                           "summed into FP32) for the linear layers; the attention products multiply BF16-rounded "
                           "values in FP32.");
    else if (!r.bf16_products.empty())
        disabled_paragraph("BF16 products on this CPU: each BF16 weight widened to FP32 and summed with FP32 "
                           "multiply-adds (the CPU has no BF16 dot-product instruction, or TX_BF16=widened).");
    if (r.request.embedding_scale != 1.0f)
        disabled_paragraph("With the embeddings \xC3\x97" + number(r.request.embedding_scale, "%g") + " this is no longer the trained "
                  "model: its FP32 run is the reference the comparison needs, not a translation.");
    if (r.low_nan_logits > 0 && !r.vocabulary.empty())
        disabled_paragraph("The " + std::string(explain::format_name(r.request.mode.format)) + " run's logits hold NaN, so no token is the most "
                  "probable: greedy decoding's argmax then keeps the first id, 0 (" + r.vocabulary.front() + "), until the "
                  "length limit.");
}

void PrecisionPanel::draw_steps(const explain::PrecisionView& r) {
    ImGui::TextUnformatted("Every step against FP32");
    ImGui::SameLine();
    help_marker("max |\xCE\x94|: the largest |low \xE2\x88\x92 FP32| over the step's finite values. rel.: that divided by "
                "the step's largest |FP32 value|. inf/NaN: values that are inf or NaN in the low run where FP32 has a "
                "number. \"ran in\": a product ran in the low format (inputs and output rounded), an output was rounded to it "
                "(everything low), INT8 weights were used, or FP32 computed it on the values before it. Click an attention probabilities row to show its heatmap.");
    // The step column is as wide as the longest name (never cut short); when the panel is narrow the
    // table scrolls sideways, with the step numbers and names frozen at the left.
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
    float name_width = ImGui::CalcTextSize("step").x;
    for (const explain::PrecisionStepRow& s : r.steps) name_width = std::max(name_width, ImGui::CalcTextSize(s.difference.name.c_str()).x);
    if (!ImGui::BeginTable("##steps", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
    ImGui::TableSetupScrollFreeze(2, 1);
    ImGui::TableSetupColumn("#");
    ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, name_width);
    ImGui::TableSetupColumn("ran in");
    ImGui::TableSetupColumn("max |\xCE\x94|");
    ImGui::TableSetupColumn("rel.");
    ImGui::TableSetupColumn("inf/NaN");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < r.steps.size(); ++i) {
        const explain::PrecisionStepRow& s = r.steps[i];
        ImGui::TableNextRow();
        if (static_cast<int>(i) == r.first_nonfinite)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(120, 40, 40, 255));
        ImGui::TableNextColumn();
        ImGui::Text("%zu", i);
        ImGui::TableNextColumn();
        const std::string& name = s.difference.name;
        const bool probs = name.size() > 6 && name.compare(name.size() - 6, 6, ".probs") == 0;
        if (probs) {
            if (ImGui::Selectable((name + "##" + std::to_string(i)).c_str(), false)) {
                for (size_t b = 0; b < r.attention.size(); ++b)
                    if (r.attention[b].prefix + ".probs" == name) m_block = static_cast<int>(b);
            }
        } else {
            ImGui::TextUnformatted(name.c_str());
        }
        ImGui::TableNextColumn();
        if (s.how == explain::LowStep::Fp32) ImGui::TextDisabled("FP32");
        else ImGui::TextColored(LOW_COLOUR, "%s", how_text(s.how, r.request.mode.format).c_str());
        if (!s.difference.materialised) {
            ImGui::TableNextColumn();
            ImGui::TextDisabled("not run");
            ImGui::TableNextColumn();
            ImGui::TableNextColumn();
            continue;
        }
        if (s.difference.finite_pairs == 0) {
            // Every value is inf/NaN in one run or the other: there is no difference to show.
            for (int column = 0; column < 2; ++column) {
                ImGui::TableNextColumn();
                ImGui::TextDisabled("\xE2\x80\x93");
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("No value of this step is finite in both runs.");
            }
        } else {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(number(s.difference.max_abs).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(number(s.difference.relative).c_str());
        }
        ImGui::TableNextColumn();
        if (s.difference.nonfinite > 0) ImGui::TextColored(ERROR_COLOUR, "%lld", static_cast<long long>(s.difference.nonfinite));
        else ImGui::TextDisabled("0");
    }
    ImGui::EndTable();
}

void PrecisionPanel::draw_attention(PanelContext& ctx, const explain::PrecisionView& r) {
    if (r.attention.empty()) return;
    if (m_block < 0 || m_block >= static_cast<int>(r.attention.size())) {
        m_block = 0;
        for (size_t b = 0; b < r.attention.size(); ++b)
            if (r.attention[b].kind == AttentionKind::Cross) {
                m_block = static_cast<int>(b);
                break;
            }
    }
    const explain::AttentionPair& p = r.attention[static_cast<size_t>(m_block)];
    ImGui::Text("Attention: %s \xE2\x88\x92 FP32", explain::format_name(r.request.mode.format));
    ImGui::SameLine(0.0f, 16.0f);
    ImGui::SetNextItemWidth(260.0f);
    if (ImGui::BeginCombo("##block", block_title(p).c_str())) {
        for (size_t b = 0; b < r.attention.size(); ++b)
            if (ImGui::Selectable(block_title(r.attention[b]).c_str(), static_cast<int>(b) == m_block)) m_block = static_cast<int>(b);
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    m_head = std::clamp(m_head, 0, p.heads - 1);
    ImGui::SetNextItemWidth(140.0f);
    ImGui::SliderInt("head", &m_head, 0, p.heads - 1);
    const explain::AttentionDifference d = attention_difference(p, m_head);
    const std::vector<std::string>& rows = p.kind == AttentionKind::EncoderSelf ? r.source_tokens : r.target_tokens;
    const std::vector<std::string>& cols = p.kind == AttentionKind::DecoderSelf ? r.target_tokens : r.source_tokens;
    const std::string fmt = explain::format_name(r.request.mode.format);
    const bool nothing_finite = d.nonfinite >= static_cast<int64_t>(d.values.size());
    ImGui::TextDisabled("largest |%s \xE2\x88\x92 FP32| in this head: %s%s", fmt.c_str(),
                        nothing_finite ? "\xE2\x80\x93" : number(d.max_abs).c_str(),
                        d.nonfinite > 0 ? (", " + std::to_string(d.nonfinite) + " cells inf/NaN (grey)").c_str() : "");
    if (!ImGui::BeginTable("##attention_maps", 2, ImGuiTableFlags_SizingStretchSame)) return;
    const std::vector<float> fp32(p.fp32.begin() + static_cast<std::ptrdiff_t>(m_head) * p.rows * p.cols,
                                  p.fp32.begin() + static_cast<std::ptrdiff_t>(m_head + 1) * p.rows * p.cols);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("FP32 probabilities");
    HeatmapSpec a;
    a.id = "fp32_map";
    a.values = fp32.data();
    a.rows = p.rows;
    a.cols = p.cols;
    a.row_labels = &rows;
    a.col_labels = &cols;
    a.row_axis = "query";
    a.col_axis = "key";
    a.title = "FP32 attention " + p.prefix + " head " + std::to_string(m_head);
    a.vmin = 0.0f;
    a.vmax = 1.0f;
    a.max_cell = 20.0f;
    a.values_in_cells = false;
    draw_heatmap(a, &ctx.commands);
    ImGui::TableNextColumn();
    ImGui::Text("%s \xE2\x88\x92 FP32 (scale \xC2\xB1%s)", fmt.c_str(), number(d.max_abs).c_str());
    HeatmapSpec b = a;
    b.id = "difference_map";
    b.values = d.values.data();
    b.title = fmt + " minus FP32 attention " + p.prefix + " head " + std::to_string(m_head);
    b.map = Colormap::Diverging;
    b.symmetric = true;
    b.vmin.reset();
    b.vmax.reset();
    if (d.max_abs == 0.0) {
        b.vmin = -1e-9f;   // all zero: the centre colour, with a scale that is not empty
        b.vmax = 1e-9f;
        b.symmetric = false;
    }
    b.tooltip = [&rows, &cols, fmt](int i, int j, float x) {
        return rows.at(static_cast<size_t>(i)) + " \xE2\x86\x92 " + cols.at(static_cast<size_t>(j)) + ": " + fmt + " \xE2\x88\x92 FP32 = " +
               (std::isnan(x) ? std::string("inf/NaN") : number(x, "%.3e"));
    };
    draw_heatmap(b, &ctx.commands);
    ImGui::EndTable();
}

void PrecisionPanel::draw_logits(const explain::PrecisionView& r) {
    const int T = static_cast<int>(r.target_tokens.size());
    if (T == 0 || r.vocab == 0) return;
    // Output token k is chosen at decoder position offset + k (decoder-only: after the prompt).
    const int offset = std::max(0, T - 1 - static_cast<int>(r.fp32_output.size()));
    if (m_position < 0 || m_position >= T) m_position = std::clamp(offset + std::max(r.first_change, 0), 0, T - 1);
    auto label = [&](int t) {
        const std::string& here = r.target_tokens[static_cast<size_t>(t)];
        if (t + 1 >= T) return "position " + std::to_string(t) + " (" + here + ", the last)";
        return "position " + std::to_string(t) + " (" + here + ", chooses " + r.target_tokens[static_cast<size_t>(t + 1)] + ")";
    };
    ImGui::TextUnformatted("Logits at");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##position", label(m_position).c_str())) {
        for (int t = 0; t < T; ++t)
            if (ImGui::Selectable(label(t).c_str(), t == m_position)) m_position = t;
        ImGui::EndCombo();
    }
    const explain::LogitsAtPosition l = explain::logits_at_position(r.fp32_logits, r.low_logits, T, r.vocab, m_position, 5);
    const std::string fmt = explain::format_name(r.request.mode.format);
    // Every logit inf/NaN: nothing finite to compare, so "–" rather than a difference of 0.
    const std::string largest_logit_change = l.nonfinite >= r.vocab ? "\xE2\x80\x93" : number(l.max_abs);
    ImGui::TextDisabled("max |\xCE\x94 logit| at this position: %s%s", largest_logit_change.c_str(),
                        l.nonfinite > 0 ? (", " + std::to_string(l.nonfinite) + " inf/NaN").c_str() : "");
    if (!ImGui::BeginTable("##top5", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("rank");
    ImGui::TableSetupColumn("FP32 token");
    ImGui::TableSetupColumn("p (FP32)");
    ImGui::TableSetupColumn((fmt + " token").c_str());
    ImGui::TableSetupColumn(("p (" + fmt + ")").c_str());
    ImGui::TableHeadersRow();
    auto token = [&](int id) { return id >= 0 && id < static_cast<int>(r.vocabulary.size()) ? r.vocabulary[static_cast<size_t>(id)] : std::string("#").append(std::to_string(id)); };
    for (size_t k = 0; k < 5; ++k) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%zu", k + 1);
        ImGui::TableNextColumn();
        if (k < l.fp32.ids.size()) ImGui::TextUnformatted(token(l.fp32.ids[k]).c_str());
        ImGui::TableNextColumn();
        if (k < l.fp32.ids.size()) ImGui::Text("%.4f", l.fp32.probabilities[k]);
        ImGui::TableNextColumn();
        if (k < l.low.ids.size()) {
            const bool moved = k >= l.fp32.ids.size() || l.low.ids[k] != l.fp32.ids[k];
            if (moved) ImGui::TextColored(WARNING_COLOUR, "%s", token(l.low.ids[k]).c_str());
            else ImGui::TextUnformatted(token(l.low.ids[k]).c_str());
        } else if (k == 0) {
            ImGui::TextColored(ERROR_COLOUR, "inf/NaN logits");
        }
        ImGui::TableNextColumn();
        if (k < l.low.ids.size()) ImGui::Text("%.4f", l.low.probabilities[k]);
    }
    ImGui::EndTable();
}

void PrecisionPanel::draw_histogram(const explain::PrecisionView& r) {
    ImGui::TextUnformatted("A weight matrix's rounding error");
    if (r.absolute.empty()) {
        disabled_paragraph("FP32 uses the weights as they are: no rounding error. Choose BF16, FP16 or INT8 to see it.");
        return;
    }
    m_weight = std::clamp(m_weight, 0, static_cast<int>(r.absolute.size()) - 1);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##weight", r.absolute[static_cast<size_t>(m_weight)].parameter.c_str())) {
        for (size_t i = 0; i < r.absolute.size(); ++i)
            if (ImGui::Selectable(r.absolute[i].parameter.c_str(), static_cast<int>(i) == m_weight)) m_weight = static_cast<int>(i);
        ImGui::EndCombo();
    }
    ImGui::Checkbox("relative (error / |w|)", &m_relative);
    const explain::RoundingHistogram& h = (m_relative ? r.relative : r.absolute)[static_cast<size_t>(m_weight)];
    const std::string fmt = explain::format_name(h.format);
    std::string line = std::string("[").append(std::to_string(h.rows)).append(", ").append(std::to_string(h.cols)) + "], max |w| " + number(h.max_abs_weight) +
                       "; max |error| " + number(h.max_abs_error);
    if (h.step > 0.0) {
        const char* what = h.relative ? "relative step" : h.format == Precision::Int8 ? "largest row scale (its step)" : "step at max |w|";
        line += "; " + fmt + "'s " + what + " " + number(h.step) + ", so every error is within " + number(h.step / 2);
    } else if (h.relative && h.format == Precision::Int8) {
        line += "; INT8 has no relative bound: a weight much smaller than its row's scale rounds to 0 (relative error 1)";
    }
    if (h.skipped > 0) line += "; " + std::to_string(h.skipped) + " zero weights left out";
    if (h.subnormal > 0)
        line += "; " + std::to_string(h.subnormal) + " weights below " + fmt + "'s smallest normal left out (as subnormals "
                "they round in fixed steps and can err more)";
    if (h.overflowed > 0) line += "; " + std::to_string(h.overflowed) + " weights overflow to inf (left out)";
    disabled_paragraph(line + ".");
    if (h.max_abs_error == 0.0 && h.format != Precision::Int8 && h.overflowed == 0)
        disabled_paragraph("Every weight of this matrix is already exactly a " + fmt + " number, so rounding changes none of them: "
                           "the model file stores it in a 16-bit format (the everyday model keeps its embedding tables and "
                           "output layer in BF16, and its layers in FP32).");
    draw_bits(h);

    // Bars over [−range, range], the ±step/2 bound as two lines.
    const float width = std::max(200.0f, ImGui::GetContentRegionAvail().x - 10.0f), height = 110.0f, axis = 34.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##histogram", ImVec2(width, height + axis));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 pmin(origin.x + 40.0f, origin.y + 4.0f), pmax(origin.x + width, origin.y + height);
    dl->AddRectFilled(pmin, pmax, IM_COL32(30, 30, 34, 255));
    const int64_t top = std::max<int64_t>(1, *std::max_element(h.counts.begin(), h.counts.end()));
    const int bins = static_cast<int>(h.counts.size());
    const float bw = (pmax.x - pmin.x) / static_cast<float>(bins);
    for (int i = 0; i < bins; ++i) {
        const float y = pmax.y - (pmax.y - pmin.y) * static_cast<float>(h.counts[static_cast<size_t>(i)]) / static_cast<float>(top);
        dl->AddRectFilled(ImVec2(pmin.x + i * bw + 1.0f, y), ImVec2(pmin.x + (i + 1) * bw - 1.0f, pmax.y), IM_COL32(90, 160, 240, 255));
    }
    auto x_of = [&](double e) { return pmin.x + static_cast<float>((e + h.range) / (2.0 * h.range)) * (pmax.x - pmin.x); };
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (double t : nice_ticks(-h.range, h.range, 5)) {
        const float x = x_of(t);
        dl->AddLine(ImVec2(x, pmax.y), ImVec2(x, pmax.y + 4.0f), faint);
        const std::string s = number(t, "%.2g");
        dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x / 2, pmax.y + 5.0f), text, s.c_str());
    }
    if (h.step > 0.0 && h.step / 2 <= h.range * 1.05) {
        for (double e : {-h.step / 2, h.step / 2}) {
            const float x = x_of(std::clamp(e, -h.range, h.range));
            dl->AddLine(ImVec2(x, pmin.y), ImVec2(x, pmax.y), ImGui::GetColorU32(WARNING_COLOUR), 1.5f);
        }
        dl->AddText(ImVec2(x_of(h.step / 2) - 70.0f, pmin.y + 2.0f), ImGui::GetColorU32(WARNING_COLOUR), "\xC2\xB1step/2");
    }
    const std::string count = std::to_string(top);
    dl->AddText(ImVec2(origin.x, pmin.y), faint, count.c_str());
    dl->AddText(ImVec2(origin.x + 20.0f, pmax.y - ImGui::GetTextLineHeight()), faint, "0");
    const char* x_title = h.relative ? "(w \xE2\x88\x92 rounded w) / |w|" : "w \xE2\x88\x92 rounded w";
    dl->AddText(ImVec2(pmin.x + (pmax.x - pmin.x) / 2 - ImGui::CalcTextSize(x_title).x / 2, pmax.y + 5.0f + ImGui::GetTextLineHeight()),
                faint, x_title);
    if (ImGui::IsItemHovered()) {
        const int bin = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - pmin.x) / bw), 0, bins - 1);
        const double lo = -h.range + 2.0 * h.range * bin / bins, hi = lo + 2.0 * h.range / bins;
        ImGui::SetTooltip("%s to %s: %lld weights", number(lo).c_str(), number(hi).c_str(),
                          static_cast<long long>(h.counts[static_cast<size_t>(bin)]));
    }
}

void PrecisionPanel::draw_bits(const explain::RoundingHistogram& h) {
    ImGui::Text("Its first weight, w[0, 0], in bits:");
    ImGui::SameLine();
    help_marker("sign (red) | exponent (green) | mantissa (blue). FP32 has 8 exponent and 23 mantissa bits; BF16 keeps "
                "FP32's 8 exponent bits and only 7 of the mantissa; FP16 has 5 exponent bits (largest value 65504) and 10 "
                "mantissa bits. Each value is the FP32 weight rounded to the nearest number the format holds.");
    for (Precision format : {Precision::Fp32, Precision::Bf16, Precision::Fp16}) bit_row(h.first_weight, format);
}

}  // namespace tx::app
