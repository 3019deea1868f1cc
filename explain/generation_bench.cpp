// Reading the generation benchmark's JSON (generation_bench.h): every field checked, and every
// problem reported with the file's name, since a user hands this file to the app by hand.
#include "generation_bench.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace tx::explain {

namespace {

constexpr const char* FORMAT = "transformer-explorer/generation-bench/1";

std::string text_field(const nlohmann::json& j, const char* name, const std::string& where) {
    if (!j.contains(name) || !j[name].is_string()) throw std::runtime_error(where + ": no text field \"" + name + "\"");
    return j[name].get<std::string>();
}

std::vector<double> figures(const nlohmann::json& s, const char* name, size_t count, const std::string& where) {
    if (!s.contains(name) || !s[name].is_array())
        throw std::runtime_error(where + ": no \"" + name + "\" list of tokens/s");
    if (s[name].size() != count)
        throw std::runtime_error(where + ": \"" + name + "\" has " + std::to_string(s[name].size()) +
                                 " values for " + std::to_string(count) + " lengths");
    std::vector<double> out;
    for (const auto& v : s[name]) {
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0)
            throw std::runtime_error(where + ": \"" + name + "\" holds " + v.dump() + ", not a positive number of tokens/s");
        out.push_back(v.get<double>());
    }
    return out;
}

}  // namespace

GenerationBench load_generation_bench(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("generation benchmark " + path + ": cannot open the file");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("generation benchmark " + path + ": not JSON (" + e.what() + ")");
    }
    const std::string where = "generation benchmark " + path;
    if (!j.is_object() || !j.contains("format") || j["format"] != FORMAT)
        throw std::runtime_error(where + ": not a file of bench/run_generate_bench.sh (\"format\" is not \"" +
                                 FORMAT + "\")");
    GenerationBench b;
    b.path = path;
    b.machine = text_field(j, "machine", where);
    b.model = text_field(j, "model", where);
    b.settings = text_field(j, "settings", where);
    b.date = text_field(j, "date", where);
    if (!j.contains("lengths") || !j["lengths"].is_array() || j["lengths"].empty())
        throw std::runtime_error(where + ": no \"lengths\" list");
    for (const auto& n : j["lengths"]) {
        if (!n.is_number_integer() || n.get<int>() < 1)
            throw std::runtime_error(where + ": length " + n.dump() + " is not a whole number of tokens, 1 or more");
        if (!b.lengths.empty() && n.get<int>() <= b.lengths.back())
            throw std::runtime_error(where + ": the lengths must ascend");
        b.lengths.push_back(n.get<int>());
    }
    if (!j.contains("series") || !j["series"].is_array() || j["series"].empty())
        throw std::runtime_error(where + ": no \"series\" list");
    for (const auto& s : j["series"]) {
        if (!s.is_object()) throw std::runtime_error(where + ": a series is not an object");
        GenerationBenchSeries series;
        series.key = text_field(s, "key", where);
        series.name = text_field(s, "name", where);
        const std::string at = where + ", series \"" + series.key + "\"";
        series.median = figures(s, "median", b.lengths.size(), at);
        series.min = figures(s, "min", b.lengths.size(), at);
        series.max = figures(s, "max", b.lengths.size(), at);
        for (size_t i = 0; i < b.lengths.size(); ++i)
            if (!(series.min[i] <= series.median[i] && series.median[i] <= series.max[i]))
                throw std::runtime_error(at + ": at " + std::to_string(b.lengths[i]) +
                                         " tokens the median is not between min and max");
        b.series.push_back(std::move(series));
    }
    return b;
}

}  // namespace tx::explain
