// PNG and CSV exports, written to a temporary name and renamed into place (see export.h).
// The one translation unit that holds stb_image_write's implementation.
#include "widgets/export.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace tx::app {

namespace {

std::string temporary_name(const std::string& path) { return path + ".tmp" + std::to_string(::getpid()); }

void rename_into_place(const std::string& tmp, const std::string& path) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error("cannot write " + path + ": " + ec.message());
    }
}

void make_parent(const std::string& path) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
}

}  // namespace

void write_png_atomic(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba) {
    if (width <= 0 || height <= 0 || rgba.size() < static_cast<size_t>(width) * static_cast<size_t>(height) * 4)
        throw std::runtime_error("cannot write " + path + ": empty image");
    make_parent(path);
    const std::string tmp = temporary_name(path);
    if (!stbi_write_png(tmp.c_str(), width, height, 4, rgba.data(), width * 4)) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error("cannot write " + path + ": the PNG encoder or the file system failed");
    }
    rename_into_place(tmp, path);
}

void write_text_atomic(const std::string& path, const std::string& text) {
    make_parent(path);
    const std::string tmp = temporary_name(path);
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw std::runtime_error("cannot write " + path);
        }
    }
    rename_into_place(tmp, path);
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string matrix_csv(const float* values, int rows, int cols, const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& col_labels, const std::string& corner) {
    std::string out = csv_field(corner);
    for (int c = 0; c < cols; ++c) {
        out += ',';
        out += csv_field(c < static_cast<int>(col_labels.size()) ? col_labels[static_cast<size_t>(c)] : std::to_string(c));
    }
    out += "\n";
    char buf[32];
    for (int r = 0; r < rows; ++r) {
        out += csv_field(r < static_cast<int>(row_labels.size()) ? row_labels[static_cast<size_t>(r)] : std::to_string(r));
        for (int c = 0; c < cols; ++c) {
            const float v = values[static_cast<size_t>(r) * static_cast<size_t>(cols) + static_cast<size_t>(c)];
            if (std::isinf(v))
                out += v < 0 ? ",-inf" : ",inf";
            else if (std::isnan(v))
                out += ",nan";
            else {
                std::snprintf(buf, sizeof buf, ",%.9g", static_cast<double>(v));
                out += buf;
            }
        }
        out += "\n";
    }
    return out;
}

std::string safe_file_name(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '.' || c == '-' || c == '_')
            out += static_cast<char>(c);
        else if (!out.empty() && out.back() != '_')
            out += '_';
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out.empty() ? "export" : out;
}

}  // namespace tx::app
