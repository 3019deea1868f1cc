// The backends a user can name, in one place for the app and txcli: "cpu" (Eigen and the
// project's kernels, always built) and "cuda" (gpu/, built where a CUDA compiler was found, usable
// where a device is present). Names are what --backend takes and what the Backend panel shows.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tx/backend.h"

namespace tx::app {

const std::vector<std::string>& backend_names();   // {"cpu", "cuda"}
// "CPU (Eigen)", "CUDA (GPU)": the label a person reads.
std::string backend_label(const std::string& name);
// Why `name` cannot be used in this binary on this machine; "" when it can.
std::string backend_unavailable_reason(const std::string& name);
// The device a backend runs on ("NVIDIA H100 ... (sm_90, 79.1 GiB)"); "" for the CPU or when unavailable.
std::string backend_device(const std::string& name);
// A fresh backend. Throws std::invalid_argument for a name not in backend_names(), DeviceError
// with the reason when it is unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name);

}  // namespace tx::app
