// Reads the rendered back buffer (after ImGui's draw data, before the swap) and writes PNGs:
// the whole window for --screenshot, or a widget's rectangle for "Export picture".
#pragma once
#include <string>
#include <vector>

namespace tx::app {

// RGBA of the rectangle (x, y, w, h) in framebuffer pixels, top-left origin, top row first.
std::vector<unsigned char> read_back_buffer(int x, int y, int w, int h, int framebuffer_height);
// Writes the rectangle to a PNG atomically; throws std::runtime_error naming the path.
void write_back_buffer_png(const std::string& path, int x, int y, int w, int h, int framebuffer_height);

}  // namespace tx::app
