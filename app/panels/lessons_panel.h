// Lessons panel: a guided tour in ten short lessons read from assets/lessons/ (lessons.h). Each
// lesson's steps drive the app through Commands when the learner presses "Do it" (open a model,
// set a sentence, jump to a step, toggle a mask, highlight a panel...), and it ends with a
// multiple-choice question answered from what is on screen.
#pragma once
#include <map>

#include "lessons.h"
#include "panel.h"

namespace tx::app {

class LessonsPanel final : public Panel {
public:
    LessonsPanel();

    // Reads the lessons; returns one message per file left out (see load_lessons).
    std::vector<std::string> load(const std::string& path, const std::vector<std::string>& panel_keys);
    const std::vector<Lesson>& lessons() const { return m_lessons; }
    int current() const { return m_current; }
    int steps_done() const { return m_done; }
    void open_lesson(int index);          // from its first step, the answer cleared
    // Performs the current step's actions (queued Commands) and moves on to the next step.
    void do_step(Commands& commands);
    // Checks a choice of the current lesson's question: true when right. The panel shows the verdict.
    bool check_answer(int choice);
    static void perform(const LessonAction& action, Commands& commands);
    // The title a panel key stands for, so "Do it" can say "the Positional encoding panel".
    void name_panel(const std::string& key, const std::string& title) { m_panel_titles[key] = title; }

protected:
    void draw_content(PanelContext& ctx) override;

private:
    void draw_steps(PanelContext& ctx, const Lesson& lesson);
    void draw_question(const Lesson& lesson);

    std::vector<Lesson> m_lessons;
    std::string m_load_errors;            // shown in the panel too, not only in the log
    int m_current = 0;
    int m_done = 0;                       // steps performed
    int m_choice = -1;
    int m_checked = -1;                   // the choice last checked; -1 none
    bool m_scroll_to_step = false;
    std::map<std::string, std::string> m_panel_titles;   // key -> title
};

}  // namespace tx::app
