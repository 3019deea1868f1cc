// The panel keys that lessons may name (the app's panel registry; the explain tests have no GUI).
#pragma once

#include <string>
#include <vector>

namespace tx::test {

inline const std::vector<std::string> LESSON_PANELS = {"input",    "steps",   "attention", "masks",    "positional",
                                                       "shapes",   "model",   "backend",   "training", "decoding",
                                                       "neuron",   "lessons", "generate",  "inspect",  "precision"};

}  // namespace tx::test
