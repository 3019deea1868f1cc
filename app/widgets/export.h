// Exports of heatmaps and plots: PNG images (stb_image_write) and CSV data, written atomically
// (a temporary name in the same folder, then rename) so a reader never sees half a file.
#pragma once
#include <string>
#include <vector>

namespace tx::app {

// rgba: width*height*4 bytes, top row first. Throws std::runtime_error naming the path.
void write_png_atomic(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba);
// Writes `text` to path atomically. Throws std::runtime_error naming the path.
void write_text_atomic(const std::string& path, const std::string& text);
// A matrix as CSV: a header row of column labels (first cell `corner`), then one row per label.
std::string matrix_csv(const float* values, int rows, int cols, const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& col_labels, const std::string& corner);
// Quotes a CSV field when it holds a comma, quote or newline (RFC 4180).
std::string csv_field(const std::string& text);
// A file-name-safe version of text ("encoder.layers.0 self_attn" -> "encoder.layers.0_self_attn").
std::string safe_file_name(const std::string& text);

}  // namespace tx::app
