// SPDX-License-Identifier: MIT
// Usage: QT_QPA_PLATFORM=offscreen bench_interactive [N]   (default N = 4096)
// Prints the cost of showing an N×N matrix: pooled to screen size (what HeatmapView does) vs
// handed to QCustomPlot cell by cell, and the frame times of a simulated sequence-length drag.
//
// Usage: xvfb-run -a -s '-screen 0 1600x1000x24' bench_interactive --latency
//            [--n 512,2048] [--d 256] [--heads 8] [--changes 40]
//            [--tabs encoding,relative,terms,attention,compare] [--absolute]
//            [--compare-tensor weights|logits|position|out]
// Drives the real window: changes one parameter control at a time (Shaw's clip k, the seed,
// the scheme between Shaw and T5, T5's max distance; --absolute: the sinusoid's base and the
// seed, whose Logit terms tab splits the logits into four terms), and measures each change from the
// moment the control's value is set to the end of the last repaint of the heat maps and plots it
// causes (on the Encoding and Relative tabs, drawn from the early part of the result before the
// forward pass ends; whole_p95_ms: until the whole result's frame too; on the Compare tab, until
// scheme B's trace for the new parameters is drawn beside A's). Prints one JSON line
// per (n, tab) with the percentiles; the medians of: the time the whole result (and the early
// part) reached the GUI thread, the worker's compute time, the engine's share of it (the rest
// is the worker's overhead: inputs, weights), the render time the status bar reports; the CPU
// time per change of the GUI thread and of all other threads (independent of the host's load);
// and the 1-minute load average when the (n, tab) started. PE_BENCH_VERBOSE=1 prints each change
// (2: with the GUI thread's CPU per kind of event); PE_BENCH_EVENTS=1 logs every widget's paint,
// resize and layout request with its time. The allocator is set up as the
// explorer's main() sets it (PE_BENCH_DEFAULT_MALLOC=1: glibc's defaults instead).
#include <QAbstractEventDispatcher>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLabel>
#include <QPaintEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "allocator.h"
#include "application.h"
#include "comparison_view.h"
#include "cpu_gemm.h"
#include "heatmap_view.h"
#include "main_window.h"
#include "map_image.h"
#include "params_panel.h"
#include "qcp.h"
#include "relative_tables.h"
#include "seed_spin_box.h"
#include "trace_views.h"

using namespace pe;

static double cpuMs(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

static double ms(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

namespace {

/**
 * With PE_BENCH_VERBOSE=2: the GUI thread's CPU time per top-level event, by receiver class and
 * event type (events dispatched from inside another handler count in their outer one).
 */
class ProfilingApplication : public pe::Application {
public:
    using pe::Application::Application;
    bool profile = false;
    std::map<std::string, double> cpuByHandler;

    bool notify(QObject* receiver, QEvent* e) override {
        if (!profile || m_depth > 0 || QThread::currentThread() != thread())
            return pe::Application::notify(receiver, e);
        char key[160]; // before the event: a handler may delete its receiver
        std::snprintf(key, sizeof key, "%s, event %d", receiver->metaObject()->className(),
                      static_cast<int>(e->type()));
        ++m_depth;
        const double t0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        const bool r = pe::Application::notify(receiver, e);
        const double spent = cpuMs(CLOCK_THREAD_CPUTIME_ID) - t0;
        --m_depth;
        cpuByHandler[key] += spent;
        return r;
    }

private:
    int m_depth = 0;
};

/** Time of the last paint event of any plot (QCustomPlot), on a shared clock. */
/** PE_BENCH_EVENTS=1: every widget's paints, resizes and layout requests, the changes and the
 *  results' arrival on stderr, with their times (which widget repaints what, and why). */
const bool kEventLog = std::getenv("PE_BENCH_EVENTS") != nullptr;

class PaintWatcher : public QObject {
public:
    explicit PaintWatcher(const QElapsedTimer* clock)
        : m_clock(clock) {}
    double lastPaintMs = -1.0;
    int paints = 0;

protected:
    bool eventFilter(QObject* o, QEvent* e) override {
        if (kEventLog && o->isWidgetType())
            logEvent(static_cast<QWidget*>(o), e);
        if (e->type() == QEvent::Paint && qobject_cast<QCustomPlot*>(o)) {
            lastPaintMs = static_cast<double>(m_clock->nsecsElapsed()) / 1e6;
            ++paints;
        }
        return false;
    }

private:
    /** One line per paint, resize and layout request of a widget, with the time. */
    void logEvent(QWidget* w, QEvent* e) const {
        const double ms = static_cast<double>(m_clock->nsecsElapsed()) / 1e6;
        const char* cls = w->metaObject()->className();
        if (e->type() == QEvent::Paint) {
            const QRect r = static_cast<QPaintEvent*>(e)->rect();
            std::fprintf(stderr, "%9.1f paint %s %s %dx%d, rect %dx%d\n", ms, cls,
                         qPrintable(w->objectName()), w->width(), w->height(), r.width(),
                         r.height());
        } else if (e->type() == QEvent::Resize) {
            std::fprintf(stderr, "%9.1f resize %s %dx%d\n", ms, cls, w->width(), w->height());
        } else if (e->type() == QEvent::LayoutRequest) {
            std::fprintf(stderr, "%9.1f layout request %s\n", ms, cls);
        }
    }

    const QElapsedTimer* m_clock;
};

/**
 * Runs the event loop until pred() holds or timeoutMs pass. pred() is checked each time the loop
 * is about to block (after every batch of events, so a result or a paint is seen as soon as it
 * has been handled) and, for predicates on the clock, at `recheckAtMs` (a time on the
 * benchmark's clock; negative: never). The loop blocks on events as the application's does.
 *
 * It used to check pred() on a 1 ms timer: the GUI thread then woke 1,000 times a second while
 * the engine computed, which on a 2-CPU host preempted the engine's threads. PE_BENCH_POLL=1
 * brings that back, to compare.
 */
bool runUntil(const std::function<bool()>& pred, int timeoutMs,
              const std::function<double()>& recheckAtMs = {},
              const QElapsedTimer* clock = nullptr) {
    if (pred())
        return true;
    static const bool kPoll = [] {
        const char* v = std::getenv("PE_BENCH_POLL");
        return v && *v && *v != '0';
    }();
    QEventLoop loop;
    QTimer check;
    check.setTimerType(Qt::PreciseTimer);
    const auto test = [&] {
        if (pred()) {
            loop.quit();
            return;
        }
        if (kPoll || !recheckAtMs || !clock)
            return;
        const double now = static_cast<double>(clock->nsecsElapsed()) / 1e6;
        const double wait = recheckAtMs() - now;
        if (wait >= 0 && (!check.isActive() || check.remainingTime() > wait + 1))
            check.start(static_cast<int>(wait) + 1);
    };
    QObject::connect(&check, &QTimer::timeout, &loop, test);
    if (kPoll) {
        check.setInterval(1);
        check.start();
    } else {
        check.setSingleShot(true);
        QObject::connect(QAbstractEventDispatcher::instance(),
                         &QAbstractEventDispatcher::aboutToBlock, &loop, test);
        test();
    }
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
    deadline.start(timeoutMs);
    if (!pred()) // test() may have found it already
        loop.exec();
    return pred();
}

QWidget* controlLabelled(ParamsPanel* panel, const QString& label) {
    for (QLabel* l : panel->findChildren<QLabel*>())
        if (l->text() == label && l->buddy())
            return l->buddy();
    return nullptr;
}

double loadAverage() {
    double load = -1.0;
    std::ifstream("/proc/loadavg") >> load;
    return load;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        if (comma > at)
            out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

/** The status bar's "compute X ms | render Y ms" figures. */
void statusTimes(const QString& status, double* compute, double* render) {
    const QStringList parts = status.split(QLatin1Char(' '));
    for (int k = 0; k + 1 < parts.size(); ++k) {
        if (parts[k] == QLatin1String("compute"))
            *compute = parts[k + 1].toDouble();
        if (parts[k] == QLatin1String("render"))
            *render = parts[k + 1].toDouble();
    }
}

int latencyBench(const std::vector<std::string>& ns, int d, int heads, int changes,
                 const std::vector<std::string>& tabs, bool absolute,
                 const std::string& compareTensor) {
    QElapsedTimer clock;
    clock.start();
    const bool verbose = std::getenv("PE_BENCH_VERBOSE") != nullptr; // each change on stderr
    // 2: also the GUI thread's CPU time per kind of event, per change
    const int verboseLevel = verbose ? std::max(1, std::atoi(std::getenv("PE_BENCH_VERBOSE"))) : 0;
    PaintWatcher watcher(&clock);
    qApp->installEventFilter(&watcher);

    Session start = Settings::defaultSession();
    start.params.scheme = absolute ? Scheme::Sinusoidal : Scheme::Shaw;
    start.params.d = d;
    start.params.heads = heads;
    MainWindow w(start, false);
    w.resize(1500, 950);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return 1;
    if (!w.comparison()->setTensor(QString::fromStdString(compareTensor))) {
        std::fprintf(stderr, "bench_interactive: no tensor %s on the Compare tab\n",
                     compareTensor.c_str());
        return 1;
    }
    ParamsPanel* panel = w.panel();
    auto* clip = qobject_cast<QSpinBox*>(controlLabelled(panel, QStringLiteral("Clip &k")));
    auto* seed = qobject_cast<SeedSpinBox*>(controlLabelled(panel, QStringLiteral("S&eed")));
    auto* maxDist =
        qobject_cast<QSpinBox*>(controlLabelled(panel, QStringLiteral("T5 max distance")));
    QComboBox* scheme = panel->schemeBox();
    if (!clip || !seed || !maxDist) {
        std::fprintf(stderr, "bench_interactive: parameter controls not found\n");
        return 1;
    }
    auto setScheme = [scheme](Scheme s) {
        scheme->setCurrentIndex(scheme->findData(static_cast<int>(s)));
    };
    auto* base = qobject_cast<QDoubleSpinBox*>(controlLabelled(panel, QStringLiteral("&Base")));
    if (absolute && !base) {
        std::fprintf(stderr, "bench_interactive: the sinusoid's base control not found\n");
        return 1;
    }
    const std::vector<std::pair<const char*, std::function<void()>>> absoluteCycle{
        {"base 1000", [&] { base->setValue(1000); }},
        {"seed+1", [&] { seed->setValue(seed->value() + 1); }},
        {"base 10000", [&] { base->setValue(10000); }},
        {"seed+1", [&] { seed->setValue(seed->value() + 1); }},
    };
    // The cycle of changes; each one changes the parameters.
    const std::vector<std::pair<const char*, std::function<void()>>> relativeCycle{
        {"clip k=8", [&] { clip->setValue(8); }},
        {"seed+1", [&] { seed->setValue(seed->value() + 1); }},
        {"clip k=16", [&] { clip->setValue(16); }},
        {"scheme t5", [&] { setScheme(Scheme::T5); }},
        {"t5 max distance 64", [&] { maxDist->setValue(64); }},
        {"seed+1", [&] { seed->setValue(seed->value() + 1); }},
        {"t5 max distance 128", [&] { maxDist->setValue(128); }},
        {"scheme shaw", [&] { setScheme(Scheme::Shaw); }},
    };
    const auto& cycle = absolute ? absoluteCycle : relativeCycle;
    if (kEventLog) // when the panel's change goes out to the worker
        QObject::connect(panel, &ParamsPanel::changed, &w, [&clock] {
            std::fprintf(stderr, "%9.1f panel emits\n",
                         static_cast<double>(clock.nsecsElapsed()) / 1e6);
        });
    // The newest result that reached the GUI thread: when, and the worker's times.
    double resultAt = 0, resultCompute = 0, resultEngine = 0;
    QObject::connect(w.controller(), &ComputeController::resultReady, &w,
                     [&](const ComputeResult& r) {
                         resultAt = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                         if (kEventLog)
                             std::fprintf(stderr, "%9.1f result\n", resultAt);
                         resultCompute = r.computeMs;
                         resultEngine = r.engineMs;
                     });
    // The newest early part (the Encoding and Relative tabs' inputs, ahead of the forward pass).
    double earlyAt = 0;
    QObject::connect(w.controller(), &ComputeController::earlyResultReady, &w,
                     [&](const ComputeResult&) {
                         earlyAt = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                         if (kEventLog)
                             std::fprintf(stderr, "%9.1f early result\n", earlyAt);
                     });
    // Replots of the maps and plots (verbose diagnostics): how many, and the last one's time.
    int replots = 0;
    double lastReplotMs = 0;
    std::map<std::string, int> replotted;
    for (QCustomPlot* plot : w.findChildren<QCustomPlot*>())
        QObject::connect(plot, &QCustomPlot::afterReplot, &w, [&, plot] {
            ++replots;
            lastReplotMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            auto* hv = qobject_cast<HeatmapView*>(plot->parentWidget());
            const std::string what =
                hv ? hv->titleText().left(30).toStdString()
                   : std::string(plot->parentWidget()->metaObject()->className());
            replotted[what]++;
            if (kEventLog)
                std::fprintf(stderr, "%9.1f replot %s\n", lastReplotMs, what.c_str());
        });
    auto waitQuiet = [&](double quietMs) {
        // Let queued replots and paints run; return once no plot painted for quietMs since the
        // later of the last paint and the call. (Counting from the last paint alone, a frame
        // whose replots were still queued when it was detected ended the wait at once when the
        // previous change's paint was older than quietMs: its replots and paints, about half of
        // the changes', were left out of its latency.)
        const double from = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        (void)runUntil(
            [&] {
                const double now = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                return now - std::max(watcher.lastPaintMs, from) > quietMs;
            },
            5000, [&] { return std::max(watcher.lastPaintMs, from) + quietMs; }, &clock);
    };

    for (const std::string& nStr : ns) {
        const int n = std::atoi(nStr.c_str());
        for (const std::string& tab : tabs) {
            const int tabIndex = tab == "encoding"    ? 0
                                 : tab == "relative"  ? 1
                                 : tab == "terms"     ? 2
                                 : tab == "attention" ? 3
                                                      : 4; // compare
            w.views()->setCurrentIndex(tabIndex);
            Session s = w.session();
            // --absolute: the sinusoid, whose base its cycle changes (this set Shaw for every
            // run until 2026-12-07, so --absolute measured Shaw with a parameter it ignores).
            s.params.scheme = absolute ? Scheme::Sinusoidal : Scheme::Shaw;
            s.params.n = n;
            s.params.d = d;
            s.params.heads = heads;
            s.params.clip = 16;
            s.params.maxDistance = 128;
            w.applySession(s);
            (void)runUntil([&] { return w.shownParams() && *w.shownParams() == s.params; }, 120000);
            waitQuiet(150);
            // One untimed pass through the cycle: buffers and views reach their steady state.
            for (const auto& [name, act] : cycle) {
                act();
                (void)runUntil(
                    [&] { return w.shownParams() && *w.shownParams() == panel->params(); }, 120000);
                waitQuiet(60);
            }
            const double load = loadAverage();
            std::vector<double> lat, computeMs, renderMs, guiCpu, otherCpu, resultMs, engineMs,
                overheadMs, wholeMs, earlyMs;
            double lastChange = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            const int paintsBefore = watcher.paints;
            for (int k = 0; k < changes; ++k) {
                const auto& [name, act] = cycle[static_cast<std::size_t>(k) % cycle.size()];
                // Changes closer together than the panel's coalescing window are merged by
                // design; keep them apart so that each one is measured on its own.
                (void)runUntil(
                    [&] {
                        return static_cast<double>(clock.nsecsElapsed()) / 1e6 - lastChange >
                               ParamsPanel::kCoalesceMs + 10;
                    },
                    1000, [&] { return lastChange + ParamsPanel::kCoalesceMs + 10; }, &clock);
                const int framesBefore = w.frames();
                const double t0 = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                lastChange = t0;
                auto* profiler = dynamic_cast<ProfilingApplication*>(qApp);
                if (profiler) {
                    profiler->cpuByHandler.clear();
                    profiler->profile = verboseLevel >= 2;
                }
                const int replotsBefore = replots;
                replotted.clear();
                const double gui0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
                const double all0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
                if (kEventLog)
                    std::fprintf(stderr, "%9.1f change '%s'\n", t0, name);
                act();
                const Params want = panel->params();
                if (!runUntil(
                        [&] {
                            return w.frames() > framesBefore && w.shownParams() &&
                                   *w.shownParams() == want;
                        },
                        120000)) {
                    std::fprintf(stderr, "bench_interactive: no frame after '%s'\n", name);
                    return 1;
                }
                // The Compare tab: until scheme B's trace for the new parameters is shown too
                // (its view computes B beside A, or keeps it where B reads none of the change).
                if (tabIndex == 4 &&
                    !runUntil(
                        [&] {
                            const Trace* b = w.comparison()->other();
                            return b && sameTrace(b->params, paramsUnder(want, b->params.scheme)) &&
                                   w.comparison()->right()->hasData() &&
                                   !w.comparison()->computingPositionTerms();
                        },
                        120000)) {
                    std::fprintf(stderr, "bench_interactive: no scheme B after '%s'\n", name);
                    return 1;
                }
                const double shown = static_cast<double>(clock.nsecsElapsed()) / 1e6;
                const double guiShown = cpuMs(CLOCK_THREAD_CPUTIME_ID) - gui0;
                engineMs.push_back(resultEngine);
                overheadMs.push_back(resultCompute - resultEngine);
                waitQuiet(60);
                // What the user waits for: the last plot the change repainted (on the Encoding
                // and Relative tabs drawn from the early part, before the whole result), or the
                // whole result's frame where no plot repainted. wholeMs: until both are done.
                lat.push_back((watcher.lastPaintMs > t0 ? watcher.lastPaintMs : shown) - t0);
                wholeMs.push_back(std::max(watcher.lastPaintMs, shown) - t0);
                if (earlyAt > t0)
                    earlyMs.push_back(earlyAt - t0);
                const double gui = cpuMs(CLOCK_THREAD_CPUTIME_ID) - gui0;
                guiCpu.push_back(gui);
                otherCpu.push_back(cpuMs(CLOCK_PROCESS_CPUTIME_ID) - all0 - gui);
                double c = 0, r = 0;
                statusTimes(w.statusText(), &c, &r);
                // The window draws the result before our handler of resultReady runs.
                resultMs.push_back(resultAt - r - t0);
                if (verbose)
                    std::fprintf(stderr,
                                 "  %-20s %7.1f ms (result after %.1f, frame shown after %.1f ms; "
                                 "engine %.1f ms; CPU: GUI thread %.1f (%.1f until shown), others "
                                 "%.1f ms) %s\n",
                                 name, lat.back(), resultMs.back(), shown - t0, engineMs.back(),
                                 guiCpu.back(), guiShown, otherCpu.back(),
                                 qPrintable(w.statusText()));
                if (verboseLevel >= 2) {
                    std::fprintf(stderr, "      %d replots, the last after %.1f ms:",
                                 replots - replotsBefore, lastReplotMs - t0);
                    for (const auto& [what, count] : replotted)
                        std::fprintf(stderr, " [%s] x%d", what.c_str(), count);
                    std::fprintf(stderr, "\n");
                }
                if (profiler && verboseLevel >= 2) {
                    std::vector<std::pair<double, std::string>> top;
                    for (const auto& [key, spent] : profiler->cpuByHandler)
                        top.emplace_back(spent, key);
                    std::sort(top.rbegin(), top.rend());
                    for (std::size_t k = 0; k < std::min<std::size_t>(top.size(), 10); ++k)
                        std::fprintf(stderr, "      %6.2f ms  %s\n", top[k].first,
                                     top[k].second.c_str());
                    profiler->profile = false;
                }
                computeMs.push_back(c);
                renderMs.push_back(r);
            }
            std::printf(
                "{\"bench\":\"interactive\",\"n\":%d,\"d\":%d,\"heads\":%d,"
                "\"tab\":\"%s\",\"changes\":%d,\"p50_ms\":%.1f,\"p95_ms\":%.1f,"
                "\"p99_ms\":%.1f,\"max_ms\":%.1f,\"result_arrives_p50_ms\":%.1f,"
                "\"compute_p50_ms\":%.1f,\"engine_p50_ms\":%.1f,"
                "\"worker_overhead_p50_ms\":%.2f,\"render_p50_ms\":%.1f,"
                "\"plot_paints_per_change\":%.1f,\"gui_thread_cpu_p50_ms\":%.1f,"
                "\"other_threads_cpu_p50_ms\":%.1f,\"whole_p95_ms\":%.1f,"
                "\"early_arrives_p50_ms\":%.1f,\"load1\":%.2f}\n",
                n, d, heads, tab.c_str(), changes, percentile(lat, 0.5), percentile(lat, 0.95),
                percentile(lat, 0.99), *std::max_element(lat.begin(), lat.end()),
                percentile(resultMs, 0.5), percentile(computeMs, 0.5), percentile(engineMs, 0.5),
                percentile(overheadMs, 0.5), percentile(renderMs, 0.5),
                static_cast<double>(watcher.paints - paintsBefore) / changes,
                percentile(guiCpu, 0.5), percentile(otherCpu, 0.5), percentile(wholeMs, 0.95),
                earlyMs.empty() ? -1.0 : percentile(earlyMs, 0.5), load);
            std::fflush(stdout);
        }
    }
    qApp->removeEventFilter(&watcher);
    return 0;
}

} // namespace

/**
 * What the Attention tab's preparers do per change, without the window: pool each head of an
 * [h, n, n] float tensor of weights to a map's pixel size, with its colour range, and colour the
 * cells (poolSlice + colourCells, as HeatmapView::slicePreparer). One thread; median of `repeat`.
 */
int poolBench(int n, int heads, int rows, int cols, int repeat) {
    Tensor t(DType::F32, {heads, n, n});
    // (weights-like values in [0, 1])
    float* v = t.data<float>();
    for (std::int64_t k = 0; k < t.size(); ++k)
        v[k] = static_cast<float>(0.5 + 0.5 * std::sin(0.001 * static_cast<double>(k)));
    const ColourTable table = colourTable(QCPColorGradient(QCPColorGradient::gpThermal));
    std::vector<double> times;
    QImage image;
    double checksum = 0;
    for (int r = 0; r < repeat; ++r) {
        QElapsedTimer timer;
        timer.start();
        for (int h = 0; h < heads; ++h) {
            double lo = 0, hi = 0;
            bool any = false;
            const Grid g =
                poolSlice(t, h, 0, n, 0, n, rows, cols, PoolMode::Mean, &lo, &hi, &any, false);
            colourCells(g, table, lo, hi, &image, true);
            checksum += g.values[g.values.size() / 2];
        }
        times.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::printf("{\"bench\":\"pool\",\"n\":%d,\"heads\":%d,\"cells\":\"%dx%d\","
                "\"ms_median\":%.3f,\"ms_min\":%.3f,\"per_head_ms\":%.3f,\"check\":%.6f}\n",
                n, heads, rows, cols, percentile(times, 0.5),
                *std::min_element(times.begin(), times.end()), percentile(times, 0.5) / heads,
                checksum / repeat);
    return 0;
}

/**
 * What the Relative tab pays per map in pooled mode (a change of head or of parameters above
 * 2,048 positions): one table of 2n − 1 values pooled to cells × cells, mean and max, on this
 * thread, into a fresh vector (poolToeplitz: `ms_median`) and into a buffer used again
 * (poolToeplitzInto, as the window does since the eighteenth session: `reused_ms_median`).
 * n a multiple of the cells takes the equal-bins path; n + 1 the general one.
 */
int toeplitzBench(int n, int cells, int repeat) {
    std::vector<double> table(2 * static_cast<std::size_t>(n) - 1);
    for (std::size_t k = 0; k < table.size(); ++k)
        table[k] = std::sin(0.01 * static_cast<double>(k)) - 0.001 * static_cast<double>(k % 97);
    const PoolRegion all{0, n, 0, n};
    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max}) {
        std::vector<double> times;
        double checksum = 0;
        for (int r = 0; r < repeat; ++r) {
            QElapsedTimer timer;
            timer.start();
            const std::vector<double> g = poolToeplitz(table.data(), n, all, cells, cells, mode);
            times.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
            checksum += g.empty() ? 0.0 : g[g.size() / 2];
        }
        std::vector<double> reused;
        std::vector<double> buffer(static_cast<std::size_t>(std::min(n, cells)) *
                                   static_cast<std::size_t>(std::min(n, cells)));
        for (int r = 0; r < repeat; ++r) {
            QElapsedTimer timer;
            timer.start();
            const int side = std::min(n, cells);
            poolToeplitzInto(table.data(), n, all, side, side, mode, buffer.data());
            reused.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
        }
        std::printf("{\"bench\":\"toeplitz\",\"n\":%d,\"cells\":%d,\"mode\":\"%s\","
                    "\"equal_bins\":%s,\"ms_median\":%.3f,\"ms_min\":%.3f,"
                    "\"reused_ms_median\":%.3f,\"check\":%.6f}\n",
                    n, cells, mode == PoolMode::Max ? "max" : "mean",
                    n % cells == 0 ? "true" : "false", percentile(times, 0.5),
                    *std::min_element(times.begin(), times.end()), percentile(reused, 0.5),
                    checksum / repeat);
    }
    return 0;
}

/**
 * The parameters panel's own cost of a scheme switch (Shaw <-> T5), no computation: the GUI
 * thread's CPU for setting the combo box, and for the layout and paint that follow.
 */
int panelBench(int switches) {
    QScrollArea scroll;
    auto* panel = new ParamsPanel;
    scroll.setWidget(panel);
    scroll.setWidgetResizable(true);
    scroll.resize(300, 900);
    scroll.show();
    if (!QTest::qWaitForWindowExposed(&scroll))
        return 1;
    QTest::qWait(100);
    QComboBox* scheme = panel->schemeBox();
    std::vector<double> sync, after;
    for (int k = 0; k < switches; ++k) {
        const Scheme s = k % 2 ? Scheme::Shaw : Scheme::T5;
        const double c0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        scheme->setCurrentIndex(scheme->findData(static_cast<int>(s)));
        const double c1 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        QTest::qWait(30);
        const double c2 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        sync.push_back(c1 - c0);
        after.push_back(c2 - c1);
    }
    std::printf("{\"bench\":\"panel\",\"switches\":%d,\"set_ms_median\":%.3f,"
                "\"events_ms_median\":%.3f}\n",
                switches, percentile(sync, 0.5), percentile(after, 0.5));
    return 0;
}

int main(int argc, char** argv) {
    pe::cpu::chooseGemmLibraryKernels(); // as the explorer's main() does (cpu_gemm.h)
    if (std::getenv("PE_BENCH_DEFAULT_MALLOC") == nullptr)
        pe::tuneAllocatorForLongSessions(); // likewise
    ProfilingApplication app(argc, argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "--latency") {
        std::vector<std::string> ns{"512", "2048"},
            tabs{"encoding", "relative", "terms", "attention"};
        int d = 256, heads = 8, changes = 40;
        bool absolute = false;
        std::string compareTensor = "weights";
        for (std::size_t k = 1; k < args.size(); k += 2) {
            if (args[k] == "--absolute") {
                absolute = true;
                --k; // a flag without a value
                continue;
            }
            if (k + 1 >= args.size())
                break;
            if (args[k] == "--n")
                ns = split(args[k + 1]);
            else if (args[k] == "--d")
                d = std::atoi(args[k + 1].c_str());
            else if (args[k] == "--heads")
                heads = std::atoi(args[k + 1].c_str());
            else if (args[k] == "--changes")
                changes = std::max(1, std::atoi(args[k + 1].c_str()));
            else if (args[k] == "--tabs")
                tabs = split(args[k + 1]);
            else if (args[k] == "--compare-tensor")
                compareTensor = args[k + 1];
        }
        return latencyBench(ns, d, heads, changes, tabs, absolute, compareTensor);
    }
    if (!args.empty() && args[0] == "--panel")
        return panelBench(args.size() > 1 ? std::atoi(args[1].c_str()) : 40);
    if (!args.empty() && args[0] == "--pool") { // [n heads rows cols repeat]
        auto arg = [&](std::size_t k, int fallback) {
            return k < args.size() ? std::atoi(args[k].c_str()) : fallback;
        };
        return poolBench(arg(1, 512), arg(2, 8), arg(3, 285), arg(4, 159), arg(5, 200));
    }
    if (!args.empty() && args[0] == "--toeplitz") { // [n cells repeat]
        auto arg = [&](std::size_t k, int fallback) {
            return k < args.size() ? std::atoi(args[k].c_str()) : fallback;
        };
        return toeplitzBench(std::max(arg(1, 16384), 1), std::max(arg(2, 1024), 1),
                             std::max(arg(3, 9), 1));
    }
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
    // What the GUI thread pays per map and change once the cells are pooled: a replot (colour
    // the cells, draw the layers) and a paint (blend the plot's buffers into the window).
    std::vector<double> paint;
    for (int k = 0; k < 30; ++k) {
        t.restart();
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        view.plot()->repaint();
        paint.push_back(ms(t));
    }
    std::printf("replot + paint   %4d x %4d px:                      %8.2f ms (best of 30), "
                "%.2f ms (median)\n",
                view.plot()->width(), view.plot()->height(),
                *std::min_element(paint.begin(), paint.end()), percentile(paint, 0.5));

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
