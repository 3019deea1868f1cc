// Quiz: one lesson question as a learner meets it. Its choices are shown in an order drawn from
// the learner's seed and the lesson's file name (a permutation of the file's order, the same one
// every time for that learner), and `answer` stays an index into the file's order. A wrong first
// try shows a hint; the explanation comes after a right answer, a second wrong try or "Show why".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lessons.h"

namespace tx::explain {

// shown[i] = the file index of the choice drawn at place i: a permutation of 0 … n − 1. The same
// on every platform (SplitMix64 and Fisher–Yates, no std:: distribution).
std::vector<int> quiz_order(int n, uint64_t learner_seed, const std::string& lesson_key);
// The key of a lesson for quiz_order: its file name without folder ("04-attention-score.json").
std::string quiz_key(const Lesson& lesson);

enum class QuizVerdict { Unanswered, Right, Wrong, WrongAgain };

// The attempts at one question; choices are file indices.
class QuizAttempts {
public:
    QuizVerdict check(const LessonQuestion& question, int choice);
    void reveal() { m_revealed = true; }           // "Show why"
    void reset() { *this = QuizAttempts(); }
    QuizVerdict verdict() const { return m_verdict; }
    int wrong_tries() const { return m_wrong; }
    bool explanation_shown() const { return m_revealed || m_verdict == QuizVerdict::Right || m_wrong >= 2; }

private:
    QuizVerdict m_verdict = QuizVerdict::Unanswered;
    int m_wrong = 0;
    bool m_revealed = false;
};

// What the panel prints under the choices for this state: the hint after one wrong try, the
// explanation once it is shown; "" before any check.
std::string quiz_feedback(const LessonQuestion& question, const QuizAttempts& attempts);

}  // namespace tx::explain
