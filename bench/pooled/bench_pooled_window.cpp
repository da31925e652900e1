// SPDX-License-Identifier: MIT
// Usage: xvfb-run -a bench_pooled_window [N [D [HEADS [SCHEME [PNG]]]]]
//        (default 16384 512 8 t5; PNG: a screenshot of the zoomed attention tab)
// Opens the explorer on the attention tab with these parameters (pooled mode above 2048
// positions), zooms the enlarged map into a few hundred positions so that the visible tile is
// computed at full resolution, and prints one JSON line: the pooled compute time, the tile's
// time, what the views show and the peak resident memory (VmHWM) of the whole process.
#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <QSignalSpy>
#include <QTest>

#include <cstdio>
#include <cstdlib>

#include "cpu_gemm.h"
#include "heatmap_view.h"
#include "main_window.h"
#include "memory_budget.h"
#include "qcp.h"
#include "trace_views.h"

using namespace pe;

/** VmHWM, the peak resident set, in MB. */
static double vmHwmMb() {
    return static_cast<double>(procFieldBytes("/proc/self/status", "VmHWM:").value_or(0)) /
           (1024.0 * 1024.0);
}

int main(int argc, char** argv) {
    pe::cpu::chooseGemmLibraryKernels(); // as the window's main() does (cpu_gemm.h)
    QApplication app(argc, argv);
    Session s = Settings::defaultSession();
    s.params.n = argc > 1 ? std::atoi(argv[1]) : 16384;
    s.params.d = argc > 2 ? std::atoi(argv[2]) : 512;
    s.params.heads = argc > 3 ? std::atoi(argv[3]) : 8;
    s.params.scheme = schemeFromString(argc > 4 ? argv[4] : "t5").value_or(Scheme::T5);
    const QString png = argc > 5 ? QString::fromLocal8Bit(argv[5]) : QString();

    QElapsedTimer t;
    t.start();
    MainWindow w(s, /*persist=*/false);
    w.resize(1500, 900);
    w.views()->setCurrentIndex(3);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return 1;
    if (!QTest::qWaitFor([&] { return w.shownParams() && *w.shownParams() == s.params; },
                         30 * 60 * 1000)) {
        std::fprintf(stderr, "no result: %s\n", qPrintable(w.statusText()));
        return 1;
    }
    const double firstMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    const double hwmPooledMb = vmHwmMb();

    HeatmapView* e = w.views()->currentHeatmap();
    QTest::qWait(300);
    const int cells = e->data().rows;
    const double lo = cells * 0.40 - 0.5, hi = cells * 0.43 - 0.5; // ~3% of the positions
    t.restart();
    e->plot()->yAxis->setRange(lo, hi);
    e->plot()->xAxis->setRange(lo, hi);
    const bool tile = QTest::qWaitFor([&] { return e->hasTile(); }, 10 * 60 * 1000);
    const double tileMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    QTest::qWait(300);
    if (!png.isEmpty())
        w.grab().save(png, "PNG");
    const PoolRegion r = e->tileRegion();
    std::printf("{\"n\":%d,\"d\":%d,\"heads\":%d,\"scheme\":\"%s\",\"first_frame_ms\":%.0f,"
                "\"pooled\":\"%s\",\"tile\":%s,\"tile_rows\":%d,\"tile_cols\":%d,"
                "\"tile_ms\":%.0f,\"vm_hwm_pooled_mb\":%.1f,\"vm_hwm_mb\":%.1f,"
                "\"status\":\"%s\",\"title\":\"%s\"}\n",
                s.params.n, s.params.d, s.params.heads,
                std::string(toString(s.params.scheme)).c_str(), firstMs,
                qPrintable(w.views()->poolInfo().describe()), tile ? "true" : "false", r.rows(),
                r.cols(), tileMs, hwmPooledMb, vmHwmMb(), qPrintable(w.statusText()),
                qPrintable(e->titleText() + QStringLiteral(" | ") + e->tileNote()));
    return tile ? 0 : 1;
}
