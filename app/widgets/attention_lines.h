// Attention as lines (BertViz's head view): key tokens in a column on the left, query tokens in a
// column on the right, one line from each query to each key it attends to, as opaque as the
// weight, one colour per head. Hovering a token keeps only its lines. Values are one batch row's
// probabilities [H, R, C] (query rows × key columns), post-softmax and pre-dropout.
#pragma once
#include <string>
#include <vector>

#include "imgui.h"

namespace tx::app {

struct AttentionLinesSpec {
    const char* id = "lines";
    const float* probs = nullptr;                      // [H, rows, cols]
    int heads = 0, rows = 0, cols = 0;
    const std::vector<std::string>* row_labels = nullptr;   // queries, right column
    const std::vector<std::string>* col_labels = nullptr;   // keys, left column
    std::vector<bool> head_on;                         // heads to draw (size heads)
    std::vector<bool> row_used;                        // false: a PAD query, computed but unused (no lines)
    float width = 0.0f;                                // 0: the available width
};

// The colour of head h, shared by the lines and the head checkboxes that choose them.
ImU32 head_colour(int h, float alpha = 1.0f);

void draw_attention_lines(const AttentionLinesSpec& spec);

}  // namespace tx::app
