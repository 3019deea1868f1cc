// tx-png-check: checks that a screenshot is not blank and that regions show content.
// usage: tx-png-check FILE.png [--min-colours N] [--region x0,y0,x1,y1[:N]]...
// Fractions in [0,1] of the width/height. A region passes when it holds at least N distinct
// colours (quantised to 5 bits per channel) and 2% pixels that differ from its most common one.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

namespace {

struct Region {
    double x0, y0, x1, y1;
    int min_colours;
};

bool check_region(const unsigned char* px, int w, int h, const Region& r, const std::string& name) {
    const int ax = static_cast<int>(r.x0 * w), ay = static_cast<int>(r.y0 * h);
    const int bx = static_cast<int>(r.x1 * w), by = static_cast<int>(r.y1 * h);
    std::unordered_map<unsigned, long> counts;
    long total = 0;
    for (int y = ay; y < by && y < h; ++y)
        for (int x = ax; x < bx && x < w; ++x) {
            const unsigned char* p = px + (static_cast<size_t>(y) * w + x) * 4;
            const unsigned key = (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
            ++counts[key];
            ++total;
        }
    long most = 0;
    for (const auto& [k, n] : counts) most = std::max(most, n);
    const double other = total ? 1.0 - static_cast<double>(most) / static_cast<double>(total) : 0.0;
    const bool ok = static_cast<int>(counts.size()) >= r.min_colours && other >= 0.02;
    std::printf("%s %s: %zu colours, %.1f%% non-background pixels (need %d colours, 2%%)\n", ok ? "ok  " : "FAIL",
                name.c_str(), counts.size(), 100.0 * other, r.min_colours);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: tx-png-check FILE.png [--min-colours N] [--region x0,y0,x1,y1[:N]]...\n");
        return 2;
    }
    int min_colours = 40;
    std::vector<Region> regions;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--min-colours" && i + 1 < argc) {
            min_colours = std::atoi(argv[++i]);
        } else if (a == "--region" && i + 1 < argc) {
            Region r{};
            r.min_colours = 8;
            if (std::sscanf(argv[++i], "%lf,%lf,%lf,%lf:%d", &r.x0, &r.y0, &r.x1, &r.y1, &r.min_colours) < 4) {
                std::fprintf(stderr, "tx-png-check: bad region '%s'\n", argv[i]);
                return 2;
            }
            regions.push_back(r);
        } else {
            std::fprintf(stderr, "tx-png-check: unknown argument '%s'\n", a.c_str());
            return 2;
        }
    }
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 4);
    if (!px) {
        std::fprintf(stderr, "tx-png-check: cannot read %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    std::printf("%s: %dx%d\n", argv[1], w, h);
    bool ok = check_region(px, w, h, Region{0, 0, 1, 1, min_colours}, "whole image");
    for (size_t i = 0; i < regions.size(); ++i) ok &= check_region(px, w, h, regions[i], "region " + std::to_string(i + 1));
    stbi_image_free(px);
    return ok ? 0 : 1;
}
