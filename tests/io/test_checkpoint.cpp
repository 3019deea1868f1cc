// Checkpoint and safetensors tests: a bit-exact round trip, the standard file layout, and one
// refusal (with a message naming the problem) per kind of malformed file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "tx/checkpoint.h"
#include "tx/parameters.h"
#include "support/temp_path.h"

namespace tx {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> tiny_vocabulary() {
    return {"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat", "sat", "on", "mat", "."};
}

Checkpoint tiny_checkpoint(NormPlacement norm = NormPlacement::Post) {
    Checkpoint c;
    c.vocabulary = tiny_vocabulary();
    c.config.src_vocab = c.config.tgt_vocab = static_cast<int>(c.vocabulary.size());
    c.config.d_model = 8;
    c.config.heads = 2;
    c.config.d_ff = 16;
    c.config.encoder_layers = 1;
    c.config.decoder_layers = 1;
    c.config.max_len = 16;
    c.config.norm = norm;
    c.config.seed = 42;
    c.parameters = init_parameters(ParameterTable(c.config), c.config.seed);
    // Values whose bits a lossy round trip would change.
    c.parameters[0] = -0.0f;
    c.parameters[1] = std::numeric_limits<float>::denorm_min();
    c.parameters[2] = std::numeric_limits<float>::infinity();
    c.parameters[3] = 0.1f;
    c.parameters[4] = std::nextafter(1.0f, 2.0f);
    c.training_json = R"({"task":"copy","steps":100,"lr":0.001})";
    return c;
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const SafetensorsError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

class CheckpointTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        m_dir = fs::temp_directory_path() / ("tx_test_checkpoint_" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    static std::vector<uint8_t> read_bytes(const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    static void write_bytes(const std::string& p, const std::vector<uint8_t>& bytes) {
        std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                 static_cast<std::streamsize>(bytes.size()));
    }
    // A raw safetensors file: header length, header text, data (for files our writer refuses to make).
    static std::vector<uint8_t> raw_file(const std::string& header, const std::vector<uint8_t>& data) {
        std::vector<uint8_t> out(8 + header.size() + data.size());
        const uint64_t n = header.size();
        std::memcpy(out.data(), &n, 8);
        std::copy(header.begin(), header.end(), out.begin() + 8);
        std::copy(data.begin(), data.end(), out.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
        return out;
    }
    // The header JSON and data area of a saved checkpoint, to edit and reassemble.
    static std::pair<nlohmann::ordered_json, std::vector<uint8_t>> split(const std::vector<uint8_t>& file) {
        uint64_t n;
        std::memcpy(&n, file.data(), 8);
        const std::string header(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
        return {nlohmann::ordered_json::parse(header), std::vector<uint8_t>(file.begin() + 8 + static_cast<std::ptrdiff_t>(n), file.end())};
    }
    // Saves the tiny checkpoint, lets `edit` change its header, and returns load_checkpoint's message.
    std::string load_edited(const std::function<void(nlohmann::ordered_json&, std::vector<uint8_t>&)>& edit) {
        const std::string p = path("edited.safetensors");
        save_checkpoint(p, tiny_checkpoint());
        auto [header, data] = split(read_bytes(p));
        edit(header, data);
        write_bytes(p, raw_file(header.dump(), data));
        return message_of([&] { load_checkpoint(p); });
    }
    // Saves a SafetensorsFile derived from the tiny checkpoint and returns load_checkpoint's message.
    std::string load_changed(const std::function<void(SafetensorsFile&)>& change) {
        const std::string p = path("changed.safetensors");
        save_checkpoint(p, tiny_checkpoint());
        SafetensorsFile file = read_safetensors(p);
        change(file);
        write_safetensors(p, file);
        return message_of([&] { load_checkpoint(p); });
    }

    fs::path m_dir;
};

#define EXPECT_MENTIONS(message, text) \
    EXPECT_NE(std::string(message).find(text), std::string::npos) << "message: " << (message)

TEST_F(CheckpointTest, RoundTripIsBitExact) {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        const Checkpoint saved = tiny_checkpoint(norm);
        const std::string p = path("model.safetensors");
        save_checkpoint(p, saved);
        const Checkpoint loaded = load_checkpoint(p);
        ASSERT_EQ(loaded.parameters.size(), saved.parameters.size());
        EXPECT_EQ(std::memcmp(loaded.parameters.data(), saved.parameters.data(), saved.parameters.size() * sizeof(float)), 0);
        EXPECT_EQ(to_json(loaded.config), to_json(saved.config));
        EXPECT_EQ(loaded.config.norm, norm);
        EXPECT_EQ(loaded.vocabulary, saved.vocabulary);
        EXPECT_EQ(nlohmann::json::parse(loaded.training_json), nlohmann::json::parse(saved.training_json));
    }
}

// The variants' parameters (docs/design.md §4): learned position tables, SwiGLU's bias-free gate, up
// and down, RMSNorm's gain without bias; they and the config fields survive a round trip.
TEST_F(CheckpointTest, VariantRoundTripKeepsFieldsAndParameterNames) {
    Checkpoint saved = tiny_checkpoint(NormPlacement::Pre);
    saved.config.positional = PositionalKind::Learned;
    saved.config.ffn = FfnKind::SwiGlu;
    saved.config.norm_kind = NormKind::RmsNorm;
    saved.config.window = 3;
    const ParameterTable table(saved.config);
    saved.parameters = init_parameters(table, saved.config.seed);
    const std::string p = path("variant.safetensors");
    save_checkpoint(p, saved);
    const Checkpoint loaded = load_checkpoint(p);
    EXPECT_EQ(to_json(loaded.config), to_json(saved.config));
    ASSERT_EQ(loaded.parameters.size(), saved.parameters.size());
    EXPECT_EQ(std::memcmp(loaded.parameters.data(), saved.parameters.data(), saved.parameters.size() * sizeof(float)), 0);
    const int64_t D = 8, L = 16, F = saved.config.ffn_width();
    EXPECT_EQ(F, 11);   // round(2/3 · 16)
    const SafetensorsFile file = read_safetensors(p);
    auto shape_of = [&](const std::string& name) -> std::vector<int64_t> {
        for (const auto& t : file.tensors)
            if (t.name == name) return t.shape;
        return {};
    };
    EXPECT_EQ(shape_of("src_pos.weight"), (std::vector<int64_t>{L, D}));
    EXPECT_EQ(shape_of("tgt_pos.weight"), (std::vector<int64_t>{L, D}));
    EXPECT_EQ(shape_of("encoder.layers.0.ffn.linear1.weight"), (std::vector<int64_t>{F, D}));
    EXPECT_EQ(shape_of("encoder.layers.0.ffn.linear3.weight"), (std::vector<int64_t>{F, D}));
    EXPECT_EQ(shape_of("decoder.layers.0.ffn.linear2.weight"), (std::vector<int64_t>{D, F}));
    EXPECT_EQ(shape_of("decoder.norm.weight"), (std::vector<int64_t>{D}));
    for (const char* absent : {"encoder.layers.0.ffn.linear1.bias", "encoder.layers.0.ffn.linear2.bias",
                               "encoder.layers.0.norm1.bias", "decoder.norm.bias"})
        EXPECT_TRUE(shape_of(absent).empty()) << absent;
}

TEST_F(CheckpointTest, StandardLayoutAndNoTemporaryFileLeft) {
    Checkpoint c = tiny_checkpoint();
    c.training_json.clear();
    const std::string p = path("model.safetensors");
    save_checkpoint(p, c);
    EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator{}), 1);
    EXPECT_TRUE(load_checkpoint(p).training_json.empty());

    const auto bytes = read_bytes(p);
    uint64_t n;
    std::memcpy(&n, bytes.data(), 8);
    EXPECT_EQ(n % 8, 0u);   // data starts 8-byte aligned
    const auto [header, data] = split(bytes);
    EXPECT_EQ(header["__metadata__"]["format"], CHECKPOINT_FORMAT);
    const auto config = nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>());
    EXPECT_EQ(config["vocabulary"].size(), tiny_vocabulary().size());
    EXPECT_EQ(config["special"]["unk"], 3);
    const ParameterTable table(c.config);
    EXPECT_EQ(data.size(), static_cast<size_t>(table.total()) * 4);
    const ParameterInfo& w = table.at("generator.weight");
    EXPECT_EQ(header["generator.weight"]["dtype"], "F32");
    EXPECT_EQ(header["generator.weight"]["shape"], nlohmann::ordered_json(w.shape));
    EXPECT_EQ(header["generator.weight"]["data_offsets"][0], w.offset * 4);
}

TEST_F(CheckpointTest, OverwritesAtomically) {
    const std::string p = path("model.safetensors");
    save_checkpoint(p, tiny_checkpoint());
    Checkpoint second = tiny_checkpoint(NormPlacement::Pre);
    save_checkpoint(p, second);
    EXPECT_EQ(load_checkpoint(p).config.norm, NormPlacement::Pre);
    EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator{}), 1);
}

TEST_F(CheckpointTest, WriteFailureNamesThePathAndLeavesNoTemporary) {
    const std::string p = path("missing_dir/model.safetensors");
    const std::string message = message_of([&] { save_checkpoint(p, tiny_checkpoint()); });
    EXPECT_MENTIONS(message, p);
    EXPECT_MENTIONS(message, "No such file or directory");
    EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator{}), 0);
}

TEST_F(CheckpointTest, SaveRefusesInconsistentCheckpoints) {
    Checkpoint c = tiny_checkpoint();
    c.parameters.pop_back();
    EXPECT_MENTIONS(message_of([&] { save_checkpoint(path("a"), c); }), "parameter values");
    c = tiny_checkpoint();
    c.vocabulary.push_back("dog");
    EXPECT_MENTIONS(message_of([&] { save_checkpoint(path("b"), c); }), "vocabulary has 11 tokens");
    c = tiny_checkpoint();
    c.training_json = "[1, 2]";
    EXPECT_MENTIONS(message_of([&] { save_checkpoint(path("c"), c); }), "training");
}

TEST_F(CheckpointTest, RefusesTruncatedFiles) {
    const std::string p = path("model.safetensors");
    save_checkpoint(p, tiny_checkpoint());
    const auto bytes = read_bytes(p);
    uint64_t n;
    std::memcpy(&n, bytes.data(), 8);
    for (size_t cut : {size_t{0}, size_t{4}, size_t{8}, size_t{9}, static_cast<size_t>(n / 2), static_cast<size_t>(n + 7),
                       static_cast<size_t>(n + 8), static_cast<size_t>(n + 8 + 3), bytes.size() / 2, bytes.size() - 1}) {
        const std::string cut_path = path("cut.safetensors");
        write_bytes(cut_path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
        EXPECT_MENTIONS(message_of([&] { load_checkpoint(cut_path); }), "truncated") << " (cut at " << cut << ")";
    }
}

TEST_F(CheckpointTest, RefusesHeaderLengthLargerThanFile) {
    const std::string p = path("model.safetensors");
    save_checkpoint(p, tiny_checkpoint());
    auto bytes = read_bytes(p);
    for (uint64_t n : {uint64_t{bytes.size()}, uint64_t{1} << 40, ~uint64_t{0}}) {
        std::memcpy(bytes.data(), &n, 8);
        write_bytes(p, bytes);
        EXPECT_MENTIONS(message_of([&] { load_checkpoint(p); }), "larger than the file");
    }
}

TEST_F(CheckpointTest, RefusesGarbageHeader) {
    const std::string p = path("garbage.safetensors");
    write_bytes(p, raw_file("{not json at all", {}));
    EXPECT_MENTIONS(message_of([&] { load_checkpoint(p); }), "not valid JSON");
    write_bytes(p, raw_file("[1, 2, 3]", {}));
    EXPECT_MENTIONS(message_of([&] { load_checkpoint(p); }), "not a JSON object");
    write_bytes(p, raw_file("{\"a\": \"\xff\"}", {}));
    EXPECT_MENTIONS(message_of([&] { load_checkpoint(p); }), "not valid JSON");
    write_bytes(p, raw_file("{\"__metadata__\": {\"format\": 1}}", {}));
    EXPECT_MENTIONS(message_of([&] { load_checkpoint(p); }), "not a string");
    EXPECT_MENTIONS(message_of([&] { load_checkpoint(path("absent.safetensors")); }), "cannot open");
}

TEST_F(CheckpointTest, RefusesWrongDtype) {
    const std::string message = load_edited([](auto& header, auto& data) {
        auto& t = header["generator.bias"];
        t["dtype"] = "F16";
        (void)data;
    });
    EXPECT_MENTIONS(message, "generator.bias");
    EXPECT_MENTIONS(message, "F16");
    // I32 is readable as a safetensors tensor, but checkpoint parameters are F32.
    const std::string i32 = load_edited([](auto& header, auto&) { header["generator.bias"]["dtype"] = "I32"; });
    EXPECT_MENTIONS(i32, "dtype I32");
}

TEST_F(CheckpointTest, RefusesMissingAndExtraTensors) {
    const std::string missing = load_changed([](SafetensorsFile& f) {
        f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(),
                                       [](const NamedTensor& t) { return t.name == "decoder.layers.0.norm3.bias"; }),
                        f.tensors.end());
    });
    EXPECT_MENTIONS(missing, "missing tensor 'decoder.layers.0.norm3.bias'");
    const std::string extra = load_changed([](SafetensorsFile& f) { f.tensors.push_back({"extra.weight", {2}, {1, 2}}); });
    EXPECT_MENTIONS(extra, "unexpected tensor 'extra.weight'");
}

TEST_F(CheckpointTest, RefusesWrongShape) {
    const std::string message = load_changed([](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name == "encoder.layers.0.norm1.weight") {
                t.shape = {4};
                t.data.resize(4);
            }
    });
    EXPECT_MENTIONS(message, "tensor 'encoder.layers.0.norm1.weight' has shape [4] but the config needs [8]");
    const std::string transposed = load_changed([](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name == "encoder.layers.0.ffn.linear1.weight") t.shape = {8, 16};
    });
    EXPECT_MENTIONS(transposed, "has shape [8, 16] but the config needs [16, 8]");
}

TEST_F(CheckpointTest, RefusesBadDataOffsets) {
    const std::string beyond = load_edited([](auto& header, auto&) {
        header["generator.bias"]["data_offsets"] = {1u << 20, (1u << 20) + 40};
    });
    EXPECT_MENTIONS(beyond, "outside the data area");
    const std::string mismatched = load_edited([](auto& header, auto&) {
        auto& offsets = header["generator.bias"]["data_offsets"];
        offsets[1] = offsets[1].template get<uint64_t>() - 4;
    });
    EXPECT_MENTIONS(mismatched, "generator.bias");
    EXPECT_MENTIONS(mismatched, "needs 40");
    const std::string overlapping = load_edited([](auto& header, auto&) {
        header["generator.bias"]["data_offsets"] = {0, 40};
    });
    EXPECT_MENTIONS(overlapping, "overlapping");
    const std::string reversed = load_edited([](auto& header, auto&) { header["generator.bias"]["data_offsets"] = {40, 0}; });
    EXPECT_MENTIONS(reversed, "data_offsets [40, 0]");
    const std::string trailing = load_edited([](auto&, auto& data) { data.resize(data.size() + 8); });
    EXPECT_MENTIONS(trailing, "cover");
    const std::string not_numbers = load_edited([](auto& header, auto&) { header["generator.bias"]["data_offsets"] = {"0", 40}; });
    EXPECT_MENTIONS(not_numbers, "data_offsets");
    const std::string negative_dim = load_edited([](auto& header, auto&) { header["generator.bias"]["shape"] = {-10}; });
    EXPECT_MENTIONS(negative_dim, "non-negative");
    const std::string huge_dim = load_edited([](auto& header, auto&) {
        header["generator.bias"]["shape"] = {uint64_t{1} << 62, uint64_t{1} << 62};
    });
    EXPECT_MENTIONS(huge_dim, "too large");
}

TEST_F(CheckpointTest, RefusesBadFormat) {
    const std::string wrong = load_edited([](auto& header, auto&) { header["__metadata__"]["format"] = "transformer-explorer/0"; });
    EXPECT_MENTIONS(wrong, "format is 'transformer-explorer/0'");
    const std::string absent = load_edited([](auto& header, auto&) { header["__metadata__"].erase("format"); });
    EXPECT_MENTIONS(absent, "not a Transformer Explorer checkpoint");
}

TEST_F(CheckpointTest, RefusesBadConfig) {
    const auto with_config = [&](const std::function<void(nlohmann::json&)>& change) {
        return load_edited([&](auto& header, auto&) {
            auto config = nlohmann::json::parse(header["__metadata__"]["config"].template get<std::string>());
            change(config);
            header["__metadata__"]["config"] = config.dump();
        });
    };
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["heads"] = 3; }), "divisible by heads");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c.erase("d_model"); }), "d_model");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["norm"] = "sideways"; }), "norm");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c.erase("vocabulary"); }), "vocabulary");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["vocabulary"].push_back("dog"); }), "vocabulary has 11 tokens");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["vocabulary"][5] = "the"; }), "duplicate token 'the'");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["vocabulary"][4] = 7; }), "not a string");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) { c["training"] = 5; }), "training");
    EXPECT_MENTIONS(with_config([](nlohmann::json& c) {
                        c["special"]["pad"] = 1;
                        c["special"]["bos"] = 0;
                    }),
                    "<pad>");
    const std::string not_json = load_edited([](auto& header, auto&) { header["__metadata__"]["config"] = "{oops"; });
    EXPECT_MENTIONS(not_json, "config: not valid JSON");
}

TEST(Safetensors, ReadsAHandMadeStandardFile) {
    // As Python's safetensors.numpy.save_file({"a": np.array([1.5, -2], "f4"), "ids": np.array([[7]], "i4")}) lays it out.
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"ids":{"dtype":"I32","shape":[1,1],"data_offsets":[8,12]}})";
    std::vector<uint8_t> bytes(8);
    const uint64_t n = header.size();
    std::memcpy(bytes.data(), &n, 8);
    bytes.insert(bytes.end(), header.begin(), header.end());
    for (float v : {1.5f, -2.0f}) {
        uint8_t b[4];
        std::memcpy(b, &v, 4);
        bytes.insert(bytes.end(), b, b + 4);
    }
    bytes.insert(bytes.end(), {7, 0, 0, 0});
    const SafetensorsFile file = parse_safetensors(bytes.data(), bytes.size(), "hand-made");
    ASSERT_EQ(file.tensors.size(), 2u);
    EXPECT_EQ(file.tensors[0].name, "a");
    EXPECT_EQ(file.tensors[0].data, (std::vector<float>{1.5f, -2.0f}));
    ASSERT_NE(file.find("ids"), nullptr);
    EXPECT_EQ(file.find("ids")->shape, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(file.find("ids")->data, std::vector<float>{7.0f});
    EXPECT_EQ(file.find("ids")->dtype, "I32");
    EXPECT_EQ(file.find("b"), nullptr);
    EXPECT_TRUE(file.metadata.empty());
}

TEST(Safetensors, WriterRefusesInconsistentTensors) {
    const std::string p = tx::test::unique_temp_path("never-written.safetensors");
    SafetensorsFile f;
    f.tensors.push_back({"x", {2, 3}, {1, 2, 3}});
    EXPECT_MENTIONS(message_of([&] { write_safetensors(p, f); }), "'x' has shape [2, 3]");
    f.tensors = {{"x", {1}, {1}}, {"x", {1}, {2}}};
    EXPECT_MENTIONS(message_of([&] { write_safetensors(p, f); }), "twice");
    f.tensors = {{"__metadata__", {1}, {1}}};
    EXPECT_MENTIONS(message_of([&] { write_safetensors(p, f); }), "reserved");
    EXPECT_FALSE(fs::exists(p));
}

}  // namespace
}  // namespace tx
