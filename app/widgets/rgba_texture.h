// Uploads a w × h RGBA8 image (rows top to bottom, 4 bytes a pixel, packed) into an OpenGL texture
// sampled NEAREST and clamped at its edges: the textures that heatmaps and dense plots draw as one
// quad each. `id` 0 makes a new texture; otherwise that texture is refilled.
#pragma once

namespace tx::app {

void upload_rgba_texture(unsigned int& id, int w, int h, const void* pixels);

}  // namespace tx::app
