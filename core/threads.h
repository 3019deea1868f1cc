// Threads used by the CPU backend's matrix products (Eigen's OpenMP pool). One by default: it
// is the stable baseline on the project's 2-core machines (shared/PERF.md).
#pragma once

namespace tx {

void set_cpu_threads(int threads);   // clamps to [1, hardware]; no effect in a build without OpenMP
int cpu_threads();
bool cpu_threads_supported();        // built with OpenMP

}  // namespace tx
