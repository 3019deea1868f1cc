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

std::string assets_root() {
    std::error_code ec;
    if (const char* env = std::getenv("TX_ASSETS_DIR"); env && *env && fs::is_directory(env, ec)) return env;
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
    if (path.empty() || fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
    const std::string prefix = "assets/";
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
