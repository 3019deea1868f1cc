// Tests of the per-pixel-column polyline envelope (app/widgets/polyline_envelope.*) against an
// independent reference: the line sampled densely, min, max and mean of the samples per column.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "widgets/polyline_envelope.h"

using tx::app::ColumnSpan;
using tx::app::polyline_column_envelope;

namespace {

// y of the interpolated line at x (xs sorted, x inside the range).
double line_at(const std::vector<float>& xs, const std::vector<float>& ys, double x) {
    for (size_t i = 0; i + 1 < xs.size(); ++i)
        if (x >= xs[i] && x <= xs[i + 1] && xs[i + 1] > xs[i])
            return ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i]);
    return std::nan("");
}

}  // namespace

TEST(PolylineEnvelope, MatchesDenseSamplingOfTheLine) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> step(0.05f, 3.0f), val(-100.0f, 100.0f);
    std::vector<float> xs, ys;
    float x = 10.3f;
    for (int i = 0; i < 300; ++i) {
        xs.push_back(x);
        ys.push_back(val(rng));
        x += step(rng);
    }
    const float x_begin = 5.0f;
    const int columns = static_cast<int>(x - x_begin) + 3;
    const std::vector<ColumnSpan> env = polyline_column_envelope(xs, ys, x_begin, columns);
    ASSERT_EQ(env.size(), static_cast<size_t>(columns));
    const int samples = 2000;
    for (int c = 0; c < columns; ++c) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        int count = 0;
        for (int k = 0; k <= samples; ++k) {
            const double sx = x_begin + c + static_cast<double>(k) / samples;
            if (sx < xs.front() || sx > xs.back()) continue;
            const double y = line_at(xs, ys, sx);
            lo = std::min(lo, y);
            hi = std::max(hi, y);
            sum += y;
            ++count;
        }
        if (count < 3) continue;         // too little of the line inside to compare
        ASSERT_TRUE(env[c].any) << c;
        // A kink between samples can hide up to (slope * column / samples) of an extreme.
        EXPECT_NEAR(env[c].lo, lo, 0.5) << c;
        EXPECT_NEAR(env[c].hi, hi, 0.5) << c;
        EXPECT_LE(env[c].lo, lo + 1e-3) << c;
        EXPECT_GE(env[c].hi, hi - 1e-3) << c;
        EXPECT_NEAR(env[c].mean, sum / count, 0.5) << c;
    }
    EXPECT_FALSE(env[0].any);            // before the first point
    EXPECT_FALSE(env[static_cast<size_t>(columns - 1)].any);   // after the last
}

TEST(PolylineEnvelope, ManyPointsInOneColumnSpanTheirRange) {
    // A zigzag of 10 points inside one column: the span is its full range, the neighbours see only
    // the segments that reach them.
    std::vector<float> xs, ys;
    for (int i = 0; i < 10; ++i) {
        xs.push_back(3.05f + 0.1f * i);
        ys.push_back(i % 2 == 0 ? -5.0f : 7.0f);
    }
    const auto env = polyline_column_envelope(xs, ys, 0.0f, 6);
    ASSERT_TRUE(env[3].any);
    EXPECT_FLOAT_EQ(env[3].lo, -5.0f);
    EXPECT_FLOAT_EQ(env[3].hi, 7.0f);
    EXPECT_NEAR(env[3].mean, 1.0f, 1e-4);   // each segment averages (−5 + 7) / 2
    for (int c : {0, 1, 2, 4, 5}) EXPECT_FALSE(env[static_cast<size_t>(c)].any) << c;
}

TEST(PolylineEnvelope, VerticalSegmentAndEmptyInput) {
    const auto env = polyline_column_envelope({2.5f, 2.5f, 4.5f}, {1.0f, 9.0f, 9.0f}, 0.0f, 6);
    EXPECT_FLOAT_EQ(env[2].lo, 1.0f);
    EXPECT_FLOAT_EQ(env[2].hi, 9.0f);
    EXPECT_FLOAT_EQ(env[3].lo, 9.0f);
    EXPECT_FLOAT_EQ(env[4].hi, 9.0f);
    EXPECT_FALSE(env[5].any);
    EXPECT_TRUE(polyline_column_envelope({}, {}, 0.0f, 0).empty());
    const auto none = polyline_column_envelope({}, {}, 0.0f, 4);
    for (const auto& s : none) EXPECT_FALSE(s.any);
}

namespace {

// Pixel (x, y) channel ch of a w-wide RGBA image.
int px(const std::vector<unsigned char>& img, int w, int x, int y, int ch) {
    return img[(static_cast<size_t>(y) * w + x) * 4 + ch];
}

}  // namespace

TEST(PolylineEnvelope, RasterisedFlatLineHasAnAntiAliasedCoreAndFringes) {
    // y = 10 exactly: ImGui's 1.8 px line is opaque over 9.6..10.4 and fades to 0 at 8.6 and 11.4,
    // so the pixel centres 9.5 and 10.5 get 0.9 and the rows beyond nothing.
    const auto img = tx::app::rasterise_dense_lines({{0.0f, 20.0f}}, {{10.0f, 10.0f}}, {0xFF0000FFu}, 0, 0, 20, 20);
    ASSERT_EQ(img.size(), 20u * 20u * 4u);
    for (int x = 1; x < 19; ++x) {
        EXPECT_NEAR(px(img, 20, x, 9, 3), 0.9 * 255, 1.0) << x;
        EXPECT_NEAR(px(img, 20, x, 10, 3), 0.9 * 255, 1.0) << x;
        EXPECT_EQ(px(img, 20, x, 8, 3), 0) << x;
        EXPECT_EQ(px(img, 20, x, 11, 3), 0) << x;
        EXPECT_EQ(px(img, 20, x, 9, 0), 255) << x;   // straight alpha: the colour itself
        EXPECT_EQ(px(img, 20, x, 9, 2), 0) << x;
    }
}

TEST(PolylineEnvelope, RasterisedSteepLineIsTwoPixelsWideAndLinesCompositeInOrder) {
    // Near-vertical in column 5 from y 2 to 18: opaque where the pixel centre lies in 1.6..18.4,
    // in columns 4 and 5. A half-transparent blue line over it mixes the colours half and half.
    const std::vector<float> xs = {5.5f, 5.6f}, ys = {2.0f, 18.0f};
    const auto red = tx::app::rasterise_dense_lines({xs}, {ys}, {0xFF0000FFu}, 0, 0, 10, 20);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 10; ++x) {
            const bool inside = (x == 4 || x == 5) && y >= 2 && y <= 17;
            EXPECT_EQ(px(red, 10, x, y, 3), inside ? 255 : 0) << x << "," << y;
        }
    const auto both = tx::app::rasterise_dense_lines({xs, xs}, {ys, ys}, {0xFF0000FFu, 0x80FF0000u}, 0, 0, 10, 20);
    EXPECT_EQ(px(both, 10, 5, 10, 3), 255);
    EXPECT_NEAR(px(both, 10, 5, 10, 0), 127, 1);
    EXPECT_NEAR(px(both, 10, 5, 10, 2), 128, 1);
    // The image's origin shifts the line: the same line seen from (2, 5) lands 2 left and 5 up.
    const auto shifted = tx::app::rasterise_dense_lines({xs}, {ys}, {0xFF0000FFu}, 2, 5, 10, 20);
    EXPECT_EQ(px(shifted, 10, 3, 0, 3), 255);
    EXPECT_EQ(px(shifted, 10, 3, 12, 3), 255);
    EXPECT_EQ(px(shifted, 10, 3, 13, 3), 0);
    EXPECT_EQ(px(shifted, 10, 4, 5, 3), 0);
    EXPECT_TRUE(tx::app::rasterise_dense_lines({xs}, {ys}, {0xFF0000FFu}, 0, 0, 0, 5).empty());
}
