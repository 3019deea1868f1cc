// parallel_for: the CPU ops' one way to use more than one core (the matrix products' blocks too).
// [0, n) is cut into one contiguous range per thread (cpu_threads(), run on thread_pool.h's pool)
// and fn(begin, end) runs once per range. The ranges depend only on n and the thread count, never
// on timing, and an op that uses it must write each output from one index alone (a row of layernorm,
// a column of its weight gradient): its result is then the same bits on 1 or 2 threads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "runtime/thread_pool.h"
#include "tx/threads.h"

namespace tx {

// min_per_thread: the least work (indices) worth a thread of its own; below 2× that it runs on
// the caller's thread alone, so small evaluation-time tensors pay no hand-over. A call made while
// the pool is busy (from inside another range, or from a second thread) runs on its caller alone.
template <typename Fn>
void parallel_for(int64_t n, int64_t min_per_thread, Fn&& fn) {
    if (n <= 0) return;
    const int64_t most = std::max<int64_t>(1, n / std::max<int64_t>(1, min_per_thread));
    const int threads = static_cast<int>(std::min<int64_t>(cpu_threads(), most));
    if (threads > 1) {
        struct Job {
            const std::decay_t<Fn>* fn;
            int64_t n;
        } job{&fn, n};
        auto part = [](void* ctx, int t, int count) {
            const Job& j = *static_cast<const Job*>(ctx);
            // A private copy of the function object: called through the shared one, the compiler
            // must assume that the loop's stores may change the captured pointers, reloads them
            // on every iteration and does not vectorise (relu's backward ran 10× slower).
            std::decay_t<Fn> body(*j.fn);
            body(j.n * t / count, j.n * (t + 1) / count);
        };
        if (thread_pool_run(threads, part, &job)) return;
    }
    fn(int64_t{0}, n);
}

}  // namespace tx
