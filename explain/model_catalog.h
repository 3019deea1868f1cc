// The shipped models (assets/models/catalog.json): what File -> Models lists, each with the file,
// a short name for the menu, a sentence that suits it (the one it opens on) and more examples for
// the Input panel's Examples list. What a model was trained to do is not
// written here: it comes from the checkpoint's own training record (describe_training).
#pragma once
#include <string>
#include <vector>

namespace tx::explain {

struct CatalogModel {
    std::string file;       // relative to assets/models/
    std::string name;       // menu label, "English → Spanish translation"
    std::string sentence;   // an input that suits the model
    std::vector<std::string> examples;   // sentence first, then the optional "examples" array
};

// Reads the catalog; throws std::runtime_error naming the file and the problem.
std::vector<CatalogModel> read_model_catalog(const std::string& path);

}  // namespace tx::explain
