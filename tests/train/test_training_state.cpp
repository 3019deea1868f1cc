// Resumable training: a run saved at step k and resumed takes the same steps as one that never
// stopped, bit for bit (weights, Adam's moments, the data stream, dropout seeds), on the
// random-symbol and the length-batched translation streams; the state file round-trips and bad
// ones are refused with a message; gzip-compressed corpora read as plain ones.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "support/small_models.h"
#include "tx/asset_paths.h"
#include "tx/checkpoint.h"
#include "tx/parallel_corpus.h"
#include "tx/safetensors.h"
#include "tx/tasks.h"
#include "tx/trainer.h"
#include "tx/training_state.h"
#include "support/temp_path.h"

namespace tx {
namespace {

std::string state_temp_path(const std::string& name) {
    return tx::test::unique_temp_path("state-" + name);
}

ModelConfig state_model() {
    ModelConfig m = test::small_training_model(48);
    m.dropout = 0.1f;   // dropout's masks depend on the step: a resumed run must draw the same ones
    return m;
}

TrainingConfig copy_training() {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    t.batch = 8;
    t.length = 5;
    t.eval_sequences = 20;
    t.max_steps = 1000;
    return t;
}

// 400 pairs of the small-grammar corpus, every 20th held out: 380 training pairs, so batches of
// 8 give 48 a pass and a run of 60 steps crosses into a second pass.
TrainingConfig translate_training(const std::string& data) {
    TrainingConfig t = preset_training(Preset::Translate, TaskKind::Translate);
    t.data_path = data;
    t.valid_path.clear();
    t.subword_vocab = 400;   // byte fallback's 256 pieces and the corpus's characters need ~320
    t.eval_sequences = 8;
    t.batch = 8;
    t.max_steps = 1000;
    return t;
}

std::string write_small_corpus() {
    const std::string data = state_temp_path("pairs.tsv");
    std::ifstream in(find_asset("assets/corpus/en-es/train.tsv"));
    std::ofstream out(data);
    std::string line;
    for (int i = 0; i < 400 && std::getline(in, line); ++i) out << line << '\n';
    return data;
}

// Trains `total` steps straight, and again as `at` steps + save + a fresh run resumed for the rest;
// both must end on the same bits.
void expect_resume_matches(const ModelConfig& m, const TrainingConfig& t, int at, int total) {
    TrainingRun straight(m, t);
    for (int i = 0; i < total; ++i) ASSERT_FALSE(straight.train_step().diverged);

    TrainingRun first(m, t);
    for (int i = 0; i < at; ++i) ASSERT_FALSE(first.train_step().diverged);
    const Checkpoint saved = first.checkpoint();
    const TrainingState state = first.state();
    EXPECT_EQ(state.step, at);

    TrainingRun resumed(saved.config, t, make_cpu_backend, &saved);
    resumed.resume(state);
    EXPECT_EQ(resumed.step(), at);
    for (int i = at; i < total; ++i) ASSERT_FALSE(resumed.train_step().diverged);
    EXPECT_TRUE(resumed.parameters() == straight.parameters()) << "resumed at step " << at << " of " << total;
    EXPECT_TRUE(resumed.state().adam_m == straight.state().adam_m);
}

TEST(TrainingState, ResumedCopyRunTakesTheSameStepsBitForBit) {
    expect_resume_matches(state_model(), copy_training(), 7, 15);
}

TEST(TrainingState, ResumedTranslationRunTakesTheSameStepsBitForBit) {
    const std::string data = write_small_corpus();
    const TrainingConfig t = translate_training(data);
    {
        const Task task(t, state_model().max_len, TokenizerKind::SentencePiece);
        ASSERT_EQ(task.training_pairs().size(), 380u);   // 48 batches a pass: the cases below are mid-queue and at its end
    }
    expect_resume_matches(state_model(), t, 30, 60);   // mid-queue
    expect_resume_matches(state_model(), t, 48, 60);   // the pass's last batch taken: the queue is empty
    std::filesystem::remove(data);
}

TEST(TrainingState, RefusesAStateSavedWithOtherWeights) {
    TrainingRun run(state_model(), copy_training());
    ASSERT_FALSE(run.train_step().diverged);
    TrainingState state = run.state();
    const Checkpoint fresh = TrainingRun(state_model(), copy_training()).checkpoint();   // step-0 weights
    TrainingRun other(fresh.config, copy_training(), make_cpu_backend, &fresh);
    try {
        other.resume(state);
        FAIL() << "a state of step 1 was accepted for step-0 weights";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("other weights"), std::string::npos) << e.what();
    }
}

TEST(TrainingState, FileRoundTripsAndBadFilesAreRefused) {
    TrainingRun run(state_model(), copy_training());
    for (int i = 0; i < 3; ++i) ASSERT_FALSE(run.train_step().diverged);
    TrainingState s = run.state();
    s.elapsed_s = 1.5;
    s.tokens = 123;
    const std::string path = state_temp_path("round.state");
    save_training_state(path, s);
    const TrainingState back = load_training_state(path);
    EXPECT_EQ(back.step, s.step);
    EXPECT_EQ(back.adam_steps, s.adam_steps);
    EXPECT_EQ(back.parameters_hash, s.parameters_hash);
    EXPECT_EQ(back.stream.rng_state, s.stream.rng_state);
    EXPECT_EQ(back.stream.queued, s.stream.queued);
    EXPECT_EQ(back.tokens, 123);
    EXPECT_DOUBLE_EQ(back.elapsed_s, 1.5);
    EXPECT_TRUE(back.adam_m == s.adam_m && back.adam_v == s.adam_v);

    const auto refused = [&](const SafetensorsFile& f, const std::string& expected) {
        write_safetensors(path, f);
        try {
            load_training_state(path);
            ADD_FAILURE() << "accepted; expected: " << expected;
        } catch (const SafetensorsError& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    };
    SafetensorsFile good = read_safetensors(path);
    SafetensorsFile f = good;
    f.metadata["format"] = "transformer-explorer/1";
    refused(f, "not a training-state file");
    f = good;
    f.tensors.pop_back();
    refused(f, "missing tensor \"optimizer.v\"");
    f = good;
    f.tensors[1].data.pop_back();
    f.tensors[1].shape[0] -= 1;
    refused(f, "differ in length");
    f = good;
    f.metadata["state"] = "{\"step\": -1}";
    refused(f, "unreadable");
    f = good;
    f.metadata["state"].replace(f.metadata["state"].find("\"step\":"), 7, "\"step\":-");
    refused(f, "out of range");

    // A checkpoint is not a state file, and a truncated file is refused by the reader.
    const std::string checkpoint = state_temp_path("round.safetensors");
    save_checkpoint(checkpoint, run.checkpoint());
    EXPECT_THROW(load_training_state(checkpoint), SafetensorsError);
    std::filesystem::resize_file(path, 40);
    EXPECT_THROW(load_training_state(path), SafetensorsError);
    std::filesystem::remove(path);
    std::filesystem::remove(checkpoint);
}

// The trainer's thread writes the checkpoint and state of one step; a Trainer built from them goes on.
TEST(TrainingState, TrainerSavesAResumablePair) {
    const std::string path = state_temp_path("trainer.safetensors");
    TrainingConfig t = copy_training();
    t.max_steps = 6;
    t.snapshot_every = 1;
    {
        Trainer trainer(state_model(), t);
        trainer.start();
        for (int i = 0; i < 2000 && trainer.snapshot().state != TrainerState::Finished; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ASSERT_EQ(trainer.snapshot().state, TrainerState::Finished);
        EXPECT_EQ(trainer.save_resumable(path), "");
    }
    const Checkpoint c = load_checkpoint(path);
    const TrainingState s = load_training_state(training_state_path(path));
    EXPECT_EQ(s.step, 6);
    EXPECT_EQ(s.parameters_hash, parameters_hash(c.parameters));
    t.max_steps = 8;
    Trainer resumed(c.config, t, make_cpu_backend, &c, &s);
    EXPECT_EQ(resumed.snapshot().step, 6);
    EXPECT_EQ(resumed.save_resumable(state_temp_path("missing-dir/x/y.safetensors")).empty(), false)
        << "an unwritable path gives its error instead of throwing on the trainer's thread";
    std::filesystem::remove(path);
    std::filesystem::remove(training_state_path(path));
}

TEST(ParallelCorpus, ReadsGzipLikePlainTextAndRefusesADamagedOne) {
    const std::string plain = state_temp_path("corpus.tsv"), gz = state_temp_path("corpus.tsv.gz");
    const std::string text = "The dog runs.\tEl perro corre.\nI see it.\tLo veo.\n";
    std::ofstream(plain) << text;
    gzFile out = gzopen(gz.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
    const auto a = read_parallel_corpus(plain), b = read_parallel_corpus(gz);
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].source, b[i].source);
        EXPECT_EQ(a[i].target, b[i].target);
        EXPECT_EQ(a[i].line, b[i].line);
    }
    // Cut inside the compressed data: zlib reports the end it did not expect.
    std::filesystem::resize_file(gz, std::filesystem::file_size(gz) - 12);
    try {
        read_parallel_corpus(gz);
        FAIL() << "a truncated gzip file was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(gz), std::string::npos) << e.what();
    }
    // A bad line inside a gzip file is named by its line, as in a plain one.
    out = gzopen(gz.c_str(), "wb");
    const std::string bad = "One.\tUno.\nno tab here\n";
    gzwrite(out, bad.data(), static_cast<unsigned>(bad.size()));
    gzclose(out);
    try {
        read_parallel_corpus(gz);
        FAIL() << "a line without a tab was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(gz + ":2: no tab"), std::string::npos) << e.what();
    }
    std::filesystem::remove(plain);
    std::filesystem::remove(gz);
}

}  // namespace
}  // namespace tx
