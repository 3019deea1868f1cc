// Reads assets/models/catalog.json (model_catalog.h): [{"file", "name", "sentence", "examples"?}, ...].
#include "model_catalog.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tx::explain {

std::vector<CatalogModel> read_model_catalog(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open the model catalog '" + path + "'");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + ": not valid JSON (" + std::string(e.what()) + ")");
    }
    if (!j.is_array()) throw std::runtime_error(path + ": expected a JSON array of models");
    std::vector<CatalogModel> models;
    for (size_t i = 0; i < j.size(); ++i) {
        const auto& m = j[i];
        const auto text = [&](const char* key) {
            if (!m.is_object() || !m.contains(key) || !m[key].is_string() || m[key].get<std::string>().empty())
                throw std::runtime_error(path + ": model " + std::to_string(i + 1) + " needs a non-empty \"" + key +
                                         "\" string");
            return m[key].get<std::string>();
        };
        CatalogModel model{text("file"), text("name"), text("sentence"), {}};
        model.examples.push_back(model.sentence);
        if (m.contains("examples")) {
            const auto& list = m["examples"];
            if (!list.is_array())
                throw std::runtime_error(path + ": model " + std::to_string(i + 1) + ": \"examples\" must be an array of strings");
            for (const auto& e : list) {
                if (!e.is_string() || e.get<std::string>().empty())
                    throw std::runtime_error(path + ": model " + std::to_string(i + 1) +
                                             ": every entry of \"examples\" must be a non-empty string");
                if (std::find(model.examples.begin(), model.examples.end(), e.get<std::string>()) == model.examples.end())
                    model.examples.push_back(e.get<std::string>());
            }
        }
        models.push_back(std::move(model));
    }
    return models;
}

}  // namespace tx::explain
