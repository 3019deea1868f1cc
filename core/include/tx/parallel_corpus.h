// Parallel corpora: sentence pairs from a tab-separated file, one "source<TAB>target" per line
// (UTF-8). Used by the translate task and `txcli evaluate`; anyone's own data comes in this way.
#pragma once
#include <istream>
#include <string>
#include <vector>

namespace tx {

struct SentencePair {
    std::string source;
    std::string target;
    int line = 0;   // 1-based line in the file, for messages
};

// Reads every pair. Empty lines are skipped; a UTF-8 byte-order mark and CRLF line ends are
// accepted. Throws std::runtime_error naming the file, the line number and the problem: no tab,
// more than one tab, an empty side, invalid UTF-8, or a control character; also when the file
// cannot be opened or holds no pair. A path ending in ".gz" is read as gzip; a damaged or
// truncated one is refused with zlib's message.
std::vector<SentencePair> read_parallel_corpus(const std::string& path);
// The same from a stream; `what` names it in messages (the fuzz target's entry).
std::vector<SentencePair> read_parallel_corpus(std::istream& in, const std::string& what);

// The problem with one line ("" when it is a good pair); `line` is without its line end.
std::string parallel_line_problem(const std::string& line);

}  // namespace tx
