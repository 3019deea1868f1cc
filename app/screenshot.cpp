// Back-buffer capture (see screenshot.h). OpenGL's rows start at the bottom: we flip.
#include "screenshot.h"

#include <GL/gl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "widgets/export.h"

namespace tx::app {

std::vector<unsigned char> read_back_buffer(int x, int y, int w, int h, int framebuffer_height) {
    std::vector<unsigned char> flipped;
    if (w <= 0 || h <= 0) return flipped;
    std::vector<unsigned char> rows(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(x, framebuffer_height - (y + h), w, h, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    flipped.resize(rows.size());
    const size_t stride = static_cast<size_t>(w) * 4;
    for (int r = 0; r < h; ++r)
        std::memcpy(&flipped[static_cast<size_t>(r) * stride], &rows[static_cast<size_t>(h - 1 - r) * stride], stride);
    for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;   // the window is opaque
    return flipped;
}

void write_back_buffer_png(const std::string& path, int x, int y, int w, int h, int framebuffer_height) {
    const auto rgba = read_back_buffer(x, y, w, h, framebuffer_height);
    if (rgba.empty()) throw std::runtime_error("cannot write " + path + ": empty region");
    write_png_atomic(path, w, h, rgba);
}

}  // namespace tx::app
