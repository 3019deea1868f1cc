// Lessons panel: a guided tour in short lessons read from assets/lessons/ (lessons.h). Each
// lesson's steps drive the app through commands (command.h) when the learner presses "Do it" (open a model,
// set a sentence, jump to a step, toggle a mask, highlight a panel...), and it ends with a
// multiple-choice question answered from what is on screen, its choices in the learner's own
// shuffled order (quiz.h). It keeps the learner's progress (lesson_progress.h): lessons answered
// right are ticked, and the open one is remembered in the settings.
#pragma once
#include <cstdint>
#include <map>

#include "lesson_progress.h"
#include "lessons.h"
#include "panel.h"
#include "quiz.h"

namespace tx::app {

class LessonsPanel final : public Panel {
public:
    LessonsPanel();

    // Reads the lessons; returns one message per file left out (see load_lessons).
    std::vector<std::string> load(const std::string& path, const std::vector<std::string>& panel_keys);
    const std::vector<explain::Lesson>& lessons() const { return m_lessons; }
    int current() const { return m_current; }
    int steps_done() const { return m_done; }
    void open_lesson(int index);          // from its first step, the answer cleared
    // Performs the current step's actions (queued Commands) and moves on to the next step.
    void do_step(CommandSink& commands);
    // "Back": the step last done becomes the current one again ("Do it" redoes it). What the
    // steps changed in the app stays as it is.
    void step_back();
    // "Repeat this step": performs the step last done again (its highlight, its settings) without
    // moving on; nothing when no step is done yet.
    void repeat_step(CommandSink& commands);
    // Checks a choice of the current lesson's question (a file index, LessonQuestion::answer's
    // numbering): true when right. The panel shows the verdict, the hint or the explanation.
    bool check_answer(int choice);
    const explain::QuizAttempts& quiz() const { return m_quiz; }
    // The learner's seed for the order of the choices (the app's settings); reorders the open question.
    void set_quiz_seed(uint64_t seed);
    // The current question's choices as drawn: shown[i] = the file index at place i.
    const std::vector<int>& choice_order() const { return m_order; }
    static void perform(const explain::LessonAction& action, CommandSink& commands);
    // Progress, read from and written to the settings (settings.cpp). set_progress opens the
    // lesson it names as current (lesson 1 when none).
    const explain::LessonProgress& progress() const { return m_progress; }
    void set_progress(const explain::LessonProgress& progress);
    bool done(int index) const;
    // A first launch: the panel greets the learner and offers lesson 1 (should_offer_first_lesson
    // decides when); the offer counts as made once shown.
    void offer_first_lesson();
    bool offering() const { return m_offering; }
    // The title a panel key stands for, so "Do it" can say "the Positional encoding panel".
    void name_panel(const std::string& key, const std::string& title) { m_panel_titles[key] = title; }

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_steps(PanelContext& ctx, const explain::Lesson& lesson);
    void draw_question(const explain::Lesson& lesson);
    void draw_offer();

    std::vector<explain::Lesson> m_lessons;
    std::string m_load_errors;            // shown in the panel too, not only in the log
    int m_current = 0;
    int m_done = 0;                       // steps performed
    int m_choice = -1;                    // the selected choice, a file index; -1 none
    int m_checked = -1;                   // the choice last checked; -1 none
    explain::QuizAttempts m_quiz;
    uint64_t m_quiz_seed = 1;
    std::vector<int> m_order;             // the current question's order (quiz_order)
    bool m_scroll_to_step = false;
    std::map<std::string, std::string> m_panel_titles;   // key -> title
    explain::LessonProgress m_progress;
    bool m_progress_changed = false;      // the settings file is marked for saving at the next frame
    bool m_offering = false;              // the first-launch greeting is shown
};

}  // namespace tx::app
