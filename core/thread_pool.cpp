// thread_pool_run (see thread_pool.h): one generation counter that workers poll, then a condition
// variable once they have polled for SPIN_MICROSECONDS. OMP_WAIT_POLICY=passive in the environment
// makes them sleep at once, as it does libgomp's (the unit tests on a shared machine set it).
#include "thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define TX_PAUSE() _mm_pause()
#else
#define TX_PAUSE() std::this_thread::yield()
#endif

namespace tx {

namespace {

// Longer than the gaps between a training step's regions (the single-threaded bias sums, the loss
// read-back), shorter than a frame: an idle pool stops costing a core within 2 ms.
constexpr int64_t SPIN_MICROSECONDS = 2000;

class ThreadPool {
public:
    ThreadPool() {
        const char* policy = std::getenv("OMP_WAIT_POLICY");
        m_spin = !(policy && (std::strcmp(policy, "passive") == 0 || std::strcmp(policy, "PASSIVE") == 0));
    }
    ~ThreadPool() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop.store(true, std::memory_order_relaxed);
            m_generation.fetch_add(1, std::memory_order_release);
        }
        m_wake.notify_all();
        for (std::thread& t : m_workers) t.join();
    }

    bool run(int count, void (*part)(void*, int, int), void* ctx) {
        if (m_busy.exchange(true, std::memory_order_acquire)) return false;
        while (static_cast<int>(m_workers.size()) < count - 1) {
            // The generation before this job's: a worker that starts late still sees the job as new.
            const int index = static_cast<int>(m_workers.size()) + 1;
            const uint64_t seen = m_generation.load(std::memory_order_relaxed);
            m_workers.emplace_back([this, index, seen] { work(index, seen); });
        }
        m_part = part;
        m_ctx = ctx;
        m_count = count;
        m_pending.store(static_cast<int>(m_workers.size()), std::memory_order_relaxed);
        bool wake;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_generation.fetch_add(1, std::memory_order_release);
            wake = m_sleepers > 0;
        }
        if (wake) m_wake.notify_all();
        part(ctx, 0, count);
        for (int polls = 0; m_pending.load(std::memory_order_acquire) != 0; ++polls) {
            if (polls < 1 << 16) TX_PAUSE();
            else std::this_thread::yield();   // a worker was descheduled: give it the core
        }
        m_busy.store(false, std::memory_order_release);
        return true;
    }

private:
    void work(int index, uint64_t seen) {
        for (;;) {
            uint64_t now = m_generation.load(std::memory_order_acquire);
            if (now == seen && m_spin) {
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(SPIN_MICROSECONDS);
                for (int polls = 1; (now = m_generation.load(std::memory_order_acquire)) == seen; ++polls) {
                    TX_PAUSE();
                    if (polls % 256 == 0 && std::chrono::steady_clock::now() > until) break;
                }
            }
            if (now == seen) {
                std::unique_lock<std::mutex> lock(m_mutex);
                ++m_sleepers;
                m_wake.wait(lock, [&] { return m_generation.load(std::memory_order_acquire) != seen; });
                --m_sleepers;
                now = m_generation.load(std::memory_order_acquire);
            }
            seen = now;
            if (m_stop.load(std::memory_order_relaxed)) return;
            if (index < m_count) m_part(m_ctx, index, m_count);
            m_pending.fetch_sub(1, std::memory_order_release);
        }
    }

    std::vector<std::thread> m_workers;
    std::atomic<bool> m_busy{false};
    std::atomic<uint64_t> m_generation{0};
    std::atomic<int> m_pending{0};
    void (*m_part)(void*, int, int) = nullptr;   // the job: written before m_generation moves on
    void* m_ctx = nullptr;
    int m_count = 0;
    bool m_spin = true;
    std::atomic<bool> m_stop{false};
    int m_sleepers = 0;    // under m_mutex
    std::mutex m_mutex;
    std::condition_variable m_wake;
};

}  // namespace

bool thread_pool_run(int count, void (*part)(void* ctx, int i, int count), void* ctx) {
    static ThreadPool pool;
    return pool.run(count, part, ctx);
}

}  // namespace tx
