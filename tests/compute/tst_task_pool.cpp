// SPDX-License-Identifier: MIT
// The fast engine's fork-join pool: every task runs exactly once, on valid workers, and run()
// returns only when all of them are done.

#include <QTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "task_pool.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

using pe::cpu::TaskPool;

class TestTaskPool : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyTaskOnce_data();
    void everyTaskOnce();
    void workersAreCapped();
    void runOnEachReachesEveryWorkerOnce();
    void emptyRunReturns();
    void busyScopeKeepsHelpersOffTheCallersCpu();
    void busyScopesNestAndRunJobs();
};

void TestTaskPool::everyTaskOnce_data() {
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("rounds");
    QTest::newRow("1 thread") << 1 << 100 << 3;
    QTest::newRow("2 threads") << 2 << 1000 << 50;
    QTest::newRow("8 threads, few tasks") << 8 << 3 << 200;
    QTest::newRow("8 threads, many tasks") << 8 << 5000 << 20;
}

void TestTaskPool::everyTaskOnce() {
    QFETCH(int, threads);
    QFETCH(int, count);
    QFETCH(int, rounds);
    TaskPool pool(threads);
    QCOMPARE(pool.threads(), threads);
    for (int r = 0; r < rounds; ++r) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
        std::atomic<int> badWorker{0};
        pool.run(count, [&](int task, int worker) {
            if (worker < 0 || worker >= threads)
                badWorker.fetch_add(1);
            hits[static_cast<std::size_t>(task)].fetch_add(1);
        });
        for (int t = 0; t < count; ++t)
            QCOMPARE(hits[static_cast<std::size_t>(t)].load(), 1); // all done when run() returns
        QCOMPARE(badWorker.load(), 0);
    }
}

void TestTaskPool::runOnEachReachesEveryWorkerOnce() {
    // Every worker below the cap runs it once, each on a thread of its own, however slowly the
    // first ones run (they could otherwise take the others' share): per-thread setup relies on it.
    for (int cap : {0, 3, 1}) {
        TaskPool pool(6);
        const int workers = cap > 0 ? cap : 6;
        for (int round = 0; round < 20; ++round) {
            std::mutex m;
            std::vector<int> calls(6, 0);
            std::set<std::thread::id> threads;
            pool.runOnEach(
                [&](int worker) {
                    if (worker == 0 && round % 2 == 0)
                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    std::lock_guard lock(m);
                    ++calls[static_cast<std::size_t>(worker)];
                    threads.insert(std::this_thread::get_id());
                },
                cap);
            for (int w = 0; w < 6; ++w)
                QCOMPARE(calls[static_cast<std::size_t>(w)], w < workers ? 1 : 0);
            QCOMPARE(static_cast<int>(threads.size()), workers);
        }
    }
}

void TestTaskPool::workersAreCapped() {
    TaskPool pool(4);
    std::mutex m;
    std::set<int> seen;
    pool.run(
        200,
        [&](int, int worker) {
            std::lock_guard lock(m);
            seen.insert(worker);
            std::this_thread::yield();
        },
        2);
    for (int w : seen)
        QVERIFY2(w < 2, "a worker beyond the cap ran a task");
    seen.clear();
    pool.run(
        50,
        [&](int, int worker) {
            std::lock_guard lock(m);
            seen.insert(worker);
        },
        1);
    QCOMPARE(seen, std::set<int>{0}); // one worker: the caller alone
}

void TestTaskPool::emptyRunReturns() {
    TaskPool pool(3);
    int calls = 0;
    pool.run(0, [&](int, int) { ++calls; });
    QCOMPARE(calls, 0);
}

#if defined(__linux__)
namespace {
/** The CPUs this thread may run on. */
std::vector<int> allowedCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set))
                cpus.push_back(c);
    return cpus;
}

void pinThisThread(const std::vector<int>& cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus)
        CPU_SET(c, &set);
    QCOMPARE(sched_setaffinity(0, sizeof(set), &set), 0);
}

/**
 * Runs two tasks, the caller's blocking until a helper has taken the other (so a helper runs
 * one), and returns the CPUs that helper may run on, as it sees them.
 */
std::vector<int> helperCpus(TaskPool& pool) {
    std::atomic<bool> helperStarted{false};
    std::vector<int> seen;
    pool.run(2, [&](int task, int worker) {
        if (worker == 0) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!helperStarted.load() && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
            return;
        }
        (void)task;
        seen = allowedCpus();
        helperStarted.store(true);
    });
    return seen;
}
} // namespace
#endif

void TestTaskPool::busyScopeKeepsHelpersOffTheCallersCpu() {
#if defined(__linux__)
    const std::vector<int> all = allowedCpus();
    if (all.size() < 2)
        QSKIP("one CPU: the helpers have nowhere else to go");
    TaskPool pool(2);
    QCOMPARE(helperCpus(pool), all); // no scope: anywhere
    // The caller stays on one CPU, so that the CPU it opens the scope on is known.
    pinThisThread({all.front()});
    std::vector<int> inside, after;
    {
        const TaskPool::Busy busy(pool);
        inside = helperCpus(pool);
    }
    after = helperCpus(pool);
    pinThisThread(all);
    std::vector<int> others(all.begin() + 1, all.end());
    QCOMPARE(inside, others); // every CPU but the caller's
    QCOMPARE(after, all);     // given back when the scope closed
#else
    QSKIP("CPU affinity is Linux only");
#endif
}

void TestTaskPool::busyScopesNestAndRunJobs() {
    // Helpers woken by a scope with no job yet, jobs inside nested scopes, and a scope closed
    // while helpers spin: every task still runs once, and the pool shuts down promptly.
    TaskPool pool(4);
    for (int round = 0; round < 50; ++round) {
        const TaskPool::Busy outer(pool);
        std::atomic<int> sum{0};
        {
            const TaskPool::Busy inner(pool);
            pool.run(100, [&](int task, int) { sum.fetch_add(task); });
        }
        pool.run(100, [&](int task, int) { sum.fetch_add(task); });
        QCOMPARE(sum.load(), 2 * 4950);
    }
}

QTEST_GUILESS_MAIN(TestTaskPool)
#include "tst_task_pool.moc"
