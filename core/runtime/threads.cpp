// The CPU threads of every op and matrix product (parallel_for.h, thread_pool.h); this is the one
// place that sets their count, so the GUI, txcli and the trainer agree. The project builds without
// OpenMP, so Eigen's own products (attention's per-head ones, inside a pool range) run on the thread
// that calls them and never start a second team on the same cores.
#include "tx/threads.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace tx {

namespace {
std::atomic<int> g_threads{1};
}  // namespace

void set_cpu_threads(int threads) {
    const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    g_threads.store(std::clamp(threads, 1, hardware), std::memory_order_relaxed);
}

int cpu_threads() { return g_threads.load(std::memory_order_relaxed); }

}  // namespace tx
