// The self-attention window's rule (see tx/attention_window.h).
#include "tx/attention_window.h"

#include <algorithm>
#include <cstdlib>

namespace tx {

bool is_global_position(const ModelConfig& c, int position) {
    return std::binary_search(c.global_positions.begin(), c.global_positions.end(), position);
}

bool encoder_window_keeps(const ModelConfig& c, int query, int key) {
    if (c.window == 0 || is_global_position(c, query) || is_global_position(c, key)) return true;
    const int distance = std::abs(query - key), d = c.window_dilation;
    return distance % d == 0 && distance / d <= c.window / 2;
}

bool decoder_window_keeps(const ModelConfig& c, int query, int key) {
    if (c.window == 0 || key > query || is_global_position(c, query) || is_global_position(c, key)) return true;
    const int back = query - key, d = c.window_dilation;
    return back % d == 0 && back / d < c.window;
}

std::string window_mask_reason(const ModelConfig& c, bool decoder, int query, int key) {
    const bool keeps = decoder ? decoder_window_keeps(c, query, key) : encoder_window_keeps(c, query, key);
    if (keeps) return "";
    const int d = c.window_dilation, distance = std::abs(query - key);
    const std::string k = "key " + std::to_string(key), q = "query " + std::to_string(query);
    std::string text = "sliding window: " + k + " is " + std::to_string(distance) + (distance == 1 ? " position " : " positions ") +
                       (decoder ? "back" : "away") + ", and " + q + " sees only ";
    if (decoder) {
        const int reach = (c.window - 1) * d;
        text += d == 1 ? "the last " + std::to_string(c.window)
                       : std::to_string(c.window) + " keys " + std::to_string(d) + " apart, back to " +
                             std::to_string(reach) + " positions";
    } else {
        const int reach = c.window / 2 * d;
        text += d == 1 ? "keys at most \xE2\x8C\x8AW/2\xE2\x8C\x8B = " + std::to_string(c.window / 2) + " away"
                       : "keys " + std::to_string(d) + " apart, up to " + std::to_string(reach) + " positions away";
    }
    if (d > 1 && distance % d != 0 && distance <= (decoder ? (c.window - 1) * d : c.window / 2 * d))
        text += "; " + std::to_string(distance) + " is not a multiple of the dilation " + std::to_string(d);
    if (!c.global_positions.empty()) text += "; neither is a global position";
    return text;
}

std::string window_summary(const ModelConfig& c) {
    if (c.window == 0) return "full";
    std::string extra;
    if (c.window_dilation > 1) extra = "dilation " + std::to_string(c.window_dilation);
    if (!c.global_positions.empty()) extra += (extra.empty() ? "global " : "; global ") + global_positions_text(c);
    return std::to_string(c.window) + (extra.empty() ? "" : " (" + extra + ")");
}

std::string global_positions_text(const ModelConfig& c) {
    std::string text;
    for (size_t n = 0; n < c.global_positions.size(); ++n) text += (n ? ", " : "") + std::to_string(c.global_positions[n]);
    return text;
}


std::vector<int> parse_global_positions(const std::string& text) {
    std::vector<int> positions;
    std::string piece;
    auto take = [&]() {
        if (piece.empty()) return;
        const bool digits = piece.size() <= 9 && piece.find_first_not_of("0123456789") == std::string::npos;
        if (!digits)
            throw ConfigError("'" + piece + "' is not a position (a whole number from 0 up)");
        positions.push_back(std::stoi(piece));
        piece.clear();
    };
    for (char ch : text) {
        if (ch == ',' || ch == ' ' || ch == '\t') take();
        else piece += ch;
    }
    take();
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    return positions;
}

}  // namespace tx
