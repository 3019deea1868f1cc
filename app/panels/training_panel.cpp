// Training panel (see training_panel.h).
#include "panels/training_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <filesystem>

#include "imgui_stdlib.h"
#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const TaskKind TASKS[] = {TaskKind::Copy,      TaskKind::CopyText,  TaskKind::Reverse, TaskKind::Sort,
                          TaskKind::Translate, TaskKind::Induction, TaskKind::Lm};
const Preset PRESETS[] = {Preset::Tiny, Preset::Annotated, Preset::Translate};
constexpr const char* PROBE_SENTENCE = "The red car is big.";

// "en-es/valid.tsv": the file and its folder, short enough for a status line.
std::string fs_name(const std::string& path) {
    const std::filesystem::path p(path);
    return (p.parent_path().filename() / p.filename()).string();
}

template <typename T, size_t N>
int index_of(const T (&values)[N], T value) {
    for (size_t i = 0; i < N; ++i)
        if (values[i] == value) return static_cast<int>(i);
    return 0;
}

}  // namespace

TrainingConfig TrainingPanel::live_training(Preset preset, TaskKind task) {
    TrainingConfig t = preset_training(preset, task);
    if (task == TaskKind::Translate) {
        t.eval_sequences = 100;
        t.eval_every = 100;
        t.snapshot_every = 25;
        t.probe = PROBE_SENTENCE;
    }
    return t;
}

TrainingPanel::TrainingPanel()
    : Panel("Train a Transformer live with Adam and the paper's learning-rate schedule shape (linear warm-up, then "
            "1/\xE2\x88\x9Astep decay; the factor and warm-up are the fields below, the paper used 4000 warm-up steps): "
            "on a small task (copy, reverse, sort symbol sequences, or copy text), or English \xE2\x86\x92 Spanish "
            "translation from fresh weights or fine-tuning a trained model. Watch the loss fall and the cross-attention "
            "of a probe input form a pattern as the model learns to align output with input: a diagonal for copy, "
            "crossings where Spanish puts the adjective after the noun. A decoder-only model learns next-token "
            "prediction: on induction, watch a head of its last layer form the induction stripe.") {}

void TrainingPanel::draw_content(PanelContext& ctx) {
    // The first trainer seen (one made at launch by --train, or by this panel) sets the fields.
    if (!m_synced && (ctx.trainer.exists || ctx.trainer.preparing)) {
        m_training = ctx.trainer.training;
        m_task = index_of(TASKS, m_training.task);
        m_preset = index_of(PRESETS, ctx.trainer.preset);
        m_start = ctx.trainer.start_from.empty() ? 0 : ctx.trainer.start_from.rfind("the explorer's", 0) == 0 ? 2 : 1;
        m_synced = true;
    }
    if (!m_initialised) {
        if (!m_synced) m_training = live_training(Preset::Tiny, TaskKind::Copy);
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
    const bool preparing = ctx.trainer.preparing;

    // Controls.
    ImGui::BeginDisabled(preparing);
    if (!running) {
        if (ImGui::Button("\xE2\x96\xB6 Play")) {
            if (!exists) configure(ctx);
            ctx.commands.send(StartTraining{});
        }
    } else if (ImGui::Button("\xE2\x8F\xB8 Pause")) {
        ctx.commands.send(PauseTraining{});
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(running);
    if (ImGui::Button("Step")) {
        if (!exists) configure(ctx);
        ctx.commands.send(StepTraining{});
    }
    item_tooltip("One optimiser step on one batch, then pause.");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!exists);
    if (ImGui::Button("Reset")) ctx.commands.send(ResetTrainer{});
    item_tooltip(ctx.trainer.start_from.empty() ? "Fresh weights from the seed; the history is cleared."
                                                : "Back to the fine-tuned checkpoint's weights; the history is cleared.");
    ImGui::SameLine();
    if (ImGui::Button("Use trained model in explorer")) ctx.commands.send(UseTrainedModel{});
    item_tooltip("Load the trainer's current weights (and its tokenizer) into the explorer, so every other panel shows "
                 "the trained model.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - 70));
    ImGui::InputText("##save", &m_save_path);
    ImGui::SameLine();
    if (ImGui::Button("Save")) ctx.commands.send(SaveTrainedModel{m_save_path});
    ImGui::EndDisabled();
    ImGui::EndDisabled();

    const bool translate = ctx.trainer.training.task == TaskKind::Translate;
    const bool induction = ctx.trainer.training.task == TaskKind::Induction;
    const bool lm = ctx.trainer.training.task == TaskKind::Lm;
    if (preparing) {
        ImGui::TextColored(ImVec4(0.6f, 0.8f, 1.0f, 1.0f), "Preparing the trainer%s: %s",
                           ctx.trainer.start_from.empty() ? "" : (" from " + ctx.trainer.start_from).c_str(),
                           lm ? "reading the corpus's English side, learning its subword pieces and tokenizing it (a few seconds)"
                           : translate ? (ctx.trainer.start_from.empty()
                                            ? "reading the corpus, learning its subword pieces and tokenizing it (a few seconds)"
                                            : "reading and tokenizing the corpus with the model's own subword pieces")
                                     : "making the task's examples");
    } else if (exists) {
        const double progress = t.total_steps > 0 ? static_cast<double>(t.step) / static_cast<double>(t.total_steps) : 0.0;
        char overlay[160];
        std::snprintf(overlay, sizeof overlay, "%s \xC2\xB7 step %lld / %lld \xC2\xB7 epoch %d \xC2\xB7 %.1f s", to_string(t.state),
                      static_cast<long long>(t.step), static_cast<long long>(t.total_steps), t.epoch, t.elapsed_s);
        ImGui::ProgressBar(static_cast<float>(progress), ImVec2(-1, 0), overlay);
        if (translate) {
            const TrainingConfig& tc = ctx.trainer.training;
            // The two losses are not on one scale: smoothing puts a floor under the training loss.
            if (t.latest.eval_loss > 0.0 || t.step >= tc.eval_every)
                ImGui::Text("train loss %.3f (label-smoothed %.2f) \xC2\xB7 validation loss %.3f (cross-entropy) \xC2\xB7 BLEU %.1f \xC2\xB7 "
                            "exact match %.1f%% \xC2\xB7 lr %.2e \xC2\xB7 %.0f tokens/s",
                            t.latest.loss, ctx.trainer.training.label_smoothing, t.latest.eval_loss, 100 * t.latest.bleu,
                            100 * t.latest.exact_match, t.latest.lr, t.latest.tokens_per_s);
            else
                ImGui::Text("train loss %.3f (label-smoothed %.2f) \xC2\xB7 validation: not evaluated yet \xC2\xB7 lr %.2e \xC2\xB7 "
                            "%.0f tokens/s",
                            t.latest.loss, ctx.trainer.training.label_smoothing, t.latest.lr, t.latest.tokens_per_s);
            ImGui::TextDisabled("Validation: the first %d sentences of %s that fit, decoded greedily every %d steps%s.",
                                tc.eval_sequences,
                                tc.valid_path.empty() ? "every 20th pair of the corpus" : fs_name(tc.valid_path).c_str(),
                                tc.eval_every > 0 ? tc.eval_every : tc.snapshot_every,
                                ctx.trainer.start_from.empty() ? " \xC2\xB7 started from fresh weights"
                                                               : (" \xC2\xB7 fine-tuning " + ctx.trainer.start_from).c_str());
        } else if (induction) {
            ImGui::Text("loss %.3g \xC2\xB7 held-out: first half (random) loss %.3g, accuracy %.1f%% \xC2\xB7 second half "
                        "(repeated) loss %.3g, accuracy %.1f%% \xC2\xB7 lr %.2e \xC2\xB7 %.0f tokens/s",
                        t.latest.loss, t.latest.first_half_loss, 100 * t.latest.first_half_accuracy, t.latest.second_half_loss,
                        100 * t.latest.second_half_accuracy, t.latest.lr, t.latest.tokens_per_s);
            ImGui::TextDisabled("Chance on a random symbol is 1/%d (loss ln %d = %.2f): the first half cannot beat it; the "
                                "second half can, by copying.",
                                ctx.trainer.training.symbols, ctx.trainer.training.symbols,
                                std::log(static_cast<double>(ctx.trainer.training.symbols)));
        } else if (lm) {
            ImGui::Text("loss %.3g \xC2\xB7 validation loss %.3g \xC2\xB7 perplexity %.1f \xC2\xB7 next-piece accuracy %.1f%% \xC2\xB7 "
                        "lr %.2e \xC2\xB7 %.0f tokens/s",
                        t.latest.loss, t.latest.eval_loss, std::exp(t.latest.eval_loss), 100 * t.latest.token_accuracy,
                        t.latest.lr, t.latest.tokens_per_s);
        } else {
            ImGui::Text("loss %.3g \xC2\xB7 eval loss %.3g \xC2\xB7 lr %.2e \xC2\xB7 token accuracy %.1f%% \xC2\xB7 exact match %.1f%% \xC2\xB7 %.0f tokens/s",
                        t.latest.loss, t.latest.eval_loss, t.latest.lr, 100 * t.latest.token_accuracy, 100 * t.latest.exact_match,
                        t.latest.tokens_per_s);
        }
        if (ctx.trainer.training.quantization_aware)
            ImGui::TextDisabled("quantization-aware: the steps and the held-out scores use the weights rounded to int8");
        if (const TrainingConfig& tc = ctx.trainer.training; tc.precision != Precision::Fp32) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s mixed precision \xC2\xB7 loss scale %g (%s) \xC2\xB7 %lld steps skipped \xC2\xB7 flushed to 0 "
                                "since the previous point: %.4f%% of the weights' gradient values, %.4f%% of the "
                                "activations'",
                                to_string(tc.precision), t.latest.loss_scale, to_string(tc.loss_scale).c_str(),
                                static_cast<long long>(t.latest.skipped_steps), 100 * t.latest.grad_underflow,
                                100 * t.latest.activation_grad_underflow);
            ImGui::PopTextWrapPos();
        }
        if (!t.message.empty()) ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.4f, 1.0f), "%s", t.message.c_str());
        if (!ctx.trainer.comparison_row.empty()) draw_comparison_progress(ctx);
    } else if (!ctx.trainer.error.empty()) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", ctx.trainer.error.c_str());
    } else {
        ImGui::TextDisabled("Press Play: a trainer is created with the settings below and starts on its own thread.");
    }

    const float left_w = std::min(400.0f, ImGui::GetContentRegionAvail().x * 0.33f);
    ImGui::BeginChild("##trainleft", ImVec2(left_w, 0), true);
    draw_comparison_chooser(ctx);
    draw_settings(ctx);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##trainright", ImVec2(0, 0), false);
    draw_plots(ctx);
    ImGui::Separator();
    draw_probe(ctx);
    ImGui::EndChild();
}

void TrainingPanel::configure(PanelContext& ctx) {
    if (TASKS[m_task] == TaskKind::Translate && m_start > 0) ctx.commands.send(FineTune{m_training, m_start == 2});
    else ctx.commands.send(ConfigureTrainer{PRESETS[m_preset], m_training});
}

void TrainingPanel::load_comparison_results(const std::string& path) {
    m_reported.clear();
    m_reported_error.clear();
    try {
        m_reported = tx::load_comparison_results(path);
    } catch (const std::exception& e) {
        m_reported_error = e.what();
    }
}

namespace {

std::string row_label(const ComparisonRow& r) {
    return std::string(to_string(r.task)) + " \xC2\xB7 " + to_string(r.positional) + " positions \xC2\xB7 " + to_string(r.ffn) +
           (r.kv_heads > 0 ? " \xC2\xB7 " + std::to_string(r.kv_heads) + " key/value head" + (r.kv_heads == 1 ? "" : "s") : "") +
           (comparison_other_fields(r).empty() ? "" : " \xC2\xB7 " + comparison_other_fields(r)) + " \xC2\xB7 seed " +
           std::to_string(r.seed);
}

const ComparisonResult* reported(const std::vector<std::pair<std::string, ComparisonResult>>& all, const std::string& id) {
    for (const auto& [key, result] : all)
        if (key == id) return &result;
    return nullptr;
}

std::string reported_text(const ComparisonResult& r, TaskKind task) {
    return (r.steps ? "reached at step " + std::to_string(*r.steps) : "not reached (> " + std::to_string(r.budget) + " steps)") +
           "; at the end " + r.at_train_length + "; at length 32 " +
           (task == TaskKind::Induction ? "(16 symbols twice) " : "") + r.at_test_length;
}

}  // namespace

void TrainingPanel::draw_comparison_chooser(PanelContext& ctx) {
    // Closed at first: its rows describe other set-ups than the settings under it (lesson 13's reverse
    // run sits right below). It opens by itself when a row is started elsewhere (--train-row).
    if (!ctx.trainer.comparison_row.empty() && ctx.trainer.comparison_row != m_shown_comparison) ImGui::SetNextItemOpen(true);
    if (!ImGui::CollapsingHeader("Compare variants")) return;
    const std::vector<ComparisonRow>& rows = comparison_rows();
    // A row started elsewhere (--train-row, the self-test) shows as the chosen one.
    if (ctx.trainer.comparison_row != m_shown_comparison) {
        m_shown_comparison = ctx.trainer.comparison_row;
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].id == m_shown_comparison) m_compare_row = static_cast<int>(i);
    }
    m_compare_row = std::clamp(m_compare_row, 0, static_cast<int>(rows.size()) - 1);
    const ComparisonRow& row = rows[static_cast<size_t>(m_compare_row)];
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##comparerow", row_label(row).c_str())) {
        for (int i = 0; i < static_cast<int>(rows.size()); ++i)
            if (ImGui::Selectable(row_label(rows[static_cast<size_t>(i)]).c_str(), i == m_compare_row)) m_compare_row = i;
        ImGui::EndCombo();
    }
    const ModelConfig m = comparison_model(row);
    const TrainingConfig t = comparison_training(row);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("A row of the variant comparison table (docs/variants.md): the tiny model (%d/%d/%d, %s) with these positions, "
                        "FFN and key/value heads, the same schedule (batch %d, lr %.1f, warm-up %d) and at most %lld steps for every row. "
                        "Target: %s, evaluated every %d steps. Trained on %s; the table's last column tests on %s.",
                        m.d_model, m.heads, m.d_ff,
                        row.task == TaskKind::Copy ? "2+2 layers, encoder-decoder" : "2 layers, decoder-only", t.batch,
                        t.base_lr, t.warmup, static_cast<long long>(t.total_steps()), comparison_target(row.task).c_str(),
                        t.eval_every,
                        row.task == TaskKind::Copy ? "16 symbols" : "8 symbols repeated once (16 tokens)",
                        row.task == TaskKind::Copy ? "32 symbols" : "16 symbols repeated once (32 tokens)");
    if (const ComparisonResult* r = reported(m_reported, row.id))
        ImGui::TextDisabled("The table: %s.", reported_text(*r, row.task).c_str());
    else
        ImGui::TextDisabled("The table has no figure for this row%s.",
                            m_reported_error.empty() ? "" : (" (" + m_reported_error + ")").c_str());
    ImGui::PopTextWrapPos();
    ImGui::BeginDisabled(ctx.trainer.preparing);
    if (ImGui::Button("Train this row")) ctx.commands.send(TrainComparisonRow{row.id});
    ImGui::EndDisabled();
    item_tooltip("A new trainer with exactly the row's settings starts at once; it stops at the target or the budget.");
    ImGui::Separator();
}

void TrainingPanel::draw_comparison_progress(PanelContext& ctx) {
    const ComparisonRow* row = find_comparison_row(ctx.trainer.comparison_row);
    if (!row) return;
    const TrainingSnapshot& t = ctx.training;
    const TrainingConfig& tc = ctx.trainer.training;
    const bool evaluated = t.step >= tc.eval_every;
    char now[160];
    if (!evaluated)
        std::snprintf(now, sizeof now, "not evaluated yet");
    else if (row->task == TaskKind::Copy)
        std::snprintf(now, sizeof now, "held-out exact match %.1f%%", 100 * t.latest.exact_match);
    else
        std::snprintf(now, sizeof now, "second-half loss %.3f", t.latest.second_half_loss);
    const bool ended = t.state == TrainerState::Finished || t.state == TrainerState::Diverged;
    std::string result = !ended ? "" : t.message.rfind("reached", 0) == 0
                                           ? " \xC2\xB7 reached at step " + std::to_string(t.step)
                                           : " \xC2\xB7 not reached within " + std::to_string(tc.total_steps()) + " steps";
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(0.6f, 0.85f, 1.0f, 1.0f), "Comparison row %s: target %s \xC2\xB7 step %lld / %lld \xC2\xB7 %s%s",
                       row_label(*row).c_str(), comparison_target(row->task).c_str(), static_cast<long long>(t.step),
                       static_cast<long long>(tc.total_steps()), now, result.c_str());
    if (const ComparisonResult* r = reported(m_reported, row->id))
        ImGui::TextDisabled("The comparison table (docs/variants.md) for this row: %s.", reported_text(*r, row->task).c_str());
    ImGui::PopTextWrapPos();
}

void TrainingPanel::draw_settings(PanelContext& ctx) {
    ImGui::TextUnformatted("Settings");
    help_marker("Applying creates a new trainer (fresh weights, or the checkpoint's when fine-tuning). The running one "
                "is stopped.");
    ImGui::PushItemWidth(150);
    if (ImGui::Combo("task", &m_task, "copy\0copy-text\0reverse\0sort\0translate\0induction\0lm\0")) {
        // Translation has its own preset (the small-grammar model's sizes); the small tasks start on tiny.
        m_preset = TASKS[m_task] == TaskKind::Translate ? 2 : std::min(m_preset, 1);
        m_training = live_training(PRESETS[m_preset], TASKS[m_task]);
    }
    help_marker("copy: output = input symbols. reverse: backwards. sort: ascending. copy-text: copy English words. "
                "translate: English \xE2\x86\x92 Spanish sentence pairs (assets/corpus/en-es), subword tokens. "
                "induction: random symbols repeated once, next-token prediction by a decoder-only model. lm: the next "
                "subword piece of the corpus's English sentences, decoder-only.");
    const bool translate = TASKS[m_task] == TaskKind::Translate;
    // As wide as the column allows beside its label (the preset names are long).
    const float label_w = ImGui::CalcTextSize("start from").x + ImGui::GetStyle().ItemInnerSpacing.x;
    const float wide = std::clamp(ImGui::GetContentRegionAvail().x - label_w, 150.0f, 260.0f);
    if (translate) {
        ImGui::SetNextItemWidth(wide);
        ImGui::Combo("start from", &m_start, "fresh weights\0the small-grammar model (fine-tune)\0the explorer's model (fine-tune)\0");
        help_marker("Fine-tuning starts from a trained checkpoint: its weights, its sizes and its subword tokenizer "
                    "(the corpus is tokenized with the checkpoint's pieces). The small-grammar model is "
                    "assets/models/grammar.safetensors, trained on the same corpus; the explorer's model is the one the other panels show, which "
                    "must be a translation model (subword tokens).");
    }
    if (!translate || m_start == 0) {
        ImGui::SetNextItemWidth(wide);
        const char* presets = translate ? "tiny (64/4/256, 2+2)\0Annotated (512/8/2048, 2+2)\0translate (128/4/512, 3+3)\0"
                              : next_token_task(TASKS[m_task])
                                  ? "tiny (64/4/256, 0+2)\0Annotated (512/8/2048, 0+2)\0"
                                  : "tiny (64/4/256, 2+2)\0Annotated (512/8/2048, 2+2)\0";
        if (ImGui::Combo("model", &m_preset, presets)) m_training = live_training(PRESETS[m_preset], TASKS[m_task]);
    } else {
        ImGui::TextDisabled("model: the checkpoint's sizes and tokenizer");
    }
    if (translate) {
        ImGui::SetNextItemWidth(wide);
        ImGui::InputText("corpus", &m_training.data_path);
        help_marker("Training pairs, one \"English<TAB>Spanish\" per line. Paths under assets/ are found in the app's "
                    "assets folder.");
        ImGui::SetNextItemWidth(wide);
        ImGui::InputText("validation", &m_training.valid_path);
        help_marker("Held-out pairs for the validation loss, BLEU and exact match; empty: every 20th corpus pair is held out.");
        ImGui::InputInt("valid. sentences", &m_training.eval_sequences);
        help_marker("How many validation sentences each evaluation decodes (greedy) for BLEU and exact match. Evaluation "
                    "pauses training while it runs: keep it small for a lively chart.");
        ImGui::InputInt("evaluate every", &m_training.eval_every);
        ImGui::SetNextItemWidth(wide);
        ImGui::InputText("probe", &m_training.probe);
        help_marker("The sentence whose cross-attention is drawn on the right at every snapshot.");
    } else if (TASKS[m_task] == TaskKind::Lm) {
        ImGui::SetNextItemWidth(wide);
        ImGui::InputText("corpus", &m_training.data_path);
        help_marker("Its English (left) column is the text; paths under assets/ are found in the app's assets folder.");
        ImGui::SetNextItemWidth(wide);
        ImGui::InputText("validation", &m_training.valid_path);
        help_marker("Held-out sentences (left column) for the validation loss and perplexity; empty: every 20th "
                    "corpus line is held out.");
    } else if (TASKS[m_task] != TaskKind::CopyText) {
        ImGui::InputInt("symbols", &m_training.symbols);
        ImGui::InputInt("length", &m_training.length);
        if (TASKS[m_task] == TaskKind::Induction) {
            help_marker("Each sequence is n random symbols, then the same n symbols again (2n tokens).");
            ImGui::InputInt("min length", &m_training.min_length);
            help_marker("n is drawn from min length..length (0: always length). With n varying, the repeat is at no fixed "
                        "distance: only a head that matches content (an induction head) can find it.");
        }
    }
    ImGui::InputInt("batch", &m_training.batch);
    ImGui::InputInt("batches / epoch", &m_training.batches_per_epoch);
    ImGui::InputInt("epochs", &m_training.epochs);
    ImGui::InputFloat("base lr", &m_training.base_lr, 0.1f, 0.5f, "%.3f");
    help_marker("The paper's schedule (called 'Noam' after an author in the Annotated Transformer): lr = base \xC2\xB7 d_model^\xE2\x88\x92" "0.5 \xC2\xB7 min(step^\xE2\x88\x92" "0.5, step \xC2\xB7 warmup^\xE2\x88\x92" "1.5): "
                "a linear warm-up, then a 1/\xE2\x88\x9Astep decay.");
    ImGui::InputInt("warmup", &m_training.warmup);
    ImGui::InputFloat("label smoothing", &m_training.label_smoothing, 0.05f, 0.1f, "%.2f");
    help_marker("Label smoothing \xCE\xB5: the training target puts 1 \xE2\x88\x92 \xCE\xB5 on the right token and spreads \xCE\xB5 "
                "over the others, so the model is not pushed to be 100% sure (the paper used 0.1). The training loss "
                "measures the distance to that target (the KL divergence); the held-out loss is plain cross-entropy, "
                "so with smoothing the two are not on the same scale.");
    ImGui::InputFloat("clip norm", &m_training.clip_norm, 0.5f, 1.0f, "%.2f");
    help_marker("Scale the gradient down when its norm exceeds this value (0: off). Helps when training diverges.");
    draw_precision_settings();
    int seed = static_cast<int>(m_training.seed);
    if (ImGui::InputInt("seed", &seed)) m_training.seed = static_cast<uint64_t>(std::max(seed, 0));
    ImGui::InputInt("snapshot every", &m_training.snapshot_every);
    ImGui::PopItemWidth();
    const auto why = validate(m_training);
    if (why) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: %s", why->c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::BeginDisabled(why.has_value() || ctx.trainer.preparing);
    if (ImGui::Button("Apply settings (new trainer)")) configure(ctx);
    ImGui::EndDisabled();
    if (m_preset == 1) ImGui::TextDisabled("Annotated is ~100\xC3\x97 slower per step than tiny on a CPU.");
    if (translate) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("The small-grammar model was trained 8000 steps with these settings (500 validation sentences "
                            "every 500 steps).");
        ImGui::PopTextWrapPos();
    }
}

void TrainingPanel::draw_precision_settings() {
    const Precision FORMATS[] = {Precision::Fp32, Precision::Bf16, Precision::Fp16};
    int format = index_of(FORMATS, m_training.precision);
    if (ImGui::Combo("precision", &format, "fp32\0bf16 (mixed)\0fp16 (mixed)\0")) {
        m_training.precision = FORMATS[format];
        // FP16 needs loss scaling against underflow; BF16 (FP32's exponent range) and FP32 do not.
        m_training.loss_scale = LossScaleSettings{};
        if (m_training.precision == Precision::Fp16) m_training.loss_scale.mode = LossScaleMode::Dynamic;
    }
    help_marker("Mixed precision: every matrix product (the linear layers, q\xC2\xB7k and P\xC2\xB7V) runs in bf16 or fp16, forward "
                "and backward; softmax, the norms and the loss stay fp32, and the weights Adam updates, their gradients "
                "and Adam's moments stay fp32. Emulated on the cpu backend: slower than fp32 here, not faster.");
    if (m_training.precision == Precision::Fp32) {
        ImGui::Checkbox("quantization-aware (int8)", &m_training.quantization_aware);
        help_marker("Each step runs forward and backward on the linear weights rounded to int8 and back (per output "
                    "row, as the Precision panel's int8 mode rounds them), and the gradient updates the fp32 weights "
                    "as if the rounding were not there (the straight-through estimator). The held-out scores are then "
                    "the int8 model's. fp32 training only.");
        return;
    }
    m_training.quantization_aware = false;   // fp32 only (validate refuses the pair)
    const LossScaleMode MODES[] = {LossScaleMode::None, LossScaleMode::Dynamic, LossScaleMode::Fixed};
    int mode = index_of(MODES, m_training.loss_scale.mode);
    if (ImGui::Combo("loss scale", &mode, "none\0dynamic\0fixed\0")) {
        m_training.loss_scale = LossScaleSettings{};
        m_training.loss_scale.mode = MODES[mode];
    }
    help_marker("The loss is multiplied by the scale before backward, so that small gradients stay above fp16's "
                "smallest value (6\xC2\xB7" "10^-8) instead of becoming 0; the fp32 gradients are divided by it again before "
                "Adam. Dynamic: start at 65536; a step whose gradients hold inf or NaN is skipped and the scale "
                "halves; after 'growth interval' good steps in a row it doubles.");
    if (m_training.loss_scale.mode == LossScaleMode::Fixed) {
        ImGui::InputDouble("scale", &m_training.loss_scale.initial, 0.0, 0.0, "%.0f");
    } else if (m_training.loss_scale.mode == LossScaleMode::Dynamic) {
        int interval = static_cast<int>(std::min<int64_t>(m_training.loss_scale.growth_interval, 1000000000));
        if (ImGui::InputInt("growth interval", &interval)) m_training.loss_scale.growth_interval = interval;
    }
}

void TrainingPanel::draw_plots(PanelContext& ctx) {
    const TrainingSnapshot& t = ctx.training;
    const bool translate = ctx.trainer.training.task == TaskKind::Translate;
    const bool smoothed = ctx.trainer.training.label_smoothing > 0.0f;
    PlotSeries loss{smoothed ? "train (label-smoothed)" : "train loss", {}, {}, IM_COL32(90, 170, 255, 255)};
    const bool induction = ctx.trainer.training.task == TaskKind::Induction;
    const bool lm = ctx.trainer.training.task == TaskKind::Lm;
    PlotSeries eval{translate || lm ? "validation (cross-entropy)" : "eval loss", {}, {}, IM_COL32(255, 150, 60, 255)};
    PlotSeries first{"first half (random)", {}, {}, IM_COL32(255, 150, 60, 255)};
    PlotSeries second{"second half (repeated)", {}, {}, IM_COL32(110, 210, 110, 255)};
    PlotSeries first_acc{"first half accuracy", {}, {}, IM_COL32(255, 150, 60, 255)};
    PlotSeries second_acc{"second half accuracy", {}, {}, IM_COL32(110, 210, 110, 255)};
    PlotSeries lr{"learning rate", {}, {}, IM_COL32(200, 200, 90, 255)};
    PlotSeries acc{"token accuracy", {}, {}, IM_COL32(110, 210, 110, 255)};
    PlotSeries exact{"exact match", {}, {}, IM_COL32(230, 90, 200, 255)};
    PlotSeries bleu{"BLEU / 100", {}, {}, IM_COL32(250, 210, 80, 255)};
    PlotSeries speed{"tokens/s", {}, {}, IM_COL32(150, 150, 255, 255)};
    PlotSeries scale{"log2 of the loss scale", {}, {}, IM_COL32(250, 210, 80, 255)};
    PlotSeries weight_flush{"weights' gradients", {}, {}, IM_COL32(230, 90, 200, 255)};
    PlotSeries activation_flush{"activations' gradients", {}, {}, IM_COL32(90, 170, 255, 255)};
    const int first_eval = ctx.trainer.training.eval_every > 0 ? ctx.trainer.training.eval_every : ctx.trainer.training.snapshot_every;
    for (const TrainingPoint& p : t.history) {
        const double x = static_cast<double>(p.step);
        loss.x.push_back(x), loss.y.push_back(p.loss);
        lr.x.push_back(x), lr.y.push_back(p.lr);
        speed.x.push_back(x), speed.y.push_back(p.tokens_per_s);
        scale.x.push_back(x), scale.y.push_back(std::log2(p.loss_scale));
        weight_flush.x.push_back(x), weight_flush.y.push_back(100 * p.grad_underflow);
        activation_flush.x.push_back(x), activation_flush.y.push_back(100 * p.activation_grad_underflow);
        // Points before the first evaluation hold no held-out numbers (a saturated model's loss may be 0 later).
        if (p.step < first_eval && p.eval_loss <= 0.0) continue;
        eval.x.push_back(x), eval.y.push_back(p.eval_loss);
        acc.x.push_back(x), acc.y.push_back(p.token_accuracy);
        exact.x.push_back(x), exact.y.push_back(p.exact_match);
        bleu.x.push_back(x), bleu.y.push_back(p.bleu);
        first.x.push_back(x), first.y.push_back(p.first_half_loss);
        second.x.push_back(x), second.y.push_back(p.second_half_loss);
        first_acc.x.push_back(x), first_acc.y.push_back(p.first_half_accuracy);
        second_acc.x.push_back(x), second_acc.y.push_back(p.second_half_accuracy);
    }
    const float w = ImGui::GetContentRegionAvail().x * 0.5f - 6;
    // Four plots over training steps, two per row.
    auto step_plot = [&](const char* id, const char* title, const char* y_label) {
        PlotSpec spec;
        spec.integer_x = true;
        spec.x_label = "step";
        // Four plots, the samples and the probe fit 1000 px; the self-attention probe is taller.
        spec.size = ImVec2(w, t.probe_self_attention ? 115.0f : 155.0f);
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
    // Copy losses fall by orders of magnitude; a translation loss from ~ln V to ~1.5 reads better on a linear axis,
    // and so does induction's step from ~ln 20 and language-model losses.
    loss_plot.log_y = !translate && !lm && !induction;
    if (induction) show(loss_plot, {loss, first, second});
    else show(loss_plot, {loss, eval});
    ImGui::SameLine();
    show(step_plot("lr", "learning rate (warm-up, then 1/\xE2\x88\x9Astep)", "lr"), {lr});
    PlotSpec accuracy_plot = step_plot("acc", translate ? "validation: BLEU, exact match, token accuracy" : "held-out accuracy",
                                       "fraction");
    accuracy_plot.y_min = 0.0;
    accuracy_plot.y_max = 1.0;
    if (translate) show(accuracy_plot, {bleu, exact, acc});
    else if (induction) show(accuracy_plot, {second_acc, first_acc});
    else if (lm) show(accuracy_plot, {acc});
    else show(accuracy_plot, {acc, exact});
    ImGui::SameLine();
    PlotSpec speed_plot = step_plot("speed", "throughput", "tokens/s");
    speed_plot.y_min = 0.0;
    show(speed_plot, {speed});
    const TrainingConfig& tc = ctx.trainer.training;
    if (tc.precision != Precision::Fp32) {
        // Mixed precision: the scale as its power of two (doubling and halving are steps of 1) and what
        // the low format flushed to 0.
        const std::string scale_title = "loss scale, log2 (16 = 65536) \xC2\xB7 " + std::to_string(t.latest.skipped_steps) +
                                        " steps skipped";
        PlotSpec scale_plot = step_plot("lossscale", scale_title.c_str(), "log2 scale");
        double lo = 0.0, hi = 1.0;
        if (!scale.y.empty()) {
            lo = *std::min_element(scale.y.begin(), scale.y.end());
            hi = *std::max_element(scale.y.begin(), scale.y.end());
        }
        scale_plot.y_min = std::floor(lo) - 1.0;
        scale_plot.y_max = std::ceil(hi) + 1.0;
        scale_plot.legend = false;
        show(scale_plot, {scale});
        ImGui::SameLine();
        const std::string flush_title = std::string(to_string(tc.precision)) + " gradients flushed to 0";
        PlotSpec flush_plot = step_plot("underflow", flush_title.c_str(), "% of non-zero");
        flush_plot.y_min = 0.0;
        double most = 0.0;   // room above the curves for the legend
        for (const PlotSeries* series : {&weight_flush, &activation_flush})
            for (double v : series->y) most = std::max(most, v);
        flush_plot.y_max = std::max(1e-3, 1.6 * most);
        show(flush_plot, {weight_flush, activation_flush});
    }

    ImGui::TextUnformatted(translate ? "Sample translations (validation sentences, at the last evaluation)"
                           : induction ? "Held-out sequences: the second half predicted one symbol at a time, each given "
                                         "the true symbols before it"
                           : lm        ? "Validation sentences: the next piece guessed at each position, given the true "
                                         "pieces before it"
                                       : "Sample decodes (held out)");
    if (ImGui::BeginTable("##samples", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn(translate ? "source" : induction ? "first half" : lm ? "sentence" : "input", 0, 3.0f);
        ImGui::TableSetupColumn(induction ? "\xE2\x86\x92 predicted second half" : lm ? "\xE2\x86\x92 next-piece guesses"
                                                                                    : "\xE2\x86\x92 model output",
                                0, 3.0f);
        ImGui::TableSetupColumn(translate ? "reference" : "expected", 0, 3.0f);
        ImGui::TableSetupColumn("", 0, 0.4f);
        ImGui::TableHeadersRow();
        // Two rows beside the taller self-attention probe.
        const size_t shown = t.probe_self_attention ? std::min<size_t>(2, t.samples.size()) : t.samples.size();
        for (size_t i = 0; i < shown; ++i) {
            const SampleDecode& s = t.samples[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", s.input.c_str());
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text, s.correct ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.55f, 0.5f, 1.0f));
            ImGui::TextWrapped("%s", s.output.empty() ? "(empty: EOS first)" : s.output.c_str());
            ImGui::PopStyleColor();
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", s.expected.c_str());
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
    const bool translate = ctx.trainer.training.task == TaskKind::Translate;
    const bool self_attention = t.probe_self_attention;
    if (self_attention) {
        const int n = t.probe_repeat_from;
        if (n > 0)
            ImGui::Text("Self-attention of the last layer on a held-out sequence: \"%s\" twice \xE2\x86\x92 predicted second "
                        "half \"%s\"",
                        t.probe_input.c_str(), t.probe_output.c_str());
        else
            ImGui::Text("Self-attention of the last layer on the probe \"%s\"", t.probe_input.c_str());
        help_marker("The last decoder layer's masked self-attention for a fixed sequence, per head, recomputed at every "
                    "snapshot (eval mode, teacher forced). Rows: query positions (BOS + the sequence), each predicting the "
                    "next token; columns: key positions, the same tokens; above the diagonal is masked (the future).");
        if (n > 0)
            ImGui::TextWrapped("Induction stripe: in the second half, query i holds a symbol seen %d positions earlier; a head "
                               "that puts its weight on key i \xE2\x88\x92 %d, the symbol that followed it then, can copy "
                               "the next symbol. It shows as a diagonal line %d cells left of the main diagonal, from row "
                               "%d down.",
                               n, n - 1, n - 1, n + 1);
    } else {
        if (t.probe_input.empty()) ImGui::TextUnformatted("Cross-attention of a probe input");
        else if (t.probe_output.empty()) ImGui::Text("Cross-attention of the probe \"%s\" \xE2\x86\x92 (nothing yet: EOS comes first)", t.probe_input.c_str());
        else ImGui::Text("Cross-attention of the probe \"%s\" \xE2\x86\x92 \"%s\"", t.probe_input.c_str(), t.probe_output.c_str());
        help_marker(translate
                    ? "The last decoder layer's cross-attention while the model translates the probe sentence greedily, per "
                      "head, recomputed at every snapshot (eval mode). Rows: decoder inputs (BOS + the output so far), each "
                      "row choosing the next piece; columns: source pieces + EOS. Untrained, every row is near uniform; "
                      "trained, rows pick the English piece being translated, and \"red car\" \xE2\x86\x92 \"coche rojo\" "
                      "shows as a crossing."
                    : "The last decoder layer's cross-attention for a fixed input, per head, recomputed at every snapshot "
                      "(eval mode). Rows: decoder positions (BOS + output); columns: source tokens. For copy, a diagonal "
                      "means output position t reads source token t.");
    }
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
        spec.row_axis = self_attention ? "query (position)" : "query (decoder)";
        spec.col_axis = self_attention ? "key (position)" : "key (source)";
        spec.vmin = 0.0f;
        spec.vmax = 1.0f;
        // Self-attention maps are square and longer (2n + 1 rows): fit them in the height left.
        spec.size = ImVec2(w, self_attention ? std::max(200.0f, ImGui::GetContentRegionAvail().y - 4) : 0.0f);
        spec.max_cell = 22.0f;
        spec.values_in_cells = false;
        draw_heatmap(spec, &ctx.commands);
        ImGui::PopID();
        ImGui::EndGroup();
    }
}

}  // namespace tx::app
