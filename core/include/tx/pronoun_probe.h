// Pronoun probes: sentences such as "The animal didn't cross the street because it was too
// tired." whose "it" refers to one of two nouns, and whose Spanish adjective must agree with that
// noun ("cansado" for el animal, "ancha" for la calle). Two measures:
//   - agreement: the greedy translation holds the reference adjective (the right gender and number);
//   - per head, the share of probes where attention puts more weight on the referent noun than on
//     the other one: the encoder's self-attention row of "it", and the decoder's cross-attention row
//     that writes the adjective (teacher-forced on the reference). Query rows x key columns; the
//     weights are the post-softmax, pre-dropout probabilities, summed over a word's pieces.
// Words are bleu_words() tokens (the regex \w+|[^\w\s]), as in assets/corpus/everyday/pronoun_test.tsv.
#pragma once
#include <string>
#include <vector>

#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx {

struct PronounProbe {
    std::string source, target;
    int pronoun = 0;            // source word index of the pronoun ("it")
    int referent = 0;           // source word index of the noun it refers to
    int other = 0;              // source word index of the other noun
    int target_adjective = 0;   // target word index of the adjective that agrees with the referent
    char gender = 'm';          // the referent's gender in Spanish: 'm' or 'f'
    int line = 0;
};

// Reads "English<TAB>Spanish<TAB>pronoun<TAB>referent<TAB>other<TAB>adjective<TAB>m|f" lines;
// throws std::runtime_error naming the file and line for a malformed one (wrong column count, an
// index that is not a word of its sentence, a pronoun index that is a noun's, a gender other than m or f).
std::vector<PronounProbe> read_pronoun_probes(const std::string& path);

// The adjective's other-gender form when its ending shows gender (-o/-a, -os/-as): "cansado" ->
// "cansada"; "" for a form that is the same in both genders ("débil", "grande").
std::string other_gender_form(const std::string& adjective);

struct HeadShares {
    int layers = 0, heads = 0;
    std::vector<int> referent_wins;   // [layers * heads]: probes where the referent outweighs the other noun
    std::vector<double> margin;       // [layers * heads]: mean over probes of (referent - other) weight
    int probes = 0;
    double share(int layer, int head) const {
        return probes ? static_cast<double>(referent_wins[static_cast<size_t>(layer * heads + head)]) / probes : 0.0;
    }
};

struct PronounReport {
    int probes = 0;
    int agreeing = 0;          // greedy output holds the reference adjective
    int marked = 0;            // probes whose adjective shows gender (other_gender_form non-empty)
    int marked_agreeing = 0;   // of those, the output holds the reference form
    // Pairs (decode only): groups of probes whose English differs only in its last word, with
    // "it" referring to different nouns across the group ("…too tired." / "…too wide."); agreeing:
    // every probe of the group agrees.
    int pairs = 0;
    int pairs_agreeing = 0;
    HeadShares encoder_self;   // "it" row of each encoder layer's self-attention
    HeadShares cross;          // the adjective-writing row of each decoder layer's cross-attention
};

// One pass per probe for the heads (teacher-forced) and one greedy decode per probe (decode =
// false skips the decodes). Throws std::invalid_argument for a model without an encoder.
PronounReport score_pronouns(Transformer& model, const Tokenizer& tokenizer, const std::vector<PronounProbe>& probes,
                             bool decode = true);

}  // namespace tx
