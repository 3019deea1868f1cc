// glibc's malloc settings of memory_reuse.h: the same values as the GLIBC_TUNABLES that
// docs/design.md §10 gives the tuned PyTorch peer (mmap threshold 32 MiB, its largest; trimming
// only above 1 GiB of free heap top).
#include "tx/memory_reuse.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tx {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

}  // namespace tx
