// Masks panel (see masks_panel.h). 1 = the query may attend to the key, 0 = masked (its score
// becomes −∞ and its probability exactly 0).
#include "panels/masks_panel.h"

#include <algorithm>

#include "setting_texts.h"
#include "tx/attention_window.h"
#include "widgets/heatmap.h"
#include "widgets/ui.h"

namespace tx::app {

MasksPanel::MasksPanel()
    : Panel("Masks decide which keys a query may look at: the padding mask hides PAD tokens of a batch, the causal "
            "(look-ahead) mask hides later decoder positions. A masked score becomes \xE2\x88\x92\xE2\x88\x9E, so "
            "softmax gives it weight exactly 0. Only keys are masked: a PAD position's own query row is still "
            "computed, and its result is never used (the loss and the decode skip PAD positions).") {}

namespace {

// Under the decoder's maps: what the combined mask is made of, for the model's window.
std::string window_explanation(const ModelConfig& c) {
    const std::string W = std::to_string(c.window), d = std::to_string(c.window_dilation);
    std::string text = "The combined mask is the model's own tgt_mask: the sliding window AND causal (j \xE2\x89\xA4 i) "
                       "AND padding, the last two only when switched on. ";
    text += c.window_dilation == 1
                ? "With causal on, query i sees the last " + W + " positions, itself included (i \xE2\x88\x92 " + W +
                      " < j \xE2\x89\xA4 i)."
                : "The window is dilated (Longformer): with causal on, query i sees " + W + " keys spaced " + d +
                      " apart, i, i \xE2\x88\x92 " + d + ", \xE2\x80\xA6, i \xE2\x88\x92 " +
                      std::to_string((c.window - 1) * c.window_dilation) +
                      ": as many keys as an undilated window, reaching " + d + " times as far back.";
    if (!c.global_positions.empty())
        text += " Global position" + std::string(c.global_positions.size() > 1 ? "s " : " ") + global_positions_text(c) +
                " (Longformer): the query there sees every earlier key (a full row), and every later query sees its key "
                "(a full column).";
    return text;
}

}  // namespace

void MasksPanel::update_matrices(const explain::SessionView& v, int row) {
    Matrices& m = m_matrices;
    if (m.stamp != 0 && m.version == v.version && m.row == row) return;
    m.version = v.version;
    m.row = row;
    ++m.stamp;
    const int S = v.S, T = v.T;
    const auto square = [](std::vector<float>& a, size_t n) { a.assign(n, 0.0f); };
    square(m.enc, static_cast<size_t>(S) * S);
    for (std::vector<float>* a : {&m.causal, &m.tgt_pad, &m.combined, &m.window}) square(*a, static_cast<size_t>(T) * T);
    square(m.cross, static_cast<size_t>(T) * S);
    // Encoder self-attention's S×S keep matrix: the source padding (the same row for every
    // query), narrowed by the model's sliding window where it has one.
    for (int i = 0; i < S; ++i)
        for (int j = 0; j < S; ++j) m.enc[static_cast<size_t>(i * S + j)] = v.src_self_mask[static_cast<size_t>((row * S + i) * S + j)];
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
            m.causal[static_cast<size_t>(i * T + j)] = j <= i ? 1.0f : 0.0f;
            // The decoder's window alone (tx/attention_window.h): its last W keys, d apart, and the
            // global positions; later keys are the causal mask's business.
            m.window[static_cast<size_t>(i * T + j)] = decoder_window_keeps(v.config, i, j) ? 1.0f : 0.0f;
            m.tgt_pad[static_cast<size_t>(i * T + j)] = v.tgt_ids[static_cast<size_t>(row * T + j)] != v.config.special.pad ? 1.0f : 0.0f;
            m.combined[static_cast<size_t>(i * T + j)] = v.tgt_mask[static_cast<size_t>((row * T + i) * T + j)];
        }
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < S; ++j) m.cross[static_cast<size_t>(i * S + j)] = v.src_mask[static_cast<size_t>(row * S + j)];
}

void MasksPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const int row = std::clamp(ctx.selection.batch_row, 0, std::max(v.B - 1, 0));
    bool causal = v.options.causal_mask, padding = v.options.padding_mask;
    if (ImGui::Checkbox("causal mask (decoder self-attention)", &causal)) ctx.commands.send(SetCausalMask{causal});
    item_tooltip("Without it, decoder position t sees positions after t. In training the answer is then visible: "
                 "the model learns to copy the next input instead of predicting it, and at generation time those "
                 "future tokens do not exist yet, so what it learned does not apply.");
    ImGui::SameLine();
    if (ImGui::Checkbox("padding mask", &padding)) ctx.commands.send(SetPaddingMask{padding});
    item_tooltip("Without it, real tokens also attend to PAD positions: a sentence's result then depends on how "
                 "long the other sentences in its batch are. Add a longer second sentence in the Input panel to see it.");
    if (v.B > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(100);
        ImGui::SliderInt("batch row", &ctx.selection.batch_row, 0, v.B - 1);
    }
    if (!causal || !padding) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.35f, 1.0f), "%s%s",
                           !causal ? "Causal mask OFF: every decoder position now sees the whole decoder input, including "
                                     "positions it should still be predicting. The model was trained with the mask, so its "
                                     "outputs may change (see the decode in the Input panel). " : "",
                           !padding ? "Padding mask OFF: PAD keys now receive attention weight, so padded sentences "
                                      "mix in meaningless PAD vectors." : "");
        ImGui::PopTextWrapPos();
    }
    ImGui::Separator();

    if (v.config.window > 0) ImGui::TextDisabled("Self-attention window (Model panel): W = %s", window_summary(v.config).c_str());
    const auto src = v.src_labels(row), tgt = v.tgt_labels(row);
    const int S = v.S, T = v.T;
    const int W = v.config.window;
    update_matrices(v, row);
    const Matrices& mats = m_matrices;
    const std::vector<float>&enc = mats.enc, &causal_m = mats.causal, &tgt_pad = mats.tgt_pad, &combined = mats.combined,
                             &cross = mats.cross, &window = mats.window;

    auto show = [&](const char* id, const char* title, const std::vector<float>& m, int R, int C, const std::vector<std::string>& rl,
                    const std::vector<std::string>& cl, const char* ra, const char* ca, float width,
                    const std::string& note = std::string()) {
        ImGui::BeginGroup();
        HeatmapSpec spec;
        spec.id = id;
        spec.title = title;
        spec.show_title = true;
        spec.values = m.data();
        spec.version = m_matrices.stamp;
        spec.rows = R;
        spec.cols = C;
        spec.row_labels = &rl;
        spec.col_labels = &cl;
        spec.row_axis = ra;
        spec.col_axis = ca;
        spec.vmin = 0.0f;
        spec.vmax = 1.0f;
        spec.colorbar = false;
        spec.size = ImVec2(width, 0);
        spec.max_cell = 26.0f;
        spec.tooltip = [&](int r, int c, float value) {
            return std::string("query \"") + rl[static_cast<size_t>(r)] + "\" \xE2\x86\x92 key \"" + cl[static_cast<size_t>(c)] +
                   "\": " + (value > 0.5f ? "may attend (1)" : "masked (0)");
        };
        draw_heatmap(spec, &ctx.commands);
        if (!note.empty()) ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.35f, 1.0f), "%s", note.c_str());
        ImGui::EndGroup();
    };
    // A decoder-only model has no encoder and no cross-attention: its one mask is the decoder's.
    if (v.config.arch == Arch::EncoderDecoder) {
        const float w = ImGui::GetContentRegionAvail().x / 3.0f - 10.0f;
        show("enc", W > 0 ? "encoder: padding + window" : "encoder: source padding mask", enc, S, S, src, src, "query", "key", w);
        ImGui::SameLine();
        show("cross", "cross-attention: source padding", cross, T, S, tgt, src, "query (decoder)", "key (source)", w);
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::TextDisabled("yellow 1 = may attend \xC2\xB7 purple 0 = masked");
        ImGui::EndGroup();
    } else {
        ImGui::TextDisabled("yellow 1 = may attend \xC2\xB7 purple 0 = masked \xC2\xB7 decoder-only: no encoder or "
                            "cross-attention masks; prompts are padded on the right, so PAD keys are the last columns");
    }
    const float w = ImGui::GetContentRegionAvail().x / (W > 0 ? 4.0f : 3.0f) - 10.0f;
    // The causal and padding maps are their definitions, drawn whatever the toggles; the combined
    // map is what the model applies (setting_texts.h).
    show("causal", explain::causal_map_title(), causal_m, T, T, tgt, tgt, "query", "key", w, explain::causal_map_note(v.options));
    ImGui::SameLine();
    if (W > 0) {
        show("window", "decoder: the window alone", window, T, T, tgt, tgt, "query", "key", w);
        ImGui::SameLine();
    }
    show("tpad", explain::target_padding_map_title(v.decoder_only).c_str(), tgt_pad, T, T, tgt, tgt, "query", "key", w,
         explain::target_padding_map_note(v.options));
    ImGui::SameLine();
    show("comb", "decoder: combined, as the model uses it", combined, T, T, tgt, tgt, "query", "key", w);
    ImGui::PushTextWrapPos(0.0f);
    if (W > 0)
        ImGui::TextDisabled("%s", window_explanation(v.config).c_str());
    else
        ImGui::TextDisabled("The combined mask is the model's own tgt_mask: causal AND padding, each only when switched on.");
    ImGui::PopTextWrapPos();

    // Effect on the first decoder self-attention: masked scores and probabilities, head 0.
    ImGui::Separator();
    for (const auto& a : v.attention) {
        if (a.kind != AttentionKind::DecoderSelf) continue;
        ImGui::Text("Effect in %s (head 0): masked scores and probabilities", a.prefix.c_str());
        const std::vector<float>* ms = v.output(a.masked_scores);
        const std::vector<float>* pr = v.output(a.probs);
        if (!ms || !pr) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s", v.missing_reason(ms ? a.probs : a.masked_scores).c_str());
            ImGui::PopTextWrapPos();
            break;
        }
        const int H = v.config.heads;
        const float hw = ImGui::GetContentRegionAvail().x / 2.0f - 10.0f;
        for (int k = 0; k < 2; ++k) {
            const std::vector<float>& d = k == 0 ? *ms : *pr;
            HeatmapSpec spec;
            spec.id = k == 0 ? "ms" : "pr";
            spec.title = a.prefix + (k == 0 ? " masked scores head 0" : " probabilities head 0");
            spec.show_title = true;
            spec.values = d.data() + (static_cast<size_t>(row) * H) * T * T;
            spec.rows = T;
            spec.cols = T;
            spec.row_labels = &tgt;
            spec.col_labels = &tgt;
            spec.row_axis = "query";
            spec.col_axis = "key";
            spec.size = ImVec2(hw, 0);
            spec.max_cell = 26.0f;
            if (k == 0) {
                spec.map = Colormap::Diverging;
                spec.symmetric = true;
            } else {
                spec.vmin = 0.0f;
                spec.vmax = 1.0f;
            }
            ImGui::BeginGroup();
            draw_heatmap(spec, &ctx.commands);
            ImGui::EndGroup();
            if (k == 0) ImGui::SameLine();
        }
        break;
    }
}

}  // namespace tx::app
