// How text is sampled from the font atlas. On a software rasteriser (Mesa's llvmpipe, e.g. under
// Xvfb) every pixel ImGui draws samples the atlas, solid fills included (they read its white
// texel), and bilinear sampling costs several times a nearest one. Text drawn at its baked size
// sits on whole pixels, where both give the same glyphs, so the atlas is sampled NEAREST; text
// drawn smaller (token ids, values in cells) uses a twin atlas of the same fonts sampled LINEAR.
#pragma once
#include "imgui.h"

namespace tx::app {

// After fonts are added to io.Fonts: adds the same fonts (files, sizes, glyph ranges) to the twin.
// ranges must outlive the atlases.
void add_scaled_font_twin(const char* file, float size, const ImWchar* ranges);

// Once per frame, after the renderer's NewFrame (which creates the atlas texture): sets the main
// atlas to NEAREST whenever its texture is new, and uploads the twin's texture once.
void update_font_sampling();

// ImDrawList::AddText of the current font at another size than its own: drawn from the twin
// atlas (from the main one before the twin's texture exists, or for a font the twin lacks).
void add_scaled_text(ImDrawList* dl, float size, ImVec2 pos, ImU32 colour, const char* text);

}  // namespace tx::app
