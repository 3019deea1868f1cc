// GenerationBench: the figures bench/run_generate_bench.sh writes with a JSON path
// (bench/bench_generate.py --json): tokens/s of greedy generation against the number of
// tokens n, per series (ours with the KV cache, ours recomputing, PyTorch's cached loop), each
// the median, min and max of the benchmark's rounds, one value per length. The Backend panel
// plots them (transformer-explorer --generation-bench FILE).
#pragma once
#include <string>
#include <vector>

namespace tx::explain {

struct GenerationBenchSeries {
    std::string key;                         // "cached", "full", "tuned", "installed"
    std::string name;                        // legend text
    std::vector<double> median, min, max;    // tokens/s, one per length
};

struct GenerationBench {
    std::string path;                        // the file it was read from
    std::string machine, model, settings, date;
    std::vector<int> lengths;                // n, ascending
    std::vector<GenerationBenchSeries> series;
};

// Reads and checks a benchmark file. Throws std::runtime_error whose message names the file and
// what is wrong with it (missing, not JSON, another format, a series whose values do not match
// the lengths, a non-positive or non-finite figure).
GenerationBench load_generation_bench(const std::string& path);

}  // namespace tx::explain
