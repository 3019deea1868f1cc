// What the backend benchmarks share: the backend named on the command line, and the median
// time of a run measured with the backend's own timer (CUDA events on the GPU, so that the
// time is the device's, not the launch's).
#pragma once
#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tx/backend.h"
#ifdef TX_HAVE_CUDA
#include "tx/cuda_backend.h"
#endif

namespace bench {

// "cpu" or "cuda". Throws std::invalid_argument for a name this build lacks, and tx::DeviceError
// when the CUDA backend cannot start (its message is the driver's reason).
inline std::unique_ptr<tx::Backend> make_named_backend(const std::string& name) {
    if (name == "cpu") return tx::make_cpu_backend();
#ifdef TX_HAVE_CUDA
    if (name == "cuda") return tx::make_cuda_backend();
#endif
    throw std::invalid_argument("backend '" + name + "' is not in this build");
}

// Median milliseconds of `repeats` runs, after 3 unmeasured warm-up runs.
inline double median_ms(tx::Backend& backend, int repeats, const std::function<void()>& run) {
    for (int i = 0; i < 3; ++i) run();
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        backend.timer_start();
        run();
        ms.push_back(backend.timer_stop());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace bench
