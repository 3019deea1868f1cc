// A path in the temp folder that no other process of the test suite uses: CTest runs tests of one
// executable side by side (ctest -j), so a fixed name would let two of them write the same file.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tx::test {

// temp folder / "tx-<pid>-<name>"
inline std::string unique_temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("tx-" + std::to_string(::getpid()) + "-" + name)).string();
}

}  // namespace tx::test
