// Generate panel (see generate_panel.h). Reads SessionView::generation: tokens[t − 1] is output
// token t, computed from the decoder input at position P + t − 1 (P = the context a decoder-only
// model's prompt puts before it, else 0); the cursor's step indexes
// generation_steps(config, positional switch) (embed, then self-attention, cross-attention, feed-forward per layer,
// then the generator and the choice). What a step has not reached yet is not shown.
#include "generate_panel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "byte_pieces.h"
#include "widgets/heat_strip.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const ImVec4 TITLE(0.95f, 0.85f, 0.55f, 1.0f);
const ImVec4 WARN(0.98f, 0.45f, 0.40f, 1.0f);
const ImU32 CACHED_COLOUR = IM_COL32(110, 200, 130, 255);
const ImU32 FULL_COLOUR = IM_COL32(235, 140, 80, 255);

std::string piece(const explain::SessionView& v, int id) {
    const SpecialTokens& sp = v.config.special;
    if (id == sp.eos) return "EOS";
    if (id == sp.bos) return "BOS";
    if (id == sp.pad) return "PAD";
    if (id == sp.unk) return "UNK";
    return v.token_text(id);
}

ChipKind chip_kind(const explain::SessionView& v, int id) {
    const SpecialTokens& sp = v.config.special;
    if (id == sp.eos || id == sp.bos) return ChipKind::Special;
    if (id == sp.unk) return ChipKind::Unknown;
    return ChipKind::Normal;
}

std::string fixed(double x, const char* format) {
    char text[48];
    std::snprintf(text, sizeof text, format, x);
    return text;
}

// Index of the first step of `kind` in `layer`.
int step_index(const std::vector<explain::GenerationStep>& steps, explain::GenerationStepKind kind, int layer = -1) {
    for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i].kind == kind && steps[i].layer == layer) return static_cast<int>(i);
    return static_cast<int>(steps.size());
}

// Probabilities: three decimals, and small ones in scientific notation rather than 0.000.
std::string probability(double p) { return p > 0.0 && p < 0.001 ? fixed(p, "%.1e") : fixed(p, "%.3f"); }

std::string temperature_line(double t) {
    if (t < 1.0)
        return "T = " + fixed(t, "%.2f") + " < 1 sharpens: log p / T widens the gaps, so probable tokens gain and "
               "unlikely ones lose (T \xE2\x86\x92 0 is greedy).";
    if (t > 1.0)
        return "T = " + fixed(t, "%.2f") + " > 1 flattens: log p / T narrows the gaps, so unlikely tokens are drawn "
               "more often.";
    return "T = 1 leaves the model's own distribution: p_i \xE2\x88\x9D exp(log p_i / T).";
}

std::string top_k_line(int k) {
    if (k == 0) return "k = 0: off, every token can be drawn.";
    if (k == 1) return "k = 1: only the most probable token is left: that is greedy decoding.";
    return "k = " + std::to_string(k) + ": only the " + std::to_string(k) + " most probable tokens can be drawn; the rest are cut.";
}

std::string top_p_line(double p) {
    if (p >= 1.0) return "p = 1: off, every token can be drawn.";
    return "p = " + fixed(p, "%.2f") + ": keep the fewest most probable tokens whose probabilities add up to at least " +
           fixed(p, "%.2f") + " (nucleus sampling); the rest are cut.";
}

}  // namespace

GeneratePanel::GeneratePanel()
    : Panel("How the model writes its output, one token at a time. Each token runs the decoder on one new query row: "
            "its keys and values join a per-layer cache and it attends to every cached position, so nothing earlier is "
            "recomputed; cross-attention's keys and values are computed once per sentence. Keys (panel focused): "
            "T next token, S next step, B back, E run to end.") {}

std::string GeneratePanel::explanation_for(const explain::SessionView& v) const {
    if (!v.decoder_only) return explanation();
    return "How the model continues the prompt, one token at a time. BOS and the prompt are read into the cache first; "
           "then each token runs the decoder on one new query row: its keys and values join a per-layer cache and it "
           "attends to every cached position, so nothing earlier is recomputed. A decoder-only model has no source and "
           "no cross-attention. Keys (panel focused): T next token, S next step, B back, E run to end.";
}

void GeneratePanel::draw_controls(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::GenerationTrace& g = v.generation;
    if (!m_editing) m_settings = g.settings;
    bool apply = false, active = false;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Decoding");
    ImGui::SameLine();
    if (ImGui::RadioButton("greedy", !m_settings.sample)) {
        m_settings.sample = false;
        apply = true;
    }
    item_tooltip("Take the most probable token every time (the argmax): the same output on every run.");
    ImGui::SameLine();
    if (ImGui::RadioButton("sampling", m_settings.sample)) {
        m_settings.sample = true;
        apply = true;
    }
    item_tooltip("Draw each token at random from the distribution after temperature, top-k and top-p; the seed "
                 "fixes the draws, so the same seed gives the same output.");
    ImGui::SameLine(0.0f, 24.0f);
    if (ImGui::Checkbox("recompute without cache", &m_settings.compare_full)) apply = true;
    item_tooltip("Also compute every token with the full decoder pass over the whole prefix (as if there were no "
                 "cache), compare the log-probabilities of the two paths and time both.");

    if (m_settings.sample) {
        float temperature = static_cast<float>(m_settings.sampling.temperature);
        float top_p = static_cast<float>(m_settings.sampling.top_p);
        int top_k = m_settings.sampling.top_k;
        int seed = static_cast<int>(std::min<uint64_t>(m_settings.sampling.seed, INT32_MAX));
        const float w = 120.0f;
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("temperature");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::SliderFloat("##temperature", &temperature, 0.05f, 3.0f, "%.2f");   // Ctrl+click types any value
        active |= ImGui::IsItemActive();
        apply |= ImGui::IsItemDeactivatedAfterEdit();
        ImGui::SameLine(0.0f, 16.0f);
        ImGui::TextUnformatted("top-k");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::InputInt("##top_k", &top_k);
        active |= ImGui::IsItemActive();
        apply |= ImGui::IsItemDeactivatedAfterEdit();
        ImGui::SameLine(0.0f, 16.0f);
        ImGui::TextUnformatted("top-p");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::SliderFloat("##top_p", &top_p, 0.01f, 1.0f, "%.2f");
        active |= ImGui::IsItemActive();
        apply |= ImGui::IsItemDeactivatedAfterEdit();
        ImGui::SameLine(0.0f, 16.0f);
        ImGui::TextUnformatted("seed");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::InputInt("##seed", &seed);
        active |= ImGui::IsItemActive();
        apply |= ImGui::IsItemDeactivatedAfterEdit();
        // Two decimals, as shown, so that 0.70 is 0.7 as txcli's --temperature 0.7 is.
        m_settings.sampling.temperature = std::round(static_cast<double>(temperature) * 100.0) / 100.0;
        m_settings.sampling.top_p = std::round(static_cast<double>(top_p) * 100.0) / 100.0;
        m_settings.sampling.top_k = top_k;
        if (seed < 0) {
            ImGui::TextColored(WARN, "seed must be 0 or more, got %d", seed);
            seed = 0;
        }
        m_settings.sampling.seed = static_cast<uint64_t>(seed);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", temperature_line(m_settings.sampling.temperature).c_str());
        ImGui::TextDisabled("%s", top_k_line(std::max(0, top_k)).c_str());
        ImGui::TextDisabled("%s", top_p_line(m_settings.sampling.top_p).c_str());
        ImGui::TextDisabled("seed %llu picks the random draws (one uniform number per token): the same seed gives the same output.",
                            static_cast<unsigned long long>(m_settings.sampling.seed));
        ImGui::PopTextWrapPos();
    }
    m_editing = active;
    std::string invalid;
    try {
        validate(m_settings.sampling);
    } catch (const std::exception& e) {
        invalid = e.what();
    }
    if (m_settings.sample && !invalid.empty()) {
        ImGui::TextColored(WARN, "Not applied: %s.", invalid.c_str());
        return;
    }
    if (apply) ctx.commands.send(SetGeneration{m_settings});
}

void GeneratePanel::draw_cursor(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::GenerationTrace& g = v.generation;
    const std::vector<explain::GenerationStep> steps = explain::generation_steps(v.config, v.options.positional_encoding);
    const int T = static_cast<int>(g.tokens.size()), N = static_cast<int>(steps.size());
    const int t = g.token, s = g.step;
    // Moves: next step runs into the next token's pass after the last step; back walks the reverse.
    const auto next_step = [&] { return s + 1 < N ? std::pair{t, s + 1} : std::pair{std::min(t + 1, T), t < T ? 0 : s}; };
    const auto back = [&] { return s > 0 ? std::pair{t, s - 1} : std::pair{std::max(t - 1, 1), t > 1 ? N - 1 : 0}; };
    std::pair<int, int> go{-1, -1};
    const bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::GetIO().WantTextInput;
    if (ImGui::Button("\xE2\x97\x80 back") || (focused && ImGui::IsKeyPressed('B'))) go = back();
    item_tooltip("One step back (B).");
    ImGui::SameLine();
    if (ImGui::Button("next step \xE2\x96\xB6") || (focused && ImGui::IsKeyPressed('S'))) go = next_step();
    item_tooltip("The next step of this token's pass through the decoder (S).");
    ImGui::SameLine();
    if (ImGui::Button("next token \xE2\x96\xB6\xE2\x96\xB6") || (focused && ImGui::IsKeyPressed('T'))) go = {std::min(t + 1, T), N - 1};
    item_tooltip("The next token's whole pass (T).");
    ImGui::SameLine();
    if (ImGui::Button("run to end") || (focused && ImGui::IsKeyPressed('E'))) go = {T, N - 1};
    item_tooltip("The last token, its pass done (E).");
    ImGui::SameLine();
    if (ImGui::Button("restart")) go = {1, 0};
    if (go.first > 0 && go != std::pair{t, s}) ctx.commands.send(SetGenerationCursor{go.first, go.second});
    ImGui::SameLine(0.0f, 16.0f);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(TITLE, "token %d of %d", t, T);
    ImGui::SameLine();
    ImGui::Text("\xC2\xB7 step %d of %d:", s + 1, N);
    ImGui::SameLine();
    ImGui::PushFont(mono_font());
    ImGui::TextUnformatted(steps[static_cast<size_t>(s)].name.c_str());
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0.0f);
    const int P = static_cast<int>(g.context.size());
    ImGui::TextDisabled("%s (query position %d).", steps[static_cast<size_t>(s)].what.c_str(), P + t - 1);
    ImGui::PopTextWrapPos();

    // The output so far: BOS and the tokens chosen before t; token t once it is chosen.
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Decoder input");
    ImGui::SameLine();
    const bool chosen = steps[static_cast<size_t>(s)].kind == explain::GenerationStepKind::Choose;
    for (int i = 0; i < P; ++i) {   // decoder-only: BOS and the prompt, read before the first choice
        ImGui::PushID(-1 - i);
        const int id = g.context[static_cast<size_t>(i)];
        token_chip(piece(v, id), id, chip_kind(v, id), i == 0 ? "begin of sequence" : "prompt: read into the cache first");
        ImGui::PopID();
    }
    for (int i = 0; i < t; ++i) {
        ImGui::PushID(i);
        const int id = g.tokens[static_cast<size_t>(i)].input;
        token_chip(piece(v, id), id, i == t - 1 ? ChipKind::Highlight : chip_kind(v, id),
                   i == t - 1 ? "the newest position: its query row is computed now" : nullptr);
        ImGui::PopID();
    }
    const explain::GeneratedToken& now = g.tokens[static_cast<size_t>(t - 1)];
    ImGui::TextDisabled("\xE2\x86\x92");
    ImGui::SameLine();
    if (chosen) token_chip(piece(v, now.chosen), now.chosen, chip_kind(v, now.chosen), "the token chosen at this position");
    else ImGui::TextDisabled("(next token not chosen yet)");
    ImGui::NewLine();
}

void GeneratePanel::draw_attention(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::GenerationTrace& g = v.generation;
    const std::vector<explain::GenerationStep> steps = explain::generation_steps(v.config, v.options.positional_encoding);
    const int t = g.token;
    const explain::GeneratedToken& now = g.tokens[static_cast<size_t>(t - 1)];
    m_layer = std::clamp(m_layer, 0, g.L - 1);
    int& head = ctx.selection.head;
    head = std::clamp(head, 0, g.H - 1);
    ImGui::TextColored(TITLE, "The new query row against the cache");
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("layer");
    for (int l = 0; l < g.L; ++l) {
        ImGui::SameLine();
        ImGui::PushID(l);
        if (ImGui::RadioButton(std::to_string(l).c_str(), m_layer == l)) m_layer = l;
        ImGui::PopID();
    }
    ImGui::SameLine(0.0f, 16.0f);
    ImGui::TextUnformatted("head");
    for (int h = 0; h < g.H; ++h) {
        ImGui::SameLine();
        ImGui::PushID(100 + h);
        if (ImGui::RadioButton(std::to_string(h).c_str(), head == h)) head = h;
        ImGui::PopID();
    }

    // Self-attention: keys are the decoder inputs 0 … P + t − 1 (all cached, the newest appended
    // now): a decoder-only model's context (BOS and the prompt), then the tokens' inputs.
    const int P = static_cast<int>(g.context.size()), n = P + t;
    std::vector<std::string> keys;
    for (int id : g.context) keys.push_back(piece(v, id));
    for (int i = 0; i < t; ++i) keys.push_back(piece(v, g.tokens[static_cast<size_t>(i)].input));
    const bool self_done = g.step >= step_index(steps, explain::GenerationStepKind::SelfAttention, m_layer);
    ImGui::Text("self_attn, head %d: q [1,%d,1,%d] \xC2\xB7 K cache [1,%d,%d,%d]", head, g.H, g.dk, g.G, n, g.dk);
    if (self_done) {
        const float* row = now.self_probs[static_cast<size_t>(m_layer)].data() + static_cast<size_t>(head) * n;
        HeatStripSpec spec;
        spec.id = "self";
        spec.values = row;
        spec.count = n;
        spec.labels = &keys;
        spec.marked = n - 1;
        spec.tooltip = [&](int j) {
            return "query position " + std::to_string(n - 1) + " (" + keys.back() + ") \xE2\x86\x92 key " + std::to_string(j) +
                   " (" + keys[static_cast<size_t>(j)] + ") = " + fixed(row[j], "%.4f") +
                   (j == n - 1 ? "\nthe newest key: appended to the cache in this step"
                               : j < P ? "\nread into the cache with the prompt" : "\ncached by an earlier token's pass");
        };
        draw_heat_strip(spec);
    } else {
        ImGui::TextDisabled("Not computed yet: step to decoder.layers.%d.self_attn.", m_layer);
    }

    if (g.decoder_only) {
        ImGui::TextDisabled("No cross-attention: a decoder-only model reads no source.");
    } else {
        draw_cross_attention(v, now, steps, head);
    }

    // The causal mask's newest row over the cache's slots: P + t keys visible, the rest masked.
    ImGui::Text("Causal mask row %d: %d of %d slots visible (yellow), the rest masked (grey)", n - 1, n, g.capacity);
    std::vector<float> mask(static_cast<size_t>(g.capacity), std::numeric_limits<float>::quiet_NaN());
    for (int j = 0; j < n; ++j) mask[static_cast<size_t>(j)] = 1.0f;
    HeatStripSpec spec;
    spec.id = "mask";
    spec.values = mask.data();
    spec.count = g.capacity;
    spec.height = 18.0f;
    spec.marked = n - 1;
    spec.tooltip = [n](int j) {
        return j < n ? "slot " + std::to_string(j) + ": written, visible (adds 0 to the score)"
                     : "slot " + std::to_string(j) + ": not written yet, masked (\xE2\x88\x92\xE2\x88\x9E): weight 0";
    };
    draw_heat_strip(spec);
}

void GeneratePanel::draw_cross_attention(const explain::SessionView& v, const explain::GeneratedToken& now,
                                         const std::vector<explain::GenerationStep>& steps, int head) {
    const explain::GenerationTrace& g = v.generation;
    // Cross-attention: the source keys, projected once.
    std::vector<std::string> source;
    for (int id : g.src) source.push_back(piece(v, id));
    const bool cross_done = g.step >= step_index(steps, explain::GenerationStepKind::CrossAttention, m_layer);
    ImGui::Text("cross_attn, head %d: q \xC2\xB7 source K [1,%d,%d,%d] (computed once)", head, g.G, g.S, g.dk);
    if (cross_done) {
        const float* row = now.cross_probs[static_cast<size_t>(m_layer)].data() + static_cast<size_t>(head) * g.S;
        HeatStripSpec spec;
        spec.id = "cross";
        spec.values = row;
        spec.count = g.S;
        spec.labels = &source;
        draw_heat_strip(spec);
    } else {
        ImGui::TextDisabled("Not computed yet: step to decoder.layers.%d.cross_attn.", m_layer);
    }
}

void GeneratePanel::draw_distribution(const explain::SessionView& v) {
    const explain::GenerationTrace& g = v.generation;
    const std::vector<explain::GenerationStep> steps = explain::generation_steps(v.config, v.options.positional_encoding);
    const explain::GeneratedToken& now = g.tokens[static_cast<size_t>(g.token - 1)];
    const bool sample = g.settings.sample;
    ImGui::TextColored(TITLE, "Next-token distribution, top %zu of %d", now.top_ids.size(), g.V);
    if (g.step < step_index(steps, explain::GenerationStepKind::Generator)) {
        ImGui::TextDisabled("Not computed yet: step to generator.log_probs.");
        return;
    }
    ImGui::PushTextWrapPos(0.0f);
    if (sample)
        ImGui::TextDisabled("Bars: the probability each token is drawn with, after temperature %.2f, top-k %d and top-p %.2f "
                            "(%d token%s left, renormalised); grey: cut. Right: the model's own p.",
                            g.settings.sampling.temperature, g.settings.sampling.top_k, g.settings.sampling.top_p, now.kept,
                            now.kept == 1 ? "" : "s");
    else
        ImGui::TextDisabled("Bars: the model's probabilities, exp(log p). Greedy takes the longest bar.");
    ImGui::PopTextWrapPos();
    const bool chosen_shown = steps[static_cast<size_t>(g.step)].kind == explain::GenerationStepKind::Choose;
    const float label_w = 110.0f, value_w = 150.0f;
    const float bar_w = std::max(60.0f, ImGui::GetContentRegionAvail().x - label_w - value_w);
    const float line = ImGui::GetTextLineHeight() + 3.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    double top = 0.0;
    for (double p : now.top_probs) top = std::max(top, p);
    for (size_t r = 0; r < now.top_ids.size(); ++r) {
        const int id = now.top_ids[r];
        const bool cut = now.top_cut[r];
        const bool is_chosen = chosen_shown && id == now.chosen;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const ImU32 text = cut ? IM_COL32(120, 120, 125, 255) : is_chosen ? IM_COL32(255, 215, 120, 255) : IM_COL32(225, 225, 230, 255);
        dl->AddText(p, text, fit_text(piece(v, id), label_w - 6.0f).c_str());
        const float x0 = p.x + label_w;
        const float w = top > 0.0 ? static_cast<float>(now.top_probs[r] / top) * bar_w : 0.0f;
        dl->AddRectFilled(ImVec2(x0, p.y + 2), ImVec2(x0 + bar_w, p.y + line - 3), IM_COL32(40, 40, 44, 255));
        if (cut) {
            // A cut token's bar would be 0: show the model's p as an outline, greyed.
            const float m = top > 0.0 ? static_cast<float>(std::min(1.0, now.top_model_probs[r] / top)) * bar_w : 0.0f;
            dl->AddRect(ImVec2(x0, p.y + 2), ImVec2(x0 + m, p.y + line - 3), IM_COL32(110, 110, 115, 255));
        } else {
            dl->AddRectFilled(ImVec2(x0, p.y + 2), ImVec2(x0 + w, p.y + line - 3),
                              is_chosen ? IM_COL32(235, 180, 60, 255) : IM_COL32(80, 150, 220, 255));
        }
        const std::string value = cut ? "cut  (p " + probability(now.top_model_probs[r]) + ")"
                                      : probability(now.top_probs[r]) +
                                            (sample ? "  (p " + probability(now.top_model_probs[r]) + ")" : std::string());
        dl->AddText(ImVec2(x0 + bar_w + 6.0f, p.y), text, (value + (is_chosen ? "  \xE2\x97\x80" : "")).c_str());
        ImGui::Dummy(ImVec2(label_w + bar_w + value_w, line));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s (id %d): rank %zu; model p = %.5f%s", piece(v, id).c_str(), id, r + 1, now.top_model_probs[r],
                              cut ? "; cut by top-k / top-p: it cannot be drawn"
                                  : sample ? ("; drawn with p = " + fixed(now.top_probs[r], "%.5f")).c_str() : "");
    }
    if (!chosen_shown) {
        ImGui::TextDisabled("The choice is the next step.");
        return;
    }
    ImGui::PushTextWrapPos(0.0f);
    if (!sample) {
        ImGui::Text("Chosen: %s, the argmax (rank 1, p = %.3f).", piece(v, now.chosen).c_str(), now.chosen_prob);
    } else {
        ImGui::Text("Chosen: %s (rank %d, drawn with p = %.3f).", piece(v, now.chosen).c_str(), now.chosen_rank + 1,
                    now.chosen_prob);
        ImGui::TextDisabled("The draw: u = %.4f from seed %llu's stream. Laid end to end in id order, the kept tokens' "
                            "probabilities fill [0, 1); u falls in %s's share [%.4f, %.4f).",
                            now.draw, static_cast<unsigned long long>(g.settings.sampling.seed), piece(v, now.chosen).c_str(),
                            now.interval_start, now.interval_start + now.chosen_prob);
    }
    if (now.chosen == v.config.special.eos) ImGui::TextDisabled("EOS: the output ends here.");
    ImGui::PopTextWrapPos();
}

void GeneratePanel::draw_cache(const explain::SessionView& v) {
    const explain::GenerationTrace& g = v.generation;
    const std::vector<explain::GenerationStep> steps = explain::generation_steps(v.config, v.options.positional_encoding);
    const int t = g.token;
    ImGui::TextColored(TITLE, "The KV cache");
    ImGui::SameLine();
    if (g.decoder_only)
        help_marker("Each decoder layer keeps the keys and values of every position read or decoded so far, [B,G,t,dk], in "
                    "a buffer allocated once for C positions (BOS + the prompt + the continuation's limit, less the last "
                    "token, which is never an input). The prompt fills the first rows before the first token; then a "
                    "token's self-attention step appends one row per key/value head (G, which is H unless the model shares them: grouped-query attention). There is no cross-attention to cache.");
    else
        help_marker("Each decoder layer keeps the keys and values of every position decoded so far, [B,G,t,dk], in a "
                    "buffer allocated once for C positions (the output length limit). A token's self-attention step "
                    "appends one row per key/value head (G, which is H unless the model shares them: grouped-query attention). Cross-attention's keys and values depend only on the source: they are "
                    "projected once, before the first token.");
    if (g.G < g.H)
        ImGui::TextWrapped("Grouped-query attention: the %d query heads share %d key/value head%s, so the cache holds "
                           "%d head%s per layer, %d times less than one per query head.", g.H, g.G, g.G == 1 ? "" : "s",
                           g.G, g.G == 1 ? "" : "s", g.H / g.G);
    const int P = static_cast<int>(g.context.size());
    const double row_bytes = static_cast<double>(g.G) * g.dk * sizeof(float);   // one position, K or V, one layer
    double used = 0.0;
    const float bar_w = 110.0f, label_w = 215.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int l = 0; l < g.L; ++l) {
        // The layer's self-attention step appends position t − 1; before it the cache holds t − 1.
        const int held = P + (g.step >= step_index(steps, explain::GenerationStepKind::SelfAttention, l) ? t : t - 1);
        used += 2.0 * held * row_bytes;
        const float x0 = ImGui::GetCursorPosX();
        ImGui::PushFont(mono_font());
        ImGui::Text("layer %d K, V [1,%d,%d,%d]", l, g.G, held, g.dk);
        ImGui::PopFont();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("decoder.layers.%d.self_attn: the K cache and the V cache, [B,G,t,dk] = [1,%d,%d,%d] each, in "
                              "buffers of [1,%d,%d,%d]", l, g.G, held, g.dk, g.G, g.capacity, g.dk);
        ImGui::SameLine();
        ImGui::SetCursorPosX(x0 + label_w);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        const float f = g.capacity > 0 ? static_cast<float>(held) / static_cast<float>(g.capacity) : 0.0f;
        dl->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + bar_w, p.y + h - 1), IM_COL32(45, 45, 50, 255));
        dl->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + bar_w * f, p.y + h - 1), CACHED_COLOUR);
        ImGui::Dummy(ImVec2(bar_w, h));
        ImGui::SameLine();
        ImGui::Text("%d / %d, %s", held, g.capacity, format_bytes(2.0 * held * row_bytes).c_str());
    }
    const double allocated = 2.0 * g.L * g.capacity * row_bytes;
    if (!g.decoder_only) {
        const double cross = 2.0 * g.L * g.S * row_bytes;
        const float x0 = ImGui::GetCursorPosX();
        ImGui::PushFont(mono_font());
        ImGui::Text("cross K, V [1,%d,%d,%d]", g.G, g.S, g.dk);
        ImGui::PopFont();
        ImGui::SameLine();
        ImGui::SetCursorPosX(x0 + label_w);
        ImGui::Text("once per sentence: %s, %.3f ms", format_bytes(cross).c_str(), g.cross_kv_ms);
    } else {
        ImGui::TextWrapped("BOS and the prompt but its last token filled %d row%s of every layer before token 1 (whose "
                           "input is the prompt's last token): %.3f ms.", P, P == 1 ? "" : "s", g.encode_ms);
    }
    ImGui::TextDisabled("Self-attention caches: %s used of %s allocated.", format_bytes(used).c_str(),
                        format_bytes(allocated).c_str());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%d layers \xC3\x97 K and V \xC3\x97 %d positions \xC3\x97 %d heads \xC3\x97 %d floats of 4 bytes",
                          g.L, g.capacity, g.G, g.dk);
}

void GeneratePanel::draw_comparison(const explain::SessionView& v) {
    const explain::GenerationTrace& g = v.generation;
    const int P = static_cast<int>(g.context.size());   // positions before token 1's (decoder-only)
    const explain::GeneratedToken& now = g.tokens[static_cast<size_t>(g.token - 1)];
    ImGui::TextColored(TITLE, "With the cache and without it");
    if (!g.settings.compare_full) {
        ImGui::TextDisabled("Switch on \"recompute without cache\" to compute every token again with the full decoder "
                            "pass over the whole prefix and compare.");
        ImGui::Text("Cached: %.3f ms for token %d, %.2f ms for all %zu (%s %.2f ms once).", now.cached_ms, g.token,
                    g.cached_total_ms, g.tokens.size(), g.decoder_only ? "reading the prompt" : "encoder", g.encode_ms);
        return;
    }
    ImGui::SameLine();
    help_marker(g.decoder_only ? "The full pass runs the whole decoder over BOS, the prompt and every token chosen so far, as "
                                 "decoding without a cache does, and reads the newest position's log-probabilities. Both paths "
                                 "run the same weights on the same tokens, so they agree up to float32 rounding (their sums run "
                                 "in another order). The full pass grows with the prefix (every layer on every row); a cached "
                                 "step only adds one key per layer to attend to. Times: CPU, best of several runs."
                               : "The full pass runs the whole decoder over BOS and every token chosen so far, as decoding without a cache "
                "does, and reads the newest position's log-probabilities. Both paths run the same weights on the same "
                "tokens, so they agree up to float32 rounding (their sums run in another order). The full pass grows with "
                "the prefix (every layer on every row); a cached step only adds one key per layer to attend to. Times: "
                "CPU, best of several runs.");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("max |\xCE\x94 log p| cached vs full: %.1e at token %d, %.1e over all %zu tokens: the same numbers.",
                now.max_diff, g.token, g.max_diff, g.tokens.size());
    ImGui::Text("Token %d: cached step %.3f ms, full pass over %d position%s %.3f ms (%.1f\xC3\x97). All %zu tokens: "
                "cached %.2f ms, full %.2f ms (%.1f\xC3\x97): the cache saves %.2f ms.",
                g.token, now.cached_ms, P + g.token, P + g.token == 1 ? "" : "s", now.full_ms,
                now.full_ms / std::max(now.cached_ms, 1e-9), g.tokens.size(), g.cached_total_ms, g.full_total_ms,
                g.full_total_ms / std::max(g.cached_total_ms, 1e-9), g.full_total_ms - g.cached_total_ms);
    ImGui::PopTextWrapPos();
    // Per token: both times as bars, the cursor's token outlined.
    const int T = static_cast<int>(g.tokens.size());
    double top = 1e-9;
    for (const explain::GeneratedToken& k : g.tokens) top = std::max({top, k.full_ms, k.cached_ms});
    const float h = 34.0f, avail = ImGui::GetContentRegionAvail().x;
    const float slot = std::clamp(avail / static_cast<float>(std::max(T, 1)), 4.0f, 26.0f);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddLine(ImVec2(p.x, p.y + h), ImVec2(p.x + slot * T, p.y + h), IM_COL32(120, 120, 125, 255));
    for (int i = 0; i < T; ++i) {
        const explain::GeneratedToken& k = g.tokens[static_cast<size_t>(i)];
        const float x = p.x + slot * static_cast<float>(i), half = std::max(1.0f, slot * 0.5f - 1.0f);
        const float hf = static_cast<float>(k.full_ms / top) * h, hc = static_cast<float>(k.cached_ms / top) * h;
        dl->AddRectFilled(ImVec2(x, p.y + h - hf), ImVec2(x + half, p.y + h), FULL_COLOUR);
        dl->AddRectFilled(ImVec2(x + half, p.y + h - std::max(hc, 1.0f)), ImVec2(x + 2 * half, p.y + h), CACHED_COLOUR);
        if (i == g.token - 1) dl->AddRect(ImVec2(x - 1, p.y - 1), ImVec2(x + 2 * half + 1, p.y + h + 1), IM_COL32(255, 255, 255, 255));
    }
    ImGui::Dummy(ImVec2(slot * T, h + 2));
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(FULL_COLOUR), "\xE2\x96\xA0 full pass");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(CACHED_COLOUR), "\xE2\x96\xA0 cached step");
    ImGui::SameLine();
    ImGui::TextDisabled("ms per token (top %.2f)", top);
}

void GeneratePanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::GenerationTrace& g = v.generation;
    if (g.stale) ctx.commands.send(UpdateGeneration{});   // computed after this frame
    draw_controls(ctx);
    ImGui::Separator();
    if (!g.error.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(WARN, "%s", g.error.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (g.tokens.empty() || g.token < 1 || g.token > static_cast<int>(g.tokens.size())) {
        ImGui::TextDisabled("Generating\xE2\x80\xA6");
        return;
    }
    ImGui::TextColored(TITLE, g.decoder_only ? "Prompt 1: %s" : "Sentence 1: %s", g.sentence.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("\xE2\x86\x92 %s%s", g.text.c_str(), g.finished ? "" : " (cut at the length limit)");
    if (const std::string note = explain::replacement_character_note(g.text); !note.empty()) {
        ImGui::SameLine();
        help_marker(note.c_str());
    }
    draw_cursor(ctx);
    ImGui::Separator();
    if (ImGui::BeginTable("##generate", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        draw_attention(ctx);
        ImGui::Spacing();
        draw_cache(v);
        ImGui::Spacing();
        draw_comparison(v);
        ImGui::TableNextColumn();
        draw_distribution(v);
        ImGui::EndTable();
    }
}

}  // namespace tx::app
