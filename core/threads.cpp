// Eigen parallelises its GEMM with OpenMP when compiled with it; this is the one place that
// sets the pool size, so the GUI, txcli and the trainer agree.
#include "threads.h"

#include <Eigen/Core>
#include <algorithm>
#include <thread>

namespace tx {

void set_cpu_threads(int threads) {
    const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    Eigen::setNbThreads(std::clamp(threads, 1, hardware));
}

int cpu_threads() { return Eigen::nbThreads(); }

bool cpu_threads_supported() {
#ifdef _OPENMP
    return true;
#else
    return false;
#endif
}

}  // namespace tx
