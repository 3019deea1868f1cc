// Lesson questions (quiz.h): the per-learner order of the choices and the hint-then-explanation
// sequence of the attempts.
#include "quiz.h"

#include <filesystem>
#include <numeric>

namespace tx::explain {

namespace {

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t fnv1a(const std::string& text) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
    return h;
}

}  // namespace

std::vector<int> quiz_order(int n, uint64_t learner_seed, const std::string& lesson_key) {
    std::vector<int> shown(static_cast<size_t>(std::max(n, 0)));
    std::iota(shown.begin(), shown.end(), 0);
    uint64_t state = learner_seed ^ fnv1a(lesson_key);
    for (int i = n - 1; i > 0; --i) {   // Fisher–Yates; n ≤ 6, so the modulo's bias is ~1e-18
        const int j = static_cast<int>(splitmix64(state) % static_cast<uint64_t>(i + 1));
        std::swap(shown[static_cast<size_t>(i)], shown[static_cast<size_t>(j)]);
    }
    return shown;
}

std::string quiz_key(const Lesson& lesson) { return std::filesystem::path(lesson.file).filename().string(); }

QuizVerdict QuizAttempts::check(const LessonQuestion& question, int choice) {
    if (choice == question.answer) {
        m_verdict = QuizVerdict::Right;
    } else {
        ++m_wrong;
        m_verdict = m_wrong >= 2 ? QuizVerdict::WrongAgain : QuizVerdict::Wrong;
    }
    return m_verdict;
}

std::string quiz_feedback(const LessonQuestion& question, const QuizAttempts& attempts) {
    const std::string hint = question.hint.empty() ? "Look again at the panel the lesson pointed at." : question.hint;
    switch (attempts.verdict()) {
        case QuizVerdict::Unanswered: return attempts.explanation_shown() ? question.explanation : "";
        case QuizVerdict::Right: return question.explanation;
        case QuizVerdict::Wrong: return attempts.explanation_shown() ? question.explanation : "Hint: " + hint;
        case QuizVerdict::WrongAgain: return "The answer is \xE2\x80\x9C" + question.choices[static_cast<size_t>(question.answer)] +
                                             "\xE2\x80\x9D. " + question.explanation;
    }
    return "";
}

}  // namespace tx::explain
