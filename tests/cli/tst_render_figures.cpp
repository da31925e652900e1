// SPDX-License-Identifier: MIT
// render's figures in process (FigureMaker, as `pe-explorer-cli render` makes them): what a
// figure file alone cannot show, such as which colour range each map was given.
#include <QSignalSpy>
#include <QTest>

#include "compute_worker.h"
#include "qcp.h"
#include "render_figures.h"

using namespace pe;

class TestRenderFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void compareSharesOneScaleAndStartsMapsLevel();

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

QTEST_MAIN(TestRenderFigures)
#include "tst_render_figures.moc"
