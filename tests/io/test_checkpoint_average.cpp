// average_checkpoints (tx/checkpoint_average.h): each parameter is the mean of the inputs', and
// inputs of another model, vocabulary or tokenizer are refused with a message saying which.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tx/checkpoint_average.h"
#include "tx/parameters.h"
#include "support/small_models.h"

namespace {

tx::Checkpoint small_checkpoint(uint64_t seed) {
    tx::Checkpoint c = tx::test::small_checkpoint({"<pad>", "<bos>", "<eos>", "<unk>", "a", "b"}, seed);
    c.training_json = "{\"seed\":" + std::to_string(seed) + "}";
    return c;
}

std::string refusal(const std::vector<tx::Checkpoint>& inputs) {
    try {
        tx::average_checkpoints(inputs);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

TEST(CheckpointAverage, EachParameterIsTheMeanOfTheInputs) {
    const tx::Checkpoint a = small_checkpoint(1), b = small_checkpoint(2), c = small_checkpoint(3);
    const tx::Checkpoint mean = tx::average_checkpoints({a, b, c});
    ASSERT_EQ(mean.parameters.size(), a.parameters.size());
    for (size_t i = 0; i < a.parameters.size(); ++i) {
        const double expected = (double(a.parameters[i]) + b.parameters[i] + c.parameters[i]) / 3.0;
        ASSERT_NEAR(mean.parameters[i], expected, 1e-7) << "parameter " << i;
    }
    // Not simply a copy of one input: the seeds give different parameters.
    EXPECT_NE(mean.parameters, a.parameters);
    EXPECT_EQ(mean.training_json, a.training_json);
    EXPECT_EQ(mean.vocabulary, a.vocabulary);
}

TEST(CheckpointAverage, OneInputOrTheSameInputTwiceGivesItBack) {
    const tx::Checkpoint a = small_checkpoint(4);
    EXPECT_EQ(tx::average_checkpoints({a}).parameters, a.parameters);
    EXPECT_EQ(tx::average_checkpoints({a, a}).parameters, a.parameters);
}

TEST(CheckpointAverage, RefusesInputsOfAnotherModel) {
    const tx::Checkpoint a = small_checkpoint(1);
    tx::Checkpoint wider = small_checkpoint(2);
    wider.config.d_ff = 16;
    wider.parameters = tx::init_parameters(tx::ParameterTable(wider.config), 2);
    EXPECT_NE(refusal({a, wider}).find("checkpoint 2 has another model config"), std::string::npos) << refusal({a, wider});

    tx::Checkpoint renamed = small_checkpoint(3);
    renamed.vocabulary.pop_back();   // "b" becomes "c"
    renamed.vocabulary.push_back("c");
    EXPECT_NE(refusal({a, a, renamed}).find("checkpoint 3 has another vocabulary"), std::string::npos);

    tx::Checkpoint tokenized = small_checkpoint(3);
    tokenized.tokenizer_model = "other";
    EXPECT_NE(refusal({a, tokenized}).find("another tokenizer"), std::string::npos);

    EXPECT_NE(refusal({}).find("no checkpoints"), std::string::npos);
}

}  // namespace
