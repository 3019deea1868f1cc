// The heads that park their weight on <eos> (explain/eos_parking.h), on hand-made snapshots whose
// counts follow from the numbers written here: a head counts when its real rows put more than half
// their weight on <eos> on average; PAD rows, decoder self-attention and missing outputs count nothing.
#include <gtest/gtest.h>

#include "eos_parking.h"

namespace tx::explain {
namespace {

// B = 1, heads 2; source "a b <eos> <pad>" (S = 4), decoder input "<bos> a" (T = 2).
SessionView snapshot() {
    SessionView v;
    v.config.heads = 2;
    v.vocabulary = {"<pad>", "<bos>", "<eos>", "<unk>", "a", "b"};
    v.B = 1, v.S = 4, v.T = 2;
    v.src_ids = {4, 5, 2, 0};
    v.tgt_ids = {1, 4};
    // Steps 0..2: the probabilities of an encoder, a decoder self- and a cross-attention block.
    const AttentionKind kinds[3] = {AttentionKind::EncoderSelf, AttentionKind::DecoderSelf, AttentionKind::Cross};
    for (size_t i = 0; i < 3; ++i) {
        AttentionBlock a{};
        a.kind = kinds[i];
        a.probs = i;
        v.attention.push_back(a);
    }
    // Encoder [H=2, S=4, S=4]: head 0 puts 0.9 on <eos> (column 2) in the 3 real rows; head 1 puts
    // 0.6 there, and its PAD row all on "a": it counts only because PAD rows are skipped (with the
    // PAD row the mean would be 3 × 0.6 / 4 = 0.45).
    std::vector<float> enc(2 * 4 * 4, 0.0f);
    for (int i = 0; i < 3; ++i) {
        enc[static_cast<size_t>((0 * 4 + i) * 4 + 2)] = 0.9f;
        enc[static_cast<size_t>((0 * 4 + i) * 4 + 0)] = 0.1f;
        enc[static_cast<size_t>((1 * 4 + i) * 4 + 2)] = 0.6f;
        enc[static_cast<size_t>((1 * 4 + i) * 4 + 1)] = 0.4f;
    }
    enc[static_cast<size_t>((1 * 4 + 3) * 4 + 0)] = 1.0f;   // head 1's PAD row: all on "a"
    // Decoder self [H=2, T=2, T=2]: never read.
    std::vector<float> dec(2 * 2 * 2, 0.5f);
    // Cross [H=2, T=2, S=4]: head 0 half and half (0.5 on <eos>: not more than a half), head 1 all on "b".
    std::vector<float> cross(2 * 2 * 4, 0.0f);
    for (int t = 0; t < 2; ++t) {
        cross[static_cast<size_t>((0 * 2 + t) * 4 + 2)] = 0.5f;
        cross[static_cast<size_t>((0 * 2 + t) * 4 + 0)] = 0.5f;
        cross[static_cast<size_t>((1 * 2 + t) * 4 + 1)] = 1.0f;
    }
    v.outputs = {enc, dec, cross};
    v.cursor = 3;
    return v;
}

TEST(EosParking, CountsTheHeadsWhoseRealRowsRestOnEos) {
    const EosParking r = eos_parking(snapshot(), 0);
    EXPECT_EQ(r.heads, 4);    // encoder 2 + cross 2; decoder self-attention is not counted
    EXPECT_EQ(r.parked, 2);   // encoder heads 0 (0.9) and 1 (0.6 over the real rows)
}

TEST(EosParking, MissingOutputsDecoderOnlyAndBadRowsCountNothing) {
    SessionView v = snapshot();
    v.outputs[2].clear();   // cross-attention fused: not materialised
    EXPECT_EQ(eos_parking(v, 0).heads, 2);
    EXPECT_EQ(eos_parking(v, 1).heads, 0);
    v.decoder_only = true;
    EXPECT_EQ(eos_parking(v, 0).heads, 0);
}

}  // namespace
}  // namespace tx::explain
