// Error checks for CUDA runtime and cuBLAS calls: a failure becomes tx::DeviceError whose
// message names the op ("cuda linear_forward: out of memory (cudaErrorMemoryAllocation)"), so
// callers can report it and go on; nothing aborts the program.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "tx/backend.h"

namespace tx::cuda {

inline std::string error_text(cudaError_t err) {
    return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

inline void check(cudaError_t err, const char* op) {
    if (err != cudaSuccess) throw DeviceError(std::string("cuda ") + op + ": " + error_text(err));
}

inline void check(cublasStatus_t status, const char* op) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw DeviceError(std::string("cuda ") + op + ": cuBLAS " + cublasGetStatusString(status));
}

// After a kernel launch: a bad configuration shows up here, a fault in the kernel at the next
// synchronisation (which checks again with the same op name where it can).
inline void check_launch(const char* op) { check(cudaGetLastError(), op); }

// Blocks of `threads` covering n elements.
inline unsigned int blocks_for(long long n, int threads) {
    return static_cast<unsigned int>((n + threads - 1) / threads);
}

}  // namespace tx::cuda
