// Positional encoding panel (see positional_panel.h). Each view is computed from what the model
// uses: the sinusoidal table of the session view, the traced q and k with the CPU rope op, the
// ALiBi op's own slopes and bias, the learned table from the model's parameters.
#include "panels/positional_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "setting_texts.h"
#include "tx/attention_window.h"
#include "tx/ops.h"
#include "widgets/heatmap.h"
#include "widgets/pair_circle.h"
#include "widgets/plot.h"
#include "widgets/ui.h"
#include "widgets/colormap.h"

namespace tx::app {

namespace {

constexpr double TWO_PI = 6.283185307179586;

void wrapped(const std::string& text) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
}

// Offsets searched for the relative-bias tooltip: past RELATIVE_MAX_DISTANCE every offset shares
// the last bucket, so an offset at this bound stands for all farther ones.
constexpr int RELATIVE_SHOWN = cpu::RELATIVE_MAX_DISTANCE + 1;

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
    return buf;
}

// "1/16" for a slope whose inverse is a whole number, else "0.0884".
std::string slope_text(float m) {
    const double inverse = 1.0 / static_cast<double>(m);
    char buf[48];
    if (std::fabs(inverse - std::round(inverse)) < 1e-6 * inverse)
        std::snprintf(buf, sizeof buf, "1/%.0f", inverse);
    else
        std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(m));
    return buf;
}

}  // namespace

PositionalPanel::PositionalPanel()
    : Panel("Attention itself ignores word order, so a model must be told positions somewhere. Where depends on the "
            "open model's scheme (Model panel, positions), and this panel shows that scheme: a sinusoidal code or a "
            "learned table added to the embeddings, RoPE's rotation of q and k, ALiBi's distance bias or T5's "
            "learned relative bias on the scores, or none.") {}

namespace {

// One [L, L] map per head, four to a row, query rows × key columns: ALiBi's and T5's biases.
// `style(h, spec)` sets what differs between them: the title, the colours and the tooltip.
void draw_head_maps(const char* id, const float* values, int H, int L, CommandSink* commands,
                    const std::function<void(int, HeatmapSpec&)>& style) {
    std::vector<std::string> pos;
    for (int p = 0; p < L; ++p) pos.push_back(std::to_string(p));
    const int columns = std::max(1, std::min(H, 4));
    const float w = ImGui::GetContentRegionAvail().x / static_cast<float>(columns) - 10.0f;
    for (int h = 0; h < H; ++h) {
        if (h % columns != 0) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushID(h);
        HeatmapSpec spec;
        spec.id = id;
        spec.show_title = true;
        spec.values = values + static_cast<size_t>(h) * L * L;
        spec.rows = L;
        spec.cols = L;
        spec.row_labels = &pos;
        spec.col_labels = &pos;
        spec.row_axis = "query i";
        spec.col_axis = "key j";
        spec.size = ImVec2(w, 0);
        spec.max_cell = 24.0f;
        spec.values_in_cells = false;
        spec.colorbar = false;
        style(h, spec);
        draw_heatmap(spec, commands);
        ImGui::PopID();
        ImGui::EndGroup();
    }
}

}  // namespace

void PositionalPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const bool decoder_only = v.config.arch == Arch::DecoderOnly;
    bool on = v.options.positional_encoding;
    // The switch acts where this model's positions enter (config "positional").
    const PositionalKind kind = v.config.positional;
    const char* label = kind == PositionalKind::Rope    ? "rotate q and k by their positions (RoPE)"
                        : kind == PositionalKind::Alibi ? "add the ALiBi distance bias to the scores"
                        : kind == PositionalKind::Relative ? "add T5's relative bias to the scores"
                        : kind == PositionalKind::Learned ? "add the learned position table to the embeddings"
                                                          : "add the positional encoding to the embeddings";
    if (kind == PositionalKind::None) {
        ImGui::TextColored(WARNING_COLOUR, "This model has no positions (positional: none).");
        draw_none(ctx);
        return;
    }
    if (ImGui::Checkbox(label, &on)) ctx.commands.send(SetPositionalEncoding{on});
    item_tooltip(explain::positional_off_text(v.config).c_str());
    if (!on) {
        ImGui::SameLine();
        ImGui::TextColored(WARNING_COLOUR, "%s",
                           decoder_only ? "OFF: only the causal mask still tells positions apart; the continuation may change."
                                        : "OFF: the encoder now sees a bag of tokens; the decode (Input panel) may change.");
    }
    const int follow = std::max({decoder_only ? 0 : v.S, v.T, 2});
    ImGui::SetNextItemWidth(220);
    int shown = m_length > 0 ? m_length : follow;
    if (ImGui::SliderInt("positions", &shown, 2, std::max(2, v.config.max_len))) m_length = shown;
    ImGui::SameLine();
    if (ImGui::SmallButton("follow the input")) m_length = 0;
    ImGui::SameLine();
    if (decoder_only)
        ImGui::TextDisabled("d_model = %d, length = %d (decoder input T = %d)", v.config.d_model, shown, v.T);
    else
        ImGui::TextDisabled("d_model = %d, length = %d (source S = %d, decoder T = %d)", v.config.d_model, shown, v.S, v.T);
    const int L = std::clamp(shown, 2, std::max(2, v.config.max_len));
    switch (kind) {
        case PositionalKind::Sinusoidal: draw_sinusoidal(ctx, L); break;
        case PositionalKind::Rope: draw_rope(ctx, L); break;
        case PositionalKind::Alibi: draw_alibi(ctx, L); break;
        case PositionalKind::Learned: draw_learned(ctx, L); break;
        case PositionalKind::Relative: draw_relative(ctx, L); break;
        case PositionalKind::None: break;
    }
}

void PositionalPanel::draw_none(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const bool decoder_only = v.config.arch == Arch::DecoderOnly;
    std::string text =
        "Nothing in this model depends on where a token stands: no table is added to the embeddings, and neither q "
        "and k nor the scores are changed by position. Self-attention without positions, masks aside, is "
        "permutation-equivariant: reorder its input rows and its output rows are reordered the same way.";
    if (!decoder_only && v.config.window > 0)
        text += " The encoder's sliding window (" + window_summary(v.config) +
                ") is the exception: which tokens a position can reach depends on where they stand, so some order gets "
                "through.";
    else if (!decoder_only)
        text += " So the encoder sees the source as a bag of tokens: swap two words of the sentence and each word keeps "
                "its output vector, and cross-attention, a weighted sum over those vectors, reads the same set; the "
                "translation cannot depend on the source word order.";
    text += decoder_only
                ? " The causal mask still gives the stack some order information: position t averages over exactly "
                  "t + 1 tokens, so earlier and later positions are not interchangeable, and language models without "
                  "positions still learn where they are (Haviv et al. 2022)."
                : " The decoder's causal mask still gives it some order information: position t averages over exactly "
                  "t + 1 tokens, so its positions are not interchangeable (Haviv et al. 2022 show language models "
                  "without positions still learn where they are).";
    wrapped(text);
    disabled_paragraph("Pick a position scheme in the Model panel (positions) and rebuild to compare.");
}

void PositionalPanel::draw_sinusoidal(PanelContext& ctx, int shown) {
    const explain::SessionView& v = ctx.view;
    disabled_paragraph("Each position p gets a fixed vector added to its embedding: PE[p,2i] = sin(p/10000^(2i/d_model)), "
                     "PE[p,2i+1] = cos(\xE2\x80\xA6). Low dimensions oscillate fast, high ones slowly. For a fixed offset "
                     "k, PE(p+k) is a fixed rotation of each (sin, cos) pair of PE(p); the paper hypothesised that "
                     "this makes relative positions easy to attend to.");
    const int D = v.config.d_model;
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
                        "Away from it the value falls roughly with distance, but it ripples; for small d_model and long "
                        "distances it can dip below 0.");
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
}

void PositionalPanel::draw_rope(PanelContext& ctx, int L) {
    const explain::SessionView& v = ctx.view;
    const int H = v.config.heads, dk = v.d_k();
    disabled_paragraph("RoPE (Su et al., RoFormer) adds nothing to the embeddings: every self-attention rotates each pair "
                     "of dimensions (2i, 2i+1) of its q and k by the position times the pair's frequency "
                     "\xCE\xB8_i = 10000^(\xE2\x88\x92" "2i/dk). Here the q of one token and the k of another, as this model "
                     "projected them, are each rotated to every position 0\xE2\x80\xA6L\xE2\x88\x92" "1 with the model's "
                     "rotation op.");
    if (!v.options.positional_encoding)
        ImGui::TextColored(WARNING_COLOUR, "Positions are off: the model skips this rotation now (q_rot = q, k_rot = k); "
                                           "below is what it would do.");
    std::vector<int> blocks;
    for (size_t i = 0; i < v.attention.size(); ++i)
        if (v.attention[i].kind != AttentionKind::Cross) blocks.push_back(static_cast<int>(i));
    if (blocks.empty()) {
        wrapped("This model has no self-attention block to rotate.");
        return;
    }
    RopeChoice& want = m_rope_want;
    if (std::find(blocks.begin(), blocks.end(), want.block) == blocks.end()) want.block = blocks.front();
    const AttentionBlock& a = v.attention[static_cast<size_t>(want.block)];
    ImGui::SetNextItemWidth(260);
    if (ImGui::BeginCombo("block", a.prefix.c_str())) {
        for (int b : blocks)
            if (ImGui::Selectable(v.attention[static_cast<size_t>(b)].prefix.c_str(), b == want.block)) want.block = b;
        ImGui::EndCombo();
    }
    const bool decoder = a.kind == AttentionKind::DecoderSelf;
    const int R = decoder ? v.T : v.S;
    const int row = std::clamp(ctx.selection.batch_row, 0, std::max(v.B - 1, 0));
    const std::vector<std::string> labels = decoder ? v.tgt_labels(row) : v.src_labels(row);
    const int half = dk / 2;
    if (!m_pair_chosen) want.pair = std::max(dk / 8, 0);   // θ = 0.1 rad: an arc, not a jumble, over a sentence
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90);
    ImGui::SliderInt("head", &want.head, 0, std::max(H - 1, 0));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    if (ImGui::SliderInt("pair i", &want.pair, 0, std::max(half - 1, 0))) m_pair_chosen = true;
    help_marker("Pair i holds dimensions 2i and 2i+1 of the head's q and k. Low pairs turn fast (\xCE\xB8_0 = 1 radian "
                "per position), high pairs slowly.");
    want.head = std::clamp(want.head, 0, std::max(H - 1, 0));
    want.pair = std::clamp(want.pair, 0, std::max(half - 1, 0));
    want.query = std::clamp(want.query, 0, std::max(R - 1, 0));
    want.key = std::clamp(want.key, 0, std::max(R - 1, 0));
    auto token_combo = [&](const char* name, int& index) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(110);
        const std::string preview = index < static_cast<int>(labels.size()) ? std::to_string(index) + " " + labels[static_cast<size_t>(index)] : "";
        if (ImGui::BeginCombo(name, preview.c_str())) {
            for (int t = 0; t < static_cast<int>(labels.size()); ++t) {
                ImGui::PushID(t);
                if (ImGui::Selectable((std::to_string(t) + " " + labels[static_cast<size_t>(t)]).c_str(), t == index)) index = t;
                ImGui::PopID();
            }
            ImGui::EndCombo();
        }
    };
    token_combo("q of token", want.query);
    token_combo("k of token", want.key);
    if (half == 0) {
        wrapped("dk = " + std::to_string(dk) + ": a head has no pair of dimensions to rotate.");
        return;
    }
    if (R == 0) {
        wrapped("This block has no input rows.");
        return;
    }
    const std::vector<float>* q = v.output(a.q);
    const std::vector<float>* k = v.output(a.k);
    if (!q || !k) {
        disabled_paragraph(v.missing_reason(q ? a.k : a.q));
        return;
    }
    if (m_rope_version != v.version || m_rope_row != row || m_rope_choice.block != want.block ||
        m_rope_choice.head != want.head || m_rope_choice.pair != want.pair || m_rope_choice.query != want.query ||
        m_rope_choice.key != want.key || m_rope.L != L) {
        const size_t head_rows = (static_cast<size_t>(row) * H + want.head) * R;
        m_rope = explain::rope_view(q->data() + (head_rows + want.query) * dk, k->data() + (head_rows + want.key) * dk, dk, L, want.pair);
        m_rope_dots.assign(m_rope.dots.begin(), m_rope.dots.end());
        m_rope_choice = want;
        m_rope_version = v.version;
        m_rope_row = row;
    }
    const explain::RopeView& r = m_rope;
    const std::string qname = "q of \"" + labels[static_cast<size_t>(want.query)] + "\"";
    const std::string kname = "k of \"" + labels[static_cast<size_t>(want.key)] + "\"";
    wrapped(format("Pair i = %.0f: \xCE\xB8_i = 10000^(\xE2\x88\x92%.0f/%.0f) = %.4g rad per position", r.pair, 2.0 * r.pair, dk, r.theta) +
            format(", a full turn every %.4g positions.", TWO_PI / r.theta) +
            " At position p both vectors are turned by p\xC2\xB7\xCE\xB8_i from where they start (position 0, the thick line); "
            "their lengths never change.");

    const float avail = ImGui::GetContentRegionAvail().x;
    const float circle = std::clamp(avail * 0.34f, 220.0f, 420.0f);
    ImGui::BeginGroup();
    PairCircleSpec spec;
    spec.id = "rope_pair";
    spec.title = "dimensions (" + std::to_string(2 * r.pair) + ", " + std::to_string(2 * r.pair + 1) + ") of head " +
                 std::to_string(want.head) + ", positions 0\xE2\x80\xA6" + std::to_string(L - 1);
    spec.size = circle;
    spec.x_label = "dim " + std::to_string(2 * r.pair);
    spec.y_label = "dim " + std::to_string(2 * r.pair + 1);
    draw_pair_circle(spec, {PairSeries{qname, r.q_pair, IM_COL32(90, 170, 255, 255)},
                            PairSeries{kname, r.k_pair, IM_COL32(255, 150, 60, 255)}});
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    std::vector<std::string> pos;
    for (int p = 0; p < L; ++p) pos.push_back(std::to_string(p));
    HeatmapSpec dots;
    dots.id = "rope_dots";
    dots.title = "q at p \xC2\xB7 k at p' (all " + std::to_string(dk) + " dimensions of head " + std::to_string(want.head) + ")";
    dots.show_title = true;
    dots.values = m_rope_dots.data();
    dots.rows = L;
    dots.cols = L;
    dots.row_labels = &pos;
    dots.col_labels = &pos;
    dots.row_axis = "query position p";
    dots.col_axis = "key position p'";
    dots.map = Colormap::Diverging;
    dots.symmetric = true;
    dots.size = ImVec2(ImGui::GetContentRegionAvail().x, circle + ImGui::GetTextLineHeightWithSpacing() * 2);
    dots.max_cell = 24.0f;
    dots.values_in_cells = false;
    dots.tooltip = [](int p, int pp, float value) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "q at %d \xC2\xB7 k at %d = %.5g (p \xE2\x88\x92 p' = %d)", p, pp, static_cast<double>(value), p - pp);
        return std::string(buf);
    };
    draw_heatmap(dots, &ctx.commands);
    ImGui::EndGroup();

    const double relative = r.scale > 0 ? r.spread / r.scale : 0.0;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1.0f), "%s",
                       format("Largest spread along a diagonal p \xE2\x88\x92 p' = const: %.2g, that is %.2g of the largest "
                              "|q\xC2\xB7k| (%.4g): rounding only.", r.spread, relative, r.scale)
                           .c_str());
    ImGui::PopTextWrapPos();
    disabled_paragraph(std::string("Every diagonal of the matrix holds one number: rotating q by p and k by p' leaves the "
                                 "angle (p \xE2\x88\x92 p')\xC2\xB7\xCE\xB8_i between each pair, so the score depends on the "
                                 "positions only through p \xE2\x88\x92 p'. In the model each position holds its own token's "
                                 "q and k; the rotation adds only the offset.") +
                     (v.config.scale_attention ? format(" The scores step divides these dot products by \xE2\x88\x9A" "dk = %.4g.",
                                                        std::sqrt(static_cast<double>(dk)))
                                               : std::string(" This model does not scale its scores by 1/\xE2\x88\x9A" "dk.")));
    PlotSeries line;
    line.name = "q\xC2\xB7k";
    for (size_t o = 0; o < r.by_offset.size(); ++o) {
        line.x.push_back(static_cast<double>(o) - (L - 1));
        line.y.push_back(r.by_offset[o]);
    }
    PlotSpec plot;
    plot.id = "rope_offset";
    plot.title = "q\xC2\xB7k as a function of the offset p \xE2\x88\x92 p' (one value per diagonal)";
    plot.x_label = "p \xE2\x88\x92 p'";
    plot.y_label = "q\xC2\xB7k";
    plot.size = ImVec2(0, 200);
    plot.markers = L <= 40;
    plot.integer_x = true;
    plot.legend = false;
    draw_plot(plot, {line}, &ctx.commands);
}

void PositionalPanel::draw_alibi(PanelContext& ctx, int L) {
    const explain::SessionView& v = ctx.view;
    const int H = v.config.heads;
    const bool power_of_two = H > 0 && (H & (H - 1)) == 0;
    disabled_paragraph(std::string("ALiBi (Press et al. 2022) adds nothing to the embeddings: each head h subtracts "
                                 "m_h\xC2\xB7|i \xE2\x88\x92 j| from its self-attention scores before softmax, a penalty "
                                 "that grows linearly with the distance between query i and key j. The slopes are fixed, "
                                 "not learned: ") +
                     (power_of_two ? "for H a power of two, the geometric sequence m_h = 2^(\xE2\x88\x92" "8(h+1)/H) for heads h = 0\xE2\x80\xA6H\xE2\x88\x92" "1"
                                   : "for H not a power of two, the paper's code takes the sequence of the power of two "
                                     "below H and fills the rest from the next one") +
                     ". A head with a steep slope looks near; a gentle one can still look far." +
                     (v.config.arch == Arch::EncoderDecoder
                          ? " The paper defines ALiBi for causal attention (\xE2\x88\x92m_h\xC2\xB7(i \xE2\x88\x92 j) for keys j "
                            "\xE2\x89\xA4 i); for the encoder this app uses the symmetric |i \xE2\x88\x92 j|, a common "
                            "extension that cannot tell a key on the left from one at the same distance on the right."
                          : ""));
    if (!v.options.positional_encoding)
        ImGui::TextColored(WARNING_COLOUR, "Positions are off: the model adds no bias now; below is what it would add.");
    if (m_alibi_l != L || m_alibi_h != H) {
        m_slopes = explain::alibi_slope_values(H);
        m_alibi = explain::alibi_bias(H, L);
        m_alibi_l = L;
        m_alibi_h = H;
    }
    std::string slopes = "slopes (the op's own):";
    for (int h = 0; h < H; ++h) slopes += " m_" + std::to_string(h) + " = " + slope_text(m_slopes[static_cast<size_t>(h)]) + (h + 1 < H ? "," : "");
    wrapped(slopes);
    const bool decoder_only = v.config.arch == Arch::DecoderOnly;
    disabled_paragraph(std::string("Query rows \xC3\x97 key columns for positions 0\xE2\x80\xA6") + std::to_string(L - 1) +
                     (m_alibi_own_scale ? ", each head on its own colour scale. " : ", one colour scale for all heads. ") +
                     (decoder_only ? "The causal mask hides the keys right of the diagonal (j > i), so only the lower "
                                     "triangle reaches softmax."
                                   : "The encoder's self-attention uses the whole matrix; in the decoder's the causal "
                                     "mask hides the keys right of the diagonal (j > i). Cross-attention gets no bias: a "
                                     "source and a target position have no distance.") +
                     " Softmax ignores a constant added to a whole row, so what matters is how much each key is pushed "
                     "down relative to the nearest one.");
    ImGui::Checkbox("one colour scale per head", &m_alibi_own_scale);
    help_marker("Off: one scale for all heads, so gentle slopes look almost flat next to steep ones, as their biases "
                "are. On: each head from its own most negative bias (purple) to 0 (yellow).");
    float lowest = 0.0f;
    for (float b : m_alibi) lowest = std::min(lowest, b);
    if (!m_alibi_own_scale)
        ImGui::TextDisabled("colour: yellow 0 \xE2\x80\xA6 purple %.3g (hover a cell for its value)", static_cast<double>(lowest));
    draw_head_maps("alibi", m_alibi.data(), H, L, &ctx.commands, [&](int h, HeatmapSpec& spec) {
        const float m = m_slopes[static_cast<size_t>(h)];
        spec.title = "head " + std::to_string(h) + ": m = " + slope_text(m) +
                     (m_alibi_own_scale ? format(" (0 \xE2\x80\xA6 %.3g)", -m * (L - 1.0)) : std::string());
        spec.vmin = m_alibi_own_scale ? -m * static_cast<float>(L - 1) : lowest;
        spec.vmax = 0.0f;
        spec.tooltip = [m](int i, int j, float value) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "query %d, key %d: \xE2\x88\x92%.4g\xC2\xB7%d = %.4g", i, j, static_cast<double>(m),
                          std::abs(i - j), static_cast<double>(value));
            return std::string(buf);
        };
    });
}

void PositionalPanel::draw_relative(PanelContext& ctx, int L) {
    const explain::SessionView& v = ctx.view;
    const int H = v.config.heads, buckets = cpu::RELATIVE_BUCKETS;
    const bool decoder_only = v.config.arch == Arch::DecoderOnly;
    disabled_paragraph("T5's relative position bias (Raffel et al. 2020, \xC2\xA7" "2.1) adds nothing to the embeddings: each "
                       "head h adds a learned number b[bucket(j \xE2\x88\x92 i), h] to its self-attention score for query i and "
                       "key j. The offsets j \xE2\x88\x92 i share 32 buckets: small offsets get one each, longer ones share "
                       "buckets whose width grows with the distance, up to 128 positions. One table per stack, shared by "
                       "all its layers; the encoder's is bidirectional (16 buckets for keys before or at the query, 16 "
                       "after), the decoder's causal (every later key in bucket 0, which the causal mask hides). "
                       "Cross-attention gets none.");
    if (!v.options.positional_encoding)
        ImGui::TextColored(WARNING_COLOUR, "Positions are off: the model adds no bias now; below is what it would add.");
    if (decoder_only) m_relative_decoder = true;
    else {
        int stack = m_relative_decoder ? 1 : 0;
        ImGui::SetNextItemWidth(320);
        if (ImGui::Combo("table", &stack, "encoder (bidirectional)\0decoder (causal)\0")) m_relative_decoder = stack == 1;
    }
    const std::vector<float>& table = m_relative_decoder ? v.relative_decoder_bias : v.relative_encoder_bias;
    if (table.size() != static_cast<size_t>(buckets) * H) {
        ImGui::TextDisabled("This model holds no such table.");
        return;
    }
    const bool bidirectional = !m_relative_decoder;
    // The table as it is, [heads, buckets], and each bucket's offsets for the tooltip.
    std::vector<float> by_head(static_cast<size_t>(H) * buckets);
    for (int b = 0; b < buckets; ++b)
        for (int h = 0; h < H; ++h) by_head[static_cast<size_t>(h) * buckets + b] = table[static_cast<size_t>(b) * H + h];
    std::vector<std::string> bucket_labels, head_labels;
    for (int b = 0; b < buckets; ++b) bucket_labels.push_back(std::to_string(b));
    for (int h = 0; h < H; ++h) head_labels.push_back("head " + std::to_string(h));
    auto offsets_of = [bidirectional](int bucket) {   // the offsets j − i (within ±128) in a bucket
        int lo = 1 << 30, hi = -(1 << 30);
        for (int d = -RELATIVE_SHOWN; d <= RELATIVE_SHOWN; ++d)
            if (cpu::relative_bucket(0, d, bidirectional) == bucket) lo = std::min(lo, d), hi = std::max(hi, d);
        if (lo > hi) return std::string("none: no offset falls in it");
        if (lo == -RELATIVE_SHOWN) return "\xE2\x89\xA4 " + std::to_string(hi);   // the last bucket reaches every farther key
        if (hi == RELATIVE_SHOWN) return "\xE2\x89\xA5 " + std::to_string(lo);
        return lo == hi ? std::to_string(lo) : std::to_string(lo) + " \xE2\x80\xA6 " + std::to_string(hi);
    };
    HeatmapSpec spec;
    spec.id = "relative_table";
    spec.title = std::string(m_relative_decoder ? "decoder" : "encoder") + ".relative_bias.weight, by head and bucket";
    spec.show_title = true;
    spec.values = by_head.data();
    spec.rows = H;
    spec.cols = buckets;
    spec.row_labels = &head_labels;
    spec.col_labels = &bucket_labels;
    spec.row_axis = "head";
    spec.col_axis = "bucket";
    spec.map = Colormap::Diverging;
    spec.symmetric = true;
    spec.size = ImVec2(ImGui::GetContentRegionAvail().x, 0);
    spec.max_cell = 28.0f;
    spec.values_in_cells = false;
    spec.tooltip = [&offsets_of](int h, int b, float value) {
        return "head " + std::to_string(h) + ", bucket " + std::to_string(b) + " (offsets j \xE2\x88\x92 i: " + offsets_of(b) +
               "): " + format("%.4g", static_cast<double>(value));
    };
    draw_heatmap(spec, &ctx.commands);
    // Each head's bias for the first L positions: the table read through the buckets, again only
    // when the table (another stack, or trained weights) or the length changes.
    if (m_relative_l != L || m_relative_bidirectional != bidirectional || m_relative_table != table) {
        m_relative.assign(static_cast<size_t>(H) * L * L, 0.0f);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j) {
                const size_t row = static_cast<size_t>(cpu::relative_bucket(i, j, bidirectional)) * H;
                for (int h = 0; h < H; ++h) m_relative[(static_cast<size_t>(h) * L + i) * L + j] = table[row + h];
            }
        m_relative_table = table;
        m_relative_l = L;
        m_relative_bidirectional = bidirectional;
    }
    disabled_paragraph(std::string("Below, query rows \xC3\x97 key columns for positions 0\xE2\x80\xA6") + std::to_string(L - 1) +
                       ": the bias each head adds, constant along each diagonal (one offset) and in blocks where "
                       "offsets share a bucket." +
                       (bidirectional ? "" : " Right of the diagonal (later keys) every cell is bucket 0's value; the causal mask "
                                             "hides those keys."));
    draw_head_maps("relative", m_relative.data(), H, L, &ctx.commands, [bidirectional](int h, HeatmapSpec& spec) {
        spec.title = "head " + std::to_string(h);
        spec.map = Colormap::Diverging;
        spec.symmetric = true;
        spec.tooltip = [bidirectional](int i, int j, float value) {
            return "query " + std::to_string(i) + ", key " + std::to_string(j) + ": offset " + std::to_string(j - i) +
                   ", bucket " + std::to_string(cpu::relative_bucket(i, j, bidirectional)) + ", bias " +
                   format("%.4g", static_cast<double>(value));
        };
    });
}

void PositionalPanel::draw_learned(PanelContext& ctx, int shown) {
    const explain::SessionView& v = ctx.view;
    const bool has_src = !v.learned_src_positions.empty(), has_tgt = !v.learned_tgt_positions.empty();
    disabled_paragraph("Each position p has a row of its own in a [max_len, d_model] table, trained with the rest of the "
                     "model and added to the embeddings (as BERT and GPT-2). Nothing ties one row to the next: whatever "
                     "code for order the rows hold, training put there, and rows of positions never seen in training "
                     "keep their random start.");
    if (!v.options.positional_encoding)
        ImGui::TextColored(WARNING_COLOUR, "Positions are off: the model does not add this table now.");
    if (!has_src && !has_tgt) {
        wrapped("This model's learned position tables are not available.");
        return;
    }
    if (!has_src) m_learned_src = false;
    if (!has_tgt) m_learned_src = true;
    if (has_src && has_tgt) {
        if (ImGui::RadioButton("source table (src_pos.weight)", m_learned_src)) m_learned_src = true;
        ImGui::SameLine();
        if (ImGui::RadioButton("target table (tgt_pos.weight)", !m_learned_src)) m_learned_src = false;
    } else {
        ImGui::TextDisabled("%s", has_src ? "src_pos.weight" : "tgt_pos.weight (the decoder's input)");
    }
    const std::vector<float>& table = m_learned_src ? v.learned_src_positions : v.learned_tgt_positions;
    const int D = v.config.d_model;
    const int L = std::min(shown, static_cast<int>(table.size() / static_cast<size_t>(std::max(D, 1))));
    if (m_learned_version != v.version || m_learned_l != L || m_learned_sim.size() != static_cast<size_t>(L) * L) {
        m_learned_sim = explain::cosine_similarity(table.data(), L, D);
        m_learned_version = v.version;
        m_learned_l = L;
    }
    const bool untrained = v.model_source.rfind("untrained", 0) == 0;
    wrapped(untrained ? "These weights are fresh (untrained): the rows are Xavier-random, so two different positions' rows "
                        "are nearly orthogonal (cosine near 0 off the diagonal). Train the model to see what it learns."
                      : "The rows as this model holds them now; the cosine similarity shows which positions they make "
                        "alike. " + v.model_description);
    std::vector<std::string> pos, dims;
    for (int p = 0; p < L; ++p) pos.push_back(std::to_string(p));
    for (int d = 0; d < D; ++d) dims.push_back(std::to_string(d));
    const float w = ImGui::GetContentRegionAvail().x * 0.5f - 10;
    ImGui::BeginGroup();
    HeatmapSpec t;
    t.id = "learned";
    t.title = std::string(m_learned_src ? "src_pos.weight" : "tgt_pos.weight") + " (positions \xC3\x97 features)";
    t.show_title = true;
    t.values = table.data();
    t.rows = L;
    t.cols = D;
    t.row_labels = &pos;
    t.col_labels = &dims;
    t.row_axis = "position";
    t.col_axis = "feature";
    t.map = Colormap::Diverging;
    t.symmetric = true;
    t.size = ImVec2(w, 0);
    t.max_cell = 20.0f;
    t.max_aspect = 3.0f;
    t.values_in_cells = false;
    draw_heatmap(t, &ctx.commands);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    HeatmapSpec sim;
    sim.id = "learned_sim";
    sim.title = "cosine similarity of positions i and j";
    sim.show_title = true;
    sim.values = m_learned_sim.data();
    sim.rows = L;
    sim.cols = L;
    sim.row_labels = &pos;
    sim.col_labels = &pos;
    sim.row_axis = "position i";
    sim.col_axis = "position j";
    sim.map = Colormap::Diverging;
    sim.vmin = -1.0f;
    sim.vmax = 1.0f;
    sim.size = ImVec2(w, 0);
    sim.max_cell = 20.0f;
    sim.values_in_cells = false;
    sim.tooltip = [](int r, int c, float value) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "cos(P[%d], P[%d]) = %.3f (|i\xE2\x88\x92j| = %d)", r, c, static_cast<double>(value), std::abs(r - c));
        return std::string(buf);
    };
    draw_heatmap(sim, &ctx.commands);
    ImGui::EndGroup();
}


}  // namespace tx::app
