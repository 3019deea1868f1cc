// Task generators. Synthetic tasks (copy, reverse, sort) draw `length` symbols (ids 4 ..
// 4+symbols-1, shown as "1" .. "symbols"); copy-text copies real sentences and random word
// sequences over the whole vocabulary and UNK, so the model learns to copy any word, and a word
// outside the vocabulary (typed sentences often hold some) as UNK. Translate reads sentence
// pairs and batches them by length. Induction draws `length` symbols and repeats them; lm reads
// the English column of the corpus as sentences for next-token prediction. The held-out set
// comes from a stream of its own (fixed, independent of the training seed, so runs with
// different seeds are measured on the same sequences) and the training stream rejects its inputs.
#include "tx/tasks.h"

#include <algorithm>
#include <functional>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "tx/asset_paths.h"
#include "tx/parallel_corpus.h"
#include "text/subword_training.h"

namespace tx {

uint64_t Rng::next() {
    uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t Rng::uniform(uint64_t n) {
    // Lemire's multiply-shift: bias below 2^-64 · n, irrelevant here, and no division.
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

uint64_t mix_seed(uint64_t a, uint64_t b) {
    Rng rng(a * 0xD1B54A32D192ED03ull ^ (b + 0x8CB92BA72F3D8DD7ull));
    rng.next();
    return rng.next();
}

Batch make_batch(const std::vector<Example>& examples, const SpecialTokens& special) {
    Batch batch;
    size_t T = 0;
    for (const Example& e : examples) {
        std::vector<int> src = e.input;
        src.push_back(special.eos);
        std::vector<int> tgt{special.bos};
        tgt.insert(tgt.end(), e.output.begin(), e.output.end());
        T = std::max(T, tgt.size());
        batch.src.push_back(std::move(src));
        batch.tgt.push_back(std::move(tgt));
    }
    batch.targets.assign(examples.size() * T, special.pad);
    for (size_t b = 0; b < examples.size(); ++b) {
        const std::vector<int>& out = examples[b].output;
        std::copy(out.begin(), out.end(), batch.targets.begin() + static_cast<std::ptrdiff_t>(b * T));
        batch.targets[b * T + out.size()] = special.eos;
        batch.tokens += static_cast<int>(out.size()) + 1;
    }
    return batch;
}

Batch make_next_token_batch(const std::vector<Example>& examples, const SpecialTokens& special) {
    Batch batch;
    size_t T = 0;
    for (const Example& e : examples) {
        std::vector<int> tgt{special.bos};
        tgt.insert(tgt.end(), e.output.begin(), e.output.end());
        T = std::max(T, tgt.size());
        batch.src.emplace_back();
        batch.tgt.push_back(std::move(tgt));
    }
    batch.targets.assign(examples.size() * T, special.pad);
    for (size_t b = 0; b < examples.size(); ++b) {
        const std::vector<int>& out = examples[b].output;
        std::copy(out.begin(), out.end(), batch.targets.begin() + static_cast<std::ptrdiff_t>(b * T));
        batch.targets[b * T + out.size()] = special.eos;
        batch.tokens += static_cast<int>(out.size()) + 1;
    }
    return batch;
}

namespace {

constexpr uint64_t HELD_OUT_STREAM = 0x48454C444F5554ull;   // "HELDOUT"
constexpr uint64_t TRAIN_STREAM = 0x545241494Eull;          // "TRAIN"
// copy-text random sequences: the share of tokens that are UNK. Without any, a model trained
// on copy-text derails on a typed sentence with one unknown word ("A learner types a sentence
// ..." came back as "A their"); with 5% it copies UNK through like any word.
constexpr double UNK_SHARE = 0.05;

std::vector<std::string> read_lines(const std::string& path, const char* what) {
    const std::string found = find_asset(path);
    std::ifstream in(found);
    if (!in) throw ConfigError(std::string("copy-text: cannot open the ") + what + " file '" + path + "'");
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

// UTF-8 code points of a string (invalid bytes are passed on one by one; the tokenizer makes them UNK).
std::vector<std::string> code_points(const std::string& s) {
    std::vector<std::string> out;
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        if (i + n > s.size()) n = 1;
        out.push_back(s.substr(i, n));
        i += n;
    }
    return out;
}

const char* SPECIAL_NAMES[4] = {"<pad>", "<bos>", "<eos>", "<unk>"};

Vocabulary task_vocabulary(const TrainingConfig& c, TokenizerKind kind) {
    std::vector<std::string> tokens(SPECIAL_NAMES, SPECIAL_NAMES + 4);
    if (c.task != TaskKind::CopyText) {
        for (int s = 1; s <= c.symbols; ++s) tokens.push_back(std::to_string(s));
        return Vocabulary(tokens);
    }
    if (kind == TokenizerKind::Word) {
        try {
            return load_vocabulary(find_asset(c.vocab_path));
        } catch (const std::exception& e) {
            throw ConfigError(std::string("copy-text: ") + e.what());
        }
    }
    // Characters: every code point of the word list and the sentences, and the space.
    std::set<std::string> chars{" "};
    for (const std::string& line : read_lines(c.vocab_path, "vocabulary"))
        if (std::find(SPECIAL_NAMES, SPECIAL_NAMES + 4, line) == SPECIAL_NAMES + 4)
            for (std::string& cp : code_points(line)) chars.insert(cp);
    for (const std::string& line : read_lines(c.sentences_path, "sentences"))
        for (std::string& cp : code_points(line)) chars.insert(cp);
    for (const char* s : SPECIAL_NAMES) chars.erase(s);
    tokens.insert(tokens.end(), chars.begin(), chars.end());
    return Vocabulary(tokens);
}

std::vector<SentencePair> read_pairs(const std::string& path, TaskKind task) {
    try {
        return read_parallel_corpus(find_asset(path));
    } catch (const std::runtime_error& e) {
        throw ConfigError(std::string(to_string(task)) + ": " + e.what());
    }
}

// The SentencePiece model of a task: the one given, or one trained on both sides of the data
// (lm: on its English side, the only one it reads).
Tokenizer subword_tokenizer(const TrainingConfig& c, SpecialTokens special, const std::string& model) {
    if (!model.empty()) {
        try {
            return Tokenizer::sentencepiece(model, special);
        } catch (const std::invalid_argument& e) {
            throw ConfigError(std::string("tokenizer model: ") + e.what());
        }
    }
    std::vector<std::string> sentences;
    for (SentencePair& p : read_pairs(c.data_path, c.task)) {
        sentences.push_back(std::move(p.source));
        if (c.task != TaskKind::Lm) sentences.push_back(std::move(p.target));
    }
    try {
        return Tokenizer::sentencepiece(train_sentencepiece(sentences, c.subword_vocab), special);
    } catch (const std::exception& e) {
        throw ConfigError(std::string("subword vocabulary from '") + c.data_path + "': " + e.what());
    }
}

Tokenizer task_tokenizer(const TrainingConfig& c, TokenizerKind kind, SpecialTokens special, const std::string& model) {
    if (c.task == TaskKind::Translate || c.task == TaskKind::Lm ||
        (c.task == TaskKind::CopyText && kind == TokenizerKind::SentencePiece))
        return subword_tokenizer(c, special, model);
    if (c.task != TaskKind::CopyText) kind = TokenizerKind::Word;
    return Tokenizer(kind, task_vocabulary(c, kind), special);
}

}  // namespace

Task::Task(const TrainingConfig& config, int max_len, TokenizerKind tokenizer, SpecialTokens special,
           const std::string& tokenizer_model)
    : m_config(config), m_special(special), m_tokenizer(task_tokenizer(config, tokenizer, special, tokenizer_model)),
      m_train(0) {
    if (auto error = validate(config)) throw ConfigError(*error);
    const int fit = max_len - 1;   // room for EOS (source) or BOS (decoder input)
    if (config.task == TaskKind::Translate) {
        load_pairs(fit);
        restart();
        return;
    }
    if (config.task == TaskKind::Lm) {
        load_sentences(fit);
        restart();
        return;
    }
    if (config.task == TaskKind::CopyText) {
        for (const std::string& line : read_lines(config.sentences_path, "sentences")) {
            std::vector<int> ids = m_tokenizer.encode(line);
            if (!ids.empty() && static_cast<int>(ids.size()) <= fit) m_sentences.push_back(std::move(ids));
        }
        m_max_tokens = std::min(config.length, fit);
        for (const auto& s : m_sentences) m_max_tokens = std::max(m_max_tokens, static_cast<int>(s.size()));
        if (vocab_size() <= 4) throw ConfigError("copy-text: the vocabulary has no words");
    } else {
        const int repeat = config.task == TaskKind::Induction ? 2 : 1;
        m_max_tokens = repeat * config.length;
        if (m_max_tokens > fit)
            throw ConfigError((repeat == 2 ? "2 x length (" : "length (") + std::to_string(m_max_tokens) +
                              ") must fit the model's max_len (" + std::to_string(max_len) + ") with EOS/BOS");
        // A disjoint held-out set needs a sequence space well beyond its size.
        double space = 1.0;
        for (int i = 0; i < config.length && space < 1e18; ++i) space *= config.symbols;
        if (space < 4.0 * config.eval_sequences)
            throw ConfigError("symbols^length (" + std::to_string(static_cast<long long>(space)) +
                              " sequences) is too small for " + std::to_string(config.eval_sequences) +
                              " held-out sequences and a disjoint training stream; raise symbols or length");
    }
    Rng held(mix_seed(HELD_OUT_STREAM, static_cast<uint64_t>(config.task) * 1000003u + config.symbols * 1009u +
                                           config.length));
    // Held-out copy-text sequences are random word sequences: the sentences are for training
    // (the default model must copy them); the held-out set measures copying of unseen sequences.
    int attempts = 0;
    while (static_cast<int>(m_held_out.size()) < config.eval_sequences && attempts++ < 100 * config.eval_sequences) {
        Example e = config.task == TaskKind::CopyText ? draw_random_text(held) : draw(held);
        if (e.input.empty() || !m_held_out_inputs.insert(e.input).second) continue;
        m_held_out.push_back(std::move(e));
    }
    restart();
}

void Task::load_pairs(int fit) {
    load_corpus(fit, "pairs", [&](const SentencePair& p, Example& e) {
        e.input = m_tokenizer.encode(p.source);
        e.output = m_tokenizer.encode(p.target);
        return !e.input.empty() && !e.output.empty() && static_cast<int>(e.input.size()) <= fit &&
               static_cast<int>(e.output.size()) <= fit;
    });
}

void Task::load_sentences(int fit) {
    // The English column only.
    load_corpus(fit, "lines", [&](const SentencePair& p, Example& e) {
        e.input = m_tokenizer.encode(p.source);
        e.output = e.input;
        return !e.input.empty() && static_cast<int>(e.input.size()) <= fit;
    });
}

void Task::load_corpus(int fit, const char* unit,
                       const std::function<bool(const SentencePair&, Example&)>& encode) {
    // The validation file's pairs are held out; without one, every 20th pair of the training file
    // (at most eval_sequences of them are used). A held-out input never appears in training.
    const std::string task = to_string(m_config.task);
    std::vector<SentencePair> train = read_pairs(m_config.data_path, m_config.task);
    std::vector<SentencePair> held;
    if (!m_config.valid_path.empty()) {
        held = read_pairs(m_config.valid_path, m_config.task);
    } else {
        std::vector<SentencePair> rest;
        for (size_t i = 0; i < train.size(); ++i) (i % 20 == 19 ? held : rest).push_back(std::move(train[i]));
        train = std::move(rest);
        if (held.empty()) throw ConfigError(task + ": '" + m_config.data_path + "' has fewer than 20 " + unit +
                                            "; it needs some for training and every 20th for evaluation");
    }
    for (const SentencePair& p : held) {
        if (static_cast<int>(m_held_out.size()) >= m_config.eval_sequences) break;
        Example e;
        if (encode(p, e) && m_held_out_inputs.insert(e.input).second) m_held_out.push_back(std::move(e));
    }
    for (const SentencePair& p : train) {
        Example e;
        if (!encode(p, e)) ++m_skipped;
        else if (!in_held_out(e.input)) m_pairs.push_back(std::move(e));
    }
    if (m_pairs.empty() || m_held_out.empty())
        throw ConfigError(task + ": nothing fits the model's max_len (" + std::to_string(fit + 1) +
                          " tokens with BOS/EOS) for " + (m_pairs.empty() ? "training" : "evaluation"));
    for (const auto* set : {&m_pairs, &m_held_out})
        for (const Example& e : *set)
            m_max_tokens = std::max({m_max_tokens, static_cast<int>(e.input.size()), static_cast<int>(e.output.size())});
}

void Task::restart() {
    m_train = Rng(mix_seed(TRAIN_STREAM, m_config.seed));
    m_batch_queue.clear();
    m_refill_rng_state = 0;
    m_batches_taken = 0;
    m_batch_rows = 0;
}

TaskStreamPosition Task::stream_position() const {
    TaskStreamPosition p;
    p.rng_state = m_train.state();
    p.queued = !m_batch_queue.empty();
    if (p.queued) {
        p.refill_rng_state = m_refill_rng_state;
        p.batches_taken = m_batches_taken;
        p.batch_rows = m_batch_rows;
    }
    return p;
}

void Task::seek(const TaskStreamPosition& p) {
    m_batch_queue.clear();
    m_batches_taken = 0;
    if (!p.queued) {
        m_train = Rng(p.rng_state);
        return;
    }
    if (m_config.task != TaskKind::Translate && m_config.task != TaskKind::Lm)
        throw ConfigError("training state: a batch queue is recorded, but the " + std::string(to_string(m_config.task)) +
                          " task draws no length-grouped batches");
    if (p.batch_rows < 1 || p.batches_taken < 0)
        throw ConfigError("training state: the batch queue's rows or count are out of range");
    m_train = Rng(p.refill_rng_state);
    refill_length_batches(p.batch_rows);
    if (static_cast<int64_t>(m_batch_queue.size()) <= p.batches_taken || m_train.state() != p.rng_state)
        throw ConfigError("training state: the data stream does not match this corpus and these settings "
                          "(the training data or the batch size changed since it was saved)");
    for (int64_t i = 0; i < p.batches_taken; ++i) m_batch_queue.pop_back();
    m_batches_taken = p.batches_taken;
}

void Task::refill_length_batches(int rows) {
    m_refill_rng_state = m_train.state();
    m_batches_taken = 0;
    m_batch_rows = rows;
    std::vector<size_t> order(m_pairs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[m_train.uniform(i)]);
    const size_t batch = static_cast<size_t>(rows), pool = 50 * batch;
    for (size_t begin = 0; begin < order.size(); begin += pool) {
        const auto first = order.begin() + static_cast<std::ptrdiff_t>(begin);
        const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), begin + pool));
        std::stable_sort(first, last, [&](size_t a, size_t b) {
            const Example &x = m_pairs[a], &y = m_pairs[b];
            return std::make_pair(x.input.size(), x.output.size()) < std::make_pair(y.input.size(), y.output.size());
        });
        std::vector<std::vector<size_t>> batches;
        for (auto it = first; it < last; it += std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(batch), last - it))
            batches.emplace_back(it, it + std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(batch), last - it));
        for (size_t i = batches.size(); i > 1; --i) std::swap(batches[i - 1], batches[m_train.uniform(i)]);
        for (auto& b : batches) m_batch_queue.push_back(std::move(b));
    }
    std::reverse(m_batch_queue.begin(), m_batch_queue.end());   // taken from the back
}

Example Task::from_input(std::vector<int> input) const {
    Example e;
    e.output = input;
    switch (m_config.task) {
        case TaskKind::Copy:
        case TaskKind::CopyText:
        case TaskKind::Translate:
        case TaskKind::Lm: break;
        case TaskKind::Induction: e.output.insert(e.output.end(), input.begin(), input.end()); break;
        case TaskKind::Reverse: std::reverse(e.output.begin(), e.output.end()); break;
        case TaskKind::Sort:
            if (m_config.variant == "descending") std::sort(e.output.begin(), e.output.end(), std::greater<int>());
            else std::sort(e.output.begin(), e.output.end());
            if (m_config.variant == "unique") e.output.erase(std::unique(e.output.begin(), e.output.end()), e.output.end());
            break;
    }
    e.input = std::move(input);
    return e;
}

Example Task::draw_random_text(Rng& rng) const {
    // 1 .. max_tokens tokens: UNK with probability UNK_SHARE, otherwise drawn uniformly from the
    // whole vocabulary (words, or characters with the space among them for the char tokenizer).
    const int words = vocab_size() - 4;
    const int n = 1 + static_cast<int>(rng.uniform(static_cast<uint64_t>(m_max_tokens)));
    std::vector<int> input;
    for (int i = 0; i < n; ++i) {
        const bool unknown = rng.uniform01() < UNK_SHARE;
        input.push_back(unknown ? m_special.unk : 4 + static_cast<int>(rng.uniform(static_cast<uint64_t>(words))));
    }
    return from_input(std::move(input));
}

Example Task::draw(Rng& rng) {
    if (m_config.task == TaskKind::Translate || m_config.task == TaskKind::Lm) return m_pairs[rng.uniform(m_pairs.size())];
    if (m_config.task == TaskKind::CopyText) {
        if (m_sentences.empty() || rng.uniform01() < m_config.random_fraction) return draw_random_text(rng);
        return from_input(m_sentences[rng.uniform(m_sentences.size())]);
    }
    int n = m_config.length;
    if (m_config.task == TaskKind::Induction && m_config.min_length > 0)
        n = m_config.min_length + static_cast<int>(rng.uniform(static_cast<uint64_t>(m_config.length - m_config.min_length + 1)));
    std::vector<int> input(static_cast<size_t>(n));
    for (int& id : input) id = 4 + static_cast<int>(rng.uniform(static_cast<uint64_t>(m_config.symbols)));
    return from_input(std::move(input));
}

Example Task::next_example() {
    for (;;) {
        Example e = draw(m_train);
        if (!e.input.empty() && !in_held_out(e.input)) return e;
    }
}

Batch Task::batch_of(const std::vector<Example>& examples) const {
    return next_token_task(m_config.task) ? make_next_token_batch(examples, m_special) : make_batch(examples, m_special);
}

Batch Task::next_batch(int rows) {
    if (m_config.task == TaskKind::Translate || m_config.task == TaskKind::Lm) {
        if (m_batch_queue.empty()) refill_length_batches(rows);
        std::vector<Example> examples;
        for (size_t i : m_batch_queue.back()) examples.push_back(m_pairs[i]);
        m_batch_queue.pop_back();
        ++m_batches_taken;
        return batch_of(examples);
    }
    std::vector<Example> examples;
    examples.reserve(static_cast<size_t>(rows));
    for (int i = 0; i < rows; ++i) examples.push_back(next_example());
    return batch_of(examples);
}

}  // namespace tx
