// Tab-separated sentence pairs (parallel_corpus.h). Every line is checked before use, so a bad
// line in a person's own file is reported by number instead of training on garbage.
#include "tx/parallel_corpus.h"

#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "text/text_common.h"

namespace tx {

namespace {

using text::valid_utf8;

bool blank(const std::string& s) { return s.find_first_not_of(' ') == std::string::npos; }

}  // namespace

std::string parallel_line_problem(const std::string& line) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return "no tab: each line must be source<TAB>target";
    if (line.find('\t', tab + 1) != std::string::npos) return "more than one tab: each line must be source<TAB>target";
    if (!valid_utf8(line)) return "not valid UTF-8";
    for (unsigned char c : line)
        if ((c < 0x20 && c != '\t') || c == 0x7F) return "a control character (byte " + std::to_string(c) + ")";
    if (blank(line.substr(0, tab))) return "the source sentence (before the tab) is empty";
    if (blank(line.substr(tab + 1))) return "the target sentence (after the tab) is empty";
    return "";
}

std::vector<SentencePair> read_parallel_corpus(const std::string& path) {
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
        return read_parallel_corpus(in, path);
    }
    // gzip (the shipped corpora are compressed): inflated whole, then read as a plain file.
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
    std::string text;
    char buffer[1 << 16];
    int got = 0;
    while ((got = gzread(gz, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(got));
    // zlib reports a stream that ends early as Z_BUF_ERROR after the last read, not as a failed read.
    int code = Z_OK;
    const std::string error = gzerror(gz, &code);
    gzclose(gz);
    if (got < 0) throw std::runtime_error("cannot read '" + path + "' as gzip: " + error);
    if (code == Z_BUF_ERROR)
        throw std::runtime_error("cannot read '" + path + "' as gzip: the file ends inside the compressed data (truncated)");
    std::istringstream in(std::move(text));
    return read_parallel_corpus(in, path);
}

std::vector<SentencePair> read_parallel_corpus(std::istream& in, const std::string& path) {
    std::vector<SentencePair> pairs;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (number == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
        if (line.empty()) continue;
        if (const std::string problem = parallel_line_problem(line); !problem.empty())
            throw std::runtime_error(path + ":" + std::to_string(number) + ": " + problem);
        const size_t tab = line.find('\t');
        pairs.push_back({line.substr(0, tab), line.substr(tab + 1), number});
    }
    if (in.bad()) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
    if (pairs.empty()) throw std::runtime_error(path + ": no sentence pairs (expected source<TAB>target lines)");
    return pairs;
}

}  // namespace tx
