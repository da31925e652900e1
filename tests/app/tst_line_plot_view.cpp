// SPDX-License-Identifier: MIT
#include <QTest>

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

// Eleven curves in a short plot (the insights "every scheme" figure at 1280 x 720): the legend
// is wrapped into columns that stay inside the axes, every entry shown; a tall plot keeps one
// column.
void TestLinePlotView::aLongLegendWrapsIntoColumns() {
    LinePlotContent c;
    for (int k = 0; k < 11; ++k) {
        LineSeries s;
        s.name = QStringLiteral("scheme %1").arg(k);
        s.values = {0.0, 1.0 * k, 2.0};
        c.series.push_back(s);
    }
    LinePlotView view;
    view.resize(480, 270);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setContent(c);
    view.plot()->replot();
    const QCPLegend* legend = view.plot()->legend;
    const QRect axes = view.plot()->axisRect()->rect();
    int entries = 0; // itemCount() counts a wrapped grid's empty cells too
    for (int i = 0; i < legend->itemCount(); ++i)
        entries += legend->item(i) != nullptr;
    QCOMPARE(entries, 11);
    QVERIFY2(legend->outerRect().bottom() <= axes.bottom() &&
                 legend->outerRect().top() >= axes.top(),
             qPrintable(QStringLiteral("legend %1..%2, axes %3..%4")
                            .arg(legend->outerRect().top())
                            .arg(legend->outerRect().bottom())
                            .arg(axes.top())
                            .arg(axes.bottom())));
    QVERIFY(legend->columnCount() >= 2);

    view.resize(480, 900);
    QTest::qWait(50); // the resize reaches the plot
    view.plot()->replot();
    QCOMPARE(legend->columnCount(), 1);
    QVERIFY(legend->outerRect().bottom() <= view.plot()->axisRect()->rect().bottom());
}

QTEST_MAIN(TestLinePlotView)
#include "tst_line_plot_view.moc"
