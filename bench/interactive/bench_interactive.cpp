// SPDX-License-Identifier: MIT
// Usage: QT_QPA_PLATFORM=offscreen bench_interactive [N]   (default N = 4096)
// Prints the cost of showing an N×N matrix: pooled to screen size (what HeatmapView does) vs
// handed to QCustomPlot cell by cell, and the frame times of a simulated sequence-length drag.
#include <QApplication>
#include <QElapsedTimer>
#include <QSpinBox>
#include <QTest>

#include <cstdio>

#include "heatmap_view.h"
#include "main_window.h"
#include "params_panel.h"
#include "qcp.h"

using namespace pe;

static double ms(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    Grid g{n, n, std::vector<double>(static_cast<std::size_t>(n) * n)};
    for (std::size_t k = 0; k < g.values.size(); ++k)
        g.values[k] = std::sin(0.001 * static_cast<double>(k));

    HeatmapView view;
    view.resize(900, 800);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view))
        return 1;
    Grid copy = g; // the views receive their grid by move
    QElapsedTimer t;
    t.start();
    view.setData(std::move(copy), HeatmapInfo{});
    view.plot()->replot();
    std::printf("pooled view      %5d x %5d -> %4d x %4d cells: %8.1f ms (set + replot)\n", n, n,
                view.displayedCells().width(), view.displayedCells().height(), ms(t));

    QCustomPlot raw;
    raw.resize(900, 800);
    auto* map = new QCPColorMap(raw.xAxis, raw.yAxis);
    t.restart();
    map->data()->setSize(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            map->data()->setCell(c, r, g.at(r, c));
    map->rescaleDataRange();
    raw.rescaleAxes();
    raw.replot();
    std::printf("cell-by-cell     %5d x %5d cells:               %8.1f ms (fill + replot)\n", n, n,
                ms(t));

    // A slider drag: 30 length changes, each waiting for its frame.
    MainWindow w(Settings::defaultSession(), false);
    w.resize(1400, 900);
    w.show();
    (void)QTest::qWaitFor([&] { return w.frames() > 0; }, 10000);
    for (int len : {256, 1024}) {
        t.restart();
        const int before = w.frames();
        w.panel()->lengthBox()->setValue(len);
        (void)QTest::qWaitFor([&] { return w.frames() > before && w.shownParams()->n == len; },
                              60000);
        std::printf("explorer n=%5d: first frame after the change %8.1f ms   [%s]\n", len, ms(t),
                    qPrintable(w.statusText()));
    }
    t.restart();
    for (int len = 64; len < 64 + 30 * 8; len += 8) {
        w.panel()->lengthBox()->setValue(len);
        QTest::qWait(16); // one change per display frame, as a drag delivers them
    }
    (void)QTest::qWaitFor([&] { return w.shownParams()->n == 64 + 29 * 8; }, 30000);
    std::printf("drag 30 steps (n 64..296, 16 ms apart): last frame after %8.1f ms, %d results "
                "dropped as stale\n",
                ms(t), w.controller()->droppedResults());
    return 0;
}
