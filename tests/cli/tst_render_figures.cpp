// SPDX-License-Identifier: MIT
// render's figures in process (FigureMaker, as `pe-explorer-cli render` makes them): what a
// figure file alone cannot show, such as which colour range each map was given.
#include <QSignalSpy>
#include <QTest>

#include "compute_worker.h"
#include "encodings.h"
#include "qcp.h"
#include "render_figures.h"

using namespace pe;

class TestRenderFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void compareSharesOneScaleAndStartsMapsLevel();
    void pooledRelativeMapsKeepTheirPositionAxes();

private:
    static std::shared_ptr<const Trace> compute(Scheme s);
};

std::shared_ptr<const Trace> TestRenderFigures::compute(Scheme s) {
    Params p;
    p.scheme = s;
    p.n = 24;
    p.d = 32;
    p.heads = 2;
    ComputeController c(BackendKind::CpuFast);
    QSignalSpy spy(&c, &ComputeController::resultReady);
    c.submit(p, InputChoice{});
    if (!spy.wait(10000))
        return nullptr;
    return spy.takeFirst().at(0).value<ComputeResult>().trace;
}

void TestRenderFigures::compareSharesOneScaleAndStartsMapsLevel() {
    const auto a = compute(Scheme::T5), b = compute(Scheme::ALiBi), c = compute(Scheme::RoPE);
    QVERIFY(a && b && c);
    FigureStyle style;
    style.size = QSize(620, 520); // three maps in 620 px: some titles take two lines
    FigureMaker maker(a, {b, c}, style);
    maker.setSize(style.size);
    Expected<Figure> f = maker.make("compare");
    QVERIFY(f);
    const QList<HeatmapView*> maps = f.value().widget->findChildren<HeatmapView*>();
    QCOMPARE(maps.size(), 4); // A, B, A − B, then RoPE below
    HeatmapView *mapA = maps[0], *mapB = maps[1], *diff = maps[2], *rope = maps[3];
    QVERIFY(mapA->titleText().startsWith(QLatin1String("A: t5")));
    QVERIFY(mapB->titleText().startsWith(QLatin1String("B: alibi")));
    QVERIFY(rope->titleText().startsWith(QLatin1String("rope")));

    // One colour scale for A, B and the gallery: the window's "same colour scale".
    auto dataRange = [](const HeatmapView* v) {
        std::pair<double, double> r{0.0, 0.0};
        v->data().finiteRange(&r.first, &r.second);
        return r;
    };
    QVERIFY(dataRange(mapA) != dataRange(mapB)); // the schemes' weights span different ranges
    const auto [aLo, aHi] = dataRange(mapA);
    const auto [bLo, bHi] = dataRange(mapB);
    const auto [rLo, rHi] = dataRange(rope);
    const std::pair<double, double> shared{std::min({aLo, bLo, rLo}), std::max({aHi, bHi, rHi})};
    for (HeatmapView* v : {mapA, mapB, rope}) {
        QCOMPARE(v->colourRange().first, shared.first);
        QCOMPARE(v->colourRange().second, shared.second);
    }
    // A − B keeps its own, centred on 0.
    QCOMPARE(diff->colourRange().first, -diff->colourRange().second);
    QVERIFY(diff->colourRange().second < shared.second);

    // Titles of different lengths, one start for the maps' axes in the row.
    QVERIFY(diff->headerHeight() > mapB->headerHeight());
    auto top = [](HeatmapView* v) { return v->plot()->axisRect()->rect().top(); };
    QCOMPARE(top(mapA), top(diff));
    QCOMPARE(top(mapB), top(diff));
}

void TestRenderFigures::pooledRelativeMapsKeepTheirPositionAxes() {
    // A pooled trace (as render computes one above 2,048 positions; here the threshold is
    // lowered): the index map is pooled from the tables, and its copy in the figure keeps the
    // source's size, whose ticks say positions 0 … n (binRows alone made them run to 48).
    Params p;
    p.scheme = Scheme::T5;
    p.n = 40;
    p.d = 16;
    p.heads = 2;
    p.maxDistance = 16;
    p.buckets = 8;
    ComputeController c(BackendKind::CpuFast);
    c.setPooling(20, 16, PoolMode::Mean);
    QSignalSpy spy(&c, &ComputeController::resultReady);
    c.submit(p, InputChoice{});
    QVERIFY(spy.wait(10000));
    const ComputeResult r = spy.takeFirst().at(0).value<ComputeResult>();
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY(r.pool.pooled && r.positions && r.positions->relative);
    FigureStyle style;
    style.size = QSize(500, 400);
    FigureMaker maker(r.trace, {}, style, r.pool, r.positions);
    maker.setSize(style.size);
    Expected<Figure> f = maker.make("rel-index");
    QVERIFY(f);
    auto* map = qobject_cast<HeatmapView*>(f.value().widget.get()); // the figure is the map
    QVERIFY(map && map->hasData());
    QCOMPARE(map->dataRows(), 16);
    QCOMPARE(map->sourceRows(), 40);
    QVERIFY2(map->titleText().contains(QStringLiteral("pooled 40\u219216, mean")),
             qPrintable(map->titleText()));
    for (int u = 0; u < 16; ++u)
        for (int v = 0; v < 16; ++v) {
            double sum = 0;
            const int i0 = binStart(u, 40, 16), i1 = binStart(u + 1, 40, 16);
            const int j0 = binStart(v, 40, 16), j1 = binStart(v + 1, 40, 16);
            for (int i = i0; i < i1; ++i)
                for (int j = j0; j < j1; ++j)
                    sum += t5Bucket(j - i, true, p.buckets, p.maxDistance);
            QCOMPARE(map->data().at(u, v), sum / ((i1 - i0) * (j1 - j0)));
        }
}

QTEST_MAIN(TestRenderFigures)
#include "tst_render_figures.moc"
