// libFuzzer target: arbitrary bytes as a tab-separated corpus file (a person's own --data file).
// read_parallel_corpus must either return pairs that pass its own line check, or throw a
// std::runtime_error that names the input; never crash or hang.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "tx/parallel_corpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        for (const tx::SentencePair& p : tx::read_parallel_corpus(in, "fuzz.tsv")) {
            if (!tx::parallel_line_problem(p.source + "\t" + p.target).empty() || p.line < 1) {
                std::fprintf(stderr, "a returned pair fails the line check\n");
                std::abort();
            }
        }
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find("fuzz.tsv") == std::string::npos) {
            std::fprintf(stderr, "message does not name the file: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}
