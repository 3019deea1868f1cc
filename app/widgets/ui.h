// Small drawing helpers shared by panels and widgets: rotated text, help markers, token chips,
// number and byte formatting.
#pragma once
#include <string>

#include "imgui.h"

namespace tx::app {

// Draws text rotated by `angle` radians (counter-clockwise on screen for negative angles is
// upward reading) with its start at `pos`; returns nothing. 1.86 has no rotated text: we rotate
// the vertices the text added to the draw list.
void draw_text_rotated(ImDrawList* dl, ImVec2 pos, ImU32 colour, const char* text, float angle);
// "(?)" that shows `text` as a tooltip.
void help_marker(const char* text);
// A tooltip that wraps at a readable width, when the last item is hovered.
void item_tooltip(const char* text);
// One token as a chip: the text on top and the id below. kind picks the colours.
enum class ChipKind { Normal, Unknown, Special, Pad, Highlight };
void token_chip(const std::string& text, int id, ChipKind kind, const char* tooltip = nullptr);
// The size token_chip() draws for this text and id (to lay out groups of chips).
ImVec2 token_chip_size(const std::string& text, int id);
// The monospaced font (DejaVu Sans Mono) for formulas and numbers; the default font when absent.
ImFont*& mono_font();
// "1.5 KiB", "12 B"
std::string format_bytes(double bytes);
// Short number: 3 significant digits, −∞ / ∞ / NaN spelled out.
std::string format_value(float v);
// Truncates text to at most `max_width` pixels with an ellipsis.
std::string fit_text(const std::string& text, float max_width);
// Text in the disabled colour, wrapped at the window's edge: the panels' explanatory sentences.
void disabled_paragraph(const std::string& text);

}  // namespace tx::app
