// The CUDA backend's public face: availability and the factory. Plain C++ (no CUDA headers), so
// the app and the tests include it without nvcc. Compiled only where gpu/ is built; that target
// exports TX_HAVE_CUDA=1 to everything that links it.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "tx/backend.h"

namespace tx {

// The reason no CUDA device can be used, or "" when one can. NO_DRIVER_REASON where no NVIDIA
// driver is loaded (CUDA itself then says "CUDA driver version is insufficient", which reads as
// "update your driver"); otherwise the driver's own words. Cheap after the first call: the answer
// is kept.
std::string cuda_unavailable_reason();
inline constexpr const char* NO_DRIVER_REASON = "no NVIDIA GPU or driver found (no GPU, or its driver is not installed)";

// "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" for the device the backend uses; "" when unavailable.
std::string cuda_device_description();

// A backend whose tensors live in device memory and whose ops run as CUDA kernels and cuBLAS
// calls on one stream. Throws DeviceError with cuda_unavailable_reason() when there is no device.
// Use it from one thread at a time (the trainer thread owns its own).
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace tx
