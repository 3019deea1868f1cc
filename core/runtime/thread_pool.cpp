// thread_pool_run (see thread_pool.h): one generation counter that workers poll, then a condition
// variable once they have polled for SPIN_MICROSECONDS. OMP_WAIT_POLICY=passive in the environment
// makes them sleep at once, as it does libgomp's (the unit tests on a shared machine set it).
#include "runtime/thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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
            const uint64_t seen = m_generation.load(std::memory_order_relaxed);
            m_workers.emplace_back([this, seen] { work(seen); });
        }
        m_part = part;
        m_ctx = ctx;
        m_done.store(0, std::memory_order_relaxed);
        m_job = (m_job + 1) & 0xFFFFFFFFu;
        m_claims.store(m_job << 32 | static_cast<uint64_t>(count) << 16, std::memory_order_release);
        bool wake;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_generation.fetch_add(1, std::memory_order_release);
            wake = m_sleepers > 0;
        }
        if (wake) m_wake.notify_all();
        claim_parts();
        for (int polls = 0; m_done.load(std::memory_order_acquire) != count; ++polls) {
            if (polls < 1 << 12) TX_PAUSE();
            else std::this_thread::yield();   // a worker was descheduled inside its part
        }
        m_busy.store(false, std::memory_order_release);
        return true;
    }

private:
    // Parts go to whichever thread claims them first: the caller does all of them when the workers
    // are asleep or descheduled (a shared machine), and waits only for parts already begun. Which
    // thread runs a part does not change its range, so the results stay the same bits.
    // m_claims: job number (32 bits) | part count (16) | next unclaimed part (16).
    void claim_parts() {
        uint64_t claims = m_claims.load(std::memory_order_acquire);
        const uint64_t job = claims >> 32;
        for (;;) {
            const int count = static_cast<int>(claims >> 16 & 0xFFFF), next = static_cast<int>(claims & 0xFFFF);
            if (claims >> 32 != job || next >= count) return;
            if (!m_claims.compare_exchange_weak(claims, claims + 1, std::memory_order_acq_rel)) continue;
            m_part(m_ctx, next, count);   // stays set: the job cannot end before this part is done
            m_done.fetch_add(1, std::memory_order_release);
            claims = m_claims.load(std::memory_order_acquire);
        }
    }

    void work(uint64_t seen) {
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
            claim_parts();
        }
    }

    std::vector<std::thread> m_workers;
    std::atomic<bool> m_busy{false};
    std::atomic<uint64_t> m_generation{0};
    std::atomic<uint64_t> m_claims{0};
    std::atomic<int> m_done{0};                  // parts of the current job finished
    void (*m_part)(void*, int, int) = nullptr;   // the job: written before m_claims moves on
    void* m_ctx = nullptr;
    uint64_t m_job = 0;                          // the caller's side only
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
