// Training a SentencePiece BPE model (Debian's libsentencepiece) on sentences, in memory: the
// subword vocabulary of the translation and copy models. Pieces 0..3 are <pad> <bos> <eos>
// <unk>, every byte has a byte piece (so any text encodes, nothing becomes UNK), and the text is
// not normalised (what is typed is what is encoded).
#pragma once
#include <string>
#include <vector>

namespace tx {

inline constexpr int MIN_SUBWORD_VOCAB = 300;   // 4 specials + 256 byte pieces + some characters

// Returns the serialized model. vocab_size is an upper bound: a small corpus may give fewer
// pieces. Deterministic: the same sentences and size give the same model. Throws
// std::invalid_argument for no sentences, vocab_size outside [MIN_SUBWORD_VOCAB, 64000] or below
// what the text's characters need (the message says how many), and
// std::runtime_error with SentencePiece's message when training fails.
std::string train_sentencepiece(const std::vector<std::string>& sentences, int vocab_size);

}  // namespace tx
