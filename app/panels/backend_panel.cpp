// Backend panel (see backend_panel.h). Times come from the session's last run (CUDA events on the
// GPU); a comparison re-runs the input on the other backend (SessionView::comparison).
#include "panels/backend_panel.h"

#include <algorithm>
#include <cmath>

#include "backend_names.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

constexpr ImU32 FIRST_COLOUR = IM_COL32(90, 170, 255, 255);
constexpr ImU32 SECOND_COLOUR = IM_COL32(250, 160, 60, 255);
// The benchmark file's series by key; others (a later file's) take the last colour.
constexpr ImU32 BENCH_COLOURS[] = {FIRST_COLOUR, SECOND_COLOUR, IM_COL32(120, 220, 120, 255), IM_COL32(200, 130, 230, 255),
                                   IM_COL32(200, 200, 200, 255)};
constexpr const char* BENCH_KEYS[] = {"cached", "full", "tuned", "installed"};

// Step i's group when bars are grouped by layer: "encoder layer 0", "decoder (outside layers)".
std::string group_of(const StepInfo& s) {
    return s.layer >= 0 ? std::string(to_string(s.stack)) + " layer " + std::to_string(s.layer)
                        : std::string(to_string(s.stack)) + " (outside layers)";
}

}  // namespace

BackendPanel::BackendPanel()
    : Panel("The same list of steps runs on a backend: the CPU one (Eigen) is the reference; the CUDA one runs the "
            "same ops with the same names on the GPU (kernels and cuBLAS). Times are of the last forward pass.") {}

void BackendPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const bool cuda_ok = v.cuda_unavailable.empty();
    if (ImGui::RadioButton(backend_label("cpu").c_str(), v.backend == "cpu")) ctx.commands.send(SetBackend{"cpu"});
    ImGui::SameLine();
    ImGui::BeginDisabled(!cuda_ok);
    if (ImGui::RadioButton(backend_label("cuda").c_str(), v.backend == "cuda")) ctx.commands.send(SetBackend{"cuda"});
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", cuda_ok ? v.cuda_device.c_str() : v.cuda_unavailable.c_str());
    if (cuda_ok) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", v.cuda_device.c_str());
    } else {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("CUDA unavailable: %s. Everything runs on the CPU.", v.cuda_unavailable.c_str());
        ImGui::PopTextWrapPos();
    }

    bool fused = v.options.fused_attention;
    if (ImGui::Checkbox("fused attention", &fused)) ctx.commands.send(SetFusedAttention{fused});
    item_tooltip(
        "Step by step (off): scores, mask, softmax and context are four ops, and their (T,S) matrices are what the "
        "attention views show. Fused (on): one op walks the keys in tiles with a running max and sum (online "
        "softmax, FlashAttention's idea) and never stores the (T,S) matrices, so those steps have nothing to show. "
        "Same result within rounding. On the CPU the fused op is a plain reference loop; the fast one is the GPU's.");
    ImGui::SameLine();
    ImGui::TextDisabled(fused ? "(scores and probabilities are not materialised)" : "(every step materialised)");

    if (v.decoder_only)   // no encoder: S is not a length of this model
        ImGui::Text("Forward pass on %s: %.3f ms for %zu steps (B=%d, T=%d)", v.backend.c_str(), v.forward_ms,
                    v.steps.size(), v.B, v.T);
    else
        ImGui::Text("Forward pass on %s: %.3f ms for %zu steps (B=%d, S=%d, T=%d)", v.backend.c_str(), v.forward_ms,
                    v.steps.size(), v.B, v.S, v.T);
    ImGui::SameLine();
    if (ImGui::SmallButton("time again")) ctx.commands.send(SetInput{v.sentences, v.target_text});
    item_tooltip("Re-runs greedy decoding and the forward pass; times vary from run to run by a few percent.");
    ImGui::BeginDisabled(!cuda_ok);
    if (ImGui::Button("Compare CPU and CUDA")) ctx.commands.send(CompareBackends{});
    ImGui::EndDisabled();
    item_tooltip(cuda_ok ? "Runs this input on the other backend too: per-step times side by side, and the largest "
                           "difference between the two backends' outputs for every step."
                         : v.cuda_unavailable.c_str());
    const BackendComparison* cmp = v.comparison ? &*v.comparison : nullptr;
    if (cmp) {
        ImGui::SameLine();
        ImGui::Text("%s %.3f ms, %s %.3f ms (%.2fx); largest output difference %.3g", cmp->reference.c_str(),
                    cmp->reference_total_ms, cmp->other.c_str(), cmp->other_total_ms,
                    cmp->reference_total_ms / std::max(cmp->other_total_ms, 1e-9), cmp->worst_diff);
    }
    draw_generation_bench(ctx);
    draw_generation_timing(ctx);
    ImGui::Checkbox("group by layer", &m_by_layer);
    ImGui::Separator();

    // Bars: the session's own times, or both backends' after a comparison.
    std::vector<std::string> labels;
    PlotSeries first, second;
    first.name = cmp ? cmp->reference : v.backend;
    first.colour = FIRST_COLOUR;
    second.name = cmp ? cmp->other : "";
    second.colour = SECOND_COLOUR;
    int highlight = -1;
    for (size_t i = 0; i < v.steps.size(); ++i) {
        const double a = cmp && i < cmp->reference_ms.size() ? cmp->reference_ms[i] : v.steps[i].ms;
        const double b = cmp && i < cmp->other_ms.size() ? cmp->other_ms[i] : 0.0;
        const std::string label = m_by_layer ? group_of(v.steps[i]) : v.steps[i].name;
        if (!m_by_layer || labels.empty() || labels.back() != label) {
            labels.push_back(label);
            first.y.push_back(0.0);
            second.y.push_back(0.0);
        }
        first.y.back() += a;
        second.y.back() += b;
        if (v.cursor > 0 && i == v.cursor - 1) highlight = static_cast<int>(labels.size()) - 1;
    }
    for (size_t i = 0; i < first.y.size(); ++i) {
        first.x.push_back(static_cast<double>(i));
        second.x.push_back(static_cast<double>(i));
    }
    std::vector<PlotSeries> series = {first};
    if (cmp) series.push_back(second);
    const float table_h = cmp ? ImGui::GetContentRegionAvail().y * 0.35f : 0.0f;
    ImGui::BeginChild("##times", ImVec2(0, cmp ? -table_h : 0.0f), false);
    BarSpec spec;
    spec.id = "times";
    spec.title = m_by_layer ? "time per layer (ms)" : "time per step (ms)";
    spec.value_label = "ms";
    spec.label_width = m_by_layer ? 200.0f : 330.0f;
    draw_bars(spec, labels, series, &ctx.commands, highlight);
    ImGui::EndChild();
    if (cmp) draw_comparison_table(v);
}

void BackendPanel::draw_generation_timing(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (!ImGui::CollapsingHeader("Generation with and without the KV cache", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (ImGui::Button("Time generation")) ctx.commands.send(MeasureGeneration{});
    item_tooltip("Generates 8, 16, 32 and 64 tokens (below max_len) greedily on this model and backend, twice: with "
                 "the KV cache, and re-running the whole decoder over the prefix for every token. EOS does not stop "
                 "a run, so both do the same number of tokens. After a warm-up run, the fastest of 5 runs counts; the page waits while "
                 "it measures (up to a few seconds).");
    const GenerationTiming* g = v.generation_timing ? &*v.generation_timing : nullptr;
    ImGui::SameLine();
    if (!g) {
        ImGui::TextDisabled("(not measured yet: the plot shows ms per token against the number of tokens, both ways)");
        return;
    }
    const size_t last = g->lengths.size() - 1;
    const double speedup = g->full_ms[last] / std::max(g->cached_ms[last], 1e-9);
    ImGui::Text("%d tokens on %s: %.2f ms with the cache, %.2f ms without (%.1fx faster); same tokens both ways: %s",
                g->lengths[last], v.backend.c_str(), g->cached_ms[last], g->full_ms[last], speedup,
                g->same_tokens ? "yes" : "NO");
    PlotSeries cached, full;
    cached.name = "with the KV cache";
    cached.colour = FIRST_COLOUR;
    full.name = "full recompute";
    full.colour = SECOND_COLOUR;
    for (size_t i = 0; i < g->lengths.size(); ++i) {
        const double n = g->lengths[i];
        cached.x.push_back(n);
        full.x.push_back(n);
        cached.y.push_back(g->cached_ms[i] / n);
        full.y.push_back(g->full_ms[i] / n);
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const float plot_w = std::min(width * 0.55f, 560.0f);
    PlotSpec spec;
    spec.id = "generation_timing";
    spec.title = "ms per generated token (" + v.backend + ")";
    spec.x_label = "tokens generated (N)";
    spec.y_label = "ms / token";
    spec.size = ImVec2(plot_w, 210.0f);
    // Room around the first and last points, so that their markers are not cut by the frame, and
    // above the lines for the legend (top right).
    spec.x_min = 0.0;
    spec.x_max = g->lengths[last] * 1.06;
    spec.y_min = 0.0;
    spec.y_max = std::max(*std::max_element(full.y.begin(), full.y.end()),
                          *std::max_element(cached.y.begin(), cached.y.end())) * 1.45;
    spec.markers = true;
    spec.integer_x = true;
    ImGui::BeginGroup();
    draw_plot(spec, {cached, full}, &ctx.commands);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("##generation_timing_table", 4, flags)) {
        ImGui::TableSetupColumn("N");
        ImGui::TableSetupColumn("cached ms/token");
        ImGui::TableSetupColumn("full ms/token");
        ImGui::TableSetupColumn("speed-up");
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < g->lengths.size(); ++i) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", g->lengths[i]);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", cached.y[i]);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", full.y[i]);
            ImGui::TableNextColumn();
            ImGui::Text("%.1fx", g->full_ms[i] / std::max(g->cached_ms[i], 1e-9));
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(width - plot_w - 20.0f, 200.0f));
    // A row costs ~12·d_model² per layer (projections, FFN) plus d_model·V (generator), an attention
    // score ~2·d_model per layer: summed over N tokens the N³ term catches up with the N² term only
    // when N is many times d_model.
    const int longest = g->lengths[last];
    const std::string which =
        longest < v.config.d_model
            ? "At these lengths (N up to " + std::to_string(longest) + ", below d_model = " +
                  std::to_string(v.config.d_model) + ") the N\xC2\xB2 part dominates. "
            : "At these lengths (N up to " + std::to_string(longest) + ", d_model = " + std::to_string(v.config.d_model) +
                  ") the N\xC2\xB2 part still dominates: the N\xC2\xB3 part catches up only when N is many times d_model. ";
    ImGui::TextWrapped("%s", (
        "Without the cache, token t re-runs the decoder on all t positions: t rows through every projection, "
        "FFN and the generator, and a t \xC3\x97 t attention matrix per head. Over N tokens the projections, FFN "
        "and generator cost grows as N\xC2\xB2 and attention as N\xC2\xB3. " + which +
        "With the cache they are N and N\xC2\xB2 (each new row's attention over the cache). Per token, the full "
        "recompute's time grows with N; the cached step's grows only through its attention row, small next to "
        "its projections and the generator, so the speed-up grows with N. An encoder-decoder model's encoder runs "
        "once per run either way; spread over N tokens, it makes short runs dearer per token. Other programs on "
        "the machine add noise: the fastest of 5 runs counts.").c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
}

void BackendPanel::draw_generation_bench(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (!v.generation_bench && v.generation_bench_error.empty()) return;
    if (!ImGui::CollapsingHeader("Generation benchmark against PyTorch (file)", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!v.generation_bench) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", v.generation_bench_error.c_str());
        return;
    }
    const explain::GenerationBench& b = *v.generation_bench;
    ImGui::TextWrapped("%s, %s. %s; %s; %s.", b.path.c_str(), b.date.c_str(), b.machine.c_str(), b.model.c_str(),
                       b.settings.c_str());
    std::vector<PlotSeries> series;
    double low = 1e300, high = 0.0;
    for (const explain::GenerationBenchSeries& s : b.series) {
        PlotSeries p;
        p.name = s.name;
        const auto* key = std::find_if(std::begin(BENCH_KEYS), std::end(BENCH_KEYS), [&](const char* k) { return s.key == k; });
        p.colour = BENCH_COLOURS[key - std::begin(BENCH_KEYS)];
        for (size_t i = 0; i < b.lengths.size(); ++i) {
            p.x.push_back(b.lengths[i]);
            p.y.push_back(s.median[i]);
            low = std::min(low, s.min[i]);
            high = std::max(high, s.max[i]);
        }
        series.push_back(std::move(p));
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const float plot_w = std::min(width * 0.55f, 720.0f);
    PlotSpec spec;
    spec.id = "generation_bench";
    spec.title = "greedy generation, tokens per second (median of the rounds)";
    spec.x_label = "tokens generated (n)";
    spec.y_label = "tokens / s";
    spec.log_y = true;   // the full recompute is ~30x slower than the cache at 512 tokens
    spec.size = ImVec2(plot_w, 300.0f);
    spec.x_min = 0.0;
    spec.x_max = b.lengths.back() * 1.06;
    // whole decades around the figures, and room above for the legend
    spec.y_min = std::pow(10.0, std::floor(std::log10(low)));
    spec.y_max = std::pow(10.0, std::ceil(std::log10(high * 4.0)));
    spec.markers = true;
    spec.integer_x = true;
    ImGui::BeginGroup();
    draw_plot(spec, series, &ctx.commands);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("##generation_bench_table", static_cast<int>(b.series.size()) + 1, flags)) {
        ImGui::TableSetupColumn("n");
        for (const explain::GenerationBenchSeries& s : b.series) ImGui::TableSetupColumn(s.key.c_str());
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < b.lengths.size(); ++i) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", b.lengths[i]);
            for (const explain::GenerationBenchSeries& s : b.series) {
                ImGui::TableNextColumn();
                ImGui::Text("%.0f [%.0f\xE2\x80\x93%.0f]", s.median[i], s.min[i], s.max[i]);
            }
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(width - plot_w - 20.0f, 200.0f));
    ImGui::TextWrapped(
        "Tokens per second, median [min\xE2\x80\x93max] of the rounds. With a cache, each token runs one row through "
        "every weight matrix, so at batch 1 a step reads all the decoder's weights once: its speed is set by memory "
        "bandwidth and stays nearly flat with n. The full recompute runs t rows for token t, so its speed falls "
        "as n grows.");
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    ImGui::Separator();
}

void BackendPanel::draw_comparison_table(const explain::SessionView& v) {
    const BackendComparison& c = *v.comparison;
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##comparison", 5, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 3.0f);
    ImGui::TableSetupColumn((c.reference + " ms").c_str());
    ImGui::TableSetupColumn((c.other + " ms").c_str());
    ImGui::TableSetupColumn("speed-up");
    ImGui::TableSetupColumn("max |difference|");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < v.steps.size() && i < c.max_diff.size(); ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v.steps[i].name.c_str());
        if (!c.materialised[i]) {
            ImGui::TableNextColumn();
            ImGui::TextDisabled("not materialised (fused attention)");
            continue;
        }
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", c.reference_ms[i]);
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", c.other_ms[i]);
        ImGui::TableNextColumn();
        ImGui::Text("%.2fx", c.reference_ms[i] / std::max(c.other_ms[i], 1e-9));
        ImGui::TableNextColumn();
        // float32 on both sides: differences of a few 1e-6 relative are rounding, not error
        const bool large = !(c.max_diff[i] < 1e-3);
        if (large) ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 120, 90, 255));
        ImGui::Text("%.3g", c.max_diff[i]);
        if (large) ImGui::PopStyleColor();
    }
    ImGui::EndTable();
}

}  // namespace tx::app
