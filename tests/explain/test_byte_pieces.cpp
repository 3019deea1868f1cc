// The byte-piece texts (explain/byte_pieces.h): which pieces are byte pieces, and that the notes
// appear exactly where a learner sees a byte piece or a U+FFFD.
#include <gtest/gtest.h>

#include "byte_pieces.h"

namespace tx::explain {
namespace {

TEST(BytePieces, OnlyTheVocabularysHexPiecesAreBytePieces) {
    EXPECT_TRUE(is_byte_piece("<0xE2>"));
    EXPECT_TRUE(is_byte_piece("<0x00>"));
    EXPECT_FALSE(is_byte_piece("<0xE2"));
    EXPECT_FALSE(is_byte_piece("<0xG2>"));
    EXPECT_FALSE(is_byte_piece("<unk>"));
    EXPECT_FALSE(is_byte_piece("\xE2\x96\x81" "dog"));
    EXPECT_NE(byte_piece_text("<0xE2>").find("0xE2"), std::string::npos);
}

TEST(BytePieces, TheReplacementNoteAppearsOnlyWithAReplacementCharacter) {
    EXPECT_EQ(replacement_character_note("El perro duerme."), "");
    EXPECT_EQ(replacement_character_note("caf\xC3\xA9"), "");   // é is a character, not a stray byte
    EXPECT_NE(replacement_character_note("stickarth\xEF\xBF\xBDH\xEF\xBF\xBD" "be."), "");
}

}  // namespace
}  // namespace tx::explain
