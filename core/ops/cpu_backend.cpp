// The CPU backends' factories (backend.h); the class is in cpu_backend.h.
#include "ops/cpu_backend.h"

namespace tx {

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }
std::unique_ptr<Backend> make_cpu_backend_unfused_add_norm() { return std::make_unique<CpuBackend>(false); }

}  // namespace tx
