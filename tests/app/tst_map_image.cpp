// SPDX-License-Identifier: MIT
// colourCells: the image of a grid, pixel for pixel the one QCustomPlot's colour map makes of the
// same cells (its colorize and its oversampling of small grids), for values inside, at the edges
// of and outside the range, and for masked (±inf, NaN) cells.

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

#include "map_image.h"
#include "qcp.h"

using namespace pe;

class TestMapImage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesQCustomPlotsColouring_data();
    void matchesQCustomPlotsColouring();
    void reusesTheImageItIsGiven();
};

namespace {

/** QCPColorMap with its image-making step exposed. */
class ProbeMap : public QCPColorMap {
public:
    using QCPColorMap::QCPColorMap;
    QImage image() {
        updateMapImage();
        return mMapImage;
    }
};

QCPColorGradient gradient(QCPColorGradient::GradientPreset preset) {
    QCPColorGradient g(preset);
    g.setLevelCount(256);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(QColor(190, 190, 190));
    return g;
}

/** rows × cols values around lo … hi, every kind of edge case among them. */
Grid testGrid(int rows, int cols, double lo, double hi, unsigned seed) {
    Grid g{rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * cols)};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo));
    const double inf = std::numeric_limits<double>::infinity();
    const double step = (hi - lo) / 255;
    const double special[] = {lo,
                              hi,
                              lo - 1e-12,
                              hi + 1e-12,
                              lo + step,
                              lo + 3 * step - 1e-13,
                              -inf,
                              inf,
                              std::nan(""),
                              lo - 1e6 * (hi - lo),
                              hi + 1e6 * (hi - lo),
                              0.0};
    for (std::size_t k = 0; k < g.values.size(); ++k)
        g.values[k] = k % 7 == 3 ? special[(k / 7) % std::size(special)] : u(rng);
    return g;
}

} // namespace

void TestMapImage::matchesQCustomPlotsColouring_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("preset");
    QTest::newRow("512² viridis-like")
        << 512 << 512 << 0.0 << 1.0 << int(QCPColorGradient::gpPolar);
    QTest::newRow("signed, not square")
        << 300 << 257 << -3.5 << 3.5 << int(QCPColorGradient::gpThermal);
    QTest::newRow("oversampled 10 × 7") << 10 << 7 << -1.0 << 4.5 << int(QCPColorGradient::gpHot);
    QTest::newRow("one row") << 1 << 150 << 2.0 << 2.5 << int(QCPColorGradient::gpGrayscale);
    QTest::newRow("199 × 201 (oversampled one way)")
        << 199 << 201 << -1e-3 << 2e-3 << int(QCPColorGradient::gpJet);
}

void TestMapImage::matchesQCustomPlotsColouring() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, preset);
    const Grid g = testGrid(rows, cols, lo, hi, static_cast<unsigned>(rows * 1000 + cols));
    const QCPColorGradient grad = gradient(static_cast<QCPColorGradient::GradientPreset>(preset));

    QCustomPlot plot;
    plot.yAxis->setRangeReversed(true);
    auto* map = new ProbeMap(plot.xAxis, plot.yAxis);
    map->setInterpolate(false);
    map->setGradient(grad);
    map->setDataRange(QCPRange(lo, hi));
    map->data()->setSize(cols, rows);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double v = g.at(r, c);
            map->data()->setCell(c, r, std::isfinite(v) ? v : std::nan(""));
        }
    const QImage expected = map->image();

    QImage got;
    colourCells(g, colourTable(grad), lo, hi, &got);
    QCOMPARE(got.size(), expected.size());
    QCOMPARE(got.format(), expected.format());
    int differing = 0;
    for (int y = 0; y < got.height(); ++y)
        for (int x = 0; x < got.width(); ++x)
            differing += got.pixel(x, y) != expected.pixel(x, y);
    QCOMPARE(differing, 0);
    // Top-down: the same image upside down (as QCPColorMap draws it on a reversed value axis).
    QImage topDown;
    colourCells(g, colourTable(grad), lo, hi, &topDown, true);
    QCOMPARE(topDown, expected.mirrored(false, true));
    // Not a trivially equal pair: the grid spans the levels and has masked cells.
    QVERIFY(got.pixel(0, 0) != got.pixel(got.width() - 1, got.height() / 2) || rows * cols < 4);
}

void TestMapImage::reusesTheImageItIsGiven() {
    const Grid g = testGrid(300, 300, 0, 1, 7);
    const ColourTable t = colourTable(gradient(QCPColorGradient::gpPolar));
    QImage image;
    colourCells(g, t, 0, 1, &image);
    const QImage first = image.copy();
    const uchar* bits = image.constBits();
    Grid h = g;
    for (double& v : h.values)
        v = 1 - v;
    colourCells(h, t, 0, 1, &image);
    QCOMPARE(image.constBits(), bits); // written in place, not reallocated
    QImage fresh;
    colourCells(h, t, 0, 1, &fresh);
    QCOMPARE(image, fresh);
    QVERIFY(image != first);
}

QTEST_MAIN(TestMapImage)
#include "tst_map_image.moc"
