// SPDX-License-Identifier: MIT
#include <QSignalSpy>
#include <QTest>

#include "compute_worker.h"

using namespace pe;

class TestComputeWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void computesEveryScheme_data();
    void computesEveryScheme();
    void newestRequestWins();
    void cancelDropsTheRunningResult();
    void invalidParamsGiveOneMessage();
    void overBudgetIsRefusedWithAMessage();
    void switchingBackendsGivesTheSameWeights();
};

static Params small(Scheme s) {
    Params p;
    p.scheme = s;
    p.n = 12;
    p.d = 16;
    p.heads = 2;
    return p;
}

void TestComputeWorker::computesEveryScheme_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << static_cast<int>(s);
}

void TestComputeWorker::computesEveryScheme() {
    QFETCH(int, scheme);
    ComputeController c;
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(static_cast<Scheme>(scheme));
    p.cls = true;
    const quint64 g = c.submit(p, InputChoice{});
    QVERIFY(spy.wait(5000));
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QCOMPARE(r.generation, g);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QVERIFY(r.trace);
    QVERIFY(r.trace->params == p);
    QVERIFY(r.computeMs > 0);
    QVERIFY(!r.backend.isEmpty());
    // Token labels: [CLS] then the sample sentence's tokens, cycled to n.
    QCOMPARE(static_cast<int>(r.trace->tokens.size()), p.seqLen());
    QCOMPARE(r.trace->tokens.front(), std::string("[CLS]"));
    const Tensor* w = r.trace->find("weights");
    QVERIFY(w);
    QCOMPARE(w->shape(), (std::vector<std::int64_t>{2, 13, 13}));
    QVERIFY(!c.busy());
}

void TestComputeWorker::newestRequestWins() {
    ComputeController c;
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(Scheme::Sinusoidal);
    for (int n = 1; n <= 40; ++n) {
        p.n = 100 + n;
        c.submit(p, InputChoice{});
    }
    QVERIFY(spy.wait(10000));
    QTest::qWait(200); // nothing older may arrive after the newest
    QCOMPARE(spy.count(), 1);
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QCOMPARE(r.generation, c.generation());
    QCOMPARE(r.trace->params.n, 140);
}

void TestComputeWorker::cancelDropsTheRunningResult() {
    ComputeController c;
    QSignalSpy results(&c, &ComputeController::resultReady);
    QSignalSpy busy(&c, &ComputeController::busyChanged);
    Params p = small(Scheme::Shaw);
    p.n = 1500;
    p.d = 256;
    p.heads = 8;
    c.submit(p, InputChoice{});
    QTest::qWait(30);
    c.cancel();
    QVERIFY(!c.busy());
    QTest::qWait(1500);
    QCOMPARE(results.count(), 0);
    // The worker is free again: a small request answers at once.
    c.submit(small(Scheme::ALiBi), InputChoice{});
    QVERIFY(results.wait(5000));
    QCOMPARE(results.count(), 1);
}

void TestComputeWorker::invalidParamsGiveOneMessage() {
    ComputeController c;
    QSignalSpy failed(&c, &ComputeController::computeFailed);
    Params p = small(Scheme::RoPE);
    p.heads = 3; // 16 % 3 != 0
    c.submit(p, InputChoice{});
    QVERIFY(failed.wait(5000));
    QVERIFY(!failed.at(0).at(0).toString().isEmpty());
}

void TestComputeWorker::overBudgetIsRefusedWithAMessage() {
    ComputeController c;
    c.setMemoryBudget(1 << 20); // 1 MiB
    QSignalSpy failed(&c, &ComputeController::computeFailed);
    Params p = small(Scheme::T5);
    p.n = 1024;
    c.submit(p, InputChoice{});
    QVERIFY(failed.wait(5000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QLatin1String("GB")),
             qPrintable(failed.at(0).at(0).toString()));
    // Within budget the same controller computes.
    QSignalSpy ok(&c, &ComputeController::resultReady);
    c.setMemoryBudget(std::uint64_t{1} << 30);
    c.submit(p, InputChoice{});
    QVERIFY(QTest::qWaitFor(
        [&] { return ok.count() > 0 && ok.last().at(0).value<ComputeResult>().trace != nullptr; },
        10000));
}

void TestComputeWorker::switchingBackendsGivesTheSameWeights() {
    ComputeController c(BackendKind::CpuReference);
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(Scheme::T5);
    p.n = 40;
    std::vector<ComputeResult> results;
    for (BackendKind k : {BackendKind::CpuReference, BackendKind::CpuFast, BackendKind::OpenGL}) {
        c.setBackendKind(k);
        c.submit(p, InputChoice{});
        QVERIFY(spy.wait(10000));
        results.push_back(spy.takeFirst().at(0).value<ComputeResult>());
        QVERIFY2(results.back().trace, qPrintable(results.back().error));
    }
    QCOMPARE(results[0].backend, QStringLiteral("cpu"));
    // Mesa's llvmpipe gives every CI machine a GL 4.5 context through EGL.
    QVERIFY2(results[2].backend == QStringLiteral("gl"), qPrintable(results[2].backendNote));
    const Tensor* ref = results[0].trace->find("weights");
    for (std::size_t k = 1; k < results.size(); ++k) {
        const Tensor* w = results[k].trace->find("weights");
        QVERIFY(w && w->shape() == ref->shape());
        double maxDiff = 0;
        for (std::int64_t e = 0; e < ref->size(); ++e)
            maxDiff = std::max(maxDiff, std::abs(w->at(e) - ref->at(e)));
        QVERIFY2(maxDiff < 1e-4,
                 qPrintable(QStringLiteral("%1: %2").arg(results[k].backend).arg(maxDiff)));
    }
}

QTEST_GUILESS_MAIN(TestComputeWorker)
#include "tst_compute_worker.moc"
