// Decoding panel (see decoding_panel.h). Reads SessionView::greedy / beams (one entry per batch
// row, b = the selected row) and the beam search's trace: trace[t] is decoder step t + 1, its
// prefixes are the live beams entering it, its candidates all beams' top-K next tokens.
#include "decoding_panel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "speculative_view.h"
#include "tx/decoding.h"
#include "widgets/font_sampling.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const ImVec4 GREEDY_COLOUR(0.55f, 0.85f, 1.0f, 1.0f);
const ImVec4 BEAM_COLOUR(0.65f, 0.92f, 0.55f, 1.0f);

struct FateStyle {
    ImU32 bg, border, fg;
    const char* name;
};

FateStyle fate_style(BeamFate fate) {
    switch (fate) {
        case BeamFate::Kept: return {IM_COL32(38, 96, 58, 255), IM_COL32(90, 180, 110, 255), IM_COL32(235, 245, 235, 255), "kept"};
        case BeamFate::Finished:
            // EOS's colour in the token chips: a finished candidate is one whose piece is EOS.
            return {IM_COL32(82, 62, 128, 255), IM_COL32(170, 140, 235, 255), IM_COL32(245, 240, 255, 255), "finished"};
        case BeamFate::Pruned: break;
    }
    return {IM_COL32(42, 42, 46, 255), IM_COL32(75, 75, 82, 255), IM_COL32(140, 140, 145, 255), "pruned"};
}

std::string number(double x, const char* format = "%.3f") {
    char buf[32];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

// The ids a hypothesis generated, EOS appended when it finished: what the decoder emitted.
std::vector<int> emitted(const BeamHypothesis& h, int eos) {
    std::vector<int> ids = h.ids;
    if (h.finished) ids.push_back(eos);
    return ids;
}

// Index of the first position where a and b differ; -1 when they are equal.
int first_difference(const std::vector<int>& a, const std::vector<int>& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return static_cast<int>(i);
    return a.size() == b.size() ? -1 : static_cast<int>(n);
}

std::string piece_text(const explain::SessionView& v, int id) {
    const SpecialTokens& sp = v.config.special;
    if (id == sp.eos) return "EOS";
    if (id == sp.bos) return "BOS";
    if (id == sp.pad) return "PAD";
    if (id == sp.unk) return "UNK";
    return v.token_text(id);
}

// One output: its text, its pieces as chips (the piece at `highlight` marked) and its numbers.
void draw_output(const explain::SessionView& v, const BeamHypothesis& h, const std::string& text, int highlight) {
    const SpecialTokens& sp = v.config.special;
    ImGui::PushTextWrapPos(0.0f);
    if (text.empty()) ImGui::TextDisabled("(empty output: EOS came first)");
    else ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    const std::vector<int> ids = emitted(h, sp.eos);
    for (size_t i = 0; i < ids.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        const int id = ids[i];
        const bool marked = static_cast<int>(i) == highlight;
        const ChipKind kind = marked ? ChipKind::Highlight
                              : id == sp.eos || id == sp.bos ? ChipKind::Special
                              : id == sp.unk ? ChipKind::Unknown
                              : id == sp.pad ? ChipKind::Pad
                                             : ChipKind::Normal;
        token_chip(piece_text(v, id), id, kind, marked ? "the first position where the two outputs differ" : nullptr);
        ImGui::PopID();
    }
    ImGui::NewLine();
    // The other output goes on where this one was cut at the limit.
    if (highlight >= static_cast<int>(ids.size())) ImGui::TextColored(ImVec4(0.98f, 0.8f, 0.4f, 1.0f), "(ends here; the other goes on)");
    const double lp = length_penalty(h.length, v.length_penalty);
    ImGui::PushFont(mono_font());
    ImGui::Text("log P(Y) = %s   |Y| = %d (%zu pieces%s)", number(h.log_prob).c_str(), h.length, h.ids.size(),
                h.finished ? " + EOS" : ", no EOS: cut at the limit");
    ImGui::Text("lp = ((5 + %d) / 6)^%.2f = %s   score = log P / lp = %s", h.length, v.length_penalty, number(lp).c_str(),
                number(h.score).c_str());
    ImGui::PopFont();
}

// A candidate of the trace as a one-line chip: the piece, then its cumulative log-prob (and the
// score for a finished one). best / greedy: on the path of the best hypothesis (white outline) /
// of greedy decoding (a bar in greedy's colour).
void candidate_chip(const explain::SessionView& v, const BeamStep& step, const BeamCandidate& c, int rank, bool best, bool greedy,
                    const std::string& prefix) {
    const FateStyle style = fate_style(c.fate);
    const std::string piece = fit_text(piece_text(v, c.token), 120.0f);
    std::string numbers = number(c.log_prob, "%.2f");
    if (c.fate == BeamFate::Finished) numbers += " \xE2\x86\x92 " + number(c.score, "%.2f");
    const float small = ImGui::GetFontSize() * 0.82f;
    const ImVec2 ts = ImGui::CalcTextSize(piece.c_str());
    const ImVec2 ns = ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0.0f, numbers.c_str());
    const float pad = 5.0f, gap = 6.0f;
    const ImVec2 size(ts.x + gap + ns.x + 2 * pad, ts.y + 6.0f);
    if (ImGui::GetContentRegionAvail().x < size.x) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 q(p.x + size.x, p.y + size.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, q, style.bg, 4.0f);
    if (greedy)
        dl->AddRectFilled(ImVec2(p.x + 2, q.y - 3.5f), ImVec2(q.x - 2, q.y - 0.5f), ImGui::GetColorU32(GREEDY_COLOUR), 1.0f);
    dl->AddRect(p, q, best ? IM_COL32(255, 255, 255, 255) : style.border, 4.0f, 0, best ? 2.5f : 1.0f);
    dl->AddText(ImVec2(p.x + pad, p.y + 3.0f), style.fg, piece.c_str());
    add_scaled_text(dl, small, ImVec2(p.x + pad + ts.x + gap, p.y + 3.0f + (ts.y - ns.y) * 0.6f),
                c.fate == BeamFate::Pruned ? IM_COL32(130, 130, 135, 255) : IM_COL32(215, 222, 215, 255), numbers.c_str());
    ImGui::Dummy(size);
    if (ImGui::IsItemHovered()) {
        const double beam_lp = step.log_probs[static_cast<size_t>(c.beam)];
        ImGui::BeginTooltip();
        ImGui::Text("beam %d  \"%s\"  +  %s", c.beam + 1, prefix.c_str(), piece_text(v, c.token).c_str());
        ImGui::Text("cumulative log P = %.3f (beam) + %.3f (log p of this piece) = %.3f", beam_lp, c.log_prob - beam_lp,
                    c.log_prob);
        ImGui::Text("rank %d of the step's %zu candidates: %s", rank, step.candidates.size(),
                    c.fate == BeamFate::Pruned ? "outside the best K, pruned"
                    : c.fate == BeamFate::Kept ? "among the best K: a live beam of the next step"
                                               : "among the best K and it is EOS: a finished hypothesis");
        if (c.fate == BeamFate::Finished) {
            const int length = static_cast<int>(step.prefixes[static_cast<size_t>(c.beam)].size()) + 1;
            ImGui::Text("score = %.3f / ((5 + %d) / 6)^%.2f = %.3f", c.log_prob, length, v.length_penalty, c.score);
        }
        if (best) ImGui::TextUnformatted("on the path of the best hypothesis");
        if (greedy) ImGui::TextUnformatted("greedy decoding's choice");
        ImGui::EndTooltip();
    }
    ImGui::SameLine(0.0f, 4.0f);
}

void legend_box(FateStyle s, const char* text) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + h * 1.4f, p.y + h), s.bg, 3.0f);
    dl->AddRect(p, ImVec2(p.x + h * 1.4f, p.y + h), s.border, 3.0f);
    ImGui::Dummy(ImVec2(h * 1.4f, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0.0f, 18.0f);
}

// A speculative round's piece: accepted (the model agreed), rejected (the first it did not),
// dropped (after a rejection: never checked on its own prefix), or the model's own token.
enum class RoundPiece { Accepted, Rejected, Dropped, ModelToken };

void round_chip(const std::string& text, RoundPiece kind, const char* tooltip) {
    struct Style {
        ImU32 bg, border, fg;
    };
    const Style style = kind == RoundPiece::Accepted   ? Style{IM_COL32(38, 96, 58, 255), IM_COL32(90, 180, 110, 255), IM_COL32(235, 245, 235, 255)}
                        : kind == RoundPiece::Rejected ? Style{IM_COL32(110, 40, 40, 255), IM_COL32(220, 100, 95, 255), IM_COL32(255, 230, 228, 255)}
                        : kind == RoundPiece::Dropped  ? Style{IM_COL32(42, 42, 46, 255), IM_COL32(75, 75, 82, 255), IM_COL32(140, 140, 145, 255)}
                                                       : Style{IM_COL32(30, 70, 105, 255), IM_COL32(140, 215, 255, 255), IM_COL32(235, 245, 255, 255)};
    const std::string shown = fit_text(text, 140.0f);
    const ImVec2 ts = ImGui::CalcTextSize(shown.c_str());
    const float pad = 5.0f;
    // at least a square, so that a struck-through "." still reads as a piece
    const ImVec2 size(std::max(ts.x + 2 * pad, ts.y + 6.0f), ts.y + 6.0f);
    if (ImGui::GetContentRegionAvail().x < size.x) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 q(p.x + size.x, p.y + size.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, q, style.bg, 4.0f);
    dl->AddRect(p, q, style.border, 4.0f, 0, kind == RoundPiece::ModelToken ? 2.0f : 1.0f);
    dl->AddText(ImVec2(p.x + (size.x - ts.x) * 0.5f, p.y + 3.0f), style.fg, shown.c_str());
    if (kind == RoundPiece::Dropped)   // struck through: thrown away unchecked
        dl->AddLine(ImVec2(p.x + 3, p.y + size.y * 0.5f), ImVec2(q.x - 3, p.y + size.y * 0.5f), IM_COL32(150, 150, 155, 255));
    ImGui::Dummy(size);
    if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
    ImGui::SameLine(0.0f, 4.0f);
}

void round_legend(RoundPiece kind, const char* sample, const char* text) {
    round_chip(sample, kind, nullptr);
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0.0f, 18.0f);
}

}  // namespace

DecodingPanel::DecodingPanel()
    : Panel("How the output is chosen, one piece at a time. Greedy decoding takes the most probable next piece at every "
            "step. Beam search keeps the K most probable partial outputs (beams): each proposes its K best next pieces, "
            "the best K of all proposals go on, those ending in EOS are finished and scored with the length penalty, "
            "score = log P(Y) / lp(Y), lp = ((5 + |Y|) / 6)^\xCE\xB1 (Wu et al. 2016). The paper used K = 4, "
            "\xCE\xB1 = 0.6.") {}

void DecodingPanel::draw_controls(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (!m_editing) {
        m_beam_size = std::clamp(v.beam_size, 1, 8);
        m_alpha = static_cast<float>(v.length_penalty);
    }
    bool apply = false;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Beam size K");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(150);
    // Applied on release: a beam search per frame while dragging would stall the window.
    ImGui::SliderInt("##K", &m_beam_size, 1, 8);
    const bool k_active = ImGui::IsItemActive();
    apply |= ImGui::IsItemDeactivatedAfterEdit();
    item_tooltip("How many partial outputs are kept at each step. K = 1 keeps one: that is greedy decoding.");
    ImGui::SameLine(0.0f, 20.0f);
    ImGui::TextUnformatted("length penalty \xCE\xB1");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(150);
    ImGui::SliderFloat("##alpha", &m_alpha, 0.0f, 2.0f, "%.2f");
    const bool a_active = ImGui::IsItemActive();
    apply |= ImGui::IsItemDeactivatedAfterEdit();
    item_tooltip("\xCE\xB1 = 0 ranks by log P(Y) alone, which favours short outputs (every piece lowers log P); "
                 "larger values divide longer outputs' log P by more and so favour them.");
    m_editing = k_active || a_active;
    // α to the slider's two decimals, so that 0.60 is 0.6 as txcli's --length-penalty 0.6 is.
    if (apply) ctx.commands.send(SetDecoding{m_beam_size, std::clamp(std::round(static_cast<double>(m_alpha) * 100.0) / 100.0, 0.0, 5.0)});
    ImGui::SameLine(0.0f, 20.0f);
    ImGui::TextDisabled("%s", v.beam_size > 1 ? "The other views show beam search's output."
                                              : "K = 1: the other views show greedy decoding's output.");
    if (v.beam_size > 8) ImGui::TextDisabled("(the app was started with --beam %d; the slider goes to 8)", v.beam_size);

    if (v.B > 1) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(v.decoder_only ? "Prompt" : "Sentence");
        for (int b = 0; b < v.B; ++b) {
            ImGui::SameLine();
            ImGui::PushID(b);
            if (ImGui::RadioButton(std::to_string(b + 1).c_str(), ctx.selection.batch_row == b)) ctx.selection.batch_row = b;
            ImGui::PopID();
        }
    }
    if (v.target_text)
        ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.4f, 1.0f),
                           "A teacher-forced target is set: the other views show it, but both decodings below are the "
                           "model's own.");
}

void DecodingPanel::draw_comparison(const explain::SessionView& v, int row) {
    const BeamHypothesis& greedy = v.greedy[static_cast<size_t>(row)];
    const BeamResult& beam = v.beams[static_cast<size_t>(row)];
    const BeamHypothesis& best = beam.hypotheses.front();
    const int eos = v.config.special.eos;
    const int diff = first_difference(emitted(greedy, eos), emitted(best, eos));

    if (ImGui::BeginTable("##side_by_side", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(GREEDY_COLOUR, "Greedy decoding");
        ImGui::SameLine();
        ImGui::TextDisabled("(the most probable piece at every step)");
        ImGui::PushID("greedy");
        draw_output(v, greedy, v.greedy_text[static_cast<size_t>(row)], diff);
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::TextColored(BEAM_COLOUR, "Beam search, K = %d, \xCE\xB1 = %.2f", v.beam_size, v.length_penalty);
        ImGui::SameLine();
        ImGui::TextDisabled("(the best-scoring hypothesis)");
        ImGui::PushID("beam");
        draw_output(v, best, v.hypothesis_text[static_cast<size_t>(row)].front(), diff);
        ImGui::PopID();
        ImGui::EndTable();
    }

    ImGui::PushTextWrapPos(0.0f);
    const std::vector<int> g = emitted(greedy, eos), b = emitted(best, eos);
    if (diff < 0) {
        ImGui::TextColored(ImVec4(0.8f, 0.8f, 0.8f, 1.0f), "%s",
                           v.beam_size == 1 ? "Both give the same output: with K = 1 beam search keeps one beam, which is greedy decoding."
                                            : "Both give the same output: greedy's path was also the best-scoring hypothesis beam search found.");
    } else {
        const std::string gp = diff < static_cast<int>(g.size()) ? piece_text(v, g[static_cast<size_t>(diff)]) : "(ended)";
        const std::string bp = diff < static_cast<int>(b.size()) ? piece_text(v, b[static_cast<size_t>(diff)]) : "(ended)";
        std::string verdict;
        if (v.beam_size == 1)
            // One beam is greedy decoding, but it runs on this sentence alone and greedy on the whole batch.
            verdict = v.options.padding_mask
                          ? "With K = 1 beam search is greedy decoding on this sentence alone; greedy ran on the padded "
                            "batch, and rounding differences between the two runs tipped a near-tie."
                          : "With K = 1 beam search is greedy decoding on this sentence alone; greedy ran on the padded "
                            "batch, and with the padding mask off its PAD positions changed the choices.";
        else if (!greedy.finished && best.finished)
            verdict = "Greedy reached the length limit without EOS; beam search ranks any finished hypothesis above "
                      "one cut at the limit.";
        else if (greedy.finished && !best.finished)
            verdict = "No beam finished within the length limit, so beam search returns its best live beam, cut.";
        else if (best.score > greedy.score && best.log_prob < greedy.log_prob)
            // Ranked by score = log P / lp: a longer, less probable sentence can win through lp alone.
            verdict = "There beam search went on with a piece that was not the most probable, and its output scores higher (" +
                      number(best.score) + " > " + number(greedy.score) + ") although it is less probable (log P(Y) " +
                      number(best.log_prob) + " < " + number(greedy.log_prob) + "): it is longer, and the length "
                      "penalty divides its log P by more. Ranked by log P alone (\xCE\xB1 = 0) it would not beat greedy's.";
        else if (best.score > greedy.score)
            verdict = "There beam search went on with a piece that was not the most probable, and the whole output scores higher (" +
                      number(best.score) + " > " + number(greedy.score) + "): the most probable next piece did not lead to the best sentence.";
        else if (best.score < greedy.score)
            verdict = "Here greedy's output scores higher (" + number(greedy.score) + " > " + number(best.score) +
                      "): beam search is not exhaustive, and greedy's path fell out of the best K.";
        else
            verdict = "Both outputs score the same.";
        ImGui::TextColored(ImVec4(0.98f, 0.8f, 0.4f, 1.0f), "They differ from piece %d on (highlighted): greedy %s, beam search %s.",
                           diff + 1, gp.c_str(), bp.c_str());
        ImGui::TextUnformatted(verdict.c_str());
    }
    ImGui::PopTextWrapPos();
}

void DecodingPanel::draw_trace(const explain::SessionView& v, int row) {
    const BeamResult& beam = v.beams[static_cast<size_t>(row)];
    const auto& prefixes = v.prefix_text[static_cast<size_t>(row)];
    const int eos = v.config.special.eos;
    const int K = v.beam_size;
    const std::vector<int> best = emitted(beam.hypotheses.front(), eos);
    const std::vector<int> greedy = emitted(v.greedy[static_cast<size_t>(row)], eos);
    const float beam_column = std::clamp(ImGui::GetContentRegionAvail().x * 0.26f, 250.0f, 440.0f);   // prefixes grow
    // On a path: a prefix (token < 0) or prefix + token that starts the path's emitted ids.
    const auto on = [](const std::vector<int>& path, const std::vector<int>& prefix, int token) {
        if (prefix.size() >= path.size() || !std::equal(prefix.begin(), prefix.end(), path.begin())) return false;
        return token < 0 || path[prefix.size()] == token;
    };

    ImGui::TextDisabled("Colours:");
    ImGui::SameLine();
    legend_box(fate_style(BeamFate::Kept), "kept: a live beam of the next step");
    legend_box(fate_style(BeamFate::Finished), "finished: EOS among the best K, scored (log P \xE2\x86\x92 score)");
    legend_box(fate_style(BeamFate::Pruned), "pruned: outside the best K");
    ImGui::NewLine();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Numbers: cumulative log P. White outline: the best hypothesis's path; blue bar: greedy's "
                        "path, while it stays among the beams. Hover a candidate for its sum and rank.");
    ImGui::PopTextWrapPos();
    // Why the search stopped where it did (beam_search.h's stopping rule).
    const BeamStep& last = beam.trace.back();
    const bool any_live = std::any_of(last.candidates.begin(), last.candidates.end(),
                                      [](const BeamCandidate& c) { return c.fate == BeamFate::Kept; });
    const int limit = row < static_cast<int>(v.output_limit.size()) ? v.output_limit[static_cast<size_t>(row)] : 0;
    int finished = 0;
    for (const BeamStep& step : beam.trace)
        finished += static_cast<int>(std::count_if(step.candidates.begin(), step.candidates.end(),
                                                   [](const BeamCandidate& c) { return c.fate == BeamFate::Finished; }));
    ImGui::PushTextWrapPos(0.0f);
    if (!any_live)
        ImGui::TextDisabled("Stopped after step %zu: no live beam was left.", beam.trace.size());
    else if (static_cast<int>(beam.trace.size()) >= limit && v.decoder_only)
        ImGui::TextDisabled("Stopped after step %zu: the length limit, min(max_len \xE2\x88\x92 1, prompt + %d) tokens after "
                            "BOS, which leaves %d for the continuation.",
                            beam.trace.size(), CONTINUATION_TOKENS, limit);
    else if (static_cast<int>(beam.trace.size()) >= limit)
        ImGui::TextDisabled("Stopped after step %zu: the length limit, min(max_len \xE2\x88\x92 1, 2\xC2\xB7S + 10) = %d pieces.",
                            beam.trace.size(), limit);
    else
        ImGui::TextDisabled("Stopped after step %zu: %d hypotheses had finished (at least K = %d), and no live beam "
                            "could still beat the best score (a beam's log P can only fall as it grows; at best it "
                            "keeps it up to the limit).",
                            beam.trace.size(), finished, K);
    ImGui::PopTextWrapPos();

    // The table scrolls in a box of its own height so that the ranked hypotheses below stay in sight.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float line = ImGui::GetTextLineHeight();
    const float row_h = line + 2 * style.CellPadding.y + 1;
    const float chip_h = line + 6 + 2 * style.CellPadding.y + 1;
    size_t rows = 0;
    for (const BeamStep& step : beam.trace) rows += step.prefixes.size();
    const float table_h = static_cast<float>(rows) * chip_h + row_h + 4;
    const float ranked_h = static_cast<float>(beam.hypotheses.size() + 1) * row_h + 3 * ImGui::GetTextLineHeightWithSpacing() + 12;
    const float box_h = std::max(std::min(table_h, ImGui::GetContentRegionAvail().y - ranked_h), 8 * row_h);

    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersOuter |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("##trace", 3, flags, ImVec2(0, box_h))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, 44.0f);
    ImGui::TableSetupColumn("live beam entering the step (log P)", ImGuiTableColumnFlags_WidthFixed, beam_column);
    ImGui::TableSetupColumn("its best next pieces (cumulative log P)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t t = 0; t < beam.trace.size(); ++t) {
        const BeamStep& step = beam.trace[t];
        for (size_t b = 0; b < step.prefixes.size(); ++b) {
            ImGui::PushID(static_cast<int>(t * 64 + b));
            ImGui::TableNextRow();
            // One shade per step, alternating, so a step's beams read as one group.
            if (t % 2 == 1) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(255, 255, 255, 10));
            ImGui::TableNextColumn();
            ImGui::AlignTextToFramePadding();   // level with the chips' text
            if (b == 0) ImGui::Text("%zu", t + 1);
            ImGui::TableNextColumn();
            ImGui::AlignTextToFramePadding();
            // Decoder-only beams all start from BOS + the prompt; their pieces are the continuation.
            const std::string text = step.prefixes[b].empty() ? (v.decoder_only ? "BOS + prompt" : "BOS") : prefixes[t][b];
            const bool path = on(best, step.prefixes[b], -1);
            const bool greedy_path = on(greedy, step.prefixes[b], -1);
            // The best path in white, greedy's (where it differs) in greedy's colour.
            const ImVec4 colour = path ? ImVec4(1, 1, 1, 1) : greedy_path ? GREEDY_COLOUR : ImVec4(0.72f, 0.72f, 0.75f, 1.0f);
            ImGui::TextColored(colour, "%zu", b + 1);
            ImGui::SameLine();
            const std::string shown = fit_text(text, beam_column - 90.0f);
            ImGui::TextColored(colour, "%s", shown.c_str());
            if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
            ImGui::SameLine(beam_column - 44.0f);
            ImGui::TextDisabled("%7.2f", step.log_probs[b]);
            ImGui::TableNextColumn();
            for (size_t i = 0; i < step.candidates.size(); ++i) {
                const BeamCandidate& c = step.candidates[i];
                if (c.beam != static_cast<int>(b)) continue;
                ImGui::PushID(static_cast<int>(i));
                candidate_chip(v, step, c, static_cast<int>(i) + 1, on(best, step.prefixes[b], c.token),
                               on(greedy, step.prefixes[b], c.token), text);
                ImGui::PopID();
            }
            ImGui::NewLine();
            ImGui::PopID();
        }
    }
    ImGui::EndTable();
}

void DecodingPanel::draw_hypotheses(const explain::SessionView& v, int row) {
    const BeamResult& beam = v.beams[static_cast<size_t>(row)];
    const BeamHypothesis& greedy = v.greedy[static_cast<size_t>(row)];
    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##hypotheses", 7, flags)) return;
    ImGui::TableSetupColumn("rank", ImGuiTableColumnFlags_WidthFixed, 44.0f);
    ImGui::TableSetupColumn("output", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("log P(Y)", ImGuiTableColumnFlags_WidthFixed, 80.0f);
    ImGui::TableSetupColumn("|Y|", ImGuiTableColumnFlags_WidthFixed, 40.0f);
    ImGui::TableSetupColumn("lp", ImGuiTableColumnFlags_WidthFixed, 60.0f);
    ImGui::TableSetupColumn("score", ImGuiTableColumnFlags_WidthFixed, 70.0f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 150.0f);
    ImGui::TableHeadersRow();
    for (size_t r = 0; r < beam.hypotheses.size(); ++r) {
        const BeamHypothesis& h = beam.hypotheses[r];
        const ImVec4 colour = r == 0 ? BEAM_COLOUR : ImVec4(0.85f, 0.85f, 0.88f, 1.0f);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(colour, "%zu", r + 1);
        ImGui::TableNextColumn();
        const std::string& text = v.hypothesis_text[static_cast<size_t>(row)][r];
        ImGui::TextColored(colour, "%s", text.empty() ? "(empty)" : text.c_str());
        if (ImGui::IsItemHovered()) {
            // Two hypotheses can read the same and differ in their pieces (another segmentation).
            std::string pieces;
            for (int id : emitted(h, v.config.special.eos)) pieces += (pieces.empty() ? "" : "  ") + piece_text(v, id);
            ImGui::SetTooltip("pieces: %s", pieces.c_str());
        }
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", h.log_prob);
        ImGui::TableNextColumn();
        ImGui::Text("%d", h.length);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", length_penalty(h.length, v.length_penalty));
        ImGui::TableNextColumn();
        ImGui::TextColored(colour, "%.3f", h.score);
        ImGui::TableNextColumn();
        std::string note = h.finished ? "" : "cut at the limit";
        if (h.ids == greedy.ids && h.finished == greedy.finished) note += note.empty() ? "= greedy's output" : ", = greedy's";
        ImGui::TextDisabled("%s", note.c_str());
    }
    ImGui::EndTable();
}

void DecodingPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    draw_controls(ctx);
    const int row = std::clamp(ctx.selection.batch_row, 0, std::max(0, v.B - 1));
    if (row >= static_cast<int>(v.beams.size()) || row >= static_cast<int>(v.greedy.size()) ||
        v.beams[static_cast<size_t>(row)].hypotheses.empty() || v.beams[static_cast<size_t>(row)].trace.empty()) {
        ImGui::TextDisabled(v.decoder_only ? "Nothing decoded: BOS + the prompt fill max_len, so there is no room to continue it."
                                           : "Nothing decoded: the output length limit is 0 (max_len 1).");
        return;
    }
    ImGui::Separator();
    if (v.decoder_only)
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.55f, 1.0f), "Prompt %d: %s \xE2\x80\x94 both decodings continue it",
                           row + 1, v.sentences[static_cast<size_t>(row)].c_str());
    else
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.55f, 1.0f), "Sentence %d: %s", row + 1, v.sentences[static_cast<size_t>(row)].c_str());
    draw_comparison(v, row);
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::Text("Beam search, step by step (K = %d)", v.beam_size);
    ImGui::SameLine();
    help_marker(v.decoder_only ? "At step 1 the only beam is BOS + the prompt (every beam keeps it; the pieces shown are the "
                                 "continuation). At every step each live beam proposes its K most probable next pieces; "
                                 "cumulative log P = the beam's log P + log p(piece). All proposals are ranked together: the "
                                 "best K survive (kept, or finished when the piece is EOS) and the rest are pruned. So a beam "
                                 "can have several children or none."
                               : "At step 1 the only beam is BOS. At every step each live beam proposes its K most probable next "
                "pieces; cumulative log P = the beam's log P + log p(piece). All proposals are ranked together: the "
                "best K survive (kept, or finished when the piece is EOS) and the rest are pruned. So a beam can have "
                "several children or none.");
    draw_trace(v, row);
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::Text("Finished hypotheses, ranked by score = log P(Y) / lp(Y)");
    draw_hypotheses(v, row);
    ImGui::Spacing();
    draw_speculative(ctx);
}

void DecodingPanel::draw_speculative(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const int layers = v.config.decoder_layers;
    ImGui::SetNextItemOpen(v.speculative_open);
    const bool open = ImGui::CollapsingHeader("Speculative decoding: a small draft proposes, the model checks");
    // Opened (by the header, a launch option or a lesson): bring the section to the top of the panel.
    if (open && !m_spec_was_open) ImGui::SetScrollHereY(0.0f);
    m_spec_was_open = open;
    if (open != v.speculative_open)
        ctx.commands.send(SetSpeculative{v.speculative_k, v.speculative_draft_layers, open});
    if (!open) return;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(
        "Each round a cheaper draft model proposes k pieces, one at a time. The model then reads all of them in one "
        "pass over its KV cache, which gives its own most probable piece after each of them. It keeps the proposals "
        "up to the first one it disagrees with, and adds its own piece there (or, when all k agree, its next piece). "
        "Every piece kept is the one the model itself would have chosen, so the output is greedy decoding's; the "
        "draft only decides how many passes the model needs.");
    ImGui::PopTextWrapPos();
    if (layers < 2) {
        ImGui::TextDisabled("This model has one decoder layer, so it has no shorter draft to make from its own layers.");
        return;
    }
    if (!m_spec_editing) {
        m_spec_k = std::clamp(v.speculative_k, 1, 8);
        m_spec_layers = v.speculative_draft_layers > 0 ? v.speculative_draft_layers : layers - 1;
    }
    bool apply = false;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Proposals per round k");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    ImGui::SliderInt("##spec_k", &m_spec_k, 1, 8);
    bool active = ImGui::IsItemActive();
    apply |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SameLine(0.0f, 20.0f);
    ImGui::TextUnformatted("Draft: the model's first");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    ImGui::SliderInt("##spec_layers", &m_spec_layers, 1, layers - 1);
    active |= ImGui::IsItemActive();
    apply |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SameLine();
    ImGui::Text("of %d decoder layers", layers);
    item_tooltip("The draft shares the model's embeddings, encoder, final norm and generator, and runs only its first "
                 "decoder layers (an early exit). It was never trained to stop early, so it is often wrong; fewer "
                 "layers make it cheaper and wronger.");
    m_spec_editing = active;
    if (apply) ctx.commands.send(SetSpeculative{m_spec_k, m_spec_layers, true});
    const std::shared_ptr<const explain::SpeculativeView> spec = v.speculative;
    if (!spec) {
        ctx.commands.send(UpdateSpeculative{});   // made after this frame
        ImGui::TextDisabled("Decodingâ¦");
        return;
    }
    if (!spec->error.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(0.98f, 0.45f, 0.40f, 1.0f), "%s", spec->error.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const SpeculativeResult& r = spec->result;
    ImGui::TextDisabled("Colours:");
    ImGui::SameLine();
    round_legend(RoundPiece::Accepted, "piece", "accepted");
    round_legend(RoundPiece::Rejected, "piece", "rejected: the model chose otherwise");
    round_legend(RoundPiece::Dropped, "piece", "dropped unchecked");
    round_legend(RoundPiece::ModelToken, "piece", "the model's own piece");
    ImGui::NewLine();
    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("##rounds", 4, flags)) {
        ImGui::TableSetupColumn("round", ImGuiTableColumnFlags_WidthFixed, 50.0f);
        ImGui::TableSetupColumn("the draft proposes", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("the model's pass adds", ImGuiTableColumnFlags_WidthFixed, 230.0f);
        ImGui::TableSetupColumn("kept", ImGuiTableColumnFlags_WidthFixed, 110.0f);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < r.rounds.size(); ++i) {
            const SpeculativeRound& round = r.rounds[i];
            ImGui::PushID(static_cast<int>(i));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::AlignTextToFramePadding();
            ImGui::Text("%zu", i + 1);
            ImGui::TableNextColumn();
            if (round.proposed.empty()) {
                ImGui::AlignTextToFramePadding();
                ImGui::TextDisabled("(none: one piece of room was left)");
            }
            for (size_t j = 0; j < round.proposed.size(); ++j) {
                ImGui::PushID(static_cast<int>(j));
                const int a = round.accepted;
                const RoundPiece kind = static_cast<int>(j) < a ? RoundPiece::Accepted
                                        : static_cast<int>(j) == a ? RoundPiece::Rejected
                                                                   : RoundPiece::Dropped;
                const char* tip = kind == RoundPiece::Accepted ? "the model's own most probable piece here too: kept"
                                  : kind == RoundPiece::Rejected ? "the model's most probable piece here is another: this one and the rest are dropped"
                                                                 : "after a rejected piece: its prefix is not the model's, so it is dropped";
                round_chip(piece_text(v, round.proposed[j]), kind, tip);
                ImGui::PopID();
            }
            ImGui::NewLine();
            ImGui::TableNextColumn();
            const bool bonus = round.accepted == static_cast<int>(round.proposed.size());
            ImGui::AlignTextToFramePadding();
            if (round.target_token < 0) {
                ImGui::TextDisabled("nothing: EOS was accepted");
            } else {
                round_chip(piece_text(v, round.target_token), RoundPiece::ModelToken,
                           bonus ? "every proposal was accepted: the model's pass also gives the piece after them"
                                 : "the model's own piece where the draft was wrong");
                ImGui::TextDisabled("%s", round.proposed.empty() ? "its next piece" : bonus ? "bonus" : "correction");
            }
            ImGui::TableNextColumn();
            ImGui::AlignTextToFramePadding();
            ImGui::Text("%d of %zu%s", round.accepted, round.proposed.size(), round.target_token < 0 ? "" : " + 1");
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(0.0f);
    const std::vector<int>& g = spec->greedy;
    if (r.tokens == g)
        ImGui::TextColored(GREEDY_COLOUR, "Output: the model's own greedy output, piece for piece (%zu pieces%s).",
                           r.tokens.size(), spec->greedy_finished ? " + EOS" : "");
    else
        ImGui::TextColored(ImVec4(0.98f, 0.8f, 0.4f, 1.0f),
                           "Output differs from greedy decoding's: the one-pass check and the step-by-step run round "
                           "their sums in other orders, and that tipped a near-tie.");
    ImGui::Text("The model ran %d passes instead of %d greedy steps. The draft (%d of %d decoder layers) proposed "
                "%d pieces and %d were accepted (%.0f%%).",
                r.target_passes(), spec->greedy_steps(), spec->draft_layers, spec->model_layers, r.proposed(),
                r.accepted(), 100.0 * r.acceptance_rate());
    ImGui::TextDisabled("Fewer passes save time only when a draft step is much cheaper than the model's step and "
                        "checking k pieces in one pass costs about one step, as on a GPU. txcli speculative times "
                        "both on this machine.");
    ImGui::PopTextWrapPos();
}

}  // namespace tx::app
