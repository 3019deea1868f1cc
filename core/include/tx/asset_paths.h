// Where the shipped assets (models, corpora, vocabularies, lessons) are, for every way the
// programs run: from a build folder, from the source tree, and installed (the .deb puts them in
// <prefix>/share/transformer-explorer/assets beside <prefix>/bin).
#pragma once

#include <string>

namespace tx {

// The folder of the running executable (from /proc/self/exe); empty if it cannot be read.
std::string executable_dir();

// The assets folder, the first that exists of:
//   1. $TX_ASSETS_DIR;
//   2. <executable>/../share/transformer-explorer/assets (an installed or unpacked package);
//   3. <executable>/assets;
//   4. the source tree's assets/ (compiled in), for programs and tests run from a build folder.
// Empty if none exists. Independent of the working directory.
std::string assets_root();

// A path as the user or a setting gave it: a path starting with "assets/" found under
// $TX_ASSETS_DIR; else absolute, or relative to the working directory when that file exists;
// otherwise a path starting with "assets/" is looked up in assets_root().
// Returned unchanged when nothing matches, so the caller's error message names what was asked for.
std::string find_asset(const std::string& path);

// The shipped models that the programs open without being asked, relative to the assets folder:
// the everyday English -> Spanish model (the app's first screen, txcli's default), and the
// small-grammar one (the lessons' model, and what the Training panel fine-tunes).
inline constexpr const char* EVERYDAY_MODEL = "models/everyday.safetensors";
inline constexpr const char* GRAMMAR_MODEL = "models/grammar.safetensors";

}  // namespace tx
