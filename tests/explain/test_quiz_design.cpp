// The shipped quizzes (assets/lessons/*.json) checked against the two shortcuts a learner can take
// without looking at the app (teaching review 2026-11-28, section C and U1):
//  - picking the longest choice: a right answer that is also the longest (often the only one with
//    a reason after a colon) is a give-away, so it may be the longest in at most a third of the
//    quizzes. "Longest" counts a right choice within 3 bytes of the longest, as a reader cannot
//    tell such lengths apart;
//  - finding the answer in the lesson's own text: a right choice copied from a paragraph or a step
//    text is answered by re-reading, not by looking at the screen. Short answers (a token such as
//    ▁red, a number) are left out: they appear in any text about them.
// Each failure names the lesson file and the choice, so the quiz to rewrite is plain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lessons.h"
#include "support/lesson_panels.h"

namespace tx::explain {
namespace {

namespace fs = std::filesystem;

using test::LESSON_PANELS;

// A right choice this close to the longest one (in bytes) reads as the longest.
constexpr size_t LONGEST_SLACK = 3;
// Right choices of at most this many characters are not searched for in the lesson text.
constexpr size_t SHORTEST_SEARCHED = 12;

// Every shipped lesson, in file name order, read as the app reads it.
std::vector<Lesson> shipped_lessons() {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(std::string(TX_SOURCE_DIR) + "/assets/lessons"))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<Lesson> lessons;
    for (const fs::path& f : files) lessons.push_back(read_lesson(f.string(), LESSON_PANELS));
    return lessons;
}

std::string file_name(const Lesson& l) { return fs::path(l.file).filename().string(); }
const std::string& right_choice(const Lesson& l) { return l.question.choices.at(static_cast<size_t>(l.question.answer)); }

// UTF-8 characters, not bytes: “ ” and ▁ are three bytes each.
size_t characters(const std::string& s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The choice as it would be quoted in a sentence: surrounding spaces and a final period removed
// (a choice "It stays the same." is copied from "…it stays the same." just as well).
std::string quotable(std::string s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!s.empty() && space(s.back())) s.pop_back();
    s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// ASCII letters folded to lower case, so that a choice starting a sentence still matches the same
// words inside one; UTF-8 bytes (≥ 0x80) are left as they are.
std::string folded(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

TEST(QuizDesign, TheShippedLessonsAreRead) {
    const std::vector<Lesson> lessons = shipped_lessons();
    EXPECT_GE(lessons.size(), 20u);
}

TEST(QuizDesign, TheLongestChoiceIsRightInAtMostAThirdOfTheQuizzes) {
    const std::vector<Lesson> lessons = shipped_lessons();
    ASSERT_FALSE(lessons.empty());
    std::string longest_right;   // one line per quiz whose right choice is (about) the longest
    size_t count = 0;
    for (const Lesson& l : lessons) {
        size_t longest = 0;
        for (const std::string& c : l.question.choices) longest = std::max(longest, c.size());
        const std::string& right = right_choice(l);
        if (right.size() + LONGEST_SLACK >= longest) {
            ++count;
            longest_right += "  " + file_name(l) + ": \xE2\x80\x9C" + right + "\xE2\x80\x9D (" + std::to_string(right.size()) +
                             " bytes; the longest choice has " + std::to_string(longest) + ")\n";
        }
    }
    std::printf("quiz design: the right choice is the longest (or within %zu bytes of it) in %zu of %zu quizzes\n", LONGEST_SLACK,
                count, lessons.size());
    // More than a third fails: a learner who always takes the longest choice would do far better than chance.
    if (3 * count > lessons.size())
        ADD_FAILURE() << count << " of " << lessons.size() << " quizzes have the longest choice right (at most a third may):\n"
                      << longest_right;
}

TEST(QuizDesign, NoRightChoiceIsCopiedFromItsLessonsText) {
    for (const Lesson& l : shipped_lessons()) {
        const std::string right = quotable(right_choice(l));
        if (characters(right) <= SHORTEST_SEARCHED) continue;
        const std::string needle = folded(right);
        const auto check = [&](const std::string& text, const std::string& where) {
            if (folded(text).find(needle) != std::string::npos)
                ADD_FAILURE() << file_name(l) << ": the right choice \xE2\x80\x9C" << right_choice(l) << "\xE2\x80\x9D is written in " << where;
        };
        for (size_t p = 0; p < l.paragraphs.size(); ++p) check(l.paragraphs[p], "paragraph " + std::to_string(p + 1));
        for (size_t s = 0; s < l.steps.size(); ++s) check(l.steps[s].text, "step " + std::to_string(s + 1));
    }
}

}  // namespace
}  // namespace tx::explain
