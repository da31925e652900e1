// SPDX-License-Identifier: MIT
#include "task_pool.h"

namespace pe::cpu {

namespace {

/** Waits up to TaskPool::kSpin for done() to turn true, politely; returns done(). */
template <class Done> bool spinFor(const Done& done) {
    const auto until = std::chrono::steady_clock::now() + TaskPool::kSpin;
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

void TaskPool::helperLoop(int worker) {
    std::uint64_t seen = 0;
    for (;;) {
        spinFor([&] {
            return m_generation.load(std::memory_order_acquire) != seen ||
                   m_stop.load(std::memory_order_acquire);
        });
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
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
    spinFor(finished);
    std::unique_lock lock(m_mutex);
    m_finished.wait(lock, finished);
    m_fn = nullptr; // late helpers of this generation will find no job
}

} // namespace pe::cpu
