// Font sampling (see font_sampling.h). Measured under Xvfb at 1600×1000 with a 481-token sentence
// (docs/speed.md, frame times): the Attention layout's median frame went from ~16 ms to ~13 ms.
#include "widgets/font_sampling.h"

#include <GL/gl.h>

#include <cstdint>
#include <memory>

namespace tx::app {

namespace {

struct Twin {
    std::unique_ptr<ImFontAtlas> atlas = std::make_unique<ImFontAtlas>();
    GLuint texture = 0;
    ImTextureID sampled = nullptr;   // the main atlas texture last set to NEAREST
};

Twin& twin() {
    static Twin t;
    return t;
}

void set_filter(GLuint texture, GLint filter) {
    GLint bound = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
}

}  // namespace

void add_scaled_font_twin(const char* file, float size, const ImWchar* ranges) {
    twin().atlas->AddFontFromFileTTF(file, size, nullptr, ranges);
}

void update_font_sampling() {
    Twin& t = twin();
    const ImTextureID main = ImGui::GetIO().Fonts->TexID;
    if (main && main != t.sampled) {
        set_filter(static_cast<GLuint>(reinterpret_cast<intptr_t>(main)), GL_NEAREST);
        t.sampled = main;
        // ImGui's textured anti-aliased lines need a bilinear atlas (ImDrawListFlags_AntiAliasedLinesUseTex):
        // lines take its geometric anti-aliasing instead.
        ImGui::GetStyle().AntiAliasedLinesUseTex = false;
    }
    if (t.texture == 0 && !t.atlas->Fonts.empty()) {
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        t.atlas->GetTexDataAsRGBA32(&pixels, &w, &h);
        GLint bound = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
        glGenTextures(1, &t.texture);
        glBindTexture(GL_TEXTURE_2D, t.texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
        t.atlas->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t.texture)));
        t.atlas->ClearTexData();
    }
}

void add_scaled_text(ImDrawList* dl, float size, ImVec2 pos, ImU32 colour, const char* text) {
    ImFont* current = ImGui::GetFont();
    const Twin& t = twin();
    const ImVector<ImFont*>& fonts = ImGui::GetIO().Fonts->Fonts;
    for (int i = 0; t.texture != 0 && i < fonts.Size && i < t.atlas->Fonts.Size; ++i)
        if (fonts[i] == current) {
            // AddText draws with the texture on top of the list's stack: the twin's, for these quads only
            dl->PushTextureID(t.atlas->TexID);
            dl->AddText(t.atlas->Fonts[i], size, pos, colour, text);
            dl->PopTextureID();
            return;
        }
    dl->AddText(current, size, pos, colour, text);
}

}  // namespace tx::app
