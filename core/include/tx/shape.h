// TensorShape: dimensions with their names, e.g. [B=1, H=8, T=9, S=12], as shown to learners.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tx {

struct TensorShape {
    std::vector<int64_t> dims;
    std::vector<std::string> names;   // one letter or word per dim ("B", "H", "T", "S", "dk"...)

    TensorShape() = default;
    TensorShape(std::vector<int64_t> d, std::vector<std::string> n) : dims(std::move(d)), names(std::move(n)) {}

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return n;
    }
    int rank() const { return static_cast<int>(dims.size()); }
    // "[B=1, H=8, T=9, S=12]"
    std::string str() const {
        std::string s = "[";
        for (size_t i = 0; i < dims.size(); ++i) {
            if (i) s += ", ";
            if (i < names.size() && !names[i].empty()) s += names[i] + "=";
            s += std::to_string(dims[i]);
        }
        return s + "]";
    }
    bool operator==(const TensorShape& o) const { return dims == o.dims; }
};

}  // namespace tx
