// The length rules (tx/length_limits.h), worked out by hand from their definitions.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tx/length_limits.h"

using namespace tx;

TEST(LengthLimits, TranslationIsTwiceTheSourcePlusTenWithinMaxLen) {
    EXPECT_EQ(translation_limit(5, 128), 20);     // 2 x 5 + 10
    EXPECT_EQ(translation_limit(58, 128), 126);   // 2 x 58 + 10
    EXPECT_EQ(translation_limit(59, 128), 127);   // 128 would not fit: max_len - 1
    EXPECT_EQ(translation_limit(100, 128), 127);
    EXPECT_EQ(translation_limit(3, 1), 0);        // max_len 1: BOS fills it
}

TEST(LengthLimits, ContinuationIsAtMost32WithinMaxLen) {
    EXPECT_EQ(continuation_limit(10, 128), CONTINUATION_TOKENS);
    EXPECT_EQ(CONTINUATION_TOKENS, 32);
    EXPECT_EQ(continuation_limit(100, 128), 27);   // 128 - 1 (BOS) - 100
    EXPECT_EQ(continuation_limit(127, 128), 0);    // the prompt fills max_len
    EXPECT_EQ(continuation_limit(200, 128), 0);
}

TEST(LengthLimits, AnInputFitsWithItsMarker) {
    EXPECT_NO_THROW(require_fits(127, Marker::Eos, 128, "sentence 1"));   // 127 pieces + EOS = 128
    try {
        require_fits(128, Marker::Bos, 128, "the target text");
        FAIL() << "128 pieces + BOS do not fit max_len 128";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "the target text has 128 tokens; with BOS it must fit max_len 128");
    }
}
