// SPDX-License-Identifier: MIT
// The fast engine's fork-join pool: every task runs exactly once, on valid workers, and run()
// returns only when all of them are done.

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "task_pool.h"

using pe::cpu::TaskPool;

class TestTaskPool : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyTaskOnce_data();
    void everyTaskOnce();
    void workersAreCapped();
    void emptyRunReturns();
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

QTEST_GUILESS_MAIN(TestTaskPool)
#include "tst_task_pool.moc"
