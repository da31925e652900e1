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
    void pagesGetOnlyTheWeightsTheyUse();
    void distanceOverlayTakesThePagesInputAndProjections();
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

// The binary and cost pages compute from the parameters alone: no E is embedded for them (it was
// 512 MB at n = 16,384, d = 4,096, drawn and held while the page computed). The other pages get
// the input's tokens embedded and the projections the input names.
void TestInsightsWorker::pagesGetOnlyTheWeightsTheyUse() {
    const Params p = params(Scheme::Sinusoidal, 24, 16);
    InputChoice in;
    in.weights = WeightsKind::Identity;
    for (InsightPage page : {InsightPage::Binary, InsightPage::Cost}) {
        const Weights w = insightWeights(page, p, in);
        QCOMPARE(w.E.size(), Eigen::Index{0});
        QCOMPARE(w.W_q.size(), Eigen::Index{0});
    }
    for (InsightPage page : {InsightPage::Offset, InsightPage::Distance, InsightPage::Depth}) {
        const Weights w = insightWeights(page, p, in);
        QCOMPARE(w.E.rows(), Eigen::Index{24});
        QCOMPARE(w.E.cols(), Eigen::Index{16});
        QVERIFY(w.W_q.isIdentity(0.0));
        QVERIFY(w.W_o.isIdentity(0.0));
    }
    // The pages without weights still compute: the binary page's table and bits.
    InsightRequest req;
    req.page = InsightPage::Binary;
    req.params = p;
    const InsightResult r = computeInsight(req, insightWeights(req.page, p, in), nullptr);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.binary->P.rows(), Eigen::Index{24});
    QCOMPARE(r.binary->bitCount, 5);
}

// The distance page's overlay computes every scheme on the page's first kEverySchemePositions
// tokens and its projections: each profile is the core's distanceInsight of those weights.
void TestInsightsWorker::distanceOverlayTakesThePagesInputAndProjections() {
    InsightRequest req;
    req.page = InsightPage::Distance;
    req.params = params(Scheme::T5, kEverySchemePositions + 20, 16);
    Weights w;
    w.E = Eigen::MatrixXd::Random(req.params.n, 16);
    w.W_v = Eigen::MatrixXd::Random(16, 16); // given; W_q, W_k and W_o come from the seed
    const InsightResult r = computeInsight(req, w, nullptr);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QVERIFY(r.distanceEveryScheme.size() >= allSchemes().size() - 1);
    int checked = 0;
    for (const auto& d : r.distanceEveryScheme) {
        Params q = req.params;
        q.scheme = d->scheme;
        q.n = kEverySchemePositions;
        if (q.scheme == Scheme::ALiBi)
            q.alibiMode = AlibiMode::Symmetric; // no causal mask
        Weights wq;
        wq.E = w.E.topRows(q.n);
        wq.W_v = w.W_v;
        completeWeights(q, wq);
        const auto core = distanceInsight(q, &wq);
        QVERIFY(core);
        QCOMPARE(d->positions, core->positions);
        QVERIFY2(d->weightProfileMean == core->weightProfileMean,
                 std::string(toString(d->scheme)).c_str());
        ++checked;
    }
    QCOMPARE(checked, static_cast<int>(r.distanceEveryScheme.size()));
}

QTEST_GUILESS_MAIN(TestInsightsWorker)
#include "tst_insights_worker.moc"
