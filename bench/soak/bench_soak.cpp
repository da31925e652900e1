// SPDX-License-Identifier: MIT
// GUI soak: random actions on the real window under xvfb, with crash, stall and memory checks.
//
//   xvfb-run -a -s '-screen 0 1600x1000x24' bench_soak [--actions 10000] [--seed 1]
//       [--mark 500] [--interval-ms 5] [--settle-every 20] [--settle-ms 2000]
//       [--check [--max-growth-mb 50] [--max-stalls 0] [--max-repeats 3]] [--skip backend,zoom,…]
//       [--verbose] [--no-supervise] [--stack-on-stall MS]
//
// The soak runs in a child process that this one starts and watches: a crash (a signal, an
// abort) or a hang (no action for --hang-s) is reported as a JSON line with the last actions
// taken, and the exit status is 1. --no-supervise runs the window in this process (for gdb).
// The child prints a progress line every --progress actions and one summary line; see
// bench/README.md ("GUI soak") for the fields.
#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "allocator.h"
#include "application.h"
#include "cpu_gemm.h"
#include "main_window.h"
#include "params_panel.h"
#include "settings.h"
#include "soak_driver.h"
#include "soak_probe.h"
#include "trace_views.h"

using namespace pe;

namespace {

struct Options {
    int actions = 10000;
    std::uint64_t seed = 1;
    int mark = -1;        ///< memory sample after this many actions (default: min(500, actions/5))
    int intervalMs = 5;   ///< event loop run between two actions
    int settleEvery = 20; ///< every so many actions, wait for the worker to finish (bounded)
    int settleMs = 2000;
    int quiesceMs = 120000; ///< bound of each computation at a memory sample
    int progress = 1000;
    int hangS = 300;
    bool check = false;
    bool verbose = false;
    int stackOnStallMs = 0;        ///< print the GUI thread's stack (gdb) when a gap passes this
    std::vector<std::string> skip; ///< kinds of action left out
    double maxGrowthMb = 50.0;
    int maxStalls = 0;
    /** The most results of one request a worker may give in a row with no action between
     *  (the fixed state computes its session twice; a backend switch computes it again). */
    int maxRepeats = 3;
    bool supervise = true;
    bool child = false;
};

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&](auto* v) {
            if (i + 1 >= argc)
                return false;
            const char* s = argv[++i];
            if constexpr (std::is_same_v<std::remove_pointer_t<decltype(v)>, double>)
                *v = std::strtod(s, nullptr);
            else if constexpr (std::is_same_v<std::remove_pointer_t<decltype(v)>, std::uint64_t>)
                *v = std::strtoull(s, nullptr, 10);
            else
                *v = std::atoi(s);
            return true;
        };
        bool ok = true;
        if (a == "--actions")
            ok = next(&o->actions);
        else if (a == "--seed")
            ok = next(&o->seed);
        else if (a == "--mark")
            ok = next(&o->mark);
        else if (a == "--interval-ms")
            ok = next(&o->intervalMs);
        else if (a == "--settle-every")
            ok = next(&o->settleEvery);
        else if (a == "--settle-ms")
            ok = next(&o->settleMs);
        else if (a == "--quiesce-ms")
            ok = next(&o->quiesceMs);
        else if (a == "--progress")
            ok = next(&o->progress);
        else if (a == "--hang-s")
            ok = next(&o->hangS);
        else if (a == "--max-growth-mb")
            ok = next(&o->maxGrowthMb);
        else if (a == "--max-stalls")
            ok = next(&o->maxStalls);
        else if (a == "--max-repeats")
            ok = next(&o->maxRepeats);
        else if (a == "--check")
            o->check = true;
        else if (a == "--skip" && i + 1 < argc) {
            const QStringList kinds = QString::fromLocal8Bit(argv[++i]).split(QLatin1Char(','));
            for (const QString& k : kinds)
                o->skip.push_back(k.toStdString());
        } else if (a == "--stack-on-stall")
            ok = next(&o->stackOnStallMs);
        else if (a == "--verbose")
            o->verbose = true;
        else if (a == "--no-supervise")
            o->supervise = false;
        else if (a == "--child")
            o->child = true;
        else
            ok = false;
        if (!ok) {
            std::fprintf(stderr, "bench_soak: bad option %s (see the source's header)\n",
                         a.c_str());
            return false;
        }
    }
    if (o->mark < 0)
        o->mark = std::min(500, o->actions / 5);
    return o->actions > 0 && o->mark <= o->actions;
}

double mb(std::uint64_t bytes) {
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

QString jsonString(const QString& s) {
    QString out = s.left(400);
    out.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
        .replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + out + QLatin1Char('"');
}

/** What the allocator holds (verbose runs): in use, free but kept, and mapped blocks. */
void printHeap(const char* when, const QWidget* window) {
    const struct mallinfo2 m = mallinfo2();
    std::fprintf(stderr,
                 "soak: heap %s: rss %.1f MB (anonymous %.1f), malloc in use %.1f MB, free in "
                 "arenas %.1f MB, "
                 "mmapped %.1f MB (%zu blocks), %lld objects in the window\n",
                 when, mb(residentBytes()), mb(anonymousResidentBytes()), mb(m.uordblks),
                 mb(m.fordblks), mb(m.hblkhd), m.hblks,
                 static_cast<long long>(window->findChildren<QObject*>().size()));
    std::map<QString, int> byClass;
    for (const QObject* o : window->findChildren<QObject*>())
        ++byClass[QString::fromLatin1(o->metaObject()->className())];
    std::vector<std::pair<int, QString>> top;
    for (const auto& [name, count] : byClass)
        top.emplace_back(count, name);
    std::sort(top.rbegin(), top.rend());
    QStringList line;
    for (std::size_t k = 0; k < std::min<std::size_t>(10, top.size()); ++k)
        line << QStringLiteral("%1 %2").arg(top[k].second).arg(top[k].first);
    std::fprintf(stderr, "soak: objects %s: %s\n", when,
                 qPrintable(line.join(QStringLiteral(", "))));
}

/** The soak itself, in this process. Returns 0, or 1 when --check finds a failure. */
int soak(int argc, char** argv, const Options& o) {
    tuneAllocatorForLongSessions();  // as the explorer's main() does
    cpu::chooseGemmLibraryKernels(); // likewise (cpu_gemm.h)
    Application app(argc, argv);     // likewise (application.h)
    QElapsedTimer clock;
    clock.start();
    const Session start = Settings::defaultSession();
    MainWindow w(start, /*persist=*/false);
    w.resize(1500, 900);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w) ||
        !spinUntil([&] { return w.shownParams() != nullptr; }, 60000)) {
        std::fprintf(stderr, "bench_soak: the window showed no first frame\n");
        return 1;
    }
    SoakDriver driver(&w, o.seed);
    driver.skip(o.skip);
    GuiHeartbeat heartbeat(1000);
    QString last = QStringLiteral("start");
    int done = 0;
    heartbeat.setContext([&] {
        const Params* p = w.shownParams();
        return QStringLiteral("after action %1, %2 (shown: %3)")
            .arg(done)
            .arg(last, p ? describeParams(*p) : QStringLiteral("nothing"));
    });
    if (o.verbose)
        heartbeat.setReportGapsOver(200);
    heartbeat.setStackDumpAfter(o.stackOnStallMs);
    heartbeat.start();
    RepeatWatcher repeats;
    repeats.watch(&w);
    bool quiet = driver.quiesce(start, o.quiesceMs);
    const std::uint64_t rssStart = residentBytes(), anonStart = anonymousResidentBytes();
    std::uint64_t rssMark = rssStart, anonMark = anonStart, blasMark = openBlasBufferBytes();
    if (o.verbose)
        printHeap("start", &w);

    QElapsedTimer acting; // time spent in actions and the event loop between them
    double actingMs = 0.0;
    for (done = 0; done < o.actions;) {
        acting.start();
        repeats.actionTaken();
        last = driver.step();
        ++done;
        std::fprintf(stderr, "soak: action %d %s\n", done, qPrintable(last));
        spinEventLoop(o.intervalMs);
        if (o.settleEvery > 0 && done % o.settleEvery == 0) {
            QElapsedTimer waited;
            waited.start();
            const bool idle = driver.settle(o.settleMs);
            if (o.verbose) {
                const Params* shown = w.shownParams();
                std::fprintf(
                    stderr,
                    "soak: settle %s in %lld ms, rss %.0f MB, shown n %d d %d h %d, %s | %s\n",
                    idle ? "idle" : "busy", static_cast<long long>(waited.elapsed()),
                    mb(residentBytes()), shown ? shown->n : 0, shown ? shown->d : 0,
                    shown ? shown->heads : 0,
                    qPrintable(w.statusText() + QStringLiteral(" | panel: ") +
                               describeParams(w.panel()->params())),
                    qPrintable(w.statusBar()->currentMessage()));
            }
        }
        actingMs += static_cast<double>(acting.nsecsElapsed()) / 1e6;
        if (done == o.mark) {
            repeats.actionTaken(); // the fixed state computes its session twice
            quiet = driver.quiesce(start, o.quiesceMs) && quiet;
            rssMark = residentBytes();
            anonMark = anonymousResidentBytes();
            blasMark = openBlasBufferBytes();
            if (o.verbose)
                printHeap("mark", &w);
        }
        if (o.progress > 0 && done % o.progress == 0 && done < o.actions) {
            std::printf("{\"bench\":\"soak\",\"progress\":%d,\"seconds\":%.1f,\"rss_mb\":%.1f,"
                        "\"rss_peak_mb\":%.1f,\"stalls_over_1s\":%d,\"max_gap_ms\":%.0f}\n",
                        done, static_cast<double>(clock.elapsed()) / 1e3, mb(residentBytes()),
                        mb(heartbeat.peakSampledBytes()), heartbeat.stalls(),
                        heartbeat.longest().ms);
            std::fflush(stdout);
        }
    }
    repeats.actionTaken();
    quiet = driver.quiesce(start, o.quiesceMs) && quiet;
    const std::uint64_t rssEnd = residentBytes(), anonEnd = anonymousResidentBytes();
    const std::uint64_t blasEnd = openBlasBufferBytes();
    // The check is on the anonymous part: library pages in the resident set come and go with
    // the machine's memory pressure (soak_probe.h). OpenBLAS's packing buffers are set apart:
    // kept for the process's life at the high-water mark of the widest product packed on as
    // many threads at once as ever (a bounded cache, not a leak: +32 MB of a +51 MB run).
    const double blasGrowth = mb(blasEnd) - mb(blasMark);
    const double growth = mb(anonEnd) - mb(anonMark) - blasGrowth;
    if (o.verbose) {
        printHeap("end", &w);
        malloc_trim(0);
        printHeap("end, after malloc_trim (diagnostic only)", &w);
    }

    QStringList failures;
    const GuiHeartbeat::Gap& own = heartbeat.longestOwn();
    if (heartbeat.ownStalls() > o.maxStalls)
        failures << QStringLiteral("%1 stalls over 1 s (longest: %2 ms, %3, %4)")
                        .arg(heartbeat.ownStalls())
                        .arg(own.ms, 0, 'f', 0)
                        .arg(own.describe(), own.context);
    if (growth > o.maxGrowthMb)
        failures << QStringLiteral("anonymous resident memory outside OpenBLAS's buffers grew "
                                   "by %1 MB after action %2 (bound %3 MB)")
                        .arg(growth, 0, 'f', 1)
                        .arg(o.mark)
                        .arg(o.maxGrowthMb);
    if (repeats.longest() > o.maxRepeats)
        failures << QStringLiteral("a request answered over and over with no action between "
                                   "(%1; bound %2)")
                        .arg(repeats.longestContext())
                        .arg(o.maxRepeats);
    if (!quiet)
        failures << QStringLiteral("a computation at a memory sample did not finish in %1 s")
                        .arg(o.quiesceMs / 1000);
    QString counts;
    for (const auto& [kind, n] : driver.counts())
        counts += QStringLiteral("%1\"%2\":%3")
                      .arg(counts.isEmpty() ? QString() : QStringLiteral(","),
                           QString::fromStdString(kind))
                      .arg(n);
    const GuiHeartbeat::Gap& longest = heartbeat.longest();
    std::printf(
        "{\"bench\":\"soak\",\"seed\":%llu,\"actions\":%d,\"seconds\":%.1f,"
        "\"actions_per_s\":%.1f,\"crashes\":0,\"stalls_over_1s\":%d,\"own_stalls_over_1s\":%d,"
        "\"gaps_over_100ms\":%d,\"max_gap_ms\":%.0f,\"max_gap_gui_cpu_ms\":%.0f,"
        "\"max_gap_run_queue_ms\":%.0f,\"max_gap_at\":%s,\"max_own_gap_ms\":%.0f,"
        "\"rss_start_mb\":%.1f,\"rss_mark_mb\":%.1f,\"mark_after\":%d,\"rss_peak_mb\":%.1f,"
        "\"vm_hwm_mb\":%.1f,\"rss_end_mb\":%.1f,\"anon_start_mb\":%.1f,\"anon_mark_mb\":%.1f,"
        "\"anon_end_mb\":%.1f,\"openblas_mark_mb\":%.1f,\"openblas_end_mb\":%.1f,"
        "\"growth_after_mark_mb\":%.1f,\"frames\":%d,"
        "\"max_repeated_results\":%d,\"max_repeated_at\":%s,"
        "\"requests\":%llu,\"superseded\":%d,\"undo_steps\":%d,\"kinds\":{%s},\"check\":%s}\n",
        static_cast<unsigned long long>(o.seed), o.actions,
        static_cast<double>(clock.elapsed()) / 1e3, o.actions / (actingMs / 1e3),
        heartbeat.stalls(), heartbeat.ownStalls(), heartbeat.gapsOver100Ms(), longest.ms,
        longest.cpuMs, longest.runQueueMs, qPrintable(jsonString(longest.context)), own.ownMs(),
        mb(rssStart), mb(rssMark), o.mark, mb(heartbeat.peakSampledBytes()),
        mb(peakResidentBytes()), mb(rssEnd), mb(anonStart), mb(anonMark), mb(anonEnd), mb(blasMark),
        mb(blasEnd), growth, w.frames(), repeats.longest(),
        qPrintable(jsonString(repeats.longestContext())),
        static_cast<unsigned long long>(w.controller()->generation()),
        w.controller()->droppedResults(), w.undoStack()->count(), qPrintable(counts),
        !o.check             ? "null"
        : failures.isEmpty() ? "\"pass\""
                             : qPrintable(jsonString(failures.join(QStringLiteral("; ")))));
    std::fflush(stdout);
    for (const QString& f : failures)
        std::fprintf(stderr, "bench_soak: FAIL: %s\n", qPrintable(f));
    return o.check && !failures.isEmpty() ? 1 : 0;
}

/** Starts this program as the soak's child and reports a crash or a hang of it. */
int supervise(int argc, char** argv, const Options& o) {
    QCoreApplication app(argc, argv);
    QStringList args = QCoreApplication::arguments().mid(1);
    args << QStringLiteral("--child");
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedOutputChannel); // stdout: the JSON lines
    std::deque<QByteArray> lastActions;
    QElapsedTimer sinceAction;
    sinceAction.start();
    QByteArray pending;
    QObject::connect(&child, &QProcess::readyReadStandardError, [&] {
        pending += child.readAllStandardError();
        for (qsizetype nl; (nl = pending.indexOf('\n')) >= 0;) {
            const QByteArray line = pending.left(nl);
            pending.remove(0, nl + 1);
            if (line.startsWith("soak: action ")) {
                sinceAction.restart();
                lastActions.push_back(line.mid(6));
                if (lastActions.size() > 12)
                    lastActions.pop_front();
            } else {
                std::fprintf(stderr, "%s\n", line.constData());
            }
        }
    });
    bool hung = false;
    QTimer watchdog;
    QObject::connect(&watchdog, &QTimer::timeout, [&] {
        if (sinceAction.elapsed() > o.hangS * 1000LL && child.state() == QProcess::Running) {
            hung = true;
            child.kill();
        }
    });
    watchdog.start(1000);
    QObject::connect(&child, &QProcess::finished, &app, &QCoreApplication::quit);
    child.start(QCoreApplication::applicationFilePath(), args);
    if (!child.waitForStarted()) {
        std::fprintf(stderr, "bench_soak: cannot start %s\n", qPrintable(child.program()));
        return 1;
    }
    app.exec();
    const bool crashed = child.exitStatus() == QProcess::CrashExit && !hung;
    if (!crashed && !hung)
        return child.exitCode();
    QString actions;
    for (const QByteArray& a : lastActions)
        actions += (actions.isEmpty() ? QString() : QStringLiteral(",")) +
                   jsonString(QString::fromUtf8(a));
    std::printf("{\"bench\":\"soak\",\"seed\":%llu,\"crashes\":%d,\"hung\":%s,\"signal\":%d,"
                "\"last_actions\":[%s]}\n",
                static_cast<unsigned long long>(o.seed), crashed ? 1 : 0, hung ? "true" : "false",
                crashed ? child.exitCode() : 0, qPrintable(actions));
    std::fprintf(stderr,
                 "bench_soak: FAIL: the window %s (seed %llu); the last actions are above\n",
                 hung ? "hung" : "crashed", static_cast<unsigned long long>(o.seed));
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o))
        return 2;
    if (o.supervise && !o.child)
        return supervise(argc, argv, o);
    return soak(argc, argv, o);
}
