// SPDX-License-Identifier: MIT
#include "soak_probe.h"

#include <QTimer>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "compute_worker.h"
#include "insights_worker.h"
#include "memory_budget.h"
#include "trace_views.h"

namespace pe {

std::uint64_t residentBytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long long size = 0, resident = 0;
    const int got = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return got == 2 ? resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

std::uint64_t anonymousResidentBytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long long size = 0, resident = 0, shared = 0;
    const int got = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
    std::fclose(f);
    return got == 3 && resident >= shared
               ? (resident - shared) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE))
               : 0;
}

std::uint64_t openBlasBufferBytes() {
    std::FILE* f = std::fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    constexpr unsigned long long kBuffer = 128ull << 20;
    std::uint64_t bytes = 0;
    bool inBuffer = false;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        unsigned long long start = 0, end = 0, kb = 0;
        char perms[8] = {};
        int consumed = 0;
        if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s%n", &start, &end, perms, &consumed) == 3) {
            // A mapping's header: anonymous when nothing (no path, no [name]) follows the inode.
            const char* rest = line + consumed;
            while (*rest == ' ' || *rest == '\t')
                ++rest;
            inBuffer = end - start == kBuffer && std::string(perms) == "rw-p" &&
                       (*rest == '\n' || *rest == '\0');
        } else if (inBuffer && std::sscanf(line, "Anonymous: %llu kB", &kb) == 1) {
            bytes += kb * 1024;
        }
    }
    std::fclose(f);
    return bytes;
}

std::uint64_t peakResidentBytes() {
    return procFieldBytes("/proc/self/status", "VmHWM:").value_or(0);
}

ThreadTimes threadTimes() {
    ThreadTimes t;
    std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return t;
    unsigned long long cpuNs = 0, waitNs = 0;
    if (std::fscanf(f, "%llu %llu", &cpuNs, &waitNs) == 2) {
        t.cpuMs = static_cast<double>(cpuNs) / 1e6;
        t.runQueueMs = static_cast<double>(waitNs) / 1e6;
    }
    std::fclose(f);
    if (std::FILE* s = std::fopen("/proc/thread-self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, s))
            if (std::sscanf(line, "voluntary_ctxt_switches: %lld", &t.sleeps) == 1)
                break;
        std::fclose(s);
    }
    // stat: "pid (comm) state ppid … minflt cminflt majflt …": fields 10 and 12, counted after
    // the last ')' (a thread's name may hold spaces and parentheses).
    if (std::FILE* s = std::fopen("/proc/thread-self/stat", "r")) {
        char line[1024];
        if (std::fgets(line, sizeof line, s))
            if (const char* close = std::strrchr(line, ')'))
                std::sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %lld %*u %lld", &t.minorFaults,
                            &t.majorFaults);
        std::fclose(s);
    }
    return t;
}

double machineStealMs() {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f)
        return 0.0;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
    const int read = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
                                 &system, &idle, &iowait, &irq, &softirq, &steal);
    std::fclose(f);
    const long ticks = ::sysconf(_SC_CLK_TCK);
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (read != 8 || ticks <= 0 || cpus <= 0)
        return 0.0;
    return static_cast<double>(steal) * 1000.0 / static_cast<double>(ticks) /
           static_cast<double>(cpus);
}

QString GuiHeartbeat::Gap::describe() const {
    return QStringLiteral("GUI thread cpu %1 ms, run queue %2 ms, blocked %3 ms (%4 sleeps, %5 "
                          "page faults, %6 major), host steal %7 ms")
        .arg(cpuMs, 0, 'f', 0)
        .arg(runQueueMs, 0, 'f', 0)
        .arg(blockedMs(), 0, 'f', 0)
        .arg(sleeps)
        .arg(minorFaults)
        .arg(majorFaults)
        .arg(stealMs, 0, 'f', 0);
}

GuiHeartbeat::GuiHeartbeat(int stallMs, QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
    , m_stallMs(stallMs) {
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setInterval(10);
    connect(m_timer, &QTimer::timeout, this, &GuiHeartbeat::tick);
}

void GuiHeartbeat::start() {
    m_clock.start();
    m_lastMs = 0.0;
    m_lastTickMs = 0.0;
    m_last = threadTimes();
    m_lastSteal = machineStealMs();
    m_peak = residentBytes();
    m_timer->start();
    if (m_dumpAfter > 0 && !m_watchdog.joinable())
        m_watchdog = std::thread([this] { watch(); });
}

GuiHeartbeat::~GuiHeartbeat() {
    m_stop = true;
    if (m_watchdog.joinable())
        m_watchdog.join();
}

void GuiHeartbeat::watch() {
    double dumpedFor = -1.0; // the tick whose gap was dumped
    while (!m_stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const double last = m_lastTickMs.load();
        const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
        if (now - last < m_dumpAfter || last == dumpedFor)
            continue;
        dumpedFor = last;
        std::fprintf(stderr, "soak: the GUI thread has not ticked for %.0f ms; its stack:\n",
                     now - last);
        std::fflush(stderr);
        // Thread 1 is the main thread, the GUI thread. gdb writes to this process's stderr.
        const std::string command =
            "gdb -p " + std::to_string(::getpid()) +
            " -batch -nx -q -ex 'set pagination off' -ex 'thread 1' -ex 'bt 60' 1>&2 2>/dev/null";
        if (std::system(command.c_str()) != 0)
            std::fprintf(stderr, "soak: gdb could not attach\n");
        std::fflush(stderr);
    }
}

void GuiHeartbeat::tick() {
    const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
    const ThreadTimes times = threadTimes();
    Gap gap;
    gap.ms = now - m_lastMs;
    gap.cpuMs = times.cpuMs - m_last.cpuMs;
    gap.runQueueMs = times.runQueueMs - m_last.runQueueMs;
    gap.sleeps = times.sleeps - m_last.sleeps;
    gap.minorFaults = times.minorFaults - m_last.minorFaults;
    gap.majorFaults = times.majorFaults - m_last.majorFaults;
    const double steal = machineStealMs();
    gap.stealMs = steal - m_lastSteal;
    m_lastSteal = steal;
    m_lastMs = now;
    m_lastTickMs = now;
    m_last = times;
    const double own = gap.ownMs();
    if (gap.ms > 100.0)
        ++m_over100;
    if (gap.ms > m_stallMs)
        ++m_stalls;
    if (own > m_stallMs)
        ++m_ownStalls;
    const bool longest = gap.ms > m_longest.ms;
    const bool longestOwn = own > m_longestOwn.ownMs();
    if (longest || longestOwn || (m_reportOver > 0 && gap.ms > m_reportOver)) {
        gap.context = m_context ? m_context() : QString();
        if (longest)
            m_longest = gap;
        if (longestOwn)
            m_longestOwn = gap;
        if (m_reportOver > 0 && gap.ms > m_reportOver)
            std::fprintf(stderr, "soak: gap %.0f ms (%s) %s\n", gap.ms, qPrintable(gap.describe()),
                         qPrintable(gap.context));
    }
    const std::uint64_t rss = residentBytes();
    if (rss > m_peak)
        m_peak = rss;
}

template <typename Controller, typename Result>
void RepeatWatcher::watchEach(QObject* root, QString (*describe)(const Result&)) {
    for (Controller* c : root->findChildren<Controller*>())
        if (m_runs.try_emplace(c).second)
            connect(c, &Controller::resultReady, this, [this, c, describe](const Result& r) {
                if (r.error != QLatin1String("cancelled"))
                    count(c, describe(r));
            });
}

void RepeatWatcher::watch(QObject* root) {
    watchEach<ComputeController, ComputeResult>(root, [](const ComputeResult& r) {
        // A failed result's own parameters: refusals of different schemes are not one repeat.
        return r.trace ? describeParams(r.trace->params)
                       : describeParams(r.params) + QStringLiteral(", failed: ") + r.error;
    });
    watchEach<InsightsController, InsightResult>(root, [](const InsightResult& r) {
        const std::string_view page = toString(r.page);
        return QStringLiteral("%1 page, %2%3")
            .arg(QString::fromUtf8(page.data(), static_cast<qsizetype>(page.size())),
                 describeParams(r.params),
                 r.error.isEmpty() ? QString() : QStringLiteral(", failed: ") + r.error);
    });
}

void RepeatWatcher::count(const QObject* controller, const QString& request) {
    Run& run = m_runs[controller];
    run.count = run.request == request ? run.count + 1 : 1;
    run.request = request;
    if (run.count > m_longest) {
        m_longest = run.count;
        const QObject* owner = controller->parent();
        m_longestContext =
            QStringLiteral("%1 results in a row from %2's worker: %3")
                .arg(run.count)
                .arg(QString::fromLatin1(owner ? owner->metaObject()->className() : "a window"),
                     request);
    }
}

void RepeatWatcher::actionTaken() {
    for (auto& [controller, run] : m_runs)
        run = {};
}

} // namespace pe
