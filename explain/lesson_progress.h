// A learner's progress through the lessons, as the app's settings keep it: which lessons are done
// (their question answered right), which one is open, and whether the first lesson has been
// offered at a first launch. Lessons are named by their file name without the number
// ("03-positional.json" -> "positional"), so renumbering the curriculum keeps a learner's ticks.
// No ImGui here: the Lessons panel and the settings file use it, the unit tests check it.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "lessons.h"

namespace tx::explain {

// "assets/lessons/03-positional.json" -> "positional".
std::string progress_key(const Lesson& lesson);
std::string progress_key(const std::string& file);

struct LessonProgress {
    std::set<std::string> done;   // progress keys of the lessons answered right
    std::string current;          // the open lesson's key; "" before any
    bool offered = false;         // lesson 1 was offered once; never again
};

// The settings line's value: the keys in order, comma-separated ("positional,tokens"); and back.
// Reading skips empty and malformed entries (a key is letters, digits, '-' and '_').
std::string encode_done(const std::set<std::string>& done);
std::set<std::string> decode_done(const std::string& text);

// The index of the lesson with this key, or -1.
int lesson_index(const std::vector<Lesson>& lessons, const std::string& key);

// Whether this launch offers lesson 1: only when it was never offered before, only to a person at
// a window (not --screenshot, the self-test or other headless runs, which must stay reproducible),
// and not when the command line already asks for a lesson (--lesson N).
bool should_offer_first_lesson(const LessonProgress& progress, bool headless, bool lesson_requested);

}  // namespace tx::explain
