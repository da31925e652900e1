// SPDX-License-Identifier: MIT
#include "task_pool.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace pe::cpu {

namespace {

/** Waits up to `spin` for done() to turn true, politely; returns done(). */
template <class Done> bool spinFor(std::chrono::microseconds spin, const Done& done) {
    const auto until = std::chrono::steady_clock::now() + spin;
    for (;;) {
        for (int k = 0; k < 64; ++k) {
            if (done())
                return true;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (std::chrono::steady_clock::now() >= until)
            return done();
    }
}

} // namespace

TaskPool::TaskPool(int threads) {
#if defined(__linux__)
    // The helpers inherit this thread's CPUs; steerHelpers narrows and restores that set.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &allowed))
                m_allowedCpus.push_back(cpu);
#endif
    for (int w = 1; w < threads; ++w)
        m_helpers.emplace_back([this, w] { helperLoop(w); });
}

TaskPool::~TaskPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop.store(true, std::memory_order_release);
    }
    m_wake.notify_all();
    for (std::thread& t : m_helpers)
        t.join();
}

void TaskPool::work(int worker) {
    for (;;) {
        const int task = m_next.fetch_add(1, std::memory_order_relaxed);
        if (task >= m_count)
            return;
        (*m_fn)(task, worker);
        m_done.fetch_add(1, std::memory_order_release);
    }
}

void TaskPool::steerHelpers(bool awayFromCaller) {
#if defined(__linux__)
    if (m_allowedCpus.size() < 2 || (!awayFromCaller && !m_steered))
        return;
    const int caller = awayFromCaller ? sched_getcpu() : -1;
    cpu_set_t mask;
    CPU_ZERO(&mask);
    bool callerAllowed = false;
    for (const int cpu : m_allowedCpus) {
        if (cpu == caller)
            callerAllowed = true;
        else
            CPU_SET(cpu, &mask);
    }
    if (awayFromCaller && !callerAllowed)
        return; // the caller runs elsewhere: nothing to keep the helpers from
    m_steered = awayFromCaller;
    for (std::thread& t : m_helpers)
        pthread_setaffinity_np(t.native_handle(), sizeof(mask), &mask);
#else
    (void)awayFromCaller;
#endif
}

TaskPool::Busy::Busy(TaskPool& pool)
    : m_pool(pool) {
    if (pool.m_helpers.empty())
        return;
    {
        std::lock_guard lock(pool.m_mutex);
        if (pool.m_busy.fetch_add(1, std::memory_order_release) == 0)
            pool.steerHelpers(true);
        pool.m_busyOpened.fetch_add(1, std::memory_order_relaxed);
    }
    pool.m_wake.notify_all();
}

TaskPool::Busy::~Busy() {
    if (m_pool.m_helpers.empty())
        return;
    std::lock_guard lock(m_pool.m_mutex);
    if (m_pool.m_busy.fetch_sub(1, std::memory_order_release) == 1)
        m_pool.steerHelpers(false);
}

void TaskPool::helperLoop(int worker) {
    std::uint64_t seen = 0;
    std::uint64_t opened = 0;
    for (;;) {
        // In a Busy scope: spin longer, and stop spinning as soon as it closes.
        const bool busy = m_busy.load(std::memory_order_acquire) > 0;
        spinFor(busy ? kBusySpin : kSpin, [&] {
            return m_generation.load(std::memory_order_acquire) != seen ||
                   m_stop.load(std::memory_order_acquire) ||
                   (busy && m_busy.load(std::memory_order_acquire) == 0);
        });
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock,
                        [&] { return m_stop || m_generation != seen || m_busyOpened != opened; });
            if (m_stop)
                return;
            opened = m_busyOpened.load(std::memory_order_relaxed);
            if (m_generation == seen)
                continue; // woken by a Busy scope: spin for its first section
            seen = m_generation.load(std::memory_order_relaxed);
            if (m_fn == nullptr || worker >= m_maxWorkers)
                continue;
            ++m_active;
        }
        work(worker);
        {
            std::lock_guard lock(m_mutex);
            --m_active;
        }
        m_finished.notify_all();
    }
}

void TaskPool::run(int count, const Task& fn, int maxWorkers) {
    if (count <= 0)
        return;
    const int workers = maxWorkers > 0 ? std::min(maxWorkers, threads()) : threads();
    if (workers <= 1 || count == 1) {
        for (int t = 0; t < count; ++t)
            fn(t, 0);
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_fn = &fn;
        m_count = count;
        m_maxWorkers = workers;
        m_next.store(0, std::memory_order_relaxed);
        m_done.store(0, std::memory_order_relaxed);
        m_generation.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    work(0);
    // Wait for tasks that helpers have started, never for helpers that have not.
    const auto finished = [&] {
        return m_done.load(std::memory_order_acquire) == count &&
               m_active.load(std::memory_order_acquire) == 0;
    };
    spinFor(kSpin, finished);
    std::unique_lock lock(m_mutex);
    m_finished.wait(lock, finished);
    m_fn = nullptr; // late helpers of this generation will find no job
}

void TaskPool::runOnEach(const std::function<void(int worker)>& fn, int maxWorkers) {
    const int workers = maxWorkers > 0 ? std::min(maxWorkers, threads()) : threads();
    std::atomic<int> arrived{0};
    run(
        workers,
        [&](int, int worker) {
            fn(worker);
            arrived.fetch_add(1, std::memory_order_acq_rel);
            // Each task is held until every worker holds one, so no worker takes two.
            while (arrived.load(std::memory_order_acquire) < workers)
                std::this_thread::yield();
        },
        workers);
}

} // namespace pe::cpu
