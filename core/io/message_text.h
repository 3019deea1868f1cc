// How the checkpoint and safetensors readers write what they found into an error message
// (core-internal): a shape as "[2, 3]", and text from a file made printable ASCII.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tx {

inline std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// The first max_chars bytes of text with every byte outside printable ASCII as '?': names and
// messages quoted from a file (nlohmann's messages quote the bytes they choked on).
inline std::string printable(const std::string& text, size_t max_chars = std::string::npos) {
    std::string out = text.substr(0, max_chars);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = '?';
    return out;
}

}  // namespace tx
