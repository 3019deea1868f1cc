// Keeps freed memory in the process for reuse instead of returning it to the kernel.
// glibc hands blocks above 128 KiB back to the kernel when they are freed (and trims the heap
// top); the next allocation of that size then touches fresh pages, and each fresh 4 KiB page
// costs ~10 µs (docs/design.md §10). Eigen's matrix products allocate their packing buffers on
// every call, so a training step of the base model paid ~5% of its time in page faults.
// Called once at the start of txcli and the app; a no-op where the C library is not glibc.
#pragma once

namespace tx {

void keep_freed_memory_for_reuse();

}  // namespace tx
