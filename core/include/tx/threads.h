// Threads used by the CPU backend's ops and matrix products (thread_pool.h's pool). One by
// default: it is the stable baseline on the project's 2-core machines (docs/design.md §10).
#pragma once

namespace tx {

void set_cpu_threads(int threads);   // clamps to [1, hardware]
int cpu_threads();

}  // namespace tx
