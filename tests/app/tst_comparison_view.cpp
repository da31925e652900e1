// SPDX-License-Identifier: MIT
#include <QAction>
#include <QCheckBox>
#include <QMenu>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "comparison_view.h"
#include "logit_split.h"
#include "qcp.h"

using namespace pe;

class TestComparisonView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void galleryShowsEveryChosenScheme();
    void newReferenceRecomputesTheGallery();
    void sameSchemeAsTheReferenceIsDrawnAtOnce();
    void mapsShareOneColourScale();
    void mapsSideBySideStartLevel();
    void positionTermOfEveryScheme();
    void pooledMapsCountPositions();
    void schemeThatFailsIsAskedForOnce();
    void schemeRefusedForHeldMemoryIsAskedAgainWhenFreed();
    void tensorsAreShownInPlace();
    void arrivingTraceRedrawsOnlyItsMap();
    void schemeBIsComputedBesideTheReference();
    void sameParametersAgainKeepTheOtherTraces();
    void otherSchemesStopAtTheWeights();
    void referenceSchemeIsNotAskedFor();
    void tracesThatReadNoneOfTheChangeStay();
    void requestThatReadsNoneOfTheChangeRunsOn();
    void longPositionTermsLeaveTheGuiThread();
    void longSequencesComputeTheShownHeadAlone();

private:
    static std::shared_ptr<const Trace> compute(const Params& p, const InputChoice& in,
                                                TraceExtent extent = TraceExtent::Whole);
    static Params small();
};

Params TestComparisonView::small() {
    Params p;
    p.scheme = Scheme::Sinusoidal;
    p.n = 24;
    p.d = 32;
    p.heads = 4;
    return p;
}

std::shared_ptr<const Trace> TestComparisonView::compute(const Params& p, const InputChoice& in,
                                                         TraceExtent extent) {
    ComputeController c(BackendKind::CpuFast);
    QSignalSpy spy(&c, &ComputeController::resultReady);
    c.submit(p, in, EarlyPart::None, extent);
    if (!spy.wait(10000))
        return nullptr;
    return spy.takeFirst().at(0).value<ComputeResult>().trace;
}

/** Head `h` of `name` at (i, j): what a map of the tensor shows there when nothing is pooled. */
static double at(const Trace& t, const char* name, int h, int i, int j) {
    const Tensor* x = t.find(name);
    const int n = static_cast<int>(x->shape()[1]);
    return x->at((static_cast<std::int64_t>(h) * n + i) * n + j);
}

void TestComparisonView::galleryShowsEveryChosenScheme() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    v.setReference(a, in);
    v.show();
    // In the order given (render --compare-scheme's), not the menu's.
    const std::vector<Scheme> chosen{Scheme::URPE, Scheme::T5, Scheme::ALiBi};
    v.setGallerySchemes(chosen);
    QVERIFY(v.gallerySchemes() == chosen);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5) && v.traceOf(Scheme::ALiBi) &&
                                 v.traceOf(Scheme::URPE),
                             15000);
    for (Scheme s : chosen) {
        const Trace* t = v.traceOf(s);
        Params expect = a->params;
        expect.scheme = s;
        QVERIFY(t->params == expect); // same inputs, sizes, seed and options
        HeatmapView* m = v.galleryView(s);
        QVERIFY(m);
        QTRY_COMPARE(m->data().rows, 24);
        QCOMPARE(m->data().at(5, 3), at(*t, "weights", 0, 5, 3));
    }
    // The schemes really differ: T5's and ALiBi's head-0 weights are not the same map.
    QVERIFY(qAbs(at(*v.traceOf(Scheme::T5), "weights", 0, 5, 3) -
                 at(*v.traceOf(Scheme::ALiBi), "weights", 0, 5, 3)) > 1e-6);
    // Another head redraws every gallery map from its trace.
    v.findChild<QSpinBox*>()->setValue(2);
    QCOMPARE(v.galleryView(Scheme::URPE)->data().at(7, 1),
             at(*v.traceOf(Scheme::URPE), "weights", 2, 7, 1));
    // A scheme ticked in the menu comes last; one unticked leaves the others in their order.
    QMenu* menu = v.findChild<QMenu*>();
    QVERIFY(menu);
    for (QAction* a : menu->actions())
        if (a->isCheckable() && a->data().toInt() == static_cast<int>(Scheme::Shaw))
            a->trigger();
        else if (a->isCheckable() && a->data().toInt() == static_cast<int>(Scheme::T5))
            a->trigger();
    QVERIFY((v.gallerySchemes() == std::vector<Scheme>{Scheme::URPE, Scheme::ALiBi, Scheme::Shaw}));
    v.setGallerySchemes({});
    QVERIFY(v.gallerySchemes().empty());
    QVERIFY(!v.galleryView(Scheme::T5));
}

// Tensor "position term of the logits": A (sinusoidal, its e·p + p·e + p·p, needing the W_q
// and W_k the worker attaches), B (T5: its bias) and the gallery (ALiBi: its bias; none: 0),
// each from its own trace, for the head chosen; A − B their difference.
void TestComparisonView::positionTermOfEveryScheme() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a && a->queryKey);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::T5);
    QVERIFY(v.setTensor(QStringLiteral("position")));
    v.setReference(a, in);
    v.show();
    v.setGallerySchemes({Scheme::ALiBi, Scheme::None});
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::ALiBi) && v.traceOf(Scheme::None),
                             15000);
    v.findChild<QSpinBox*>()->setValue(1);
    const StageMat pa = *positionPart(*a, 1);
    QTRY_COMPARE(v.right()->data().rows, 24);
    for (auto [i, j] : {std::pair{5, 3}, std::pair{0, 23}, std::pair{17, 17}}) {
        QCOMPARE(v.left()->data().at(i, j), pa(i, j));
        QCOMPARE(v.right()->data().at(i, j), at(*v.other(), "bias", 1, i, j));
        QVERIFY(std::abs(v.difference()->data().at(i, j) -
                         (pa(i, j) - at(*v.other(), "bias", 1, i, j))) < 1e-12);
        QCOMPARE(v.galleryView(Scheme::ALiBi)->data().at(i, j),
                 at(*v.traceOf(Scheme::ALiBi), "bias", 1, i, j));
        QCOMPARE(v.galleryView(Scheme::None)->data().at(i, j), 0.0);
    }
    // e·p + p·e + p·p is not the logits: content is left out.
    QVERIFY(std::abs(pa(5, 3) - at(*a, "logits", 1, 5, 3)) > 1e-4);
    // A trace without its W_q, W_k (a file's): the maps say so rather than show zeros.
    auto bare = std::make_shared<Trace>(*a);
    bare->queryKey.reset();
    v.setReference(bare, in);
    QVERIFY(v.left()->titleText().startsWith(QLatin1String("no position term")));
}

// Above 2048 positions A, B and the gallery come pooled (1024 cells a side): the maps say so in
// their titles, and their axes and read-outs count positions (they counted cells, 0…1024).
void TestComparisonView::pooledMapsCountPositions() {
    const InputChoice in;
    Params p = small();
    p.scheme = Scheme::T5;
    p.n = 2100;
    p.d = 16;
    p.heads = 2;
    ComparisonView v;
    v.resize(1200, 600);
    v.setOtherScheme(Scheme::ALiBi);
    v.show();
    v.setReference(compute(p, in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.right()->hasData(), 20000);
    // B pooled the shown head alone (ComparisonView::kOneHeadFrom): head 1 of B's own pooled
    // trace of every head.
    QCOMPARE(v.other()->onlyHead, 0);
    v.setHead(1);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->onlyHead == 1 && v.right()->hasData(), 20000);
    QCOMPARE(v.other()->find("weights")->dim(0), 1);
    const auto b = compute(paramsUnder(p, Scheme::ALiBi), in);
    QVERIFY(b && b->find("weights")->dim(0) == 2);
    QCOMPARE(v.right()->data().at(900, 17), at(*b, "weights", 1, 900, 17));
    for (HeatmapView* map : {v.left(), v.right(), v.difference()}) {
        QCOMPARE(map->data().rows, 1024);
        QCOMPARE(map->sourceRows(), 2100);
        QCOMPARE(map->sourceCols(), 2100);
        QVERIFY2(map->titleText().contains(QStringLiteral("pooled 2100\u21921024, mean")),
                 qPrintable(map->titleText()));
    }
    QVERIFY(v.setTensor(QStringLiteral("out"))); // [n, d], binned, not pooled cells
    QTRY_VERIFY(v.left()->sourceRows() == 0);
    QVERIFY(!v.left()->titleText().contains(QStringLiteral("pooled")));
}

void TestComparisonView::newReferenceRecomputesTheGallery() {
    const InputChoice in;
    ComparisonView v;
    v.setGallerySchemes({Scheme::Shaw});
    v.setReference(compute(small(), in), in);
    v.show();
    QTRY_VERIFY_WITH_TIMEOUT(v.traceOf(Scheme::Shaw), 10000);
    Params p = small();
    p.n = 10;
    v.setReference(compute(p, in), in);
    QVERIFY(!v.traceOf(Scheme::Shaw)); // the old trace is not shown for new parameters
    QTRY_VERIFY_WITH_TIMEOUT(v.traceOf(Scheme::Shaw), 10000);
    QCOMPARE(v.traceOf(Scheme::Shaw)->params.n, 10);
    QTRY_COMPARE(v.galleryView(Scheme::Shaw)->data().rows, 10);
}

// B the reference's own scheme: nothing to compute, and every new reference is drawn at once
// (it used to wait for a computation that was never asked for: empty or stale maps).
void TestComparisonView::sameSchemeAsTheReferenceIsDrawnAtOnce() {
    const InputChoice in;
    ComparisonView v;
    v.setOtherScheme(Scheme::Sinusoidal);
    v.show();
    QSignalSpy updated(&v, &ComparisonView::updated);
    v.setReference(compute(small(), in), in);
    QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 1, 5000);
    QCOMPARE(v.difference()->data().rows, 24);
    QCOMPARE(v.difference()->data().at(5, 3), 0.0); // A − A
    Params p = small();
    p.n = 10;
    v.setReference(compute(p, in), in);
    QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 2, 5000);
    QCOMPARE(v.difference()->data().rows, 10);
}

namespace {
/** The smallest and largest value of a map's grid. */
std::pair<double, double> rangeOf(const Grid& g) {
    const auto [lo, hi] = std::minmax_element(g.values.begin(), g.values.end());
    return {*lo, *hi};
}
} // namespace

// A, B and the gallery's maps on one colour scale, spanning all their values: a colour is the
// same weight on every map. Unticked, each map spans its own values again.
void TestComparisonView::mapsShareOneColourScale() {
    const InputChoice in;
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::ALiBi);
    v.setGallerySchemes({Scheme::T5});
    v.show();
    QSignalSpy updated(&v, &ComparisonView::updated);
    v.setReference(compute(small(), in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5), 15000);
    QTRY_VERIFY_WITH_TIMEOUT(updated.count() > 0 && v.galleryView(Scheme::T5)->hasData(), 5000);
    const auto a = rangeOf(v.left()->data());
    const auto b = rangeOf(v.right()->data());
    const auto t5 = rangeOf(v.galleryView(Scheme::T5)->data());
    QVERIFY(a != b); // the schemes' weights really span different ranges
    const double lo = std::min({a.first, b.first, t5.first});
    const double hi = std::max({a.second, b.second, t5.second});
    for (HeatmapView* m : {v.left(), v.right(), v.galleryView(Scheme::T5)}) {
        QCOMPARE(m->colourRange().first, lo);
        QCOMPARE(m->colourRange().second, hi);
    }
    // The difference keeps its own scale, centred on 0.
    QCOMPARE(v.difference()->colourRange().first, -v.difference()->colourRange().second);

    v.sameScaleBox()->setChecked(false);
    QCOMPARE(v.left()->colourRange().first, a.first);
    QCOMPARE(v.left()->colourRange().second, a.second);
    QCOMPARE(v.right()->colourRange().first, b.first);
    QCOMPARE(v.right()->colourRange().second, b.second);
}

void TestComparisonView::mapsSideBySideStartLevel() {
    // A narrow window: A's title ("A: sinusoidal, head 0") and A − B's take more lines than
    // B's ("B: rope, head 0"); the three maps' axes still start at one height.
    const InputChoice in;
    ComparisonView v;
    v.resize(620, 700);
    v.setOtherScheme(Scheme::RoPE);
    v.setGallerySchemes({Scheme::T5, Scheme::ALiBi});
    v.show();
    v.setReference(compute(small(), in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5) && v.traceOf(Scheme::ALiBi), 15000);
    QTRY_VERIFY(v.right()->hasData() && v.difference()->hasData());
    QTRY_VERIFY(v.left()->headerHeight() > v.right()->headerHeight() + 10);
    auto top = [](HeatmapView* m) { return m->plot()->axisRect()->rect().top(); };
    QTRY_VERIFY(top(v.left()) == top(v.right()) && top(v.right()) == top(v.difference()));
    QTRY_COMPARE(v.right()->plot()->axisRect()->rect().height(),
                 v.left()->plot()->axisRect()->rect().height());
    // The gallery's row is aligned on its own: T5 and ALiBi, whose titles are shorter than A's,
    // are not given A's header.
    HeatmapView* t5 = v.galleryView(Scheme::T5);
    HeatmapView* alibi = v.galleryView(Scheme::ALiBi);
    QTRY_VERIFY(t5->hasData() && alibi->hasData());
    QTRY_COMPARE(top(t5), top(alibi));
    QVERIFY(t5->headerHeight() < v.left()->headerHeight());
    QVERIFY(top(t5) < top(v.left()));
    // A wide window: every title takes one line, and nothing is padded any more.
    v.resize(1600, 700);
    QTRY_COMPARE(v.left()->headerHeight(), v.right()->headerHeight());
    QTRY_VERIFY(top(v.left()) == top(v.right()) && top(v.right()) == top(v.difference()));
}

// Comparing weights (and logits, and their position term), B's and the gallery's passes stop at
// the weights: no value projection, A·V or W_O, whose products were half of each; for the
// weights no other n × n tensor either (no logits, no T5 bias). The logits, chosen, have them
// computed again as far as the weights, and the layer's output to the end.
void TestComparisonView::otherSchemesStopAtTheWeights() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    QVERIFY(v.setTensor(QStringLiteral("weights")));
    v.setReference(a, in);
    v.show();
    v.setGallerySchemes({Scheme::T5});
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5), 10000);
    Params pb = a->params;
    pb.scheme = Scheme::RoPE;
    const auto whole = compute(pb, in);
    QVERIFY(whole);
    for (const Trace* t : {v.other(), v.traceOf(Scheme::T5)}) {
        QVERIFY(t->find("weights") && t->find("Q") && t->find("K"));
        QVERIFY(!t->find("logits") && !t->find("bias") && !t->find("rel_index"));
        QVERIFY(!t->find("V") && !t->find("head_out") && !t->find("out"));
    }
    QCOMPARE(v.right()->data().at(5, 3), at(*whole, "weights", 0, 5, 3));
    QCOMPARE(v.difference()->data().at(5, 3),
             at(*a, "weights", 0, 5, 3) - at(*whole, "weights", 0, 5, 3));

    QVERIFY(v.setTensor(QStringLiteral("logits")));
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->find("logits") &&
                                 v.traceOf(Scheme::T5)->find("bias") &&
                                 v.right()->shownTensor() == v.other()->find("logits"),
                             10000);
    QVERIFY(!v.other()->find("out") && !v.traceOf(Scheme::T5)->find("out"));
    QCOMPARE(v.right()->data().at(5, 3), at(*whole, "logits", 0, 5, 3));

    QVERIFY(v.setTensor(QStringLiteral("out")));
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->find("out") &&
                                 v.traceOf(Scheme::T5)->find("out") &&
                                 v.right()->shownTensor() == v.other()->find("out"),
                             10000);
    QCOMPARE(v.right()->data().at(5, 3), whole->find("out")->at(5 * 32 + 3)); // [n, d]
    QCOMPARE(v.difference()->data().at(5, 3),
             a->find("out")->at(5 * 32 + 3) - whole->find("out")->at(5 * 32 + 3));
    // Back to the weights: the whole traces serve, nothing is computed again.
    auto* worker = v.findChild<ComputeController*>();
    QSignalSpy computed(worker, &ComputeController::resultReady);
    const Trace* b = v.other();
    QVERIFY(v.setTensor(QStringLiteral("logits")));
    QTest::qWait(200);
    QCOMPARE(computed.count(), 0);
    QCOMPARE(v.other(), b);
    QCOMPARE(v.right()->shownTensor(), b->find("logits"));
}

// A scheme that cannot be computed for A's parameters (here a learned table shorter than the
// sequence) is asked for once: its maps say why, the schemes after it are computed, and the
// view's worker then stays quiet. It was asked for again on each failure, every map redrawn
// each time: at n = 2048 with a gallery of every scheme the window never settled.
void TestComparisonView::schemeThatFailsIsAskedForOnce() {
    const InputChoice in;
    Params p = small();
    p.n = 40;
    p.learnedRows = 32;
    auto a = compute(p, in);
    QVERIFY(a);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::Learned);
    auto* worker = v.findChild<ComputeController*>();
    QVERIFY(worker);
    QSignalSpy results(worker, &ComputeController::resultReady);
    v.setReference(a, in);
    v.show();
    v.setGallerySchemes({Scheme::Learned, Scheme::ALiBi});
    QTRY_VERIFY_WITH_TIMEOUT(v.traceOf(Scheme::ALiBi), 15000);
    QTRY_VERIFY(!worker->busy());
    QTest::qWait(300);
    QCOMPARE(results.count(), 2); // B (learned, failed), then ALiBi
    QVERIFY(!v.other());
    QVERIFY2(v.right()->titleText().startsWith(
                 QLatin1String("B (learned) cannot be computed for A's parameters: ")),
             qPrintable(v.right()->titleText()));
    QVERIFY(v.right()->titleText().contains(QLatin1String("32 positions")));
    QVERIFY(v.galleryView(Scheme::Learned)
                ->titleText()
                .startsWith(QLatin1String("learned cannot be computed for A's parameters: ")));
    QCOMPARE(v.galleryView(Scheme::ALiBi)->data().rows, 40);
    // A new reference that the table covers: learned is asked for, and computed, again.
    p.n = 30;
    auto shorter = compute(p, in);
    QVERIFY(shorter);
    v.setReference(shorter, in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::ALiBi), 15000);
    QCOMPARE(v.right()->data().rows, 30);
    QVERIFY(v.right()->titleText().startsWith(QLatin1String("B: learned")));
}

// A scheme refused for memory that another holder keeps (the window's old trace, while its
// views change over to the new one) is asked for again once that memory is let go, and only
// then: its map says it waits, the worker stays quiet meanwhile. It was kept as the scheme's
// failure until A changed (a soak run: B and three gallery schemes refused one after another,
// none computed). A request larger than the whole budget stays a failure.
void TestComparisonView::schemeRefusedForHeldMemoryIsAskedAgainWhenFreed() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a);
    const std::shared_ptr<MemoryBudget> budget = MemoryBudget::process();
    const std::uint64_t total = budget->total();
    const auto restore = qScopeGuard([&] { budget->setTotal(total); });
    budget->setTotal(std::uint64_t{64} << 20);
    Expected<MemoryBudget::Reservation> held = budget->reserve(
        "the window's old trace", budget->availableTo("the window's old trace") - 4096);
    QVERIFY(held);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    auto* worker = v.findChild<ComputeController*>();
    QVERIFY(worker);
    QSignalSpy results(worker, &ComputeController::resultReady);
    v.setReference(a, in);
    v.show();
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 15000);
    const auto refused = results.at(0).at(0).value<ComputeResult>();
    QVERIFY(!refused.trace);
    QVERIFY(refused.params.scheme == Scheme::RoPE); // a failed result says what it was for
    QVERIFY(refused.refusedBytes > 4096);
    QVERIFY2(v.right()->titleText().startsWith(
                 QLatin1String("B (rope) waits for memory that other views hold: ")),
             qPrintable(v.right()->titleText()));
    QVERIFY(v.right()->titleText().contains(QLatin1String("the window's old trace holds")));
    QTest::qWait(400); // polled meanwhile: no room, no request
    QCOMPARE(results.count(), 1);
    QVERIFY(!v.other());
    held->release();
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 15000);
    QCOMPARE(results.count(), 2);
    QVERIFY(v.right()->titleText().startsWith(QLatin1String("B: rope")));
    // More than the whole budget: a failure of this reference, not asked for again.
    Params p = small();
    p.n = 20;
    budget->setTotal(total);
    auto c = compute(p, in);
    QVERIFY(c);
    budget->setTotal(4096);
    v.setReference(c, in);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 3, 15000);
    QVERIFY(results.at(2).at(0).value<ComputeResult>().refusedBytes > 4096);
    QVERIFY2(v.right()->titleText().startsWith(
                 QLatin1String("B (rope) cannot be computed for A's parameters: ")),
             qPrintable(v.right()->titleText()));
    budget->setTotal(total);
    QTest::qWait(400);
    QCOMPARE(results.count(), 3);
}

// The maps of a trace's tensor read it in place, as the main views do (no full-size double
// copy per map: a new head took 0.55–0.59 s with 13 maps at n = 2,048, now 0.08–0.09 s); the
// shared colour scale spans every map's finite values; A − B is still the difference.
void TestComparisonView::tensorsAreShownInPlace() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    QVERIFY(v.setTensor(QStringLiteral("logits")));
    v.setReference(a, in);
    v.show();
    v.setGallerySchemes({Scheme::T5, Scheme::ALiBi});
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5) && v.traceOf(Scheme::ALiBi) &&
                                 v.galleryView(Scheme::ALiBi)->shownTensor() ==
                                     v.traceOf(Scheme::ALiBi)->find("logits"),
                             15000);
    v.setHead(2);
    QCOMPARE(v.left()->shownTensor(), a->find("logits"));
    QCOMPARE(v.right()->shownTensor(), v.other()->find("logits"));
    QCOMPARE(v.galleryView(Scheme::T5)->shownTensor(), v.traceOf(Scheme::T5)->find("logits"));
    QCOMPARE(v.left()->data().at(5, 3), at(*a, "logits", 2, 5, 3));
    QCOMPARE(v.galleryView(Scheme::T5)->data().at(7, 1),
             at(*v.traceOf(Scheme::T5), "logits", 2, 7, 1));
    QVERIFY(std::abs(v.difference()->data().at(5, 3) -
                     (at(*a, "logits", 2, 5, 3) - at(*v.other(), "logits", 2, 5, 3))) < 1e-6);
    // A − B: a tensor of its own (doubles), read in place as A and B are.
    QVERIFY(v.difference()->shownTensor() && v.difference()->shownTensor() != a->find("logits"));
    // One colour scale: the lowest and highest logit of the four maps' head 2.
    double lo = 1e300, hi = -1e300;
    for (const Trace* t : {a.get(), v.other(), v.traceOf(Scheme::T5), v.traceOf(Scheme::ALiBi)})
        for (int i = 0; i < 24; ++i)
            for (int j = 0; j < 24; ++j) {
                lo = std::min(lo, at(*t, "logits", 2, i, j));
                hi = std::max(hi, at(*t, "logits", 2, i, j));
            }
    for (HeatmapView* m : {v.left(), v.right(), v.galleryView(Scheme::T5)}) {
        QVERIFY(m->sharedColourRange());
        QCOMPARE(m->sharedColourRange()->first, lo);
        QCOMPARE(m->sharedColourRange()->second, hi);
    }
    // The position term is computed from the trace, once per head, and read in place too.
    QVERIFY(v.setTensor(QStringLiteral("position")));
    const Tensor* term = v.left()->shownTensor();
    QVERIFY(term && term != a->find("logits"));
    QCOMPARE(term->shape(), (std::vector<std::int64_t>{1, 24, 24}));
    QCOMPARE(v.left()->data().at(5, 3), (*positionPart(*a, 2))(5, 3));
    v.setHead(1);
    QCOMPARE(v.left()->data().at(5, 3), (*positionPart(*a, 1))(5, 3));
}

// A gallery scheme's trace arriving redraws its own map only: A, B, A − B and the other maps
// keep what they show (each was pooled again at every arrival: 0.1 s a trace at n = 2,048 with
// 13 maps). A − B is made again when B changes, and reads its difference in place.
void TestComparisonView::arrivingTraceRedrawsOnlyItsMap() {
    const InputChoice in;
    auto a = compute(small(), in);
    QVERIFY(a);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    v.setReference(a, in);
    v.show();
    v.setGallerySchemes({Scheme::T5, Scheme::ALiBi});
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5) && v.traceOf(Scheme::ALiBi) &&
                                 v.galleryView(Scheme::ALiBi)->hasData(),
                             15000);
    QTest::qWait(100); // the rebuilds a first show schedules
    HeatmapView* t5 = v.galleryView(Scheme::T5);
    HeatmapView* alibi = v.galleryView(Scheme::ALiBi);
    const std::vector<HeatmapView*> others{v.left(), v.right(), v.difference(), t5};
    std::vector<int> before;
    for (HeatmapView* m : others)
        before.push_back(m->redrawCount());
    const Tensor* difference = v.difference()->shownTensor();
    QVERIFY(difference); // read in place, as A and B are
    QCOMPARE(v.difference()->data().at(5, 3),
             double(at(*a, "weights", 0, 5, 3)) - double(at(*v.other(), "weights", 0, 5, 3)));

    Params p = a->params;
    p.scheme = Scheme::ALiBi;
    auto fresh = compute(p, in); // the same scheme's trace again, a new object
    QVERIFY(fresh && fresh.get() != v.traceOf(Scheme::ALiBi));
    const int alibiBefore = alibi->redrawCount();
    v.addTrace(fresh);
    QCOMPARE(alibi->shownTensor(), fresh->find("weights"));
    QVERIFY(alibi->redrawCount() > alibiBefore);
    QTest::qWait(100);
    for (std::size_t k = 0; k < others.size(); ++k)
        QCOMPARE(others[k]->redrawCount(), before[k]);
    QCOMPARE(v.difference()->shownTensor(), difference);

    // Another B: A − B is A less the new B.
    v.setOtherScheme(Scheme::T5);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->params.scheme == Scheme::T5, 15000);
    QTRY_VERIFY(v.difference()->shownTensor() && v.difference()->shownTensor() != difference);
    QCOMPARE(v.difference()->data().at(5, 3),
             double(at(*a, "weights", 0, 5, 3)) - double(at(*v.other(), "weights", 0, 5, 3)));
    // And another: made in the first one's storage, which the map has let go of (no fresh
    // pages for each B).
    const Tensor* second = v.difference()->shownTensor();
    v.setOtherScheme(Scheme::ALiBi);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->params.scheme == Scheme::ALiBi, 15000);
    QTRY_VERIFY(v.difference()->shownTensor() != second);
    QCOMPARE(v.difference()->shownTensor(), difference);
    QCOMPARE(v.difference()->data().at(7, 2),
             double(at(*a, "weights", 0, 7, 2)) - double(at(*v.other(), "weights", 0, 7, 2)));
}

// The window announces the parameters it submits (prepare): B's trace is computed for them at
// once, beside A's, and the new reference is drawn with B in one go (B used to be asked for
// only once A had come: A drawn beside "computing B…", then everything again).
void TestComparisonView::schemeBIsComputedBesideTheReference() {
    const InputChoice in;
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    v.show();
    v.setReference(compute(small(), in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 10000);
    auto* worker = v.findChild<ComputeController*>();
    QVERIFY(worker);
    QSignalSpy computed(worker, &ComputeController::resultReady);
    QSignalSpy updated(&v, &ComparisonView::updated);

    Params next = small();
    next.seed = 7;
    v.prepare(next, in);
    QVERIFY(computed.wait(10000));        // B for `next`, before A's trace exists
    QVERIFY(v.other()->params.seed == 0); // the current reference's B is still shown
    const auto a = compute(next, in);
    v.setReference(a, in);
    QVERIFY(v.other()); // B at hand at once
    QCOMPARE(v.other()->params, paramsUnder(next, Scheme::RoPE));
    QCOMPARE(v.right()->shownTensor(), v.other()->find("weights"));
    QCOMPARE(v.difference()->data().at(5, 3),
             double(at(*a, "weights", 0, 5, 3)) - double(at(*v.other(), "weights", 0, 5, 3)));
    QCOMPARE(updated.count(), 1); // drawn once, A and B together

    // A reference other than the one announced (its computation superseded): the B computed
    // ahead is not used, and B is computed for the reference that came.
    Params announced = next;
    announced.seed = 8;
    v.prepare(announced, in);
    QVERIFY(computed.wait(10000));
    Params other = next;
    other.seed = 9;
    v.setReference(compute(other, in), in);
    QVERIFY(!v.other());
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 10000);
    QCOMPARE(v.other()->params, paramsUnder(other, Scheme::RoPE));

    // An announced reference that does not come (its computation failed): once told, the view
    // goes on with the current one (another B is computed for it, not held back).
    announced.seed = 10;
    v.prepare(announced, in);
    v.cancelPrepared();
    v.setOtherScheme(Scheme::ALiBi);
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 10000);
    QCOMPARE(v.other()->params, paramsUnder(other, Scheme::ALiBi));

    // Hidden, B the announced scheme itself, or a sequence that comes pooled (A first there):
    // nothing is computed ahead.
    computed.clear();
    Params same = other;
    same.scheme = Scheme::ALiBi;
    v.prepare(same, in);
    Params pooled = other;
    pooled.n = 2100;
    pooled.d = 16;
    v.prepare(pooled, in);
    v.hide();
    v.prepare(next, in);
    QTest::qWait(200);
    QCOMPARE(computed.count(), 0);
}

// The window computes the same parameters again (A from another engine, a session applied
// twice): B's and the gallery's traces stay, nothing is computed again (they all were), and
// A's own maps come from A's new trace.
void TestComparisonView::sameParametersAgainKeepTheOtherTraces() {
    const InputChoice in;
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    QVERIFY(v.setTensor(QStringLiteral("position")));
    v.show();
    v.setGallerySchemes({Scheme::T5});
    v.setReference(compute(small(), in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5), 10000);
    const Trace* b = v.other();
    const Trace* t5 = v.traceOf(Scheme::T5);
    auto* worker = v.findChild<ComputeController*>();
    QSignalSpy computed(worker, &ComputeController::resultReady);

    v.prepare(small(), in);
    auto again = compute(small(), in);
    v.setReference(again, in);
    QCOMPARE(v.other(), b);
    QCOMPARE(v.traceOf(Scheme::T5), t5);
    QTest::qWait(300);
    QCOMPARE(computed.count(), 0);
    // A's position term is A's new trace's (another object; the same values here).
    QCOMPARE(v.left()->data().at(5, 3), (*positionPart(*again, 0))(5, 3));
    QVERIFY(v.left()->shownTensor() != nullptr);

    // Other parameters: computed again.
    Params p = small();
    p.seed = 3;
    v.setReference(compute(p, in), in);
    QVERIFY(!v.other());
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5), 10000);
    QVERIFY(computed.count() >= 2);
}

// The reference's own scheme is the reference: the window computes it as far as the view needs
// (to the end when the output is compared). While the reference stopped at the weights, the view
// asked its worker for that scheme, whose result was never taken as A, again and again.
void TestComparisonView::referenceSchemeIsNotAskedFor() {
    const InputChoice in;
    const Params p = small();
    auto a = compute(p, in, TraceExtent::Weights);
    QVERIFY(a && a->find("weights") && !a->find("out"));
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(p.scheme); // B is A's scheme
    v.setGallerySchemes({p.scheme, Scheme::ALiBi});
    QVERIFY(v.setTensor(QStringLiteral("out")));
    auto* worker = v.findChild<ComputeController*>();
    QVERIFY(worker);
    QSignalSpy results(worker, &ComputeController::resultReady);
    v.setReference(a, in);
    v.show();
    QTRY_VERIFY_WITH_TIMEOUT(v.traceOf(Scheme::ALiBi) && v.traceOf(Scheme::ALiBi)->find("out"),
                             15000);
    QTRY_VERIFY(!worker->busy());
    QTest::qWait(300);
    QCOMPARE(results.count(), 1); // ALiBi alone
    QCOMPARE(v.left()->titleText(), QStringLiteral("computing A's output…"));
    // The window's complete A: every map shows the output.
    auto whole = compute(p, in);
    v.setReference(whole, in);
    QTRY_VERIFY_WITH_TIMEOUT(v.left()->shownTensor() == whole->find("out"), 5000);
    QCOMPARE(v.right()->shownTensor(), whole->find("out"));
    QTest::qWait(300);
    QCOMPARE(results.count(), 1);
}

// A's own parameters changed (Shaw's k, A's scheme): the other schemes' traces that read none
// of them stay (canonical), without a computation, and A − B is drawn at once from A's new
// trace; those that read the change (DeBERTa's span is k) are computed again. Every one was
// computed again, each a whole forward pass.
void TestComparisonView::tracesThatReadNoneOfTheChangeStay() {
    const InputChoice in;
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    v.show();
    v.setGallerySchemes({Scheme::T5, Scheme::DeBERTa});
    Params p = small();
    p.scheme = Scheme::Shaw;
    v.setReference(compute(p, in), in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.traceOf(Scheme::T5) && v.traceOf(Scheme::DeBERTa),
                             10000);
    const Trace* b = v.other();
    const Trace* t5 = v.traceOf(Scheme::T5);
    auto* worker = v.findChild<ComputeController*>();
    QSignalSpy computed(worker, &ComputeController::resultReady);

    p.clip = 5; // read by Shaw and DeBERTa alone
    v.prepare(p, in);
    auto a = compute(p, in);
    v.setReference(a, in);
    QCOMPARE(v.other(), b);
    QCOMPARE(v.traceOf(Scheme::T5), t5);
    QVERIFY(!v.traceOf(Scheme::DeBERTa));
    QCOMPARE(v.difference()->data().at(5, 3),
             double(at(*a, "weights", 0, 5, 3)) - double(at(*b, "weights", 0, 5, 3)));
    QTRY_VERIFY_WITH_TIMEOUT(v.traceOf(Scheme::DeBERTa), 10000);
    QCOMPARE(v.traceOf(Scheme::DeBERTa)->params.clip, 5);
    QTRY_VERIFY(!worker->busy());
    QCOMPARE(computed.count(), 1); // DeBERTa alone

    p.scheme = Scheme::ALiBi; // A's scheme: nothing else reads it
    const Trace* deberta = v.traceOf(Scheme::DeBERTa);
    v.prepare(p, in);
    v.setReference(compute(p, in), in);
    QCOMPARE(v.other(), b);
    QCOMPARE(v.traceOf(Scheme::T5), t5);
    QCOMPARE(v.traceOf(Scheme::DeBERTa), deberta);
    QTest::qWait(300);
    QCOMPARE(computed.count(), 1);
    QCOMPARE(v.right()->shownTensor(), b->find("weights"));
}

// B still computing when A changes in a way B does not read: its request runs on and its result
// is kept, nothing asked for again (it was asked for again, the first result dropped).
void TestComparisonView::requestThatReadsNoneOfTheChangeRunsOn() {
    const InputChoice in;
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    v.show();
    auto* worker = v.findChild<ComputeController*>();
    QSignalSpy computed(worker, &ComputeController::resultReady);
    Params p = small();
    p.scheme = Scheme::Shaw;
    p.n = 400; // B takes a while: A's change comes while it runs
    const auto first = compute(p, in);
    p.clip = 5;
    const auto second = compute(p, in);
    v.setReference(first, in);
    QVERIFY(worker->busy());
    v.setReference(second, in);
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 10000);
    QTRY_VERIFY(!worker->busy());
    QTest::qWait(200);
    QCOMPARE(computed.count(), 1);
    QVERIFY(sameTrace(v.other()->params, paramsUnder(p, Scheme::RoPE)));
    QCOMPARE(v.other()->params.clip, 16); // the first request's: not asked for again
}

// A position term of 2^20 cells and more is computed on Qt's pool: the maps keep what they
// show until it comes, then show the term of the trace and head current then (a job for a head
// no longer shown is dropped). A blocking view (render's figures) draws it at once.
void TestComparisonView::longPositionTermsLeaveTheGuiThread() {
    const InputChoice in;
    Params p = small();
    p.n = 1024;
    p.d = 16;
    p.heads = 2;
    auto a = compute(p, in);
    QVERIFY(a && a->queryKey);
    QVERIFY(positionPartTakesLong(a->params));
    auto termAt = [](const HeatmapView* m, int i, int j) {
        const Tensor* x = m->shownTensor();
        return x && x->dim(1) == 1024 ? x->at(std::int64_t(i) * 1024 + j) : -1e300;
    };
    const StageMat head0 = *positionPart(*a, 0);
    const StageMat head1 = *positionPart(*a, 1);
    QVERIFY(std::abs(head0(700, 3) - head1(700, 3)) > 1e-9);

    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::Sinusoidal); // A's own: nothing asked of the view's worker
    QVERIFY(v.setTensor(QStringLiteral("position")));
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setReference(a, in);
    QVERIFY(v.computingPositionTerms());
    QVERIFY(!v.left()->shownTensor()); // not drawn yet
    v.setHead(1);                      // while head 0's term is computed
    QVERIFY(v.computingPositionTerms());
    QTRY_VERIFY_WITH_TIMEOUT(!v.computingPositionTerms() && v.left()->shownTensor(), 10000);
    QCOMPARE(termAt(v.left(), 700, 3), head1(700, 3));
    QCOMPARE(termAt(v.right(), 12, 900), head1(12, 900));
    // A new reference while its predecessor's term is computed: the new one's is shown.
    p.seed += 1;
    auto next = compute(p, in);
    QVERIFY(next && next->queryKey);
    const StageMat nextTerm = *positionPart(*next, 1);
    QVERIFY(std::abs(nextTerm(700, 3) - head1(700, 3)) > 1e-9);
    v.setReference(a, InputChoice{}); // the same again: A's own term computed again
    QVERIFY(v.computingPositionTerms());
    v.setReference(next, in);
    QTRY_VERIFY_WITH_TIMEOUT(!v.computingPositionTerms(), 10000);
    QCOMPARE(termAt(v.left(), 700, 3), nextTerm(700, 3));

    // Below 2^20 cells, a term whose products are long goes too: RoPE's content term of
    // n = 512 at d_h = 256 (n²·d_h = 2^26), as an absolute scheme's split.
    Params rope = p;
    rope.scheme = Scheme::RoPE;
    rope.n = 512;
    rope.d = 256;
    rope.heads = 1;
    auto r = compute(rope, in);
    QVERIFY(r && positionPartTakesLong(r->params));
    ComparisonView ropeView;
    ropeView.resize(1200, 900);
    ropeView.setOtherScheme(Scheme::RoPE);
    QVERIFY(ropeView.setTensor(QStringLiteral("position")));
    ropeView.show();
    ropeView.setReference(r, in);
    QVERIFY(ropeView.computingPositionTerms());
    const StageMat ropeTerm = *positionPart(*r, 0);
    QTRY_VERIFY_WITH_TIMEOUT(!ropeView.computingPositionTerms() && ropeView.left()->shownTensor(),
                             10000);
    QCOMPARE(ropeView.left()->shownTensor()->at(std::int64_t(300) * 512 + 7), ropeTerm(300, 7));

    ComparisonView blocking;
    blocking.setBlocking(true);
    blocking.resize(1200, 900);
    blocking.setOtherScheme(Scheme::Sinusoidal);
    QVERIFY(blocking.setTensor(QStringLiteral("position")));
    blocking.show();
    blocking.setReference(a, in);
    QVERIFY(!blocking.computingPositionTerms());
    QCOMPARE(termAt(blocking.left(), 700, 3), head0(700, 3));
}

// From kOneHeadFrom positions the other schemes' passes for the weights or logits make the shown
// head alone (an eighth of the n² work with 8 heads): B's map is that head of B's whole trace,
// A − B too; another head is computed when chosen; the position term, which needs more than
// one head's tensors, is computed from a pass of every head.
void TestComparisonView::longSequencesComputeTheShownHeadAlone() {
    const InputChoice in;
    Params p = small();
    p.n = ComparisonView::kOneHeadFrom;
    p.d = 16;
    const auto a = compute(p, in);
    QVERIFY(a);
    const auto whole = compute(paramsUnder(p, Scheme::RoPE), in);
    QVERIFY(whole);
    ComparisonView v;
    v.resize(1200, 900);
    v.setOtherScheme(Scheme::RoPE);
    QVERIFY(v.setTensor(QStringLiteral("weights")));
    v.setHead(2);
    v.setReference(a, in);
    v.show();
    QTRY_VERIFY_WITH_TIMEOUT(v.other(), 10000);
    QCOMPARE(v.other()->onlyHead, 2);
    QCOMPARE(v.other()->find("weights")->dim(0), 1);
    QVERIFY(v.right()->info().title.contains(QStringLiteral("head 2")));
    QCOMPARE(v.right()->data().at(700, 300), at(*whole, "weights", 2, 700, 300));
    QCOMPARE(v.difference()->data().at(700, 300),
             at(*a, "weights", 2, 700, 300) - at(*whole, "weights", 2, 700, 300));

    // Another head: B's trace holds head 2 alone, so head 3 is computed. Meanwhile the maps
    // keep head 2 (B's values are never shown under another head's title), then change
    // together.
    v.setHead(3);
    for (const HeatmapView* map : {v.left(), v.right()})
        QVERIFY2(map->info().title.endsWith(QStringLiteral("head 2")),
                 qPrintable(map->info().title));
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->onlyHead == 3 &&
                                 v.right()->info().title.contains(QStringLiteral("head 3")),
                             10000);
    QVERIFY(v.left()->info().title.endsWith(QStringLiteral("head 3")));
    QCOMPARE(v.right()->data().at(1000, 20), at(*whole, "weights", 3, 1000, 20));
    QCOMPARE(v.difference()->data().at(1000, 20),
             at(*a, "weights", 3, 1000, 20) - at(*whole, "weights", 3, 1000, 20));

    // The logits: that head's again.
    QVERIFY(v.setTensor(QStringLiteral("logits")));
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->find("logits") &&
                                 v.right()->shownTensor() == v.other()->find("logits"),
                             10000);
    QCOMPARE(v.other()->onlyHead, 3);
    QCOMPARE(v.right()->data().at(5, 900), at(*whole, "logits", 3, 5, 900));

    // The position term: from a trace of every head.
    QVERIFY(v.setTensor(QStringLiteral("position")));
    QTRY_VERIFY_WITH_TIMEOUT(v.other() && v.other()->onlyHead == -1 &&
                                 v.right()->info().title.contains(QStringLiteral("head 3")),
                             20000);
    QCOMPARE(v.other()->find("logits")->dim(0), p.heads);
}

QTEST_MAIN(TestComparisonView)
#include "tst_comparison_view.moc"
