// The assets folder and asset lookup; see asset_paths.h.
#include "tx/asset_paths.h"

#include <cstdlib>
#include <filesystem>

namespace tx {

namespace fs = std::filesystem;

std::string executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

namespace {

// $TX_ASSETS_DIR when it names a folder, else empty.
std::string chosen_assets_dir() {
    std::error_code ec;
    const char* env = std::getenv("TX_ASSETS_DIR");
    return env && *env && fs::is_directory(env, ec) ? env : "";
}

}  // namespace

std::string assets_root() {
    std::error_code ec;
    if (std::string chosen = chosen_assets_dir(); !chosen.empty()) return chosen;
    if (const std::string exe = executable_dir(); !exe.empty()) {
        for (const fs::path& candidate : {fs::path(exe) / ".." / "share" / "transformer-explorer" / "assets",
                                         fs::path(exe) / "assets"})
            if (fs::is_directory(candidate, ec)) return candidate.lexically_normal().string();
    }
#ifdef TX_SOURCE_ASSETS_DIR
    if (fs::is_directory(TX_SOURCE_ASSETS_DIR, ec)) return TX_SOURCE_ASSETS_DIR;
#endif
    return {};
}

std::string find_asset(const std::string& path) {
    std::error_code ec;
    const std::string prefix = "assets/";
    // An assets folder named in $TX_ASSETS_DIR was chosen on purpose: it wins over a file of the same
    // relative path in the working directory (a training run started in the source tree would
    // otherwise read the source tree's corpus).
    if (const std::string chosen = chosen_assets_dir(); !chosen.empty() && path.compare(0, prefix.size(), prefix) == 0) {
        const fs::path file = fs::path(chosen) / path.substr(prefix.size());
        if (fs::exists(file, ec)) return file.string();
    }
    if (path.empty() || fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
    if (path.compare(0, prefix.size(), prefix) == 0) {
        const std::string root = assets_root();
        if (!root.empty()) {
            const fs::path found = fs::path(root) / path.substr(prefix.size());
            if (fs::exists(found, ec)) return found.string();
        }
    }
    return path;
}

}  // namespace tx
