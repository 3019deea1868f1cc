// The lesson questions as a learner meets them (explain/quiz.h): the choices are shuffled per
// learner without losing the right answer (the choice shown at each place is checked against the
// file's `answer`), the right answer is not always in the same place, and the attempts show a hint
// first and the explanation only after a right answer, a second try or "Show why".
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lessons.h"
#include "quiz.h"
#include "support/lesson_panels.h"

namespace tx::explain {
namespace {

using test::LESSON_PANELS;

std::vector<Lesson> shipped() {
    const LessonSet set = load_lessons(std::string(TX_SOURCE_DIR) + "/assets/lessons", LESSON_PANELS);
    for (const auto& e : set.errors) ADD_FAILURE() << e;
    return set.lessons;
}

TEST(Quiz, AnOrderIsAPermutationAndTheSameForTheSameLearner) {
    for (int n = 1; n <= 6; ++n)
        for (uint64_t seed : {1ull, 2ull, 12345678901234567ull}) {
            std::vector<int> order = quiz_order(n, seed, "02-tokens.json");
            EXPECT_EQ(order, quiz_order(n, seed, "02-tokens.json"));
            std::sort(order.begin(), order.end());
            for (int i = 0; i < n; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
        }
    // Different learners, or different lessons, get different orders (not always: n! is small).
    std::set<std::vector<int>> orders;
    for (uint64_t seed = 1; seed <= 50; ++seed) orders.insert(quiz_order(4, seed, "04-attention-score.json"));
    EXPECT_GT(orders.size(), 10u);
}

// For every shipped question and many learners: the choice drawn at each place is the file's
// choice at order[place]; checking it is right exactly where that is the file's answer; and over
// the learners the right answer turns up at every place.
TEST(Quiz, ShufflingKeepsTheRightAnswerMapped) {
    for (const Lesson& lesson : shipped()) {
        const LessonQuestion& q = lesson.question;
        const int n = static_cast<int>(q.choices.size());
        std::set<int> places_of_answer;
        for (uint64_t seed = 1; seed <= 200; ++seed) {
            const std::vector<int> order = quiz_order(n, seed, quiz_key(lesson));
            ASSERT_EQ(static_cast<int>(order.size()), n);
            int right_places = 0;
            for (int place = 0; place < n; ++place) {
                const int file_index = order[static_cast<size_t>(place)];
                QuizAttempts attempts;
                const bool right = attempts.check(q, file_index) == QuizVerdict::Right;
                EXPECT_EQ(right, q.choices[static_cast<size_t>(file_index)] == q.choices[static_cast<size_t>(q.answer)])
                    << lesson.file << " seed " << seed << " place " << place;
                if (right) {
                    ++right_places;
                    places_of_answer.insert(place);
                }
            }
            EXPECT_EQ(right_places, 1) << lesson.file;
        }
        EXPECT_EQ(static_cast<int>(places_of_answer.size()), n) << lesson.file << ": the answer is not found at every place";
    }
}

// The files themselves: the answer is no longer always the first choice, and the choices differ.
TEST(Quiz, TheShippedAnswersAreNotAllInOnePlace) {
    std::set<int> answers;
    for (const Lesson& lesson : shipped()) {
        answers.insert(lesson.question.answer);
        const std::set<std::string> distinct(lesson.question.choices.begin(), lesson.question.choices.end());
        EXPECT_EQ(distinct.size(), lesson.question.choices.size()) << lesson.file;
        EXPECT_FALSE(lesson.question.hint.empty()) << lesson.file << ": a wrong first try needs a hint";
    }
    EXPECT_GT(answers.size(), 1u);
}

TEST(Quiz, AHintFirstTheExplanationAfterASecondTry) {
    LessonQuestion q;
    q.prompt = "Q?";
    q.choices = {"a", "b", "c"};
    q.answer = 2;
    q.hint = "Look at the Masks panel.";
    q.explanation = "Because.";
    QuizAttempts attempts;
    EXPECT_EQ(quiz_feedback(q, attempts), "");
    EXPECT_EQ(attempts.check(q, 0), QuizVerdict::Wrong);
    EXPECT_FALSE(attempts.explanation_shown());
    EXPECT_EQ(quiz_feedback(q, attempts), "Hint: Look at the Masks panel.");
    EXPECT_EQ(attempts.check(q, 1), QuizVerdict::WrongAgain);
    EXPECT_TRUE(attempts.explanation_shown());
    EXPECT_NE(quiz_feedback(q, attempts).find("\xE2\x80\x9C" "c\xE2\x80\x9D"), std::string::npos) << quiz_feedback(q, attempts);
    EXPECT_NE(quiz_feedback(q, attempts).find("Because."), std::string::npos);

    attempts.reset();
    EXPECT_EQ(attempts.check(q, 2), QuizVerdict::Right);
    EXPECT_EQ(quiz_feedback(q, attempts), "Because.");

    attempts.reset();
    attempts.check(q, 1);
    attempts.reveal();   // "Show why"
    EXPECT_EQ(quiz_feedback(q, attempts), "Because.");
}

}  // namespace
}  // namespace tx::explain
