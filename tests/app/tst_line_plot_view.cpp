// SPDX-License-Identifier: MIT
#include <QTest>

#include <cstdlib>

#include "line_plot_view.h"
#include "paint_log.h"
#include "qcp.h"

using namespace pe;

class TestLinePlotView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void linearAfterLogHasTicks();
    void aPaintQueuedFirstShowsTheNewSeries();
    void aLongLegendWrapsIntoColumns();
    void theLegendTakesACornerItHidesNothingIn();
    void overCurvesEverywhereTheLegendGoesAbove();
    void inAShortWidePlotTheLegendGoesBeside();
};

namespace {
LinePlotContent ramp(double slope) {
    LinePlotContent c;
    c.title = QStringLiteral("ramp");
    LineSeries s;
    for (int i = 0; i < 64; ++i)
        s.values.push_back(slope * i);
    c.series = {s};
    return c;
}
} // namespace

// A linear plot after a log one (the same view, another insights page) has ticks on both axes:
// no log ticker is left behind to find none on a range through zero.
void TestLinePlotView::linearAfterLogHasTicks() {
    LinePlotView view;
    view.resize(400, 300);
    LinePlotContent log;
    LineSeries s;
    s.values = {0.5, 3.0, 20.0};
    s.x = {1.0, 10.0, 100.0};
    log.series = {s};
    log.integerX = false;
    log.logX = log.logY = true;
    view.setContent(log);
    view.plot()->replot();
    QVERIFY(!view.plot()->yAxis->tickVector().isEmpty());
    LinePlotContent linear = log;
    linear.logX = linear.logY = false;
    linear.series[0].values = {-5000.0, 0.0, 120000.0};
    linear.series[0].x = {-3.0, 0.0, 5.0};
    view.setContent(linear);
    view.plot()->replot();
    for (const QCPAxis* a : {view.plot()->xAxis, view.plot()->yAxis}) {
        QCOMPARE(a->scaleType(), QCPAxis::stLinear);
        QVERIFY(a->range().lower < 0);
        QVERIFY(a->tickVector().size() >= 2);
    }
}

// New series and a resize, with a paint of the window already asked for (an insights page or
// the encoding tab laid out again by the change): the paint runs the queued replot first and
// shows the new series once. QCustomPlot's own queue replotted the old series on the resize,
// painted them, then replotted and painted again ("RPRP").
void TestLinePlotView::aPaintQueuedFirstShowsTheNewSeries() {
    QWidget host;
    host.resize(900, 450);
    auto* v = new LinePlotView(&host);
    v->setGeometry(0, 0, 400, 300);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    v->setContent(ramp(1.0));
    QTest::qWait(100); // replotted and painted
    const QString order = test::replotPaintOrder(v->plot(), &host, [&] {
        v->setGeometry(0, 0, 420, 300);
        v->setContent(ramp(-2.0));
    });
    QCOMPARE(order, QStringLiteral("RP"));
    // What was replotted is the new series: falling from 0 to -126.
    QVERIFY(v->plot()->yAxis->range().lower <= -126.0);
    QVERIFY(v->plot()->yAxis->range().upper < 10.0);
}

namespace {
/** The curves' points (pixels) inside r, and the segments between them through r (sampled). */
int curvesIn(const QCustomPlot* plot, const QRect& r) {
    int inside = 0;
    for (int g = 0; g < plot->graphCount(); ++g) {
        const QCPGraph* graph = plot->graph(g);
        const auto data = graph->data();
        QPointF previous;
        for (int i = 0; i < data->size(); ++i) {
            const QPointF p(graph->keyAxis()->coordToPixel(data->at(i)->key),
                            graph->valueAxis()->coordToPixel(data->at(i)->value));
            for (int k = i == 0 ? 10 : 0; k <= 10; ++k) // the segment from previous, in 10 steps
                inside += r.contains((previous + (p - previous) * (k / 10.0)).toPoint());
            previous = p;
        }
    }
    return inside;
}

/** Jagged curves over the whole plot, one per name (heads' attention to one query): from 0 to
 *  1 and back, often. */
LinePlotContent jagged(const QStringList& names) {
    LinePlotContent c;
    for (int h = 0; h < names.size(); ++h) {
        LineSeries s;
        s.name = names.at(h);
        for (int i = 0; i < 64; ++i)
            s.values.push_back(((i * 37 + h * 11) % 17) / 16.0);
        c.series.push_back(s);
    }
    return c;
}

/** The view at `size`, shown, with `c` drawn. */
bool showAt(LinePlotView& view, QSize size, const LinePlotContent& c) {
    view.resize(size);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view))
        return false;
    view.setContent(c);
    view.plot()->replot();
    return true;
}

QString rectText(const QRect& r) {
    return QStringLiteral("(%1, %2) %3 x %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}
} // namespace

// Eleven curves (the insights "every scheme" figure). In a short plot no corner is free: the
// legend goes above the axes in balanced rows; in a plot too short for that it is wrapped into
// columns that stay inside the axes; in a tall one it keeps one column in a free corner. Every
// entry is shown each time.
void TestLinePlotView::aLongLegendWrapsIntoColumns() {
    LinePlotContent c;
    for (int k = 0; k < 11; ++k) {
        LineSeries s;
        s.name = QStringLiteral("scheme %1").arg(k);
        s.values = {0.0, 1.0 * k, 2.0};
        c.series.push_back(s);
    }
    LinePlotView view;
    view.resize(480, 240);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setContent(c);
    view.plot()->replot();
    const QCPLegend* legend = view.plot()->legend;
    int entries = 0; // itemCount() counts a wrapped grid's empty cells too
    for (int i = 0; i < legend->itemCount(); ++i)
        entries += legend->item(i) != nullptr;
    QCOMPARE(entries, 11);
    QRect axes = view.plot()->axisRect()->rect();
    QVERIFY2(
        legend->outerRect().bottom() <= axes.top(),
        qPrintable(rectText(legend->outerRect()) + QStringLiteral(" above ") + rectText(axes)));
    QCOMPARE(legend->rowCount(), 3); // 4 + 4 + 3
    QCOMPARE(legend->columnCount(), 4);

    view.resize(480, 150);
    QTest::qWait(50); // the resize reaches the plot
    view.plot()->replot();
    axes = view.plot()->axisRect()->rect();
    QVERIFY2(axes.contains(legend->outerRect()),
             qPrintable(rectText(legend->outerRect()) + QStringLiteral(" in ") + rectText(axes)));
    QVERIFY(legend->columnCount() >= 2);

    view.resize(480, 900);
    QTest::qWait(50);
    view.plot()->replot();
    axes = view.plot()->axisRect()->rect();
    QCOMPARE(legend->columnCount(), 1);
    QVERIFY(axes.contains(legend->outerRect()));
    QCOMPARE(curvesIn(view.plot(), legend->outerRect()), 0);
}

// A curve through the top-right corner (the usual place of the legend): the legend takes a
// corner where it hides none of it, inside the axes.
void TestLinePlotView::theLegendTakesACornerItHidesNothingIn() {
    LinePlotView view;
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    LinePlotContent c = ramp(1.0);
    c.series[0].name = QStringLiteral("rising");
    view.setContent(c);
    view.plot()->replot();
    const QCPLegend* legend = view.plot()->legend;
    const QRect axes = view.plot()->axisRect()->rect();
    const QRect box = legend->outerRect();
    QVERIFY2(axes.contains(box),
             qPrintable(rectText(box) + QStringLiteral(" in ") + rectText(axes)));
    QVERIFY2(curvesIn(view.plot(), box) == 0, qPrintable(rectText(box)));
    // Where QCustomPlot would have put it, top right, the curve passes.
    const QRect topRight(axes.right() - box.width(), axes.top(), box.width(), box.height());
    QVERIFY(curvesIn(view.plot(), topRight) > 0);
    QVERIFY(box.center().x() < axes.center().x() || box.center().y() > axes.center().y());
}

// Jagged curves over the whole plot (four heads' attention to one query): no corner is free,
// and the legend goes above the axes, its entries in one row; with a free corner again it comes
// back inside.
void TestLinePlotView::overCurvesEverywhereTheLegendGoesAbove() {
    LinePlotContent c = jagged({QStringLiteral("head 0"), QStringLiteral("head 1"),
                                QStringLiteral("head 2"), QStringLiteral("head 3")});
    LinePlotView view;
    QVERIFY(showAt(view, QSize(420, 300), c));
    const QCPLegend* legend = view.plot()->legend;
    QRect axes = view.plot()->axisRect()->rect();
    QVERIFY2(
        legend->outerRect().bottom() <= axes.top(),
        qPrintable(rectText(legend->outerRect()) + QStringLiteral(" above ") + rectText(axes)));
    QCOMPARE(legend->rowCount(), 1);
    QCOMPARE(legend->columnCount(), 4);
    // Under the title, centred in the plot's width.
    const QRect title = view.plot()->plotLayout()->element(0, 0)->outerRect();
    QVERIFY(legend->outerRect().top() >= title.bottom());
    QVERIFY(std::abs(legend->outerRect().center().x() - title.center().x()) <= 2);

    LinePlotContent r = ramp(1.0);
    r.series[0].name = QStringLiteral("rising");
    view.setContent(r);
    view.plot()->replot();
    axes = view.plot()->axisRect()->rect();
    QVERIFY2(axes.contains(legend->outerRect()),
             qPrintable(rectText(legend->outerRect()) + QStringLiteral(" in ") + rectText(axes)));
    QVERIFY(curvesIn(view.plot(), legend->outerRect()) == 0);
    QCOMPARE(view.plot()->plotLayout()->rowCount(), 2); // the title and the axes
}

// The stepper's logit terms at 1280 × 720: five jagged curves in axes under 100 px tall. Two
// rows above would take more than a third of them, and inside the legend covered most of the
// curves (it did): it goes beside the axes, at their right, in one column that hides nothing
// and stays inside the plot. Taller, it is above the axes again, and the column is gone.
void TestLinePlotView::inAShortWidePlotTheLegendGoesBeside() {
    LinePlotContent c = jagged({QStringLiteral("e·e"), QStringLiteral("e·p"), QStringLiteral("p·e"),
                                QStringLiteral("p·p"), QStringLiteral("sum S")});
    c.title = QStringLiteral("query 0, head 0: logit terms");
    c.xTitle = QStringLiteral("key position j");
    c.yTitle = QStringLiteral("term");
    LinePlotView view;
    QVERIFY(showAt(view, QSize(312, 175), c));
    const QCPLegend* legend = view.plot()->legend;
    QRect axes = view.plot()->axisRect()->rect();
    QVERIFY2(axes.height() < 100, qPrintable(rectText(axes)));
    const QRect box = legend->outerRect();
    QVERIFY2(box.left() >= axes.right() && box.top() >= view.plot()->axisRect()->outerRect().top(),
             qPrintable(rectText(box) + QStringLiteral(" beside ") + rectText(axes)));
    QVERIFY2(view.plot()->viewport().contains(box), qPrintable(rectText(box)));
    QCOMPARE(legend->columnCount(), 1);
    QCOMPARE(legend->rowCount(), 5);
    QCOMPARE(curvesIn(view.plot(), box), 0);
    QVERIFY(3 * box.width() <= view.plot()->viewport().width());

    view.resize(312, 400);
    QTest::qWait(50); // the resize reaches the plot
    view.plot()->replot();
    axes = view.plot()->axisRect()->rect();
    QVERIFY2(
        legend->outerRect().bottom() <= axes.top(),
        qPrintable(rectText(legend->outerRect()) + QStringLiteral(" above ") + rectText(axes)));
    QCOMPARE(view.plot()->plotLayout()->columnCount(), 1);
}

QTEST_MAIN(TestLinePlotView)
#include "tst_line_plot_view.moc"
