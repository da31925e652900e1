// SPDX-License-Identifier: MIT
// pe-bench-cpu: times full forward passes (every tensor of the trace materialised) of the fast
// CPU engine, and optionally the reference, printing one JSON line per configuration.
//
//   pe-bench-cpu [--repeat R] [--threads T] [--n 2048,4096] [--d 512] [--heads 8]
//                [--schemes none,t5,shaw,...] [--gemm auto|openblas|eigen|both] [--reference]
//                [--no-machine] [--row-block R] [--cold [--cli PATH]] [--gap-ms G]
//
// First line (unless --no-machine): the machine's sgemm peak (OpenBLAS, 2048³, its own threads)
// and memory bandwidth (memcpy; streaming stores of cached rows into a fresh-sized buffer).
// Then per configuration: engine, gemm, scheme, n, d, heads, threads, repeat, ms_median, ms_min,
// ms_first (this process's first run of the configuration: fresh anonymous buffers, their page
// faults counted in first_minflt and the kernel's time in first_sys_ms), gflops (8·n·d² + 4·n²·d
// over the median), the phases of the median run, the engine's GEMM rate and its share of the peak,
// and the n² pass's write rate and its share of the streaming bandwidth. With --cold, a line
// "engine":"cold" per configuration: fresh `pe-explorer-cli trace` processes alternated with warm
// runs in this process, the cold compute as a ratio to the warm median, and the same with the
// trace's mapped output turned off (PE_TRACE_NO_MAP=1). See bench/README.md.

#include "backend.h"
#include "cpu_fast_backend.h"
#include "cpu_gemm.h"
#include "cpu_kernels.h"
#include "stats.h"
#include "weights.h"

#ifdef PE_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <QByteArray>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace pe;

namespace {

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

double nowMs() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

using bench::median;

/** Runs fn(t) on `threads` threads (t = 0 on the caller) and joins them. */
void onThreads(int threads, const std::function<void(int)>& fn) {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(fn, t);
    fn(0);
    for (std::thread& t : pool)
        t.join();
}

template <typename F> double medianMs(int reps, const F& fn) {
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) {
        const double t0 = nowMs();
        fn();
        times.push_back(nowMs() - t0);
    }
    return median(times);
}

struct Machine {
    double sgemmPeak = 0.0; ///< GFLOP/s, the best of the measurements below
    double blasThreaded = 0.0, blasSplit = 0.0, eigenSplit = 0.0;
    double copyGBs = 0.0;   ///< memcpy, bytes read + written
    double streamGBs = 0.0; ///< streaming stores of cached rows
};

/**
 * The machine's sgemm peak: a large square product (2048³) on all threads, by OpenBLAS's own
 * threading, and by one single-threaded call per thread on a share of the rows (how the engine
 * calls it), with OpenBLAS and with Eigen. Memory bandwidth: memcpy of 256 MB, and the engine's
 * pattern, streaming stores of a cached 512 KB block into a 256 MB buffer.
 */
Machine measureMachine(int threads) {
    Machine m;
    const int n = 2048;
    const double flops = 2.0 * n * double(n) * n;
    std::vector<float> a(static_cast<std::size_t>(n) * n, 0.5f),
        b(static_cast<std::size_t>(n) * n, 0.25f), c(static_cast<std::size_t>(n) * n);
    auto split = [&](cpu::GemmLibrary lib) {
        const int blk = (n + threads - 1) / threads;
        onThreads(threads, [&](int t) {
            const int r0 = t * blk, rows = std::min(blk, n - r0);
            if (rows > 0)
                cpu::gemmAB(lib, rows, n, n, 1.0f, a.data() + static_cast<std::size_t>(r0) * n, n,
                            b.data(), n, 0.0f, c.data() + static_cast<std::size_t>(r0) * n, n);
        });
    };
#ifdef PE_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n); // warm-up
    m.blasThreaded = flops / (1e6 * medianMs(5, [&] {
                                  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
                                              1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
                              }));
    openblas_set_num_threads(1); // as the engine runs it
    split(cpu::GemmLibrary::OpenBlas);
    m.blasSplit = flops / (1e6 * medianMs(5, [&] { split(cpu::GemmLibrary::OpenBlas); }));
#endif
    split(cpu::GemmLibrary::Eigen);
    m.eigenSplit = flops / (1e6 * medianMs(5, [&] { split(cpu::GemmLibrary::Eigen); }));
    m.sgemmPeak = std::max({m.blasThreaded, m.blasSplit, m.eigenSplit});

    const std::size_t big = std::size_t{64} << 20; // floats: 256 MB
    std::vector<float> src(big, 1.0f), dst(big, 2.0f);
    const std::size_t share = big / static_cast<std::size_t>(threads);
    m.copyGBs = 2.0 * big * sizeof(float) /
                (1e6 * medianMs(5, [&] {
                     onThreads(threads, [&](int t) {
                         const std::size_t o = share * static_cast<std::size_t>(t);
                         std::memcpy(dst.data() + o, src.data() + o, share * sizeof(float));
                     });
                 }));
    const std::size_t block = std::size_t{128} << 10; // floats: 512 KB, stays in L2
    std::vector<std::vector<float>> cached(static_cast<std::size_t>(threads),
                                           std::vector<float>(block, 3.0f));
    m.streamGBs = double(big) * sizeof(float) /
                  (1e6 * medianMs(5, [&] {
                       onThreads(threads, [&](int t) {
                           const std::size_t o = share * static_cast<std::size_t>(t);
                           for (std::size_t at = 0; at < share; at += block)
                               cpu::streamCopy(dst.data() + o + at,
                                               cached[static_cast<std::size_t>(t)].data(),
                                               std::min(block, share - at));
                       });
                   }));
    std::printf("{\"engine\":\"machine\",\"threads\":%d,\"sgemm_peak_gflops\":%.1f,"
                "\"sgemm_openblas_threaded_gflops\":%.1f,\"sgemm_openblas_split_gflops\":%.1f,"
                "\"sgemm_eigen_split_gflops\":%.1f,\"sgemm_size\":%d,\"memcpy_gbps\":%.1f,"
                "\"stream_store_gbps\":%.1f}\n",
                threads, m.sgemmPeak, m.blasThreaded, m.blasSplit, m.eigenSplit, n, m.copyGBs,
                m.streamGBs);
    std::fflush(stdout);
    return m;
}

/**
 * One quick measurement of the peak and the streaming bandwidth, taken right before each timed
 * run: on a shared machine the load changes from second to second, so shares of the peak are
 * computed against a peak measured next to the run: the better of OpenBLAS and Eigen, each
 * called as the engine calls it (one single-threaded 2048³ share per thread); the bandwidth,
 * streaming stores of a cached block into 128 MB.
 */
class AdjacentProbe {
public:
    explicit AdjacentProbe(int threads)
        : m_threads(threads)
        , m_a(std::size_t{kN} * kN, 0.5f)
        , m_b(std::size_t{kN} * kN, 0.25f)
        , m_c(std::size_t{kN} * kN)
        , m_dst(kStreamFloats, 0.0f)
        , m_cached(static_cast<std::size_t>(threads), std::vector<float>(kBlock, 1.0f)) {}

    /** The machine's peak: the better of the two libraries, as the engine calls them. */
    double peakGflops() {
        double best = peakOf(cpu::GemmLibrary::Eigen);
        if (cpu::haveOpenBlas())
            best = std::max(best, peakOf(cpu::GemmLibrary::OpenBlas));
        return best;
    }

    double peakOf(cpu::GemmLibrary lib) {
        const int blk = (kN + m_threads - 1) / m_threads;
        const double t0 = nowMs();
        onThreads(m_threads, [&](int t) {
            const int r0 = t * blk, rows = std::min(blk, kN - r0);
            if (rows > 0)
                cpu::gemmAB(lib, rows, kN, kN, 1.0f, m_a.data() + std::size_t(r0) * kN, kN,
                            m_b.data(), kN, 0.0f, m_c.data() + std::size_t(r0) * kN, kN);
        });
        return 2.0 * kN * double(kN) * kN / ((nowMs() - t0) * 1e6);
    }

    double streamGBs() {
        const std::size_t share = kStreamFloats / static_cast<std::size_t>(m_threads);
        const double t0 = nowMs();
        onThreads(m_threads, [&](int t) {
            const std::size_t o = share * static_cast<std::size_t>(t);
            for (std::size_t at = 0; at < share; at += kBlock)
                cpu::streamCopy(m_dst.data() + o + at, m_cached[static_cast<std::size_t>(t)].data(),
                                std::min(kBlock, share - at));
        });
        return double(kStreamFloats) * sizeof(float) / ((nowMs() - t0) * 1e6);
    }

private:
    static constexpr int kN = 2048;
    static constexpr std::size_t kStreamFloats = std::size_t{32} << 20; // 128 MB
    static constexpr std::size_t kBlock = std::size_t{128} << 10;       // 512 KB
    int m_threads;
    std::vector<float> m_a, m_b, m_c, m_dst;
    std::vector<std::vector<float>> m_cached;
};

/** Minor page faults of this process so far, and its CPU time in the kernel (ms). */
long minorFaults() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}
double kernelMs() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_stime.tv_sec) * 1e3 +
           static_cast<double>(u.ru_stime.tv_usec) * 1e-3;
}
/** CPU time of this process so far (user + kernel, all threads), ms. */
double cpuMs() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    auto ms = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) * 1e-3;
    };
    return ms(u.ru_utime) + ms(u.ru_stime);
}

double loadAverage() {
    double l[1] = {0.0};
    return ::getloadavg(l, 1) == 1 ? l[0] : -1.0;
}

/** One fresh `trace` process: its manifest's compute and total, and the process's wall time. */
struct ColdRun {
    bool ok = false;
    double computeMs = 0.0, totalMs = 0.0, wallMs = 0.0;
    double prefaultWaitMs = 0.0; ///< the engine's wait for its output pages (mapped runs)
    double cpuMs = 0.0;          ///< CPU time of the compute, all threads
    double faults = 0.0;         ///< page faults while computing
};

ColdRun runTraceProcess(const QString& cli, const QStringList& args, const QString& outDir,
                        bool mapped) {
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PE_CPU_TIMING"), QStringLiteral("1")); // for the prefault wait
    if (mapped)
        env.remove(QStringLiteral("PE_TRACE_NO_MAP"));
    else
        env.insert(QStringLiteral("PE_TRACE_NO_MAP"), QStringLiteral("1"));
    proc.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    proc.start(cli, args + QStringList{QStringLiteral("--out"), outDir});
    const bool finished = proc.waitForFinished(600000);
    ColdRun r;
    r.wallMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;
    const QString err = QString::fromLocal8Bit(proc.readAllStandardError());
    if (!finished || proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0) {
        std::fprintf(stderr, "pe-bench-cpu: %s failed: %s\n", qPrintable(cli), qPrintable(err));
        return r;
    }
    for (const QString& line : err.split(QLatin1Char('\n'))) // "  prefault wait   12.34 ms (…)"
        if (line.trimmed().startsWith(QLatin1String("prefault wait")))
            r.prefaultWaitMs =
                line.trimmed().mid(13).trimmed().section(QLatin1Char(' '), 0, 0).toDouble();
        else if (line.contains(
                     QLatin1String("page faults,"))) { // "compute  45 page faults, 91.0 CPU ms (…)"
            const QStringList w = line.simplified().split(QLatin1Char(' '));
            if (w.size() > 5) {
                r.faults = w[1].toDouble();
                r.cpuMs = w[4].toDouble();
            }
        }
    QFile manifest(outDir + QStringLiteral("/manifest.json"));
    if (manifest.open(QIODevice::ReadOnly)) {
        const QJsonObject t = QJsonDocument::fromJson(manifest.readAll())
                                  .object()
                                  .value(QLatin1String("timings_ms"))
                                  .toObject();
        r.computeMs = t.value(QLatin1String("compute")).toDouble();
        r.totalMs = t.value(QLatin1String("total")).toDouble();
        r.ok = r.computeMs > 0.0;
    }
    QDir(outDir).removeRecursively();
    return r;
}

} // namespace

int main(int argc, char** argv) {
    pe::cpu::chooseGemmLibraryKernels(); // as the CLI and the window do (cpu_gemm.h)
    int repeat = 5;
    int gapMs = 0; // idle time before each timed run, as between a window's edits
    int threads = 0;
    int d = 512;
    int heads = 8;
    bool withReference = false;
    bool machine = true;
    int rowBlock = 0;
    std::string extent = "whole"; // whole, weights or weights-alone (CpuFastBackend)
    bool cold = false;
#ifdef PE_CLI_PATH
    std::string cli = PE_CLI_PATH;
#else
    std::string cli;
#endif
    std::string gemm = "auto"; // the engine's own choice (cpu_gemm.h)
    std::vector<std::string> ns{"2048", "4096"};
    std::vector<std::string> schemes{"none", "t5",  "shaw",    "alibi",
                                     "rope", "txl", "deberta", "urpe"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "pe-bench-cpu: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--repeat")
            repeat = std::max(1, std::atoi(next().c_str()));
        else if (a == "--threads")
            threads = std::atoi(next().c_str());
        else if (a == "--n")
            ns = splitList(next());
        else if (a == "--d")
            d = std::atoi(next().c_str());
        else if (a == "--heads")
            heads = std::atoi(next().c_str());
        else if (a == "--schemes")
            schemes = splitList(next());
        else if (a == "--row-block")
            rowBlock = std::atoi(next().c_str());
        else if (a == "--gemm")
            gemm = next();
        else if (a == "--extent")
            extent = next();
        else if (a == "--reference")
            withReference = true;
        else if (a == "--no-machine")
            machine = false;
        else if (a == "--cold")
            cold = true;
        else if (a == "--cli")
            cli = next();
        else if (a == "--gap-ms")
            gapMs = std::max(0, std::atoi(next().c_str()));

        else if (a == "--gemm-peak")
            machine = true; // the default; kept for old command lines
        else if (a == "--help" || a == "-h") {
            std::printf(
                "pe-bench-cpu [--repeat R] [--threads T] [--n 2048,4096] [--d 512] [--heads 8]\n"
                "             [--schemes none,t5,shaw,...] [--gemm auto|openblas|eigen|both]\n"
                "             [--reference] [--no-machine] [--row-block R]\n"
                "             [--cold [--cli PATH]]  # fresh trace processes against warm runs\n"
                "             [--gap-ms G]  # idle G ms before each timed run, as between edits\n"
                "             [--extent whole|weights|weights-alone]  # how far each pass goes\n");
            return 0;
        } else {
            std::fprintf(stderr, "pe-bench-cpu: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (extent != "whole" && extent != "weights" && extent != "weights-alone") {
        std::fprintf(stderr, "pe-bench-cpu: --extent takes whole, weights or weights-alone\n");
        return 2;
    }
    if (cold && cli.empty()) {
        std::fprintf(stderr, "pe-bench-cpu: --cold needs --cli PATH (pe-explorer-cli)\n");
        return 2;
    }
    std::vector<cpu::GemmLibrary> libraries;
    if (gemm == "auto")
        libraries.push_back(cpu::gemmLibrary());
    if (gemm == "openblas" || gemm == "both") {
        if (!cpu::haveOpenBlas()) {
            std::fprintf(stderr, "pe-bench-cpu: this build has no OpenBLAS (libopenblas-dev)\n");
            return 2;
        }
        libraries.push_back(cpu::GemmLibrary::OpenBlas);
    }
    if (gemm == "eigen" || gemm == "both")
        libraries.push_back(cpu::GemmLibrary::Eigen);
    if (libraries.empty()) {
        std::fprintf(stderr, "pe-bench-cpu: --gemm takes auto, openblas, eigen or both\n");
        return 2;
    }

    CpuFastBackend fast(threads);
    threads = fast.threads();
    fast.setRowBlock(rowBlock);
    fast.setStopAtWeights(extent != "whole");
    fast.setWeightsAlone(extent == "weights-alone");
    fast.setProfiling(true);
    cpu::setGemmCounting(true);
    std::fprintf(stderr, "device: %s\n", qPrintable(fast.device()));
    if (machine)
        (void)measureMachine(threads);
    AdjacentProbe probe(threads);
    (void)probe.peakGflops(); // warm-up: pages, OpenBLAS buffers
    (void)probe.streamGBs();

    for (const std::string& nStr : ns) {
        for (const std::string& sName : schemes) {
            const auto scheme = schemeFromString(sName);
            if (!scheme) {
                std::fprintf(stderr, "pe-bench-cpu: unknown scheme %s\n", sName.c_str());
                return 2;
            }
            Params p;
            p.scheme = *scheme;
            p.n = std::atoi(nStr.c_str());
            p.d = d;
            p.heads = heads;
            p.clip = 16;
            if (p.scheme == Scheme::URPE)
                p.urpeBias = UrpeBias::T5;
            if (p.scheme == Scheme::Learned)
                p.learnedRows = std::max(p.learnedRows, p.seqLen()); // a table as long as n
            if (Status s = validate(p); !s) {
                std::fprintf(stderr, "pe-bench-cpu: %s\n", s.error().message.c_str());
                return 2;
            }
            Weights w;
            completeWeights(p, w);
            const double flops = 8.0 * p.n * double(d) * d + 4.0 * double(p.n) * p.n * d;

            double warmLine = 0.0; // ms_median of the last "fast" line, for --cold
            for (const cpu::GemmLibrary lib : libraries) {
                cpu::setGemmLibrary(lib);
                struct Run {
                    double ms;
                    CpuFastBackend::Profile profile;
                    cpu::GemmCounters gemm;
                    double peak;   ///< GFLOP/s measured right before the run
                    double stream; ///< GB/s measured right before the run
                };
                std::vector<Run> runs;
                double first = 0.0;
                long firstFaults = 0;
                double firstSysMs = 0.0;
                for (int r = 0; r < repeat + 1; ++r) {
                    const double peakNow = r > 0 ? probe.peakGflops() : 0.0;
                    const double streamNow = r > 0 ? probe.streamGBs() : 0.0;
                    (void)cpu::takeGemmCounters();
                    if (gapMs > 0)
                        std::this_thread::sleep_for(std::chrono::milliseconds(gapMs));
                    const long faults0 = minorFaults();
                    const double sys0 = kernelMs();
                    const double t0 = nowMs();
                    Expected<Trace> t = fast.compute(p, w);
                    const double ms = nowMs() - t0;
                    if (r == 0) {
                        firstFaults = minorFaults() - faults0;
                        firstSysMs = kernelMs() - sys0;
                    }
                    if (!t.ok()) {
                        std::fprintf(stderr, "pe-bench-cpu: %s\n", t.error().message.c_str());
                        return 1;
                    }
                    if (r == 0)
                        first = ms;
                    else
                        runs.push_back(
                            {ms, fast.lastProfile(), cpu::takeGemmCounters(), peakNow, streamNow});
                    fast.recycle(std::move(*t));
                }
                std::sort(runs.begin(), runs.end(),
                          [](const Run& a, const Run& b) { return a.ms < b.ms; });
                std::vector<double> times;
                for (const Run& r : runs)
                    times.push_back(r.ms);
                const double med = median(times);
                warmLine = med;
                const Run& mid = runs[runs.size() / 2];
                const CpuFastBackend::Profile& pr = mid.profile;
                // Rates over the time the threads spent in them, scaled to all threads; shares
                // against the peak and bandwidth measured right before each run (medians).
                auto gemmRate = [threads](const Run& r) {
                    return r.gemm.threadSeconds > 0.0
                               ? r.gemm.flops / (r.gemm.threadSeconds / threads) / 1e9
                               : 0.0;
                };
                auto npassRate = [threads](const Run& r) {
                    return r.profile.npassThreadSeconds > 0.0
                               ? r.profile.npassBytes / (r.profile.npassThreadSeconds / threads) /
                                     1e9
                               : 0.0;
                };
                std::vector<double> gemmPct, npassPct, peaks, streams;
                for (const Run& r : runs) {
                    gemmPct.push_back(100.0 * gemmRate(r) / r.peak);
                    npassPct.push_back(100.0 * npassRate(r) / r.stream);
                    peaks.push_back(r.peak);
                    streams.push_back(r.stream);
                }
                std::printf(
                    "{\"engine\":\"fast\",\"gemm\":\"%s\",\"scheme\":\"%s\",\"extent\":\"%s\","
                    "\"n\":%d,\"d\":%d,\"heads\":%d,\"threads\":%d,\"repeat\":%d,\"ms_median\":%."
                    "3f,"
                    "\"ms_min\":%.3f,\"ms_first\":%.3f,\"first_minflt\":%ld,\"first_sys_ms\":%.1f,"
                    "\"gflops\":%.2f,"
                    "\"phase_ms\":{\"inputs\":%.2f,\"projections\":%.2f,\"tables\":%.2f,"
                    "\"attention\":%.2f,\"output\":%.2f},"
                    "\"gemm_gflops\":%.1f,\"sgemm_peak_adjacent_gflops\":%.1f,"
                    "\"gemm_pct_peak\":%.1f,\"npass_gb\":%.3f,\"npass_gbps\":%.1f,"
                    "\"stream_adjacent_gbps\":%.1f,\"npass_pct_stream_bw\":%.1f}\n",
                    cpu::gemmTarget(), sName.c_str(), extent.c_str(), p.n, d, heads, threads,
                    repeat, med, runs.front().ms, first, firstFaults, firstSysMs,
                    flops / (med * 1e6), pr.inputsMs, pr.projectionsMs, pr.tablesMs, pr.attentionMs,
                    pr.outputMs, gemmRate(mid), median(peaks), median(gemmPct), pr.npassBytes / 1e9,
                    npassRate(mid), median(streams), median(npassPct));
                std::fflush(stdout);
            }
            if (cold) {
                // Fresh processes (the trace's mapped output, then PE_TRACE_NO_MAP=1) alternated
                // with warm runs here, so that all three see the same load; ratios of medians.
                QStringList args{QStringLiteral("trace"),
                                 QStringLiteral("--scheme"),
                                 QString::fromStdString(sName),
                                 QStringLiteral("--n"),
                                 QString::number(p.n),
                                 QStringLiteral("--d"),
                                 QString::number(d),
                                 QStringLiteral("--heads"),
                                 QString::number(heads),
                                 QStringLiteral("--clip"),
                                 QString::number(p.clip)};
                if (p.scheme == Scheme::URPE)
                    args << QStringLiteral("--urpe-bias") << QStringLiteral("t5");
                if (p.scheme == Scheme::Learned)
                    args << QStringLiteral("--max-positions") << QString::number(p.learnedRows);
                args << QStringLiteral("--threads") << QString::number(threads);
                QTemporaryDir scratch;
                const QString outDir = scratch.filePath(QStringLiteral("trace"));
                const QString cliPath = QString::fromStdString(cli);
                std::vector<double> warm, mapped, mappedWall, mappedTotal, mappedWait, plain,
                    plainWall, plainTotal, peaks, loads, warmCpu, mappedCpu, plainCpu, mappedFaults,
                    plainFaults;
                for (int r = 0; r < repeat; ++r) {
                    peaks.push_back(probe.peakGflops());
                    loads.push_back(loadAverage());
                    const ColdRun m = runTraceProcess(cliPath, args, outDir, true);
                    const ColdRun u = runTraceProcess(cliPath, args, outDir, false);
                    if (!m.ok || !u.ok)
                        return 1;
                    mapped.push_back(m.computeMs);
                    mappedWall.push_back(m.wallMs);
                    mappedTotal.push_back(m.totalMs);
                    mappedWait.push_back(m.prefaultWaitMs);
                    mappedCpu.push_back(m.cpuMs);
                    mappedFaults.push_back(m.faults);
                    plainCpu.push_back(u.cpuMs);
                    plainFaults.push_back(u.faults);
                    plain.push_back(u.computeMs);
                    plainWall.push_back(u.wallMs);
                    plainTotal.push_back(u.totalMs);
                    const double cpu0 = cpuMs();
                    const double t0 = nowMs();
                    Expected<Trace> t = fast.compute(p, w);
                    warm.push_back(nowMs() - t0);
                    warmCpu.push_back(cpuMs() - cpu0);
                    if (!t.ok())
                        return 1;
                    fast.recycle(std::move(*t));
                }
                const double warmMed = median(warm);
                std::printf("{\"engine\":\"cold\",\"scheme\":\"%s\",\"n\":%d,\"d\":%d,\"heads\":%d,"
                            "\"threads\":%d,\"repeat\":%d,\"warm_ms_median\":%.2f,"
                            "\"cold_ms_median\":%.2f,\"cold_ratio\":%.3f,\"cold_ratio_to_fast_"
                            "line\":%.3f,\"cold_total_ms_median\":%.1f,"
                            "\"cold_wall_ms_median\":%.1f,\"cold_prefault_wait_ms_median\":%.1f,"
                            "\"unmapped_cold_ms_median\":%.2f,"
                            "\"unmapped_cold_ratio\":%.3f,\"unmapped_total_ms_median\":%.1f,"
                            "\"unmapped_wall_ms_median\":%.1f,\"sgemm_peak_adjacent_gflops\":%.1f,"
                            "\"warm_cpu_ms_median\":%.1f,\"cold_cpu_ms_median\":%.1f,"
                            "\"cold_cpu_ratio\":%.3f,\"unmapped_cpu_ms_median\":%.1f,"
                            "\"unmapped_cpu_ratio\":%.3f,\"cold_faults_median\":%.0f,"
                            "\"unmapped_faults_median\":%.0f,\"load1\":%.2f}\n",
                            sName.c_str(), p.n, d, heads, threads, repeat, warmMed, median(mapped),
                            median(mapped) / warmMed, median(mapped) / warmLine,
                            median(mappedTotal), median(mappedWall), median(mappedWait),
                            median(plain), median(plain) / warmMed, median(plainTotal),
                            median(plainWall), median(peaks), median(warmCpu), median(mappedCpu),
                            median(mappedCpu) / median(warmCpu), median(plainCpu),
                            median(plainCpu) / median(warmCpu), median(mappedFaults),
                            median(plainFaults), median(loads));
                std::fflush(stdout);
            }
            if (withReference) {
                CpuReferenceBackend ref;
                std::vector<double> times;
                for (int r = 0; r < std::min(repeat, 2); ++r) {
                    const double t0 = nowMs();
                    if (!ref.compute(p, w, nullptr).ok())
                        return 1;
                    times.push_back(nowMs() - t0);
                }
                const double med = median(times);
                std::printf("{\"engine\":\"reference\",\"scheme\":\"%s\",\"n\":%d,\"d\":%d,"
                            "\"heads\":%d,\"threads\":1,\"ms_median\":%.3f,\"gflops\":%.2f}\n",
                            sName.c_str(), p.n, d, heads, med, flops / (med * 1e6));
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
