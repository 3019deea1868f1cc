// Lessons panel (see lessons_panel.h). The lesson text lives in assets/lessons/*.json; this file
// only lays it out and turns each action into the Command that does it.
#include "panels/lessons_panel.h"

#include <algorithm>
#include <cstdio>

#include "tx/training_config.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

const ImVec4 GOLD(1.0f, 0.78f, 0.2f, 1.0f);
const ImVec4 GREEN(0.45f, 0.85f, 0.45f, 1.0f);
const ImVec4 RED(1.0f, 0.5f, 0.45f, 1.0f);

std::string on_off(bool on) { return on ? "on" : "off"; }

// What "Do it" will do, in a few words, so the learner knows before pressing.
std::string describe(const LessonAction& a, const std::map<std::string, std::string>& titles) {
    const auto title = titles.find(a.name);
    const std::string panel = "the " + (title == titles.end() ? a.name : title->second) + " panel";
    switch (a.kind) {
        case LessonActionKind::OpenModel: return "open the " + a.name + " model";
        case LessonActionKind::SetSentences:
            return a.sentences.size() == 1 ? "type \xE2\x80\x9C" + a.sentences[0] + "\xE2\x80\x9D"
                                           : "type a batch of " + std::to_string(a.sentences.size()) + " sentences";
        case LessonActionKind::GoToStep: return "go to step " + a.name;
        case LessonActionKind::CausalMask: return "causal mask " + on_off(a.on);
        case LessonActionKind::PaddingMask: return "padding mask " + on_off(a.on);
        case LessonActionKind::PositionalEncoding: return "positional encoding " + on_off(a.on);
        case LessonActionKind::AttentionScaling: return "1/\xE2\x88\x9A" "dk scaling " + on_off(a.on);
        case LessonActionKind::SelectAttention: return "select " + a.name + " head " + std::to_string(a.number);
        case LessonActionKind::ShowPanel: return "open " + panel;
        case LessonActionKind::HighlightPanel: return "point at " + panel;
        case LessonActionKind::Decoding: return a.number == 1 ? "greedy decoding" : "beam search, " + std::to_string(a.number) + " beams";
        case LessonActionKind::Train: return "train the " + a.name + " task";
        case LessonActionKind::NeuronView:
            return "open the Neuron view on query " + std::to_string(a.number) + ", key " + std::to_string(a.key);
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
    : Panel("A guided tour of the Transformer (Vaswani et al., 2017) in eleven short lessons. Each step's \xE2\x80\x9C" "Do it\xE2\x80\x9D "
            "sets the app up and points at the panel to look at; a question at the end checks what you saw.") {}

std::vector<std::string> LessonsPanel::load(const std::string& path, const std::vector<std::string>& panel_keys) {
    LessonSet set = load_lessons(path, panel_keys);
    m_lessons = std::move(set.lessons);
    m_load_errors.clear();
    for (const auto& e : set.errors) m_load_errors += (m_load_errors.empty() ? "" : "\n") + e;
    open_lesson(0);
    return set.errors;
}

void LessonsPanel::open_lesson(int index) {
    m_current = std::clamp(index, 0, std::max(0, static_cast<int>(m_lessons.size()) - 1));
    m_done = 0;
    m_choice = m_checked = -1;
    m_quiz.reset();
    m_order.clear();
    if (!m_lessons.empty()) {
        const Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
        m_order = quiz_order(static_cast<int>(lesson.question.choices.size()), m_quiz_seed, quiz_key(lesson));
    }
}

void LessonsPanel::set_quiz_seed(uint64_t seed) {
    m_quiz_seed = seed;
    if (m_lessons.empty()) return;
    const Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    m_order = quiz_order(static_cast<int>(lesson.question.choices.size()), m_quiz_seed, quiz_key(lesson));
}

void LessonsPanel::do_step(Commands& commands) {
    if (m_lessons.empty()) return;
    const Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    if (m_done >= static_cast<int>(lesson.steps.size())) return;
    for (const LessonAction& a : lesson.steps[static_cast<size_t>(m_done)].actions) perform(a, commands);
    ++m_done;
    m_scroll_to_step = true;
}

bool LessonsPanel::check_answer(int choice) {
    if (m_lessons.empty()) return false;
    m_choice = m_checked = choice;
    return m_quiz.check(m_lessons[static_cast<size_t>(m_current)].question, choice) == QuizVerdict::Right;
}

void LessonsPanel::perform(const LessonAction& a, Commands& commands) {
    switch (a.kind) {
        case LessonActionKind::OpenModel: commands.open_model(a.name); break;
        case LessonActionKind::SetSentences: commands.set_input(a.sentences, std::nullopt); break;
        case LessonActionKind::GoToStep: commands.go_to_step(a.name); break;
        case LessonActionKind::CausalMask: commands.set_causal_mask(a.on); break;
        case LessonActionKind::PaddingMask: commands.set_padding_mask(a.on); break;
        case LessonActionKind::PositionalEncoding: commands.set_positional_encoding(a.on); break;
        case LessonActionKind::AttentionScaling: commands.set_attention_scaling(a.on); break;
        case LessonActionKind::SelectAttention: commands.select_attention(a.name, a.number); break;
        case LessonActionKind::ShowPanel: commands.show_panel(a.name); break;
        case LessonActionKind::HighlightPanel: commands.highlight_panel(a.name); break;
        case LessonActionKind::Decoding: commands.set_decoding(a.number, 0.6); break;   // the paper's alpha
        case LessonActionKind::NeuronView: commands.open_neuron_view(a.number, a.key); break;
        case LessonActionKind::Train: {
            const TaskKind task = task_from_string(a.name).value_or(TaskKind::Copy);   // the loader allows known tasks only
            commands.trainer_configure(Preset::Tiny, preset_training(Preset::Tiny, task));
            commands.trainer_start();
            break;
        }
    }
}

void LessonsPanel::draw_content(PanelContext& ctx) {
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
    std::snprintf(label, sizeof label, "%d. %s", m_current + 1, m_lessons[static_cast<size_t>(m_current)].title.c_str());
    if (ImGui::BeginCombo("##lesson", label)) {
        for (int i = 0; i < n; ++i) {
            std::snprintf(label, sizeof label, "%d. %s", i + 1, m_lessons[static_cast<size_t>(i)].title.c_str());
            if (ImGui::Selectable(label, i == m_current)) open_lesson(i);
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(m_current + 1 >= n);
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) open_lesson(m_current + 1);
    ImGui::EndDisabled();

    const Lesson& lesson = m_lessons[static_cast<size_t>(m_current)];
    ImGui::BeginChild("##lesson_body", ImVec2(0, 0), false);
    ImGui::TextColored(GOLD, "Lesson %d of %d \xC2\xB7 %s", m_current + 1, n, lesson.title.c_str());
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

void LessonsPanel::draw_steps(PanelContext& ctx, const Lesson& lesson) {
    const ImVec4 dim = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
    for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
        const LessonStep& step = lesson.steps[static_cast<size_t>(i)];
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
        ImGui::SameLine();
        if (ImGui::SmallButton("Start the lesson again")) open_lesson(m_current);
    }
}

void LessonsPanel::draw_question(const Lesson& lesson) {
    const LessonQuestion& q = lesson.question;
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
    if (!m_quiz.explanation_shown()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Show why")) m_quiz.reveal();
    }
    if (m_checked >= 0) {
        const bool right = m_quiz.verdict() == QuizVerdict::Right;
        ImGui::SameLine();
        ImGui::TextColored(right ? GREEN : RED, right ? "\xE2\x9C\x93 Right." : "\xE2\x9C\x97 Not this one.");
    }
    const std::string feedback = quiz_feedback(q, m_quiz);
    if (!feedback.empty()) wrapped(feedback);
    if (m_quiz.verdict() == QuizVerdict::Right && m_current + 1 < static_cast<int>(m_lessons.size()) &&
        ImGui::Button("Next lesson \xE2\x96\xB6"))
        open_lesson(m_current + 1);
}

}  // namespace tx::app
