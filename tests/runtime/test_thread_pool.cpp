// The CPU ops' thread pool (core/runtime/thread_pool.h) and parallel_for on it: every part runs exactly
// once per job, over thousands of back-to-back jobs (the hand-over a training step repeats), a
// nested or concurrent call runs on its caller alone, and nothing is lost either way. The
// ThreadSanitizer stage of the CI runs these too.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/parallel_for.h"
#include "runtime/thread_pool.h"
#include "tx/threads.h"

namespace {

struct ThreadsGuard {   // restores the process's thread count after a test
    int saved = tx::cpu_threads();
    ~ThreadsGuard() { tx::set_cpu_threads(saved); }
};

TEST(ThreadPool, EveryPartRunsOnceInEachOfManyJobs) {
    constexpr int JOBS = 3000, PARTS = 2;
    std::vector<std::atomic<int>> runs(static_cast<size_t>(JOBS) * PARTS);
    for (int job = 0; job < JOBS; ++job) {
        struct Ctx {
            std::vector<std::atomic<int>>* runs;
            int job;
        } ctx{&runs, job};
        const bool ran = tx::thread_pool_run(PARTS, [](void* c, int i, int count) {
            auto& x = *static_cast<Ctx*>(c);
            (*x.runs)[static_cast<size_t>(x.job) * count + i].fetch_add(1);
        }, &ctx);
        ASSERT_TRUE(ran) << "job " << job << ": the pool was busy with no other caller";
    }
    for (size_t k = 0; k < runs.size(); ++k) ASSERT_EQ(runs[k].load(), 1) << "job " << k / PARTS << " part " << k % PARTS;
}

TEST(ThreadPool, NestedCallIsRefusedAndRunsNothing) {
    std::atomic<int> outer{0}, inner{0}, refused{0};
    struct Ctx {
        std::atomic<int>*outer, *inner, *refused;
    } ctx{&outer, &inner, &refused};
    ASSERT_TRUE(tx::thread_pool_run(2, [](void* c, int, int) {
        auto& x = *static_cast<Ctx*>(c);
        x.outer->fetch_add(1);
        const bool ran = tx::thread_pool_run(2, [](void* c2, int, int) { static_cast<Ctx*>(c2)->inner->fetch_add(1); }, c);
        if (!ran) x.refused->fetch_add(1);
    }, &ctx));
    EXPECT_EQ(outer.load(), 2);
    EXPECT_EQ(inner.load(), 0);
    EXPECT_EQ(refused.load(), 2);
}

TEST(ThreadPool, ParallelForCoversEachIndexOnceFromTwoCallersAtOnce) {
    ThreadsGuard guard;
    tx::set_cpu_threads(2);
    constexpr int64_t N = 1000;
    constexpr int ROUNDS = 300;
    // Two threads call parallel_for at the same time: one gets the pool, the other runs alone,
    // and both must still write every index of their own array exactly once.
    auto caller = [](std::vector<int>* hits) {
        for (int r = 0; r < ROUNDS; ++r)
            tx::parallel_for(N, 1, [hits](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) ++(*hits)[static_cast<size_t>(i)];
            });
    };
    std::vector<int> a(N, 0), b(N, 0);
    std::thread t1(caller, &a), t2(caller, &b);
    t1.join();
    t2.join();
    for (int64_t i = 0; i < N; ++i) {
        ASSERT_EQ(a[static_cast<size_t>(i)], ROUNDS) << "index " << i;
        ASSERT_EQ(b[static_cast<size_t>(i)], ROUNDS) << "index " << i;
    }
}

}  // namespace
