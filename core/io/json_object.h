// Parsing a JSON object for the configs (model and training): one place that turns a parse
// error or a non-object into a ConfigError that names what was being read.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "tx/config.h"

namespace tx {

inline nlohmann::json parse_json_object(const std::string& text, const std::string& what) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw ConfigError(what + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object()) throw ConfigError(what + ": must be a JSON object");
    return j;
}

}  // namespace tx
