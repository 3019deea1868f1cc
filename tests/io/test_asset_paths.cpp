// Asset lookup (core/include/tx/asset_paths.h): the same answer from any working directory, TX_ASSETS_DIR
// first, and a path the user gave relative to the working directory kept as it is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tx/asset_paths.h"

namespace tx {
namespace {

namespace fs = std::filesystem;

// Runs the body with the working directory changed to a fresh empty folder, then restores both.
class InEmptyFolder : public ::testing::Test {
protected:
    void SetUp() override {
        m_previous = fs::current_path();
        m_folder = fs::temp_directory_path() / ("tx-assets-test-" + std::to_string(::getpid()));
        fs::create_directories(m_folder);
        fs::current_path(m_folder);
    }
    void TearDown() override {
        fs::current_path(m_previous);
        fs::remove_all(m_folder);
        ::unsetenv("TX_ASSETS_DIR");
    }
    fs::path m_previous, m_folder;
};

TEST_F(InEmptyFolder, ShippedAssetsAreFoundFromAnyWorkingDirectory) {
    const std::string found = find_asset("assets/models/grammar.safetensors");
    EXPECT_TRUE(fs::path(found).is_absolute()) << found;
    EXPECT_TRUE(fs::exists(found)) << found;
    EXPECT_EQ(fs::path(found).parent_path().parent_path(), fs::path(assets_root()));
}

TEST_F(InEmptyFolder, MissingAssetsComeBackUnchanged) {
    EXPECT_EQ(find_asset("assets/models/no-such-model.safetensors"), "assets/models/no-such-model.safetensors");
    EXPECT_EQ(find_asset("my-pairs.tsv"), "my-pairs.tsv");
    EXPECT_EQ(find_asset(""), "");
}

TEST_F(InEmptyFolder, AFileInTheWorkingDirectoryWinsOverTheShippedOne) {
    fs::create_directories("assets/models");
    std::ofstream("assets/models/grammar.safetensors") << "mine";
    EXPECT_EQ(find_asset("assets/models/grammar.safetensors"), "assets/models/grammar.safetensors");
    EXPECT_EQ(find_asset("/abs/path.tsv"), "/abs/path.tsv");
}

TEST_F(InEmptyFolder, TxAssetsDirComesFirst) {
    const fs::path mine = m_folder / "elsewhere";
    fs::create_directories(mine / "models");
    std::ofstream(mine / "models" / "grammar.safetensors") << "mine";
    ::setenv("TX_ASSETS_DIR", mine.c_str(), 1);
    EXPECT_EQ(fs::path(assets_root()), mine);
    EXPECT_EQ(fs::path(find_asset("assets/models/grammar.safetensors")), mine / "models" / "grammar.safetensors");
    // ... also over a file of the same relative path in the working directory, which wins only
    // where TX_ASSETS_DIR lacks the file.
    fs::create_directories("assets/models");
    std::ofstream("assets/models/grammar.safetensors") << "here";
    std::ofstream("assets/models/only-here.safetensors") << "here";
    EXPECT_EQ(fs::path(find_asset("assets/models/grammar.safetensors")), mine / "models" / "grammar.safetensors");
    EXPECT_EQ(find_asset("assets/models/only-here.safetensors"), "assets/models/only-here.safetensors");
    // A TX_ASSETS_DIR that does not exist is passed over.
    ::setenv("TX_ASSETS_DIR", (m_folder / "missing").c_str(), 1);
    EXPECT_NE(fs::path(assets_root()), m_folder / "missing");
    EXPECT_FALSE(assets_root().empty());
}

}  // namespace
}  // namespace tx
