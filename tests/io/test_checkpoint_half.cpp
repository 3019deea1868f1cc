// Checkpoints with BF16 and F16 parameters (docs/design.md §6, docs/precision.md): written rounded
// to nearest even, read back as exactly those floats; a truncated or mis-typed half tensor is
// refused with a message naming the tensor and the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/half_float.h"
#include "tx/parameters.h"
#include "tx/safetensors.h"
#include "support/small_models.h"

namespace {

tx::Checkpoint small_checkpoint() {
    return tx::test::small_checkpoint({"<pad>", "<bos>", "<eos>", "<unk>", "a", "b", "c", "d", "e", "f"}, 5);
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("tx_half_" + name + "_" + std::to_string(::getpid()))).string();
}

std::vector<uint8_t> file_bytes(const std::string& header, size_t data_bytes) {
    std::vector<uint8_t> bytes(8 + header.size() + data_bytes, 0);
    const uint64_t n = header.size();
    std::memcpy(bytes.data(), &n, 8);
    std::memcpy(bytes.data() + 8, header.data(), header.size());
    return bytes;
}

class HalfCheckpoint : public ::testing::TestWithParam<const char*> {};

TEST_P(HalfCheckpoint, RoundTripsTheRoundedValues) {
    const std::string dtype = GetParam();
    const tx::Checkpoint c = small_checkpoint();
    const std::string path = temp_path(dtype), full = temp_path("f32");
    tx::save_checkpoint(path, c, dtype);
    tx::save_checkpoint(full, c);
    const tx::SafetensorsFile file = tx::read_safetensors(path);
    for (const tx::NamedTensor& t : file.tensors) EXPECT_EQ(t.dtype, dtype) << t.name;
    const tx::Checkpoint back = tx::load_checkpoint(path);
    ASSERT_EQ(back.parameters.size(), c.parameters.size());
    const tx::Precision p = dtype == "BF16" ? tx::Precision::Bf16 : tx::Precision::Fp16;
    std::vector<float> rounded(c.parameters.size());
    tx::round_floats(rounded.data(), c.parameters.data(), static_cast<int64_t>(rounded.size()), p);
    EXPECT_EQ(back.parameters, rounded);
    EXPECT_EQ(back.vocabulary, c.vocabulary);
    // 2 bytes a parameter fewer; the headers differ only in dtype names, offsets and padding
    const auto half_size = std::filesystem::file_size(path), full_size = std::filesystem::file_size(full);
    EXPECT_NEAR(static_cast<double>(full_size) - static_cast<double>(half_size), 2.0 * c.parameters.size(),
                8.0 * file.tensors.size() + 8.0);
    std::filesystem::remove(path);
    std::filesystem::remove(full);
}

INSTANTIATE_TEST_SUITE_P(Checkpoint, HalfCheckpoint, ::testing::Values("BF16", "F16"));

// stored_low names the only parameters written in the low dtype: those come back rounded, every
// other one exact and F32; a name the config lacks is refused by name and writes nothing.
TEST(HalfCheckpoint, OnlyTheNamedParametersAreStoredLow) {
    const tx::Checkpoint c = small_checkpoint();
    const tx::ParameterTable table(c.config);
    const std::string low = "generator.weight";
    ASSERT_NE(table.find(low), nullptr);
    const std::string path = temp_path("mixed");
    tx::save_checkpoint(path, c, "BF16", {low});
    for (const tx::NamedTensor& t : tx::read_safetensors(path).tensors)
        if (t.dtype != "U8") EXPECT_EQ(t.dtype, t.name == low ? "BF16" : "F32") << t.name;
    const tx::Checkpoint back = tx::load_checkpoint(path);
    std::filesystem::remove(path);
    ASSERT_EQ(back.parameters.size(), c.parameters.size());
    int64_t rounded_differ = 0;
    for (const tx::ParameterInfo& p : table.entries())
        for (int64_t i = p.offset; i < p.offset + p.numel(); ++i) {
            const float x = c.parameters[static_cast<size_t>(i)];
            float expected = x;
            if (p.name == low) tx::round_floats(&expected, &x, 1, tx::Precision::Bf16);
            rounded_differ += expected != x;
            ASSERT_EQ(back.parameters[static_cast<size_t>(i)], expected) << p.name << " [" << i - p.offset << "]";
        }
    EXPECT_GT(rounded_differ, 0);   // the named matrix did change: the test sees the rounding
    const std::string missing = temp_path("missing");
    try {
        tx::save_checkpoint(missing, c, "BF16", {"no.such.weight"});
        ADD_FAILURE() << "accepted";
    } catch (const tx::SafetensorsError& e) {
        EXPECT_NE(std::string(e.what()).find("no parameter named 'no.such.weight'"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(HalfCheckpoint, TruncatedHalfTensorIsRefusedByName) {
    // 3 BF16 values need 6 bytes; the offsets give 4.
    const std::string header = R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,4]}})";
    try {
        const auto bytes = file_bytes(header, 4);
        tx::parse_safetensors(bytes.data(), bytes.size(), "f.safetensors");
        ADD_FAILURE() << "accepted";
    } catch (const tx::SafetensorsError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("tensor 'w'"), std::string::npos) << m;
        EXPECT_NE(m.find("BF16 needs 6"), std::string::npos) << m;
    }
    // A file cut short inside an F16 tensor's data.
    const std::string cut = R"({"w":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})";
    try {
        const auto bytes = file_bytes(cut, 5);
        tx::parse_safetensors(bytes.data(), bytes.size(), "f.safetensors");
        ADD_FAILURE() << "accepted";
    } catch (const tx::SafetensorsError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("tensor 'w'"), std::string::npos) << m;
        EXPECT_NE(m.find("truncated"), std::string::npos) << m;
    }
}

TEST(HalfCheckpoint, MistypedTensorsAreRefusedByName) {
    const tx::Checkpoint c = small_checkpoint();
    const std::string path = temp_path("mistyped");
    tx::save_checkpoint(path, c, "BF16");
    tx::SafetensorsFile file = tx::read_safetensors(path);
    std::filesystem::remove(path);
    // A dtype spelled as no format has it.
    {
        std::string header = R"({"w":{"dtype":"bf16","shape":[1],"data_offsets":[0,2]}})";
        try {
            const auto bytes = file_bytes(header, 2);
            tx::parse_safetensors(bytes.data(), bytes.size(), "f.safetensors");
            ADD_FAILURE() << "accepted";
        } catch (const tx::SafetensorsError& e) {
            EXPECT_NE(std::string(e.what()).find("tensor 'w' has dtype bf16"), std::string::npos) << e.what();
        }
    }
    // A parameter stored as U8 (a half tensor's bytes under the wrong dtype).
    tx::NamedTensor& t = file.tensors.front();
    const std::string name = t.name;
    t.bytes.assign(t.data.size() * 2, 0);
    t.data.clear();
    t.dtype = "U8";
    t.shape = {static_cast<int64_t>(t.bytes.size())};
    try {
        tx::checkpoint_from_safetensors(file, "f.safetensors");
        ADD_FAILURE() << "accepted";
    } catch (const tx::SafetensorsError& e) {
        EXPECT_NE(std::string(e.what()).find("tensor '" + name + "' has dtype U8"), std::string::npos) << e.what();
    }
    EXPECT_THROW(tx::save_checkpoint(temp_path("bad"), c, "F64"), tx::SafetensorsError);
}

}  // namespace
