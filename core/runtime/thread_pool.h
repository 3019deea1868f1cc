// The CPU ops' own thread pool: parallel_for.h and the matrix products run their ranges on it.
// Its workers live for the whole process and, after a job, spin for a while (SPIN_MICROSECONDS)
// before they sleep, so the few hundred short parallel regions of a training step start and end
// without a system call: libgomp wakes and releases its team with a futex call per region.
// Caller and workers claim the parts, so a worker that is asleep or descheduled delays no one.
// One job at a time: a caller that finds the pool busy (another thread's job, or a nested call
// from inside a job) gets false.
#pragma once

namespace tx {

// Runs part(ctx, i, count) once for every i in [0, count), on any of the pool's threads, and
// returns when all have finished; false, with nothing run, when the pool is busy. count is at most the hardware's thread count.
bool thread_pool_run(int count, void (*part)(void* ctx, int i, int count), void* ctx);

}  // namespace tx
