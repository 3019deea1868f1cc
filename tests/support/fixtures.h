// Where the tests find their inputs, and the id rows of a traced fixture: shared so that every
// test reads the same folders the same way.
#pragma once

#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/safetensors.h"

namespace tx::test {

inline const std::string ASSETS = std::string(TX_SOURCE_DIR) + "/assets";
inline const std::string REVERSE_MODEL = ASSETS + "/models/reverse.safetensors";

// A file of tests/fixtures (made by tools/make_fixtures.py and kin).
inline std::string fixture(const std::string& name) { return std::string(TX_SOURCE_DIR) + "/tests/fixtures/" + name; }

// The Post-LN encoder-decoder that PyTorch traced (tests/fixtures/golden_post.*).
inline Checkpoint golden_checkpoint() { return load_checkpoint(fixture("golden_post.ckpt.safetensors")); }

// A fixture's [B, L] id tensor as B rows, the trailing PAD ids left out.
inline std::vector<std::vector<int>> rows_of(const NamedTensor& ids, int pad = 0) {
    const auto B = static_cast<size_t>(ids.shape.at(0)), L = static_cast<size_t>(ids.shape.at(1));
    std::vector<std::vector<int>> rows(B);
    for (size_t b = 0; b < B; ++b) {
        for (size_t j = 0; j < L; ++j) rows[b].push_back(static_cast<int>(ids.data[b * L + j]));
        while (!rows[b].empty() && rows[b].back() == pad) rows[b].pop_back();
    }
    return rows;
}

}  // namespace tx::test
