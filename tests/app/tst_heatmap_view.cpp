// SPDX-License-Identifier: MIT
// HeatmapView: the colour range ignores masked (−inf) cells; a pooled view zoomed past its cells
// asks once, after the debounce, for the visible source positions, and draws the tile it gets;
// new data is painted once, whether the view is resized or shown before it paints.

#include <QSignalSpy>
#include <QTest>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <limits>
#include <memory>

#include "heatmap_view.h"
#include "paint_log.h"
#include "qcp.h"

using namespace pe;

class TestHeatmapView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void colourRangeSkipsMaskedCells();
    void zoomPastPooledCellsAsksForATile();
    void declaringTheSourceRelabelsWithoutPoolingAgain();
    void longTitleKeepsTheColourScale();
    void longSubtitleIsBrokenAtItsCommas();
    void longTitleIsBrokenAtItsSpaces();
    void narrowMapsHaveFewerTicks();
    void parametersLineFitsItsBox();
    void squareCellsFollowTheCells();
    void binnedCellsAreLabelledWithTheirPositions();
    void sliceInPlaceMatchesItsGrid();
    void preparedSliceIsDrawnAsColouredByItsJob();
    void backgroundIsWhiteOnScreenAndInExports();
    void resizeBeforeTheFirstPaintPoolsAtOnce();
    void hiddenDataIsPooledWhenShown();
    void aPaintQueuedFirstShowsTheNewData();
};

namespace {
Grid ramp(int n) {
    Grid g{n, n, std::vector<double>(static_cast<std::size_t>(n) * n)};
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            g.at(i, j) = j > i ? -std::numeric_limits<double>::infinity() : 0.5 * (i - j);
    return g;
}

/** The colour the view paints at the centre of cell (row i, column j). */
QColor shownColour(HeatmapView& v, int i, int j) {
    QCustomPlot* plot = v.plot();
    plot->replot();
    const QImage image = plot->toPixmap().toImage();
    return image.pixelColor(qRound(plot->xAxis->coordToPixel(j)),
                            qRound(plot->yAxis->coordToPixel(i)));
}

/** The colour of value `value` in `map`'s gradient over its data range. */
QColor gradientColour(const QCPColorMap* map, double value) {
    return QColor::fromRgba(map->gradient().color(value, map->dataRange()));
}
} // namespace

void TestHeatmapView::resizeBeforeTheFirstPaintPoolsAtOnce() {
    // A change that brings new data and resizes the view (a neighbouring view shown or hidden):
    // the view pools for its new size at once, and the change costs one paint, not a second
    // one after the resize debounce.
    QWidget host;
    host.resize(900, 900);
    auto* v = new HeatmapView(&host);
    v->setGeometry(0, 0, 300, 300);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    v->setData(ramp(1000), HeatmapInfo{}); // more cells than pixels: pooled to the plot's size
    QTRY_VERIFY(v->redrawCount() > 0);
    QTest::qWait(100); // painted
    test::PaintLog counter;
    v->plot()->installEventFilter(&counter);
    v->setData(ramp(1000), HeatmapInfo{});
    const QSize before = v->displayedCells();
    const int redraws = v->redrawCount();
    v->setGeometry(0, 0, 600, 600); // before the view painted the new data
    QVERIFY(v->redrawCount() > redraws);
    QVERIFY(v->displayedCells().width() > before.width() + 200);
    QTest::qWait(200); // past the debounce
    QCOMPARE(counter.count(), 1);

    // A resize after the data was painted is a step of a drag: pooled once the drag pauses.
    const QSize shown = v->displayedCells();
    const int after = v->redrawCount();
    v->setGeometry(0, 0, 400, 400);
    QCOMPARE(v->redrawCount(), after);
    QCOMPARE(v->displayedCells(), shown);
    QTRY_VERIFY(v->displayedCells().width() < shown.width() - 100);
}

void TestHeatmapView::aPaintQueuedFirstShowsTheNewData() {
    // New data (and a resize) queue the plot's replot. A paint of the window that came first (on
    // a Shaw <-> T5 switch the Relative tab's index map was resized while the result's handler
    // ran, and the paint it asked for was queued ahead of the replot) drew the plot's old
    // buffers, then the replot painted it again: "PRP". The window's paint now runs the queued
    // replot first: one paint, of the new data.
    QWidget host;
    host.resize(900, 450);
    auto* v = new HeatmapView(&host);
    v->setGeometry(0, 0, 400, 400);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    v->setData(ramp(300), HeatmapInfo{});
    QTRY_VERIFY(v->redrawCount() > 0);
    QTest::qWait(100); // painted
    Grid g = ramp(300);
    for (double& x : g.values)
        x = -x;
    // As on a scheme switch: the result resizes the view (a neighbour shown or hidden) and sets
    // its data, and the window's paint comes before the replot those queue (in the window, a
    // paint already asked for when the result's handler ran).
    const QString order = test::replotPaintOrder(v->plot(), &host, [&] {
        v->setGeometry(0, 0, 420, 400);
        v->setData(std::move(g), HeatmapInfo{});
    });
    QCOMPARE(order, QStringLiteral("RP"));
}

void TestHeatmapView::hiddenDataIsPooledWhenShown() {
    // Data set while hidden is pooled when the view is shown, for the paint that showing
    // brings (no second paint after the debounce).
    QWidget host;
    host.resize(600, 600);
    auto* v = new HeatmapView(&host);
    v->setGeometry(0, 0, 400, 400);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    v->hide();
    v->setData(ramp(1000), HeatmapInfo{});
    QVERIFY(v->displayedCells().isEmpty()); // nothing pooled while hidden
    test::PaintLog counter;
    v->plot()->installEventFilter(&counter);
    v->show();
    QVERIFY(!v->displayedCells().isEmpty());
    QTest::qWait(200);
    QCOMPARE(counter.count(), 1);
}

void TestHeatmapView::colourRangeSkipsMaskedCells() {
    HeatmapView v;
    v.resize(400, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setData(ramp(10), HeatmapInfo{});
    auto* map = qobject_cast<QCPColorMap*>(v.plot()->plottable(0));
    QVERIFY(map);
    QCOMPARE(map->dataRange().lower, 0.0);
    QCOMPARE(map->dataRange().upper, 4.5);
    // The data's own range, whatever range is shared; none without a finite value.
    v.setColourRange(std::pair{-1.0, 9.0});
    QCOMPARE(v.dataRange(), (std::optional<std::pair<double, double>>{{0.0, 4.5}}));
    QCOMPARE(v.sharedColourRange(), (std::optional<std::pair<double, double>>{{-1.0, 9.0}}));
    v.setColourRange(std::nullopt);
    Grid masked{2, 2, std::vector<double>(4, -std::numeric_limits<double>::infinity())};
    v.setData(masked, HeatmapInfo{});
    QVERIFY(!v.dataRange());
    v.setData(ramp(10), HeatmapInfo{});
    QCOMPARE(v.dataRange(), (std::optional<std::pair<double, double>>{{0.0, 4.5}}));
    v.clear(QStringLiteral("nothing"));
    QVERIFY(!v.dataRange());
    v.setData(ramp(10), HeatmapInfo{});
    // Masked cells are drawn in grey, the others in their value's colour.
    QTRY_COMPARE(v.displayedCells(), QSize(10, 10));
    QCOMPARE(map->gradient().nanHandling(), QCPColorGradient::nhNanColor);
    QCOMPARE(shownColour(v, 2, 5), QColor(190, 190, 190)); // column 5 > row 2: masked
    QCOMPARE(shownColour(v, 5, 2), gradientColour(map, 1.5));
    QCOMPARE(shownColour(v, 9, 0), gradientColour(map, 4.5));
    QVERIFY(gradientColour(map, 1.5) != gradientColour(map, 4.5));
}

void TestHeatmapView::zoomPastPooledCellsAsksForATile() {
    HeatmapView v;
    v.resize(600, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setData(ramp(64), HeatmapInfo{});
    v.setSource(640, 640); // each of the 64 cells pools 10 positions
    QSignalSpy wanted(&v, &HeatmapView::tileWanted);
    QTest::qWait(300);
    QCOMPARE(wanted.count(), 0); // the whole map: not past its cells
    // Three zoom steps in quick succession: one request, for the last visible block.
    for (double hi : {40.5, 30.5, 19.5}) {
        v.plot()->xAxis->setRange(9.5, hi);
        v.plot()->yAxis->setRange(9.5, hi);
        QTest::qWait(40);
    }
    QVERIFY(wanted.wait(2000));
    QTest::qWait(300);
    QCOMPARE(wanted.count(), 1);
    const auto r = wanted.at(0).at(0).value<PoolRegion>();
    QCOMPARE(r, (PoolRegion{100, 200, 100, 200}));
    QCOMPARE(v.visibleSource(), r);
    // The tile arrives: drawn over the pooled map; the same view asks no more.
    Grid tile{100, 100, std::vector<double>(10000, 1.0)};
    v.setTile(tile, r,
              QStringLiteral("tile i 100\u2013199 \u00d7 j 100\u2013199, full resolution"));
    QVERIFY(v.hasTile());
    QCOMPARE(v.tileRegion(), r);
    QVERIFY(v.tileNote().contains(QLatin1String("full resolution")));
    v.plot()->xAxis->setRange(12.5, 17.5);
    QTest::qWait(400);
    QCOMPARE(wanted.count(), 1);
    // New data drops the tile and the pooled source.
    v.setData(ramp(8), HeatmapInfo{});
    QVERIFY(!v.hasTile());
    QCOMPARE(v.visibleSource(), PoolRegion{});
}

// Declaring a pooled grid's source (after setData / setSlice, as every pooled map is shown)
// changes its axes' labels to positions and pools nothing again: it used to schedule a second
// pooling of the whole grid on the GUI thread, and a second replot, 30 ms after the first.
void TestHeatmapView::declaringTheSourceRelabelsWithoutPoolingAgain() {
    HeatmapView v;
    v.resize(600, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setData(ramp(64), HeatmapInfo{});
    QTest::qWait(100);
    const int redraws = v.redrawCount();
    v.setSource(640, 640);
    QTest::qWait(150);
    QCOMPARE(v.redrawCount(), redraws);
    v.plot()->replot();
    double largest = 0;
    for (const QString& label : v.plot()->xAxis->tickVectorLabels())
        largest = std::max(largest, label.toDouble());
    QVERIFY2(largest > 100, qPrintable(v.plot()->xAxis->tickVectorLabels().join(u' ')));
    v.setSource(640, 640); // the same again: nothing at all
    QTest::qWait(50);
    QCOMPARE(v.redrawCount(), redraws);
}

// A title wider than a narrow map (three maps side by side in a window 900 px wide) is broken
// at its spaces, each line within the map's column; it was clipped at both ends ("sinusoidal,
// hea"). titleText() gives it whole.
namespace {
QString rectText(const QRect& r) {
    return QStringLiteral("(%1, %2) %3 x %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}
} // namespace

// View > Square cells: a 64 × 64 map in a wide box is drawn square, centred under its title,
// the colour bar as tall as the map; a 32 × 128 one four times as wide as tall, in a tall box,
// its top where it was; a pooled 1024² grid of 16384² positions square. Off again, the map fills
// its box. The default of new views follows setSquareCellsEverywhere.
void TestHeatmapView::squareCellsFollowTheCells() {
    HeatmapView v;
    v.resize(700, 320);
    HeatmapInfo info;
    info.title = QStringLiteral("similarity");
    info.subtitle = QStringLiteral("sinusoidal, n=64");
    auto ramp = [](int rows, int cols) {
        Grid g{rows, cols, std::vector<double>(std::size_t(rows) * cols)};
        for (std::size_t k = 0; k < g.values.size(); ++k)
            g.values[k] = double(k % 7);
        return g;
    };
    v.setData(ramp(64, 64), info);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.plot()->replot();
    const QRect filled = v.plot()->axisRect()->rect();
    QVERIFY2(filled.width() > filled.height() + 100, qPrintable(rectText(filled)));
    v.setSquareCells(true);
    v.plot()->replot();
    QRect r = v.plot()->axisRect()->rect();
    QVERIFY2(std::abs(r.width() - r.height()) <= 1, qPrintable(rectText(r)));
    QCOMPARE(r.height(), filled.height());
    QCOMPARE(r.top(), filled.top());
    // The map is centred in the box, with its colour bar beside it (not at the box's right
    // edge, 400 px away) and its titles over it (off by half the tick labels' margin at most).
    auto* scale = qobject_cast<QCPColorScale*>(v.plot()->plotLayout()->element(2, 1));
    QVERIFY(scale);
    const QRect bar = scale->axis()->axisRect()->rect();
    QCOMPARE(bar.top(), r.top());
    QCOMPARE(bar.bottom(), r.bottom());
    QVERIFY2(bar.left() > r.right() && bar.left() - r.right() < 40,
             qPrintable(rectText(bar) + QStringLiteral(" beside ") + rectText(r)));
    const int leftRoom = r.left();
    const int rightRoom = v.plot()->viewport().right() - scale->rect().right();
    QVERIFY2(std::abs(leftRoom - rightRoom) < 80,
             qPrintable(QStringLiteral("%1 left, %2 right").arg(leftRoom).arg(rightRoom)));
    for (int row : {0, 1}) {
        const QRect title = v.plot()->plotLayout()->element(row, 0)->rect();
        QVERIFY2(std::abs(title.center().x() - r.center().x()) <= 25,
                 qPrintable(rectText(title) + QStringLiteral(" over ") + rectText(r)));
    }

    v.resize(400, 600);
    v.setData(ramp(32, 128), info);
    v.plot()->replot();
    r = v.plot()->axisRect()->rect();
    QVERIFY2(std::abs(r.width() - 4 * r.height()) <= 4, qPrintable(rectText(r)));
    // A map under 100 px tall: the bar keeps 100 px, from the map's top (its labels overlapped).
    QVERIFY(r.height() < 90);
    QCOMPARE(scale->axis()->axisRect()->rect().top(), r.top());
    QVERIFY2(std::abs(scale->axis()->axisRect()->rect().height() - 100) <= 1,
             qPrintable(rectText(scale->axis()->axisRect()->rect())));

    // Pooled: 1024 × 1024 cells of 16384 × 8192 positions, twice as tall as wide.
    v.setData(ramp(1024, 1024), info);
    v.setSource(16384, 8192);
    v.plot()->replot();
    r = v.plot()->axisRect()->rect();
    QVERIFY2(std::abs(2 * r.width() - r.height()) <= 2, qPrintable(rectText(r)));

    v.setSquareCells(false);
    v.setData(ramp(64, 64), info);
    v.plot()->replot();
    r = v.plot()->axisRect()->rect();
    QVERIFY2(r.height() > r.width() + 100, qPrintable(rectText(r)));  // fills the tall box
    QCOMPARE(scale->axis()->axisRect()->rect().bottom(), r.bottom()); // the bar's bottom too

    // A map too narrow for its titles (P of n = 8192, d = 128) keeps them at the box's width,
    // and its bar at the box's right edge: beside it, the titles were broken word by word.
    v.setSquareCells(true);
    v.resize(700, 320);
    v.setData(ramp(256, 4), info);
    v.plot()->replot();
    r = v.plot()->axisRect()->rect();
    QVERIFY2(r.width() < 20, qPrintable(rectText(r)));
    QVERIFY(v.plot()->plotLayout()->element(0, 0)->rect().width() > 400);
    QVERIFY(scale->rect().right() > v.plot()->viewport().right() - 5);
    // Its 20 px across hold one tick, not two labels on top of each other ("0100"); its height
    // holds several.
    QCOMPARE(v.plot()->xAxis->tickVector(), QVector<double>{0.0});
    QVERIFY(v.plot()->yAxis->tickVector().size() >= 3);
    v.setSquareCells(false);
    v.plot()->replot();
    QVERIFY(v.plot()->xAxis->tickVector().size() >= 2); // wide again: ticks again

    QVERIFY(!HeatmapView::squareCellsByDefault());
    HeatmapView::setSquareCellsEverywhere(true);
    QVERIFY(v.squareCells());
    QVERIFY(HeatmapView(nullptr, true).squareCells());
    HeatmapView::setSquareCellsEverywhere(false);
    QVERIFY(!v.squareCells());
}

// A grid binned on arrival (P of n = 8192 as 2048 rows of 4 positions) labels its axis with
// positions, as its hover read-out does: the ticks said 0…2048 under "position p".
void TestHeatmapView::binnedCellsAreLabelledWithTheirPositions() {
    HeatmapView v;
    v.resize(500, 500);
    HeatmapInfo info;
    info.title = QStringLiteral("position matrix P");
    info.binRows = 4; // 100 rows of 4 positions: 0…399
    Grid g{100, 8, std::vector<double>(800)};
    for (std::size_t k = 0; k < g.values.size(); ++k)
        g.values[k] = double(k % 5);
    v.setData(g, info);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.plot()->replot();
    const auto largest = [](QCPAxis* axis) {
        double top = -1;
        for (const QString& label : axis->tickVectorLabels())
            top = std::max(top, QLocale().toDouble(label));
        return top;
    };
    QVERIFY2(largest(v.plot()->yAxis) >= 300,
             qPrintable(v.plot()->yAxis->tickVectorLabels().join(u' ')));
    QVERIFY(largest(v.plot()->xAxis) <= 8); // columns unbinned: features 0…7
    QVERIFY(v.describeCell(99, 0).contains(QStringLiteral("396\u2013399")));
    info.binRows = 1;
    v.setData(g, info);
    v.plot()->replot();
    QVERIFY(largest(v.plot()->yAxis) < 100); // unbinned: rows are positions
}

void TestHeatmapView::parametersLineFitsItsBox() {
    // Every line of the title and the parameters line lies inside its box, at any width (the
    // lines were broken for the column without the boxes' margins: p·p's parameters ran 5 px
    // off both ends of its map at 1500 × 900).
    HeatmapView v;
    v.resize(280, 400);
    HeatmapInfo info;
    info.title = QStringLiteral("p\u00b7p position\u2192position, head 0");
    info.subtitle = QStringLiteral("sinusoidal, n=64, d=128, heads=4, softmax, base=10000, seed=0");
    Grid g{12, 12, std::vector<double>(144)};
    for (int k = 0; k < 144; ++k)
        g.values[static_cast<std::size_t>(k)] = -1.75 + 3.5 * k / 143.0; // labels like -1.5
    v.setData(g, info);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    int lines = 0;
    for (int width = 280; width <= 440; width += 2) {
        v.resize(width, 400);
        v.plot()->replot();
        for (QCPLayoutElement* e : v.plot()->plotLayout()->elements(true)) {
            auto* t = qobject_cast<QCPTextElement*>(e);
            if (!t)
                continue;
            const QFontMetrics fm(t->font());
            for (const QString& line : t->text().split(QLatin1Char('\n'))) {
                ++lines;
                QVERIFY2(fm.horizontalAdvance(line) <= t->rect().width(),
                         qPrintable(QStringLiteral("width %1: '%2' %3 px in %4 px")
                                        .arg(width)
                                        .arg(line)
                                        .arg(fm.horizontalAdvance(line))
                                        .arg(t->rect().width())));
            }
        }
    }
    QVERIFY(lines > 81 * 2); // titles and parameters lines were checked
}

void TestHeatmapView::longTitleIsBrokenAtItsSpaces() {
    HeatmapView v;
    v.resize(210, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    HeatmapInfo info;
    info.title = QStringLiteral("A \u2212 B (sinusoidal \u2212 rope)");
    info.subtitle = QStringLiteral("sinusoidal, n=64");
    v.setData(ramp(10), info);
    v.plot()->replot();
    QCPTextElement* title = nullptr;
    for (QCPLayoutElement* e : v.plot()->plotLayout()->elements(true))
        if (auto* t = qobject_cast<QCPTextElement*>(e); t && t->font().bold())
            title = t;
    QVERIFY(title);
    const QStringList lines = title->text().split(QLatin1Char('\n'));
    QVERIFY2(lines.size() >= 2, qPrintable(title->text()));
    const QFontMetrics fm(title->font());
    for (const QString& line : lines)
        QVERIFY2(fm.horizontalAdvance(line) <= title->outerRect().width(),
                 qPrintable(QStringLiteral("%1: %2 px in %3")
                                .arg(line)
                                .arg(fm.horizontalAdvance(line))
                                .arg(title->outerRect().width())));
    QCOMPARE(lines.join(QLatin1Char(' ')), info.title);
    QCOMPARE(v.titleText(), info.title);
    // Wide enough: one line.
    v.resize(900, 400);
    QTest::qWait(50);
    v.plot()->replot();
    QCOMPARE(title->text(), info.title);
}

// Numeric tick labels on a narrow map do not run into each other: about one per 50 px across
// (six on a map 70 px wide read "010203040 50 60").
void TestHeatmapView::narrowMapsHaveFewerTicks() {
    HeatmapView v;
    v.resize(180, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setData(ramp(64), HeatmapInfo{});
    v.plot()->replot();
    const QCPAxis* x = v.plot()->xAxis;
    const int width = x->axisRect()->width();
    const QVector<double> ticks = x->tickVector();
    QVERIFY(ticks.size() >= 2);
    const QFontMetrics fm(x->tickLabelFont());
    const double spacing = x->coordToPixel(ticks.at(1)) - x->coordToPixel(ticks.at(0));
    QVERIFY2(spacing > fm.horizontalAdvance(QStringLiteral("60")) + 6,
             qPrintable(QStringLiteral("%1 ticks, %2 px apart, on %3 px")
                            .arg(ticks.size())
                            .arg(spacing)
                            .arg(width)));
}

void TestHeatmapView::longSubtitleIsBrokenAtItsCommas() {
    // The parameters line of a narrow map (three maps side by side on the Compare tab at
    // 1280 × 720) takes as many lines as it needs instead of being clipped at both ends.
    HeatmapView v;
    v.resize(320, 320);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    HeatmapInfo info;
    info.title = QStringLiteral("A: sinusoidal, head 0");
    info.subtitle = QStringLiteral("sinusoidal, n=64, d=128, heads=4, softmax, base=10000, seed=0, "
                                   "layout=interleaved, mask=none");
    v.setData(ramp(10), info);
    v.plot()->replot();
    QCPTextElement* subtitle = nullptr;
    for (QCPLayoutElement* e : v.plot()->plotLayout()->elements(true))
        if (auto* t = qobject_cast<QCPTextElement*>(e); t && !t->font().bold())
            subtitle = t;
    QVERIFY(subtitle);
    const QStringList lines = subtitle->text().split(QLatin1Char('\n'));
    QVERIFY2(lines.size() >= 2, qPrintable(subtitle->text()));
    const QFontMetrics fm(subtitle->font());
    for (const QString& line : lines)
        QVERIFY2(fm.horizontalAdvance(line) <= subtitle->outerRect().width(), qPrintable(line));
    // Nothing is lost: the lines, joined, give the line back.
    QString joined = lines.join(QLatin1Char(' '));
    QCOMPARE(joined, info.subtitle);
    // Wide enough again: one line.
    v.resize(1400, 320);
    v.plot()->replot();
    QCOMPARE(subtitle->text(), info.subtitle);
}

void TestHeatmapView::longTitleKeepsTheColourScale() {
    HeatmapView v;
    v.resize(300, 300);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    HeatmapInfo info;
    info.title = QString(200, QLatin1Char('W')); // far wider than the plot
    info.subtitle = QString(300, QLatin1Char('x'));
    v.setData(ramp(10), info);
    v.plot()->replot();
    QCPColorScale* scale = nullptr;
    for (QCPLayoutElement* e : v.plot()->plotLayout()->elements(true))
        if (auto* s = qobject_cast<QCPColorScale*>(e))
            scale = s;
    QVERIFY(scale);
    QVERIFY2(scale->axis()->axisRect()->width() > 0, "the colour bar was squeezed away");
    QVERIFY(v.plot()->axisRect()->width() > 100); // the map keeps its room
}

QTEST_MAIN(TestHeatmapView)
void TestHeatmapView::preparedSliceIsDrawnAsColouredByItsJob() {
    // A slice pooled and coloured by its job (on another thread) is drawn from the job's image:
    // the GUI thread colours nothing, and the picture is the one it would have made itself.
    const int n = 300;
    std::vector<float> values(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            values[static_cast<std::size_t>(i) * n + j] =
                j > i ? -std::numeric_limits<float>::infinity()
                      : static_cast<float>(std::sin(0.05 * i) * std::cos(0.07 * j));
    auto t = std::make_shared<Tensor>(Tensor::fromVector<float>({1, n, n}, std::move(values)));
    HeatmapView prepared, direct;
    for (HeatmapView* v : {&prepared, &direct}) {
        v->resize(420, 380);
        v->show();
        QVERIFY(QTest::qWaitForWindowExposed(v));
    }
    auto job = prepared.slicePreparer(t.get(), 0);
    HeatmapView::PreparedSlice s = QtConcurrent::run(job).result();
    QVERIFY(!s.image.isNull());
    const int before = prepared.mapsColoured();
    prepared.setSlice(t, t.get(), 0, HeatmapInfo{}, std::move(s));
    direct.setSlice(t, t.get(), 0, HeatmapInfo{});
    const QImage a = prepared.plot()->toPixmap().toImage();
    const QImage b = direct.plot()->toPixmap().toImage();
    QCOMPARE(prepared.mapsColoured(), before); // drawn from the job's image
    QVERIFY(direct.mapsColoured() > 0);        // coloured here
    QCOMPARE(a, b);
    QCOMPARE(shownColour(prepared, 10, 200), QColor(190, 190, 190)); // masked
    // A colour map chosen since the job ran: the job's image no longer fits, the view colours.
    auto stale = prepared.slicePreparer(t.get(), 0);
    HeatmapView::PreparedSlice s2 = stale();
    prepared.setColorMap(ColorMapKind::Greys);
    direct.setColorMap(ColorMapKind::Greys);
    const int coloured = prepared.mapsColoured();
    prepared.setSlice(t, t.get(), 0, HeatmapInfo{}, std::move(s2));
    direct.setSlice(t, t.get(), 0, HeatmapInfo{}); // pooled here, for the same size
    QCOMPARE(prepared.plot()->toPixmap().toImage(), direct.plot()->toPixmap().toImage());
    QCOMPARE(prepared.mapsColoured(), coloured + 1);
}

void TestHeatmapView::backgroundIsWhiteOnScreenAndInExports() {
    // The white background is painted into the plot's buffer (not filled under it): the widget
    // as painted on screen and the plot drawn for an export both have it, around the map too.
    HeatmapView v;
    v.resize(400, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setData(ramp(10), HeatmapInfo{});
    QTest::qWait(100);
    const QImage screen = v.grab().toImage();
    const QImage exported = v.plot()->toPixmap().toImage();
    for (const QImage& image : {screen, exported}) {
        QCOMPARE(image.pixelColor(2, 2), QColor(Qt::white));
        QCOMPARE(image.pixelColor(image.width() - 3, image.height() / 2), QColor(Qt::white));
    }
    // and the map, its masked cells and the axes' labels are drawn over it
    QCOMPARE(shownColour(v, 2, 5), QColor(190, 190, 190));
    const QRect rect = v.plot()->axisRect()->rect();
    int dark = 0; // tick labels under the map
    for (int y = rect.bottom() + 4; y < rect.bottom() + 24; ++y)
        for (int x = rect.left(); x < rect.right(); ++x)
            dark += screen.pixelColor(x, y).lightness() < 100;
    QVERIFY2(dark > 10, qPrintable(QString::number(dark)));
    // A vector export (PDF) draws the map QCustomPlot's way, from the cells the view keeps:
    // the same colours at the cells' centres.
    QCustomPlot* plot = v.plot();
    QImage vector(plot->size(), QImage::Format_RGB32);
    vector.fill(Qt::white);
    {
        QCPPainter painter(&vector);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        plot->toPainter(&painter, plot->width(), plot->height());
    }
    auto at = [&](int i, int j) {
        return vector.pixelColor(qRound(plot->xAxis->coordToPixel(j)),
                                 qRound(plot->yAxis->coordToPixel(i)));
    };
    const auto* map = qobject_cast<QCPColorMap*>(plot->plottable(0));
    QCOMPARE(at(2, 5), QColor(190, 190, 190));
    QCOMPARE(at(5, 2), gradientColour(map, 1.5));
    QCOMPARE(at(9, 0), gradientColour(map, 4.5));
}

void TestHeatmapView::sliceInPlaceMatchesItsGrid() {
    // Head 1 of a float [2, 10, 10] tensor, shown in place, looks and reads as its grid does.
    const Grid g = ramp(10);
    std::vector<float> values(200, 7.0f);
    for (std::size_t k = 0; k < g.values.size(); ++k)
        values[100 + k] = static_cast<float>(g.values[k]);
    auto t = std::make_shared<Tensor>(Tensor::fromVector<float>({2, 10, 10}, std::move(values)));
    HeatmapView v;
    v.resize(400, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setSlice(t, t.get(), 1, HeatmapInfo{});
    QCOMPARE(v.dataRows(), 10);
    auto* map = qobject_cast<QCPColorMap*>(v.plot()->plottable(0));
    QCOMPARE(map->dataRange().lower, 0.0); // masked cells left out of the range
    QCOMPARE(map->dataRange().upper, 4.5);
    QCOMPARE(v.dataRange(), (std::optional<std::pair<double, double>>{{0.0, 4.5}}));
    QCOMPARE(v.shownTensor(), t.get());
    QTRY_COMPARE(v.displayedCells(), QSize(10, 10));
    QCOMPARE(shownColour(v, 2, 5), QColor(190, 190, 190));
    QCOMPARE(shownColour(v, 5, 2), gradientColour(map, 1.5));
    QVERIFY(v.describeCell(7, 3).endsWith(QStringLiteral("value = 2")));
    QCOMPARE(v.data(), g); // copied out on demand, equal to the grid
    t.reset();             // the view keeps the tensor alive
    QCOMPARE(v.data().at(9, 0), 4.5);
    QVERIFY(v.describeCell(9, 0).endsWith(QStringLiteral("value = 4.5")));
}

#include "tst_heatmap_view.moc"
