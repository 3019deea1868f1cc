// Training panel (see training_panel.h).
#include "panels/training_panel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "imgui_stdlib.h"
#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const TaskKind TASKS[] = {TaskKind::Copy, TaskKind::CopyText, TaskKind::Reverse, TaskKind::Sort};
const Preset PRESETS[] = {Preset::Tiny, Preset::Annotated};

}  // namespace

TrainingPanel::TrainingPanel()
    : Panel("Train a Transformer live on a small task (copy, reverse, sort symbol sequences, or copy text) with Adam "
            "and the paper's learning-rate schedule shape (linear warm-up, then 1/\xE2\x88\x9Astep decay; the factor "
            "and warm-up are the fields below, the paper used 4000 warm-up steps). Watch the loss fall and the cross-attention of a probe input "
            "form a pattern (a diagonal for copy) as the model learns to align output with input.") {}

void TrainingPanel::draw_content(PanelContext& ctx) {
    if (!m_initialised) {
        m_training = preset_training(Preset::Tiny, TaskKind::Copy);
        const char* home = std::getenv("HOME");
        m_save_path = std::string(home ? home : "/tmp") + "/transformer-explorer-trained.safetensors";
        m_initialised = true;
    }
    // A trainer configured elsewhere (a lesson, --train): the settings show what it runs.
    if (ctx.trainer.exists && to_json(ctx.trainer.training) != m_trainer_json) {
        m_trainer_json = to_json(ctx.trainer.training);
        m_training = ctx.trainer.training;
        for (int i = 0; i < static_cast<int>(std::size(TASKS)); ++i)
            if (TASKS[i] == m_training.task) m_task = i;
        for (int i = 0; i < static_cast<int>(std::size(PRESETS)); ++i)
            if (PRESETS[i] == ctx.trainer.preset) m_preset = i;
    }
    const TrainingSnapshot& t = ctx.training;
    const bool exists = ctx.trainer.exists;
    const bool running = exists && t.state == TrainerState::Running;

    // Controls.
    if (!running) {
        if (ImGui::Button("\xE2\x96\xB6 Play")) {
            if (!exists) ctx.commands.trainer_configure(PRESETS[m_preset], m_training);
            ctx.commands.trainer_start();
        }
    } else if (ImGui::Button("\xE2\x8F\xB8 Pause")) {
        ctx.commands.trainer_pause();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(running);
    if (ImGui::Button("Step")) {
        if (!exists) ctx.commands.trainer_configure(PRESETS[m_preset], m_training);
        ctx.commands.trainer_step();
    }
    item_tooltip("One optimiser step on one batch, then pause.");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!exists);
    if (ImGui::Button("Reset")) ctx.commands.trainer_reset();
    item_tooltip("Fresh weights from the seed; the history is cleared.");
    ImGui::SameLine();
    if (ImGui::Button("Use trained model in explorer")) ctx.commands.use_trained_model();
    item_tooltip("Load the trainer's current weights into the explorer, so every other panel shows the trained model.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - 70));
    ImGui::InputText("##save", &m_save_path);
    ImGui::SameLine();
    if (ImGui::Button("Save")) ctx.commands.trainer_save(m_save_path);
    ImGui::EndDisabled();

    if (exists) {
        const double progress = t.total_steps > 0 ? static_cast<double>(t.step) / static_cast<double>(t.total_steps) : 0.0;
        char overlay[160];
        std::snprintf(overlay, sizeof overlay, "%s \xC2\xB7 step %lld / %lld \xC2\xB7 epoch %d \xC2\xB7 %.1f s", to_string(t.state),
                      static_cast<long long>(t.step), static_cast<long long>(t.total_steps), t.epoch, t.elapsed_s);
        ImGui::ProgressBar(static_cast<float>(progress), ImVec2(-1, 0), overlay);
        ImGui::Text("loss %.3g \xC2\xB7 eval loss %.3g \xC2\xB7 lr %.2e \xC2\xB7 token accuracy %.1f%% \xC2\xB7 exact match %.1f%% \xC2\xB7 %.0f tokens/s",
                    t.latest.loss, t.latest.eval_loss, t.latest.lr, 100 * t.latest.token_accuracy, 100 * t.latest.exact_match,
                    t.latest.tokens_per_s);
        if (!t.message.empty()) ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.4f, 1.0f), "%s", t.message.c_str());
    } else if (!ctx.trainer.error.empty()) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", ctx.trainer.error.c_str());
    } else {
        ImGui::TextDisabled("Press Play: a trainer is created with the settings below and starts on its own thread.");
    }

    const float left_w = std::min(400.0f, ImGui::GetContentRegionAvail().x * 0.33f);
    ImGui::BeginChild("##trainleft", ImVec2(left_w, 0), true);
    draw_settings(ctx);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##trainright", ImVec2(0, 0), false);
    draw_plots(ctx);
    ImGui::Separator();
    draw_probe(ctx);
    ImGui::EndChild();
}

void TrainingPanel::draw_settings(PanelContext& ctx) {
    ImGui::TextUnformatted("Settings");
    help_marker("Applying creates a new trainer (fresh weights). The running one is stopped.");
    bool changed = false;
    ImGui::PushItemWidth(150);
    if (ImGui::Combo("task", &m_task, "copy\0copy-text\0reverse\0sort\0")) {
        m_training = preset_training(PRESETS[m_preset], TASKS[m_task]);
        changed = true;
    }
    help_marker("copy: output = input symbols. reverse: backwards. sort: ascending. copy-text: copy English words.");
    // As wide as the column allows beside its label (the preset names are long).
    const float label_w = ImGui::CalcTextSize("model").x + ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - label_w, 150.0f, 260.0f));
    if (ImGui::Combo("model", &m_preset, "tiny (64/4/256, 2+2)\0Annotated (512/8/2048, 2+2)\0")) {
        m_training = preset_training(PRESETS[m_preset], TASKS[m_task]);
        changed = true;
    }
    changed |= ImGui::InputInt("symbols", &m_training.symbols);
    changed |= ImGui::InputInt("length", &m_training.length);
    changed |= ImGui::InputInt("batch", &m_training.batch);
    changed |= ImGui::InputInt("batches / epoch", &m_training.batches_per_epoch);
    changed |= ImGui::InputInt("epochs", &m_training.epochs);
    changed |= ImGui::InputFloat("base lr", &m_training.base_lr, 0.1f, 0.5f, "%.3f");
    help_marker("Noam schedule: lr = base \xC2\xB7 d_model^\xE2\x88\x92" "0.5 \xC2\xB7 min(step^\xE2\x88\x92" "0.5, step \xC2\xB7 warmup^\xE2\x88\x92" "1.5): "
                "a linear warm-up, then a 1/\xE2\x88\x9Astep decay.");
    changed |= ImGui::InputInt("warmup", &m_training.warmup);
    changed |= ImGui::InputFloat("label smoothing", &m_training.label_smoothing, 0.05f, 0.1f, "%.2f");
    help_marker("The training loss is the KL divergence to targets smoothed by this much (the paper used 0.1); the "
                "held-out loss is plain cross-entropy, so with smoothing the two are not on the same scale.");
    changed |= ImGui::InputFloat("clip norm", &m_training.clip_norm, 0.5f, 1.0f, "%.2f");
    help_marker("Scale the gradient down when its norm exceeds this value (0: off). Helps when training diverges.");
    int seed = static_cast<int>(m_training.seed);
    if (ImGui::InputInt("seed", &seed)) {
        m_training.seed = static_cast<uint64_t>(std::max(seed, 0));
        changed = true;
    }
    changed |= ImGui::InputInt("snapshot every", &m_training.snapshot_every);
    ImGui::PopItemWidth();
    const auto why = validate(m_training);
    if (why) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: %s", why->c_str());
        ImGui::PopTextWrapPos();
    }
    (void)changed;
    ImGui::BeginDisabled(why.has_value());
    if (ImGui::Button("Apply settings (new trainer)")) ctx.commands.trainer_configure(PRESETS[m_preset], m_training);
    ImGui::EndDisabled();
    if (m_preset == 1) ImGui::TextDisabled("Annotated is ~100\xC3\x97 slower per step than tiny on a CPU.");
}

void TrainingPanel::draw_plots(PanelContext& ctx) {
    const TrainingSnapshot& t = ctx.training;
    PlotSeries loss{"train loss", {}, {}, IM_COL32(90, 170, 255, 255)};
    PlotSeries eval{"eval loss", {}, {}, IM_COL32(255, 150, 60, 255)};
    PlotSeries lr{"learning rate", {}, {}, IM_COL32(200, 200, 90, 255)};
    PlotSeries acc{"token accuracy", {}, {}, IM_COL32(110, 210, 110, 255)};
    PlotSeries exact{"exact match", {}, {}, IM_COL32(230, 90, 200, 255)};
    PlotSeries speed{"tokens/s", {}, {}, IM_COL32(150, 150, 255, 255)};
    for (const TrainingPoint& p : t.history) {
        const double x = static_cast<double>(p.step);
        loss.x.push_back(x), loss.y.push_back(p.loss);
        eval.x.push_back(x), eval.y.push_back(p.eval_loss);
        lr.x.push_back(x), lr.y.push_back(p.lr);
        acc.x.push_back(x), acc.y.push_back(p.token_accuracy);
        exact.x.push_back(x), exact.y.push_back(p.exact_match);
        speed.x.push_back(x), speed.y.push_back(p.tokens_per_s);
    }
    const float w = ImGui::GetContentRegionAvail().x * 0.5f - 6;
    // Four plots over training steps, two per row.
    auto step_plot = [&](const char* id, const char* title, const char* y_label) {
        PlotSpec spec;
        spec.integer_x = true;
        spec.x_label = "step";
        spec.size = ImVec2(w, 175);
        spec.id = id;
        spec.title = title;
        spec.y_label = y_label;
        return spec;
    };
    auto show = [&](const PlotSpec& spec, const std::vector<PlotSeries>& series) {
        ImGui::BeginGroup();
        draw_plot(spec, series, &ctx.commands);
        ImGui::EndGroup();
    };
    PlotSpec loss_plot = step_plot("loss", "loss (per target token)", "loss");
    loss_plot.log_y = true;
    show(loss_plot, {loss, eval});
    ImGui::SameLine();
    show(step_plot("lr", "learning rate (warm-up, then 1/\xE2\x88\x9Astep)", "lr"), {lr});
    PlotSpec accuracy_plot = step_plot("acc", "held-out accuracy", "fraction");
    accuracy_plot.y_min = 0.0;
    accuracy_plot.y_max = 1.0;
    show(accuracy_plot, {acc, exact});
    ImGui::SameLine();
    PlotSpec speed_plot = step_plot("speed", "throughput", "tokens/s");
    speed_plot.y_min = 0.0;
    show(speed_plot, {speed});

    ImGui::TextUnformatted("Sample decodes (held out)");
    if (ImGui::BeginTable("##samples", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("input", 0, 3.0f);
        ImGui::TableSetupColumn("expected", 0, 3.0f);
        ImGui::TableSetupColumn("model output", 0, 3.0f);
        ImGui::TableSetupColumn("", 0, 0.4f);
        ImGui::TableHeadersRow();
        for (const SampleDecode& s : t.samples) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.input.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.expected.c_str());
            ImGui::TableNextColumn();
            ImGui::TextColored(s.correct ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.55f, 0.5f, 1.0f), "%s", s.output.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.correct ? "\xE2\x9C\x93" : "\xE2\x9C\x97");
        }
        if (t.samples.empty()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("(none yet)");
        }
        ImGui::EndTable();
    }
}

void TrainingPanel::draw_probe(PanelContext& ctx) {
    const TrainingSnapshot& t = ctx.training;
    ImGui::TextUnformatted("Cross-attention of a probe input");
    help_marker("The last decoder layer's cross-attention for a fixed input, per head, recomputed at every snapshot "
                "(eval mode). Rows: decoder positions (BOS + output); columns: source tokens. For copy, a diagonal "
                "means output position t reads source token t.");
    const int H = t.probe_heads;
    const int T = static_cast<int>(t.probe_target.size()), S = static_cast<int>(t.probe_source.size());
    if (H <= 0 || T <= 0 || S <= 0 || static_cast<int>(t.probe_cross_attention.size()) < H * T * S) {
        ImGui::TextDisabled("(appears once training has started)");
        return;
    }
    // The heads side by side, as many to a row as fit at a readable size (at least ~230 px each).
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const int per_row = std::clamp(static_cast<int>((avail + spacing) / (230.0f + spacing)), 1, H);
    const float w = (avail - spacing * static_cast<float>(per_row - 1)) / static_cast<float>(per_row);
    for (int h = 0; h < H; ++h) {
        if (h % per_row != 0) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushID(h);
        HeatmapSpec spec;
        spec.id = "probe";
        char title[64];
        std::snprintf(title, sizeof title, "head %d", h);
        spec.title = title;
        spec.show_title = true;
        spec.values = t.probe_cross_attention.data() + static_cast<size_t>(h) * T * S;
        spec.rows = T;
        spec.cols = S;
        spec.row_labels = &t.probe_target;
        spec.col_labels = &t.probe_source;
        spec.row_axis = "query (decoder)";
        spec.col_axis = "key (source)";
        spec.vmin = 0.0f;
        spec.vmax = 1.0f;
        spec.size = ImVec2(w, 0);
        spec.max_cell = 22.0f;
        spec.values_in_cells = false;
        draw_heatmap(spec, &ctx.commands);
        ImGui::PopID();
        ImGui::EndGroup();
    }
}

}  // namespace tx::app
