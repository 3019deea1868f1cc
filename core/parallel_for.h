// parallel_for: the CPU ops' one way to use more than one core outside the matrix products.
// [0, n) is cut into one contiguous range per thread of the CPU pool (cpu_threads(), OpenMP) and
// fn(begin, end) runs once per range. The ranges depend only on n and the thread count, never on
// timing, and an op that uses it must write each output from one index alone (a row of layernorm,
// a column of its weight gradient): its result is then the same bits on 1 or 2 threads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "threads.h"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace tx {

// min_per_thread: the least work (indices) worth a thread of its own; below 2× that it runs on
// the caller's thread alone, so small evaluation-time tensors pay no thread start-up.
template <typename Fn>
void parallel_for(int64_t n, int64_t min_per_thread, Fn&& fn) {
    if (n <= 0) return;
#ifdef _OPENMP
    const int64_t most = std::max<int64_t>(1, n / std::max<int64_t>(1, min_per_thread));
    const int threads = static_cast<int>(std::min<int64_t>(cpu_threads(), most));
    if (threads > 1 && !omp_in_parallel()) {
#pragma omp parallel num_threads(threads)
        {
            // A private copy of the function object: called through the shared one, the compiler
            // must assume that the loop's stores may change the captured pointers, reloads them
            // on every iteration and does not vectorise (relu's backward ran 10× slower).
            std::decay_t<Fn> body(fn);
            const int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
            body(n * t / count, n * (t + 1) / count);
        }
        return;
    }
#endif
    fn(int64_t{0}, n);
}

}  // namespace tx
