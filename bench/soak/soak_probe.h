// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <thread>

class QTimer;

namespace pe {

/** Resident set of this process in bytes (/proc/self/statm); 0 where unreadable. */
std::uint64_t residentBytes();
/**
 * The anonymous part of the resident set (statm's resident less its shared, file-backed
 * pages): what the process allocated. Pages of the shared libraries (libtorch alone is
 * hundreds of MB) count in the resident set while the kernel keeps them, and it drops them
 * when the machine needs memory, so the resident set moves with other processes' load.
 */
std::uint64_t anonymousResidentBytes();
/**
 * Of the anonymous part, the pages of OpenBLAS's packing buffers: anonymous read-write mappings
 * of exactly 128 MiB (/proc/self/smaps), which is how OpenBLAS maps each buffer on x86-64
 * (`alloc_mmap`, BUFFER_SIZE). OpenBLAS keeps them for the process's life, one per sgemm call
 * running at once, and their touched pages stay resident at their high-water mark: the width of
 * the widest product packed so far. glibc's arenas (64 MiB heaps) and thread stacks have other
 * sizes. 0 where smaps is unreadable or OpenBLAS maps another size (then nothing is set apart).
 */
std::uint64_t openBlasBufferBytes();
/** Peak resident set of this process in bytes (VmHWM in /proc/self/status). */
std::uint64_t peakResidentBytes();
/** The calling thread's time on a CPU and waiting for one (run queue), from
 *  /proc/thread-self/schedstat, in ms, and the times it went to sleep (voluntary context
 *  switches: a lock, a wait, I/O) and its page faults, from /proc/thread-self/status and stat;
 *  each 0 where unreadable. */
struct ThreadTimes {
    double cpuMs = 0.0;
    double runQueueMs = 0.0;
    long long sleeps = 0;
    long long minorFaults = 0;
    long long majorFaults = 0;
};
ThreadTimes threadTimes();
/**
 * Time the hypervisor did not run this machine's CPUs (the steal column of /proc/stat's cpu
 * line), averaged over the CPUs, in ms since boot; 0 where unreadable or on bare metal. A gap
 * the whole virtual machine was paused for shows here and nowhere in the thread's own times.
 */
double machineStealMs();

/**
 * A 10 ms timer on the GUI thread. A gap between two of its ticks is time the GUI thread spent
 * on something else (a slot, a paint, a synchronous call) or waiting for a CPU that other
 * threads held: a gap over `stallMs` is a stall. Each gap is split into the GUI thread's own
 * CPU time, its wait in the run queue (a loaded machine, or the worker threads) and the rest
 * (blocked: a lock, a GL call, or the virtual machine not run by its host); an "own" stall is
 * one whose gap, less the run-queue wait and the host's steal over it (Gap::ownMs), is still
 * over `stallMs`. Each tick also samples the resident set, so the peak between two quiet
 * points is seen.
 */
class GuiHeartbeat : public QObject {
    Q_OBJECT
public:
    explicit GuiHeartbeat(int stallMs = 1000, QObject* parent = nullptr);

    /** Names what the GUI thread was last asked to do, for the report of a long gap. */
    void setContext(std::function<QString()> context) { m_context = std::move(context); }
    /** Gaps over this many ms are printed to stderr as they happen (0: none). */
    void setReportGapsOver(int ms) { m_reportOver = ms; }
    /**
     * While a gap is still open after `ms`, a watchdog thread prints the GUI thread's stack to
     * stderr once per gap, with gdb attached to this process (0: off; gdb must be installed).
     * The attach itself lengthens the gap by seconds: for finding a stall, not measuring it.
     */
    void setStackDumpAfter(int ms) { m_dumpAfter = ms; }
    void start();
    ~GuiHeartbeat() override;

    /** Gaps over stallMs of wall-clock time. */
    int stalls() const { return m_stalls; }
    /** Gaps over stallMs without their run-queue wait and the host's steal (Gap::ownMs): the
     *  GUI thread busy or blocked. */
    int ownStalls() const { return m_ownStalls; }
    /** Gaps over 100 ms (noticeable, not yet stalls). */
    int gapsOver100Ms() const { return m_over100; }
    struct Gap {
        double ms = 0.0, cpuMs = 0.0, runQueueMs = 0.0;
        /** The GUI thread's sleeps and page faults in the gap (ThreadTimes). */
        long long sleeps = 0, minorFaults = 0, majorFaults = 0;
        /** The machine's CPUs not run by the hypervisor meanwhile (machineStealMs). */
        double stealMs = 0.0;
        /** Neither on a CPU nor waiting for one: asleep (a lock, a wait, a fault's I/O), or
         *  the whole machine paused (stealMs). */
        double blockedMs() const { return ms - cpuMs - runQueueMs; }
        /** The gap less the waits that say nothing about the window: for a CPU in this
         *  machine (run queue) and for the host to run the machine at all (steal). */
        double ownMs() const { return ms - runQueueMs - stealMs; }
        /** "GUI thread cpu 56 ms, run queue 108 ms, blocked 885 ms (3 sleeps, 12 page faults,
         *  0 major), host steal 4 ms". */
        QString describe() const;
        QString context;
    };
    /** The longest gap, and the longest once its run-queue wait is taken out. */
    const Gap& longest() const { return m_longest; }
    const Gap& longestOwn() const { return m_longestOwn; }
    std::uint64_t peakSampledBytes() const { return m_peak; }

private:
    void tick();
    void watch();

    QTimer* m_timer;
    QElapsedTimer m_clock;
    int m_stallMs;
    int m_reportOver = 0;
    double m_lastMs = 0.0;
    ThreadTimes m_last;
    double m_lastSteal = 0.0;
    Gap m_longest;
    Gap m_longestOwn;
    int m_stalls = 0;
    int m_ownStalls = 0;
    int m_over100 = 0;
    std::uint64_t m_peak = 0;
    std::function<QString()> m_context;
    int m_dumpAfter = 0;
    std::atomic<double> m_lastTickMs{0.0}; ///< read by the watchdog
    std::atomic<bool> m_stop{false};
    std::thread m_watchdog;
};

/**
 * Counts, for each compute controller of a window (and the Insights tab's), the results it
 * delivers for the same request (the same parameters, or the same failure) one after another
 * with no action between them. A view that asks again for what it has just been given, or has just
 * failed to get, loops; each round is an event too short for the stall check, and the loop never
 * ends (the Compare tab asked for a scheme that could not be computed again and again, redrawing
 * every map each time, until 2026-12-06). Cancelled results are not counted.
 */
class RepeatWatcher : public QObject {
public:
    explicit RepeatWatcher(QObject* parent = nullptr)
        : QObject(parent) {}
    /** Watches every ComputeController and InsightsController under `root` not watched yet. */
    void watch(QObject* root);
    /** An action was taken: what comes next answers it. */
    void actionTaken();
    /** The longest run of one request's results with no action between them, and which
     *  (the controller's owner and the request); 0 before any result. */
    int longest() const { return m_longest; }
    const QString& longestContext() const { return m_longestContext; }

private:
    struct Run {
        QString request;
        int count = 0;
    };
    void count(const QObject* controller, const QString& request);
    /** Watches each `Controller` under `root` (its resultReady(const Result&)). */
    template <typename Controller, typename Result>
    void watchEach(QObject* root, QString (*describe)(const Result&));
    std::map<const QObject*, Run> m_runs;
    int m_longest = 0;
    QString m_longestContext;
};

} // namespace pe
