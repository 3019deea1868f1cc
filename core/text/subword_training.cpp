// SentencePiece BPE training from memory (subword_training.h). The settings are chosen for a
// teaching model whose pieces must round-trip any typed text: identity normalisation (no NFKC
// folding), byte fallback, the project's special ids, and one thread with every sentence used
// (no sampling), so the result is deterministic.
#include "text/subword_training.h"

#include <sentencepiece_trainer.h>

#include <stdexcept>
#include <unordered_map>

namespace tx {

namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
public:
    explicit VectorIterator(const std::vector<std::string>& sentences) : m_sentences(sentences) {}
    bool done() const override { return m_index >= m_sentences.size(); }
    void Next() override { ++m_index; }
    const std::string& value() const override { return m_sentences[m_index]; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    const std::vector<std::string>& m_sentences;
    size_t m_index = 0;
};

}  // namespace

std::string train_sentencepiece(const std::vector<std::string>& sentences, int vocab_size) {
    if (sentences.empty()) throw std::invalid_argument("subword training: no sentences");
    if (vocab_size < MIN_SUBWORD_VOCAB || vocab_size > 64000)
        throw std::invalid_argument("subword vocabulary size (" + std::to_string(vocab_size) + ") must be between " +
                                    std::to_string(MIN_SUBWORD_VOCAB) + " and 64000");
    // The map form: the string form logs its whole command line to stderr before it reads minloglevel.
    const std::unordered_map<std::string, std::string> args = {
        {"model_type", "bpe"}, {"vocab_size", std::to_string(vocab_size)}, {"hard_vocab_limit", "false"},
        {"character_coverage", "1.0"}, {"byte_fallback", "true"}, {"normalization_rule_name", "identity"},
        {"split_digits", "true"}, {"pad_id", "0"}, {"bos_id", "1"}, {"eos_id", "2"}, {"unk_id", "3"},
        {"pad_piece", "<pad>"}, {"bos_piece", "<bos>"}, {"eos_piece", "<eos>"}, {"unk_piece", "<unk>"},
        {"input_sentence_size", "0"}, {"shuffle_input_sentence", "false"}, {"num_threads", "1"},
        {"max_sentence_length", "100000"}, {"minloglevel", "2"}};
    VectorIterator iterator(sentences);
    std::string model;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args, &iterator, &model);
    if (!status.ok()) {
        // SentencePiece's own words for a size below what the text needs: "Vocabulary size is
        // smaller than required_chars. 300 vs 314." Said in the option's terms instead.
        const std::string message = status.ToString();
        const size_t at = message.find("smaller than required_chars. ");
        if (at != std::string::npos) {
            const std::string counts = message.substr(at + 29);
            const size_t vs = counts.find(" vs ");
            const std::string needed = vs == std::string::npos ? "" : counts.substr(vs + 4, counts.find_first_not_of("0123456789", vs + 4) - vs - 4);
            throw std::invalid_argument("a subword vocabulary of " + std::to_string(vocab_size) +
                                        " pieces is too small for this text: its characters, the special pieces and the "
                                        "byte pieces need " + (needed.empty() ? "more" : "at least " + needed) +
                                        "; ask for more pieces");
        }
        throw std::runtime_error("subword training failed: " + message);
    }
    return model;
}

}  // namespace tx
