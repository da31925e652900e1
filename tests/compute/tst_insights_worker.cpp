// SPDX-License-Identifier: MIT
#include <QSignalSpy>
#include <QTest>

#include "backend.h"
#include "insights_worker.h"

using namespace pe;

/**
 * The insights pages' worker without a window: the newest request wins, a cancelled request
 * never reports, progress counts the page's steps, errors are messages. (Run under
 * ThreadSanitizer by scripts/setup.sh tsan.)
 */
class TestInsightsWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void computeInsightMatchesTheCore();
    void newestRequestWins();
    void cancelledRequestNeverReports();
    void progressCountsLayers();
    void errorsAreMessages();
};

namespace {

Params params(Scheme s, int n = 24, int d = 16) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = d;
    p.heads = 2;
    return p;
}

/** Waits for the controller's next result; false after 30 s. */
bool nextResult(InsightsController& c, InsightResult* out) {
    QSignalSpy spy(&c, &InsightsController::resultReady);
    if (!spy.wait(30000))
        return false;
    *out = qvariant_cast<InsightResult>(spy.takeFirst().at(0));
    return true;
}

} // namespace

void TestInsightsWorker::computeInsightMatchesTheCore() {
    // The worker's page is the core's page: same numbers, for the engine and the reference.
    InsightRequest req;
    req.page = InsightPage::Depth;
    req.params = params(Scheme::Sinusoidal);
    req.settings.depth.layers = 3;
    Weights w;
    w.E = Eigen::MatrixXd::Random(24, 16);
    auto engine = createBackend(BackendKind::CpuFast);
    const InsightResult fast = computeInsight(req, w, engine.get());
    const InsightResult exact = computeInsight(req, w, nullptr);
    QVERIFY2(fast.ok(), qPrintable(fast.error));
    QVERIFY2(exact.ok(), qPrintable(exact.error));
    Weights full = w;
    completeWeights(req.params, full);
    const auto core = depthInsight(req.params, req.settings.depth, &full);
    QVERIFY(core);
    QCOMPARE(exact.depth->layers.size(), std::size_t{4});
    for (std::size_t l = 0; l < 4; ++l) {
        QCOMPARE(exact.depth->layers[l].uniformityResidual, core->layers[l].uniformityResidual);
        // The fast engine computes in float32: the same to its precision.
        QVERIFY(std::abs(fast.depth->layers[l].uniformityResidual -
                         core->layers[l].uniformityResidual) <=
                1e-4 * core->layers[l].uniformityResidual + 1e-6);
    }
}

void TestInsightsWorker::newestRequestWins() {
    InsightsController c;
    QSignalSpy results(&c, &InsightsController::resultReady);
    InsightSettings s;
    quint64 last = 0;
    for (int delta = 1; delta <= 20; ++delta) {
        s.delta = delta;
        last = c.submit(InsightPage::Offset, params(Scheme::Sinusoidal, 256, 32), {}, s);
    }
    QVERIFY(QTest::qWaitFor([&] { return !c.busy(); }, 30000));
    QVERIFY(!results.isEmpty());
    const auto r = qvariant_cast<InsightResult>(results.last().at(0));
    QCOMPARE(r.generation, last);
    QCOMPARE(r.offset->delta, 20);
    for (const QList<QVariant>& args : results) // only the newest ever reports
        QCOMPARE(qvariant_cast<InsightResult>(args.at(0)).generation, last);
}

void TestInsightsWorker::cancelledRequestNeverReports() {
    InsightsController c;
    QSignalSpy results(&c, &InsightsController::resultReady);
    QSignalSpy progress(&c, &InsightsController::progressChanged);
    InsightSettings s;
    s.depth.layers = kMaxDepthLayers;
    c.submit(InsightPage::Depth, params(Scheme::Sinusoidal, 512, 64), {}, s);
    QVERIFY(progress.wait(30000));
    c.cancel();
    QVERIFY(!c.busy());
    // A request after the cancelled one runs once the worker has left it.
    const quint64 next = c.submit(InsightPage::Binary, params(Scheme::Sinusoidal), {}, s);
    InsightResult r;
    QVERIFY(nextResult(c, &r));
    QCOMPARE(r.generation, next);
    QCOMPARE(results.size(), 1);
}

void TestInsightsWorker::progressCountsLayers() {
    InsightsController c;
    QSignalSpy progress(&c, &InsightsController::progressChanged);
    InsightSettings s;
    s.depth.layers = 5;
    c.submit(InsightPage::Depth, params(Scheme::Sinusoidal), {}, s);
    InsightResult r;
    QVERIFY(nextResult(c, &r));
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.depth->layers.size(), std::size_t{6});
    int previous = 0;
    for (const QList<QVariant>& args : progress) { // delivered in order, never beyond the total
        QCOMPARE(args.at(1).toInt(), 5);
        QVERIFY(args.at(0).toInt() >= previous);
        previous = args.at(0).toInt();
    }
}

void TestInsightsWorker::errorsAreMessages() {
    InsightsController c;
    InsightSettings s;
    InsightResult r;
    c.submit(InsightPage::Offset, params(Scheme::T5), {}, s);
    QVERIFY(nextResult(c, &r));
    QVERIFY(r.error.contains(QStringLiteral("no position table P")));
    QVERIFY(!r.offset);
    s.delta = 24; // N = 24
    c.submit(InsightPage::Offset, params(Scheme::Sinusoidal), {}, s);
    QVERIFY(nextResult(c, &r));
    QCOMPARE(r.error, QStringLiteral("--delta 24 must be below n = 24"));
    s.kernel = 1;
    c.submit(InsightPage::Cost, params(Scheme::Sinusoidal), {}, s);
    QVERIFY(nextResult(c, &r));
    QVERIFY2(r.error.startsWith(QStringLiteral("--kernel 1")), qPrintable(r.error));
    // A distance page whose n×n weights exceed the budget says so instead of allocating them.
    c.setMemoryBudget(1 << 20);
    c.submit(InsightPage::Distance, params(Scheme::Sinusoidal, 1024, 16), {}, s);
    QVERIFY(nextResult(c, &r));
    QVERIFY2(r.error.contains(QStringLiteral("lower n or the number of heads")),
             qPrintable(r.error));
}

QTEST_GUILESS_MAIN(TestInsightsWorker)
#include "tst_insights_worker.moc"
