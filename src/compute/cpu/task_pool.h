// SPDX-License-Identifier: MIT
#pragma once

/**
 * A small fork-join pool for the fast CPU engine. run(count, fn) calls fn(task, worker) for
 * every task in [0, count) on the calling thread (worker 0) and the helpers (1 … threads−1),
 * and returns when all tasks are done. Tasks are handed out one at a time from an atomic
 * counter and the caller never waits for a helper that has not started: on a loaded machine a
 * helper that wakes late finds no work left, so a busy core cannot stall a phase the way a
 * join barrier does.
 *
 * Helpers spin for a short while (kSpin) after a job before they sleep, and the caller spins as
 * long before it sleeps on the helpers: the next parallel section of a computation follows
 * within microseconds, and waking a thread that slept costs far more where its core has gone
 * idle (a virtual CPU halted by its hypervisor took the engine from 8 to 13 ms at n = 512).
 *
 * A computation holds a Busy scope around its parallel sections: opening it wakes the helpers
 * at once (their wake-up overlaps the caller's serial start), and while it is open they spin up
 * to kBusySpin between sections, so that serial steps of a few hundred microseconds between
 * two sections do not put them to sleep. Closing it sends spinning helpers to sleep at once:
 * they never hold a core after the computation, when the window needs it to draw the result.
 * While it is open the helpers may not run on the CPU the caller opened it on (steerHelpers).
 */

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pe::cpu {

class TaskPool {
public:
    using Task = std::function<void(int task, int worker)>;

    explicit TaskPool(int threads);
    ~TaskPool();
    TaskPool(const TaskPool&) = delete;
    TaskPool& operator=(const TaskPool&) = delete;

    int threads() const { return static_cast<int>(m_helpers.size()) + 1; }
    /** Runs fn over [0, count); `maxWorkers` caps the workers used (0 = all). */
    void run(int count, const Task& fn, int maxWorkers = 0);
    /**
     * Runs fn(worker) once on each of the first `maxWorkers` workers (0 = all), each on its own
     * thread, and returns when all have run it: for setting up per-thread state (first-touched
     * scratch), not for work, since it waits for the helpers that wake last.
     */
    void runOnEach(const std::function<void(int worker)>& fn, int maxWorkers = 0);

    /** How long a thread spins for the next job (or for the helpers) before it sleeps. */
    static constexpr std::chrono::microseconds kSpin{200};
    /** How long a helper spins for the next job while a Busy scope is open. */
    static constexpr std::chrono::microseconds kBusySpin{2000};

    /** A computation's span: helpers awake from its start, spinning between its sections. */
    class Busy {
    public:
        explicit Busy(TaskPool& pool);
        ~Busy();
        Busy(const Busy&) = delete;
        Busy& operator=(const Busy&) = delete;

    private:
        TaskPool& m_pool;
    };

private:
    void helperLoop(int worker);
    /**
     * Keeps the helpers off the caller's current CPU (or lets them anywhere again). Some
     * schedulers place a woken thread on its waker's busy CPU rather than on an idle one that
     * has to be woken first: a 2-vCPU VM queued the helper behind the caller for 2–5 ms, so the
     * engine ran on one core (10–12 ms at n = 512 instead of 7). A helper on the caller's CPU
     * adds nothing, so excluding that CPU costs nothing where the scheduler would not have
     * put it there. Linux only; called under m_mutex.
     */
    void steerHelpers(bool awayFromCaller);
    std::vector<int> m_allowedCpus; ///< the CPUs the helpers may run on, as constructed
    bool m_steered = false;
    void work(int worker);

    std::vector<std::thread> m_helpers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_finished;
    // Changed under m_mutex (the condition variables' waits read them there); atomic so that
    // spinning threads can read them without it.
    std::atomic<std::uint64_t> m_generation{0};
    std::atomic<bool> m_stop{false};
    // The current job (valid while m_active > 0 or the caller is in run()).
    const Task* m_fn = nullptr;
    int m_count = 0;
    int m_maxWorkers = 0;
    std::atomic<int> m_next{0};
    std::atomic<int> m_done{0};
    std::atomic<int> m_active{0}; ///< helpers inside work(), changed under m_mutex
    std::atomic<int> m_busy{0};   ///< open Busy scopes
    /** Counts Busy scopes opened (changed under m_mutex): wakes sleeping helpers to spin. */
    std::atomic<std::uint64_t> m_busyOpened{0};
};

} // namespace pe::cpu
