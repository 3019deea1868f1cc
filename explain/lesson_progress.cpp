// Lesson progress (lesson_progress.h).
#include "lesson_progress.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace tx::explain {

namespace {

bool valid_key(const std::string& key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
}

}  // namespace

std::string progress_key(const std::string& file) {
    std::string stem = std::filesystem::path(file).stem().string();
    // Leading digits and the dash after them are the lesson's place, not its name.
    size_t i = 0;
    while (i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i]))) ++i;
    if (i > 0 && i < stem.size() && stem[i] == '-') stem = stem.substr(i + 1);
    return stem;
}

std::string progress_key(const Lesson& lesson) { return progress_key(lesson.file); }

std::string encode_done(const std::set<std::string>& done) {
    std::string out;
    for (const std::string& key : done)
        if (valid_key(key)) out += (out.empty() ? "" : ",") + key;
    return out;
}

std::set<std::string> decode_done(const std::string& text) {
    std::set<std::string> done;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string key = text.substr(start, comma - start);
        if (valid_key(key)) done.insert(key);
        start = comma + 1;
    }
    return done;
}

int lesson_index(const std::vector<Lesson>& lessons, const std::string& key) {
    for (size_t i = 0; i < lessons.size(); ++i)
        if (progress_key(lessons[i]) == key) return static_cast<int>(i);
    return -1;
}

bool should_offer_first_lesson(const LessonProgress& progress, bool headless, bool lesson_requested) {
    return !progress.offered && !headless && !lesson_requested;
}

}  // namespace tx::explain
