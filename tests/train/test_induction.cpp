// Next-token tasks for decoder-only models: induction (random symbols repeated once) and lm (the
// English side of the corpus). Batches follow the convention (no source, decoder input BOS +
// sequence, targets sequence + EOS, PAD after), held-out sets are disjoint from training, wrong
// architectures are refused, and a tiny 2-layer model learns the second half of induction only.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "tx/asset_paths.h"
#include "tx/evaluation.h"
#include "tx/tasks.h"
#include "tx/trainer.h"
#include "tx/transformer.h"

namespace tx {
namespace {

TrainingConfig induction_config(int symbols = 20, int length = 8, int min_length = 0) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Induction);
    t.symbols = symbols;
    t.length = length;
    t.min_length = min_length;
    return t;
}

ModelConfig decoder_only(ModelConfig m = preset_model(Preset::Tiny)) { return model_for_task(m, TaskKind::Induction); }

// B rows: src empty; tgt = BOS + output; targets = output + EOS, then PAD; tokens counted.
void expect_next_token_convention(const Batch& b, const std::vector<Example>& examples, const SpecialTokens& sp) {
    ASSERT_EQ(b.src.size(), examples.size());
    ASSERT_EQ(b.tgt.size(), examples.size());
    size_t T = 0;
    for (const auto& row : b.tgt) T = std::max(T, row.size());
    ASSERT_EQ(b.targets.size(), examples.size() * T);
    int tokens = 0;
    for (size_t r = 0; r < examples.size(); ++r) {
        EXPECT_TRUE(b.src[r].empty());
        const std::vector<int>& out = examples[r].output;
        ASSERT_EQ(b.tgt[r].size(), out.size() + 1);
        EXPECT_EQ(b.tgt[r][0], sp.bos);
        for (size_t j = 0; j < out.size(); ++j) {
            EXPECT_EQ(b.tgt[r][j + 1], out[j]);
            EXPECT_EQ(b.targets[r * T + j], out[j]);
        }
        EXPECT_EQ(b.targets[r * T + out.size()], sp.eos);
        for (size_t j = out.size() + 1; j < T; ++j) EXPECT_EQ(b.targets[r * T + j], sp.pad);
        tokens += static_cast<int>(out.size()) + 1;
    }
    EXPECT_EQ(b.tokens, tokens);
}

TEST(InductionTask, SequencesAreARandomHalfRepeatedOnce) {
    const TrainingConfig t = induction_config(20, 8);
    Task task(t, 64);
    EXPECT_EQ(task.vocab_size(), 24);   // symbols + PAD/BOS/EOS/UNK
    EXPECT_TRUE(task.repeats());
    EXPECT_EQ(task.max_tokens(), 16);
    std::set<int> seen;
    for (int i = 0; i < 100; ++i) {
        const Example e = task.next_example();
        ASSERT_EQ(e.input.size(), 8u);
        ASSERT_EQ(e.output.size(), 16u);
        for (int j = 0; j < 8; ++j) {
            EXPECT_EQ(e.output[j], e.input[j]);
            EXPECT_EQ(e.output[j + 8], e.input[j]);
            EXPECT_GE(e.input[j], 4);
            EXPECT_LT(e.input[j], 24);
            seen.insert(e.input[j]);
        }
    }
    EXPECT_EQ(seen.size(), 20u);   // 800 uniform draws of 20 symbols: every one appears
    const Batch b = task.next_batch(16);
    // The batch is drawn from the stream after the 100 examples: rebuild its examples from tgt.
    std::vector<Example> examples;
    for (const auto& row : b.tgt) examples.push_back(Example{{}, std::vector<int>(row.begin() + 1, row.end())});
    expect_next_token_convention(b, examples, SpecialTokens{});
    for (const Example& e : examples)
        EXPECT_TRUE(std::equal(e.output.begin(), e.output.begin() + 8, e.output.begin() + 8));
}

TEST(InductionTask, HalvesVaryFromMinLengthToLength) {
    Task task(induction_config(20, 8, 4), 64);
    std::set<size_t> lengths;
    for (int i = 0; i < 200; ++i) {
        const Example e = task.next_example();
        lengths.insert(e.input.size());
        ASSERT_EQ(e.output.size(), 2 * e.input.size());
        EXPECT_TRUE(std::equal(e.input.begin(), e.input.end(), e.output.begin() + static_cast<std::ptrdiff_t>(e.input.size())));
    }
    EXPECT_EQ(lengths, (std::set<size_t>{4, 5, 6, 7, 8}));
    TrainingConfig bad = induction_config(20, 8, 9);
    EXPECT_TRUE(validate(bad).has_value());
}

TEST(InductionTask, HeldOutFirstHalvesNeverAppearInTraining) {
    // 3 symbols, half length 7: 2187 possible first halves, 200 held out; without the rejection
    // ~9% of training draws would be held-out sequences.
    Task task(induction_config(3, 7), 64);
    ASSERT_EQ(task.held_out().size(), 200u);
    std::set<std::vector<int>> held;
    for (const Example& e : task.held_out()) held.insert(e.input);
    EXPECT_EQ(held.size(), 200u);
    for (int i = 0; i < 200; ++i) {
        const Batch b = task.next_batch(25);
        for (const auto& row : b.tgt) ASSERT_EQ(held.count(std::vector<int>(row.begin() + 1, row.begin() + 8)), 0u);
    }
    // Fixed: another seed trains on another stream but is measured on the same sequences.
    TrainingConfig other = induction_config(3, 7);
    other.seed = 99;
    EXPECT_EQ(Task(other, 64).held_out().front().output, task.held_out().front().output);
}

TEST(InductionTask, RefusesWhatDoesNotFit) {
    EXPECT_THROW(Task(induction_config(20, 8), 16), ConfigError);   // BOS + 16 symbols > max_len 16
    EXPECT_NO_THROW(Task(induction_config(20, 8), 17));
    EXPECT_THROW(Task(induction_config(2, 3), 64), ConfigError);    // 8 first halves for 200 held out
}

TEST(NextTokenTasks, NamesRoundTripThroughJson) {
    for (TaskKind kind : {TaskKind::Induction, TaskKind::Lm}) {
        TrainingConfig t = preset_training(Preset::Tiny, kind);
        t.target_loss = 0.1;
        const TrainingConfig back = training_config_from_json(to_json(t));
        EXPECT_EQ(back.task, kind);
        EXPECT_EQ(back.target_loss, 0.1);
        EXPECT_EQ(task_from_string(to_string(kind)), kind);
        EXPECT_TRUE(next_token_task(kind));
    }
    EXPECT_FALSE(next_token_task(TaskKind::Copy));
    EXPECT_THROW(training_config_from_json(R"({"task": "induct"})"), ConfigError);
}

TEST(NextTokenTasks, WrongArchitecturesAreRefusedWithAReason) {
    ModelConfig encoder_decoder = preset_model(Preset::Tiny);
    try {
        TrainingRun run(encoder_decoder, induction_config());
        FAIL() << "an encoder-decoder model trained on induction";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("decoder-only"), std::string::npos) << e.what();
    }
    for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Sort}) {
        try {
            TrainingRun run(decoder_only(), preset_training(Preset::Tiny, kind));
            FAIL() << "a decoder-only model trained on " << to_string(kind);
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("source"), std::string::npos) << e.what();
        }
    }
    const ModelConfig m = model_for_task(preset_model(Preset::Tiny), TaskKind::Lm);
    EXPECT_EQ(m.arch, Arch::DecoderOnly);
    EXPECT_EQ(m.encoder_layers, 0);
    EXPECT_EQ(m.tokenizer, TokenizerKind::SentencePiece);
}

TEST(NextTokenTasks, DecoderOnlyModelsTakeEmptySourceRows) {
    auto backend = make_cpu_backend();
    ModelConfig c = decoder_only();
    c.src_vocab = c.tgt_vocab = 24;
    Transformer model(c, *backend);
    model.set_parameters(init_parameters(model.table(), 1));
    model.set_batch({{}, {}}, {{1, 5, 6}, {1, 7}});
    model.forward();
    EXPECT_EQ(model.tgt_len(), 3);
    ModelConfig ed = preset_model(Preset::Tiny);
    ed.src_vocab = ed.tgt_vocab = 24;
    Transformer encoder_decoder(ed, *backend);
    EXPECT_THROW(encoder_decoder.set_batch({{}, {}}, {{1, 5}, {1, 7}}), std::invalid_argument);
}

TEST(LmTask, BuildsOnTheEnglishSideOfTheCorpus) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Lm);
    t.data_path = find_asset(t.data_path);
    t.valid_path = find_asset(t.valid_path);
    t.eval_sequences = 50;
    ASSERT_TRUE(std::filesystem::exists(t.data_path)) << t.data_path;
    const ModelConfig m = model_for_task(preset_model(Preset::Tiny), TaskKind::Lm);
    Task task(t, m.max_len, m.tokenizer, m.special);
    EXPECT_EQ(task.tokenizer().kind(), TokenizerKind::SentencePiece);
    EXPECT_LE(task.vocab_size(), t.subword_vocab + 4);
    ASSERT_EQ(task.held_out().size(), 50u);
    // The first held-out sentence is the English column of valid.tsv's first line, read back.
    std::ifstream valid(t.valid_path);
    std::string line;
    std::getline(valid, line);
    EXPECT_EQ(task.text(task.held_out().front().output), line.substr(0, line.find('\t')));
    EXPECT_EQ(task.held_out().front().input, task.held_out().front().output);
    EXPECT_GT(task.training_pairs().size(), 100000u);
    const Batch b = task.next_batch(32);
    std::vector<Example> examples;
    for (const auto& row : b.tgt) {
        const std::vector<int> sentence(row.begin() + 1, row.end());
        EXPECT_FALSE(task.in_held_out(sentence));
        examples.push_back(Example{sentence, sentence});
    }
    expect_next_token_convention(b, examples, m.special);
}

TEST(InductionTraining, TinyDecoderOnlyModelLearnsTheSecondHalfOnly) {
    // Tiny preset as a decoder-only model (64/4/256, 2 layers), the induction preset (20 symbols,
    // halves of 4-8), seed 1. Measured (txcli train --task induction, eval every 50 steps): the
    // held-out loss sits on a plateau (~2.3) until step ~400, then falls in a step as the
    // induction head forms. At step 700 (this test, measured): second half 85% right, loss 0.69;
    // first half 3.7%, loss 3.13 (chance: 5%, ln 20 = 3.00); the best head of the last layer puts
    // 0.46 of each second-half query's weight on its stripe key. The bounds leave room for
    // summation-order changes and fail a model without the head: at initialisation every half is
    // at chance, and causal attention spread evenly gives a stripe key ~1/(i+1) < 0.1.
    // ~25 s of CPU.
    ModelConfig m = decoder_only();
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Induction);
    TrainingRun run(m, t);
    const EvalResult before = run.evaluate();
    EXPECT_NEAR(before.first_half_loss, std::log(24.0), 0.7);
    EXPECT_NEAR(before.second_half_loss, std::log(24.0), 0.7);
    for (int i = 0; i < 700; ++i) ASSERT_FALSE(run.train_step().diverged);
    const EvalResult after = run.evaluate();
    EXPECT_GT(after.second_half_accuracy, 0.6);
    EXPECT_LT(after.second_half_loss, 1.5);
    // The first half is random: nothing beats chance (1/20) by much, whatever the model learned.
    EXPECT_LT(after.first_half_accuracy, 0.12);
    EXPECT_GT(after.first_half_loss, std::log(20.0) - 0.3);

    // The probe: the last layer's masked self-attention of a held-out repeated sequence.
    TrainingSnapshot s;
    run.probe(s);
    EXPECT_TRUE(s.probe_self_attention);
    EXPECT_EQ(s.probe_repeat_from, 8);
    const size_t T = s.probe_target.size();
    ASSERT_EQ(T, 17u);
    ASSERT_EQ(s.probe_cross_attention.size(), static_cast<size_t>(s.probe_heads) * T * T);
    for (int h = 0; h < s.probe_heads; ++h)
        for (size_t i = 0; i < T; ++i) {
            double sum = 0.0;
            for (size_t j = 0; j < T; ++j) {
                const float p = s.probe_cross_attention[(static_cast<size_t>(h) * T + i) * T + j];
                if (j > i) {
                    EXPECT_EQ(p, 0.0f);   // causal
                }
                sum += p;
            }
            EXPECT_NEAR(sum, 1.0, 1e-4);
        }
    // Some head of the last layer has formed the stripe: query i (i >= 9) puts most of its
    // weight on key i − 8 + 1, the token after the previous occurrence of query i's token.
    double best = 0.0;
    for (int h = 0; h < s.probe_heads; ++h) {
        double stripe = 0.0;
        for (size_t i = 9; i < T; ++i) stripe += s.probe_cross_attention[(static_cast<size_t>(h) * T + i) * T + (i - 7)];
        best = std::max(best, stripe / static_cast<double>(T - 9));
    }
    EXPECT_GT(best, 0.3);
}

}  // namespace
}  // namespace tx
