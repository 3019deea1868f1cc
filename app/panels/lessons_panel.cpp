// Lessons panel (see lessons_panel.h). The lesson text lives in assets/lessons/*.json; this file
// only lays it out and turns each action into the Command that does it.
#include "panels/lessons_panel.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "generation_trace.h"
#include "imgui_internal.h"   // MarkIniSettingsDirty: progress is saved with the settings
#include "tx/training_config.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const ImVec4 GOLD(1.0f, 0.78f, 0.2f, 1.0f);
const ImVec4 GREEN(0.45f, 0.85f, 0.45f, 1.0f);
const ImVec4 RED(1.0f, 0.5f, 0.45f, 1.0f);

std::string on_off(bool on) { return on ? "on" : "off"; }

// What "Do it" will do, in a few words, so the learner knows before pressing.
std::string describe(const explain::LessonAction& a, const std::map<std::string, std::string>& titles) {
    const auto title = titles.find(a.name);
    const std::string panel = "the " + (title == titles.end() ? a.name : title->second) + " panel";
    switch (a.kind) {
        case explain::LessonActionKind::OpenModel: return "open the " + a.name + " model";
        case explain::LessonActionKind::SetSentences:
            return a.sentences.size() == 1 ? "type \xE2\x80\x9C" + a.sentences[0] + "\xE2\x80\x9D"
                                           : "type a batch of " + std::to_string(a.sentences.size()) + " sentences";
        case explain::LessonActionKind::GoToStep: return "go to step " + a.name;
        case explain::LessonActionKind::CausalMask: return "causal mask " + on_off(a.on);
        case explain::LessonActionKind::FusedAttention: return "fused attention " + on_off(a.on);
        case explain::LessonActionKind::PaddingMask: return "padding mask " + on_off(a.on);
        case explain::LessonActionKind::PositionalEncoding: return "positional encoding " + on_off(a.on);
        case explain::LessonActionKind::AttentionScaling: return "1/\xE2\x88\x9A" "dk scaling " + on_off(a.on);
        case explain::LessonActionKind::SelectAttention:
            return "select " + a.name + " head " + std::to_string(a.number) + (a.on ? " alone" : "");
        case explain::LessonActionKind::ShowPanel: return "open " + panel;
        case explain::LessonActionKind::HighlightPanel: return "point at " + panel;
        case explain::LessonActionKind::Decoding: return a.number == 1 ? "greedy decoding" : "beam search, " + std::to_string(a.number) + " beams";
        case explain::LessonActionKind::Speculative:
            return "speculative decoding, k = " + std::to_string(a.number) +
                   (a.key > 0 ? ", a draft of " + std::to_string(a.key) + " decoder layers" : "");
        case explain::LessonActionKind::Train: {
            std::string what = "train the " + a.name + " task";
            if (a.precision.format == Precision::Fp32) return what;
            std::string format = tx::to_string(a.precision.format);
            for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            return what + " in " + format + (a.loss_scale.mode == LossScaleMode::None ? ", no loss scale" : ", dynamic loss scale");
        }
        case explain::LessonActionKind::Precision: {
            std::string what = "Precision panel: " + tx::describe(a.precision);
            if (a.embedding_scale != 1.0f) {
                char t[32];
                std::snprintf(t, sizeof t, "%g", static_cast<double>(a.embedding_scale));
                what += ", embeddings \xC3\x97" + std::string(t);
            }
            return what;
        }
        case explain::LessonActionKind::ModelVariant: return "rebuild the model with " + explain::describe(a.variant) + " (fresh weights)";
        case explain::LessonActionKind::LookInside:
            return "Look inside panel: the " + a.name + " tab" +
                   (a.sentences.at(0).empty() ? std::string() : ", corrupted sentence \xE2\x80\x9C" + a.sentences[0] + "\xE2\x80\x9D");
        case explain::LessonActionKind::NeuronView:
            return "open the Neuron view on query " + std::to_string(a.number) + ", key " + std::to_string(a.key);
        case explain::LessonActionKind::HeadEnabled:
            return std::string(a.on ? "switch on " : "switch off ") + a.name + " head " + std::to_string(a.number);
        case explain::LessonActionKind::AllHeadsOn: return "every head back on";
        case explain::LessonActionKind::Generation: {
            if (!a.on) return "generate greedily";
            char t[32];
            std::snprintf(t, sizeof t, "%g", a.sampling.temperature);
            std::string what = "sample at temperature " + std::string(t);
            if (a.sampling.top_k > 0) what += ", top-k " + std::to_string(a.sampling.top_k);
            if (a.sampling.top_p < 1.0) {
                std::snprintf(t, sizeof t, "%g", a.sampling.top_p);
                what += ", top-p " + std::string(t);
            }
            return what + ", seed " + std::to_string(a.sampling.seed);
        }
    }
    return "";
}

void wrapped(const std::string& text, const ImVec4* colour = nullptr) {
    ImGui::PushTextWrapPos(0.0f);
    if (colour) ImGui::PushStyleColor(ImGuiCol_Text, *colour);
    ImGui::TextUnformatted(text.c_str());
    if (colour) ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
}

}  // namespace

LessonsPanel::LessonsPanel()
    : Panel("A guided tour of the Transformer (Vaswani et al., 2017) in short lessons, in an order a newcomer can follow. "
            "Each step's \xE2\x80\x9C" "Do it\xE2\x80\x9D sets the app up and points at the panel to look at; a question at the "
            "end checks what you saw. A lesson whose question you answered right is ticked \xE2\x9C\x93.") {}

std::vector<std::string> LessonsPanel::load(const std::string& path, const std::vector<std::string>& panel_keys) {
    explain::LessonSet set = explain::load_lessons(path, panel_keys);
    m_lessons = std::move(set.lessons);
    m_load_errors.clear();
    for (const auto& e : set.errors) m_load_errors += (m_load_errors.empty() ? "" : "\n") + e;
    set_progress(m_progress);
    return set.errors;
}

void LessonsPanel::set_progress(const explain::LessonProgress& progress) {
    m_progress = progress;
    open_lesson(std::max(0, lesson_index(m_lessons, m_progress.current)));
}

bool LessonsPanel::done(int index) const {
    return index >= 0 && index < static_cast<int>(m_lessons.size()) &&
           m_progress.done.count(progress_key(m_lessons[static_cast<size_t>(index)])) > 0;
}

void LessonsPanel::offer_first_lesson() {
    m_offering = true;
    m_progress.offered = true;
    m_progress_changed = true;
    open_lesson(0);
}

void LessonsPanel::open_lesson(int index) {
    m_current = std::clamp(index, 0, std::max(0, static_cast<int>(m_lessons.size()) - 1));
    m_done = 0;
    m_choice = m_checked = -1;
    m_quiz.reset();
    m_order.clear();
    if (!m_lessons.empty()) {
        const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
        m_order = explain::quiz_order(static_cast<int>(lesson.question.choices.size()), m_quiz_seed, quiz_key(lesson));
        const std::string key = progress_key(lesson);
        if (m_progress.current != key) m_progress_changed = true;
        m_progress.current = key;
    }
}

void LessonsPanel::set_quiz_seed(uint64_t seed) {
    m_quiz_seed = seed;
    if (m_lessons.empty()) return;
    const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    m_order = explain::quiz_order(static_cast<int>(lesson.question.choices.size()), m_quiz_seed, quiz_key(lesson));
}

void LessonsPanel::do_step(CommandSink& commands) {
    if (m_lessons.empty()) return;
    const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    if (m_done >= static_cast<int>(lesson.steps.size())) return;
    for (const explain::LessonAction& a : lesson.steps[static_cast<size_t>(m_done)].actions) perform(a, commands);
    ++m_done;
    m_scroll_to_step = true;
}

void LessonsPanel::step_back() {
    if (m_done == 0) return;
    --m_done;
    m_scroll_to_step = true;
}

void LessonsPanel::repeat_step(CommandSink& commands) {
    if (m_lessons.empty() || m_done == 0) return;
    const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    for (const explain::LessonAction& a : lesson.steps[static_cast<size_t>(m_done - 1)].actions) perform(a, commands);
}

bool LessonsPanel::check_answer(int choice) {
    if (m_lessons.empty()) return false;
    m_choice = m_checked = choice;
    const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    const bool right = m_quiz.check(lesson.question, choice) == explain::QuizVerdict::Right;
    if (right && m_progress.done.insert(progress_key(lesson)).second) m_progress_changed = true;
    return right;
}

void LessonsPanel::perform(const explain::LessonAction& a, CommandSink& commands) {
    switch (a.kind) {
        case explain::LessonActionKind::OpenModel: commands.send(OpenModel{a.name}); break;
        case explain::LessonActionKind::SetSentences: commands.send(SetInput{a.sentences, std::nullopt}); break;
        case explain::LessonActionKind::GoToStep: commands.send(GoToStep{a.name}); break;
        case explain::LessonActionKind::CausalMask: commands.send(SetCausalMask{a.on}); break;
        case explain::LessonActionKind::FusedAttention: commands.send(SetFusedAttention{a.on}); break;
        case explain::LessonActionKind::PaddingMask: commands.send(SetPaddingMask{a.on}); break;
        case explain::LessonActionKind::PositionalEncoding: commands.send(SetPositionalEncoding{a.on}); break;
        case explain::LessonActionKind::AttentionScaling: commands.send(SetAttentionScaling{a.on}); break;
        case explain::LessonActionKind::SelectAttention: commands.send(SelectAttention{a.name, a.number, a.on}); break;
        case explain::LessonActionKind::ShowPanel: commands.send(ShowPanel{a.name}); break;
        case explain::LessonActionKind::HighlightPanel: commands.send(HighlightPanel{a.name}); break;
        case explain::LessonActionKind::Decoding: commands.send(SetDecoding{a.number, 0.6}); break;   // the paper's alpha
        case explain::LessonActionKind::Speculative: commands.send(SetSpeculative{a.number, a.key, true}); break;
        case explain::LessonActionKind::NeuronView: commands.send(OpenNeuronView{a.number, a.key}); break;
        case explain::LessonActionKind::HeadEnabled: commands.send(SetHeadEnabled{a.name, a.number, a.on}); break;
        case explain::LessonActionKind::AllHeadsOn: commands.send(EnableAllHeads{}); break;
        case explain::LessonActionKind::Generation: {
            explain::GenerationSettings settings;
            settings.sample = a.on;
            settings.sampling = a.sampling;
            commands.send(SetGeneration{settings});
            break;
        }
        case explain::LessonActionKind::Train: {
            const TaskKind task = task_from_string(a.name).value_or(TaskKind::Copy);   // the loader allows known tasks only
            TrainingConfig training = preset_training(Preset::Tiny, task);
            training.precision = a.precision.format;
            training.loss_scale = a.loss_scale;
            commands.send(ConfigureTrainer{Preset::Tiny, training});
            commands.send(StartTraining{});
            break;
        }
        case explain::LessonActionKind::Precision:
            commands.send(SetPrecision{a.precision, a.embedding_scale});
            commands.send(ShowPanel{"precision"});
            break;
        case explain::LessonActionKind::ModelVariant: commands.send(RebuildVariant{a.variant}); break;
        case explain::LessonActionKind::LookInside:
            commands.send(SetLookInside{a.sentences.at(0), a.name});
            commands.send(ShowPanel{"inspect"});
            break;
    }
}

void LessonsPanel::draw_offer() {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.25f, 0.2f, 0.05f, 0.6f));
    ImGui::BeginChild("##offer", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 4.2f), true);
    wrapped("New here? Lesson 1 follows one sentence through the whole model in five steps; the lessons after it "
            "zoom into each part. You can come back any time from Help \xE2\x86\x92 Lessons.", &GOLD);
    if (ImGui::Button("Start lesson 1")) {
        open_lesson(0);
        m_offering = false;
    }
    ImGui::SameLine();
    if (ImGui::Button("Not now")) {   // closes the panel; Help → Lessons opens it again
        m_offering = false;
        open() = false;
    }
    ImGui::EndChild();
    ImGui::PopStyleColor();
}

void LessonsPanel::draw_content(PanelContext& ctx) {
    if (m_progress_changed) {
        ImGui::MarkIniSettingsDirty();
        m_progress_changed = false;
    }
    if (m_offering) draw_offer();
    if (!m_load_errors.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(RED, "Some lessons could not be read:\n%s", m_load_errors.c_str());
        ImGui::PopTextWrapPos();
    }
    if (m_lessons.empty()) {
        ImGui::TextDisabled("No lessons to show.");
        return;
    }
    const int n = static_cast<int>(m_lessons.size());
    ImGui::BeginDisabled(m_current == 0);
    if (ImGui::ArrowButton("##previous", ImGuiDir_Left)) open_lesson(m_current - 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - ImGui::GetStyle().ItemSpacing.x);
    char label[256];
    // A tick marks a lesson answered right; the list says how many are done.
    const auto name = [&](int i) {
        std::snprintf(label, sizeof label, "%s%d. %s", done(i) ? "\xE2\x9C\x93 " : "", i + 1,
                      m_lessons[static_cast<size_t>(i)].title.c_str());
        return label;
    };
    if (ImGui::BeginCombo("##lesson", name(m_current))) {
        for (int i = 0; i < n; ++i)
            if (ImGui::Selectable(name(i), i == m_current)) open_lesson(i);
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(m_current + 1 >= n);
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) open_lesson(m_current + 1);
    ImGui::EndDisabled();

    const explain::Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    ImGui::BeginChild("##lesson_body", ImVec2(0, 0), false);
    ImGui::TextColored(GOLD, "Lesson %d of %d \xC2\xB7 %s", m_current + 1, n, lesson.title.c_str());
    int finished = 0;
    for (int i = 0; i < n; ++i) finished += done(i);
    ImGui::SameLine();
    ImGui::TextDisabled(done(m_current) ? "(done \xC2\xB7 %d of %d lessons done)" : "(%d of %d lessons done)", finished, n);
    for (const auto& p : lesson.paragraphs) {
        wrapped(p);
        ImGui::Spacing();
    }
    ImGui::Separator();
    draw_steps(ctx, lesson);
    ImGui::Separator();
    draw_question(lesson);
    ImGui::EndChild();
}

void LessonsPanel::draw_steps(PanelContext& ctx, const explain::Lesson& lesson) {
    const ImVec4 dim = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
    for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
        const explain::LessonStep& step = lesson.steps[static_cast<size_t>(i)];
        ImGui::PushID(i);
        const bool done = i < m_done, current = i == m_done;
        ImGui::TextColored(done ? GREEN : current ? GOLD : dim, done ? "\xE2\x9C\x93 %d." : current ? "\xE2\x96\xB6 %d." : "  %d.", i + 1);
        ImGui::SameLine();
        wrapped(step.text, current ? nullptr : &dim);
        if (current) {
            if (m_scroll_to_step) {
                ImGui::SetScrollHereY(0.3f);
                m_scroll_to_step = false;
            }
            ImGui::Indent(ImGui::GetFontSize() * 1.8f);
            if (i > 0) {
                if (ImGui::Button("\xE2\x97\x80 Back")) step_back();
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("Make step %d the current step again; \xE2\x80\x9C" "Do it\xE2\x80\x9D redoes it. Settings the "
                                      "steps changed stay as they are.", i);
                ImGui::SameLine();
                if (ImGui::Button("Repeat step")) repeat_step(ctx.commands);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("Do step %d again: its highlight and its settings, without moving on.", i);
                ImGui::SameLine();
            }
            if (ImGui::Button(step.actions.empty() ? "Next" : "Do it")) do_step(ctx.commands);
            if (!step.actions.empty()) {
                std::string what;
                for (const auto& a : step.actions) what += (what.empty() ? "" : " \xC2\xB7 ") + describe(a, m_panel_titles);
                ImGui::SameLine();
                wrapped(what, &dim);
            }
            ImGui::Unindent(ImGui::GetFontSize() * 1.8f);
        }
        ImGui::PopID();
    }
    if (m_done >= static_cast<int>(lesson.steps.size())) {
        ImGui::TextColored(GREEN, "All steps done: now the question.");
        // The buttons on a line of their own: beside the text they run past a narrow panel's edge.
        if (ImGui::SmallButton("\xE2\x97\x80 Back")) step_back();
        ImGui::SameLine();
        if (ImGui::SmallButton("Repeat the last step")) repeat_step(ctx.commands);
        ImGui::SameLine();
        if (ImGui::SmallButton("Start the lesson again")) open_lesson(m_current);
    }
}

void LessonsPanel::draw_question(const explain::Lesson& lesson) {
    const explain::LessonQuestion& q = lesson.question;
    ImGui::TextColored(GOLD, "Question");
    wrapped(q.prompt);
    // The choices in this learner's order; each radio button stands for its file index.
    for (size_t place = 0; place < m_order.size() && place < q.choices.size(); ++place) {
        const int i = m_order[place];
        ImGui::PushID(i);
        if (ImGui::RadioButton("##choice", m_choice == i)) m_choice = i;
        ImGui::SameLine();
        wrapped(q.choices[static_cast<size_t>(i)]);
        ImGui::PopID();
    }
    ImGui::BeginDisabled(m_choice < 0);
    if (ImGui::Button("Check")) check_answer(m_choice);
    ImGui::EndDisabled();
    // "Show why" only once an answer has been checked: before that the explanation would give the
    // answer away, and the question is there to be answered from the screen first.
    if (m_quiz.verdict() != explain::QuizVerdict::Unanswered && !m_quiz.explanation_shown()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Show why")) m_quiz.reveal();
    }
    if (m_checked >= 0) {
        const bool right = m_quiz.verdict() == explain::QuizVerdict::Right;
        ImGui::SameLine();
        ImGui::TextColored(right ? GREEN : RED, right ? "\xE2\x9C\x93 Right." : "\xE2\x9C\x97 Not this one.");
    }
    const std::string feedback = quiz_feedback(q, m_quiz);
    if (!feedback.empty()) wrapped(feedback);
    if (m_quiz.verdict() == explain::QuizVerdict::Right && m_current + 1 < static_cast<int>(m_lessons.size()) &&
        ImGui::Button("Next lesson \xE2\x96\xB6"))
        open_lesson(m_current + 1);
}

}  // namespace tx::app
