// The CPU threads of every op and matrix product (parallel_for.h, thread_pool.h); this is the one
// place that sets their count, so the GUI, txcli and the trainer agree. Eigen's own OpenMP GEMM
// stays on one thread: products called inside a pool range (attention's per-head ones) would
// otherwise start a second, libgomp, team on the same cores.
#include "threads.h"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <thread>

namespace tx {

namespace {
std::atomic<int> g_threads{1};
const bool g_eigen_one_thread = (Eigen::setNbThreads(1), true);   // before any product, set or not
}  // namespace

void set_cpu_threads(int threads) {
    const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    g_threads.store(std::clamp(threads, 1, hardware), std::memory_order_relaxed);
}

int cpu_threads() { return g_threads.load(std::memory_order_relaxed); }

}  // namespace tx
