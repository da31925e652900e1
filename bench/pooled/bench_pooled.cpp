// SPDX-License-Identifier: MIT
// Usage: pe-bench-pooled [--n 16384,65536] [--d 512] [--heads 8] [--schemes t5,alibi,...|all]
//                        [--pool 1024] [--mode mean|max] [--repeat 3] [--threads T]
//                        [--tile KEYS]   (keys per tile of the fused pass; default the engine's)
//                        [--to-weights 1] (stopped at the weights, as the Compare tab's others)
//                        [--tile-rows R]  (a zoom tile: R × R positions at full resolution)
//                        [--lend 1]       (the tile borrows Q and K from the pooled trace)
//
// The pooled path (trace --pool, the window above 2048 positions) against the GEMM limit: the
// time the n² pass's and the projections' matrix products would take at the machine's sgemm
// peak, measured in the same run. JSON lines: first the machine (`sgemm_peak_gflops`, the best
// of OpenBLAS on its own threads and one single-threaded product per thread on a share of the
// rows, as the engine calls them), then one line per (scheme, n): `ms_median`, `ms_min` (traces
// handed back to the engine between runs, as the window does), `ms_first` (fresh buffers),
// `gemm_gflop` (8·n·d² + 4·n²·d, plus Transformer-XL's band (q+v)·Rᵀ: 2·n·(n + 8)·d), `limit_ms`
// (gemm_gflop at the peak) and `pct_limit` = limit_ms / ms_median; `cpu_ms_median`, the
// process's CPU time per run, and `cpu_pct_limit`, the same ratio in CPU time (the products'
// flops over their CPU time per thread, `sgemm_cpu_peak_gflops`, against the run's CPU time),
// which other programs on the machine disturb less than wall time; `peak_rss_mb`. The machine's
// speed drifts within a run (a shared host: ±10–15 % within minutes, and one n = 65,536 scheme
// takes a minute on 2 cores), so each line also gives the sgemm peak measured right before and
// right after its runs (`sgemm_peak_before_gflops`, `sgemm_peak_after_gflops`) and
// `pct_limit_adjacent`, the share of the limit at the higher of those two (a dip in one of them,
// another program's burst, would make the limit look longer and the pass look closer to it);
// `cpu_pct_limit_adjacent`, the CPU-time ratio against the higher of the CPU-time peaks measured
// right before and after; and `steal_pct`, the share of the machine's CPU time the hypervisor
// gave to other guests during the runs (host_steal.h: wall time counts it, CPU time does not).
// `--to-weights 1` times the pass stopped at the weights (CpuFastBackend::setStopAtWeights: the
// Compare tab's other schemes), whose products are Q's and K's projections and the key product
// (4·n·d² + 2·n²·d); `--tile-rows R` a zoom tile of R × R positions in the middle of the matrix
// at full resolution (the window zoomed in on a long sequence), which stops at the weights too
// and projects its own queries only: K's projection, R rows' of Q and their key product
// (2·n·d² + 2·R·d² + 2·R·n·d). With `--lend 1` the whole pooled trace is computed first, as
// the window shows it, and every tile borrows its Q and K (CpuFastBackend::lendProjections, as
// the window's worker does): the key product alone is left (2·R·n·d; `lent` in the JSON).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "cpu_fast_backend.h"
#include "cpu_gemm.h"
#include "host_steal.h"
#include "sgemm_peak.h"
#include "weights.h"

using namespace pe;

namespace {

double nowMs() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    cpu::chooseGemmLibraryKernels(); // as the CLI and the window do (cpu_gemm.h)
    std::vector<int> ns{16384};
    int d = 512, heads = 8, pool = 1024, repeat = 3, threads = 0, tile = 0, tileRows = 0;
    bool toWeights = false, lend = false;
    PoolMode mode = PoolMode::Mean;
    std::vector<std::string> schemes{"t5"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "pe-bench-pooled: %s needs a value\n", a.c_str());
            return 2;
        }
        const std::string v = argv[++i];
        if (a == "--n") {
            ns.clear();
            for (const std::string& x : split(v))
                ns.push_back(std::atoi(x.c_str()));
        } else if (a == "--d")
            d = std::atoi(v.c_str());
        else if (a == "--heads")
            heads = std::atoi(v.c_str());
        else if (a == "--pool")
            pool = std::atoi(v.c_str());
        else if (a == "--repeat")
            repeat = std::max(1, std::atoi(v.c_str()));
        else if (a == "--threads")
            threads = std::atoi(v.c_str());
        else if (a == "--tile")
            tile = std::atoi(v.c_str());
        else if (a == "--to-weights")
            toWeights = std::atoi(v.c_str()) != 0;
        else if (a == "--lend")
            lend = std::atoi(v.c_str()) != 0;
        else if (a == "--tile-rows")
            tileRows = std::max(0, std::atoi(v.c_str()));
        else if (a == "--mode")
            mode = v == "max" ? PoolMode::Max : PoolMode::Mean;
        else if (a == "--schemes")
            schemes =
                v == "all"
                    ? std::vector<std::string>{"none", "sinusoidal", "learned", "shaw",  "txl",
                                               "t5",   "deberta",    "rope",    "alibi", "urpe"}
                    : split(v);
        else {
            std::fprintf(stderr, "pe-bench-pooled: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    double cpuPeak = 0.0;
    const double peak = bench::sgemmPeak(threads, &cpuPeak);
    std::printf("{\"engine\":\"machine\",\"threads\":%d,\"sgemm_peak_gflops\":%.1f,"
                "\"sgemm_cpu_peak_gflops\":%.1f}\n",
                threads, peak, cpuPeak);
    std::fflush(stdout);

    CpuFastBackend fast(threads);
    fast.setTileColumns(tile); // 0: the engine's default
    fast.setStopAtWeights(toWeights);
    for (const std::string& name : schemes) {
        const auto scheme = schemeFromString(name);
        if (!scheme) {
            std::fprintf(stderr, "pe-bench-pooled: unknown scheme %s\n", name.c_str());
            return 2;
        }
        for (int n : ns) {
            Params p;
            p.scheme = *scheme;
            p.n = n;
            p.d = d;
            p.heads = heads;
            p.learnedRows = std::max(p.learnedRows, p.seqLen());
            Weights w;
            completeWeights(p, w);
            std::vector<double> ms, cpu;
            double cpuPeakBefore = 0.0, cpuPeakAfter = 0.0;
            const double peakBefore = bench::sgemmPeak(threads, &cpuPeakBefore);
            PoolRequest request{pool, mode, false, {}};
            if (tileRows > 0) { // the middle R × R positions, at full resolution
                const int r = std::min(tileRows, p.seqLen());
                const int a0 = (p.seqLen() - r) / 2;
                request =
                    PoolRequest{std::max(pool, r), mode, true, PoolRegion{a0, a0 + r, a0, a0 + r}};
            }
            // The shown trace the tiles borrow from (computed before the timed runs).
            std::shared_ptr<const Trace> shown;
            if (lend && tileRows > 0) {
                Expected<PooledTrace> whole =
                    fast.computePooled(p, w, PoolRequest{pool, mode, false, {}});
                if (!whole) {
                    std::fprintf(stderr, "pe-bench-pooled: %s\n", whole.error().message.c_str());
                    return 1;
                }
                shown = std::make_shared<const Trace>(std::move(whole.value().trace));
            }
            const bench::HostTicks ticks0 = bench::HostTicks::now();
            for (int r = 0; r < repeat; ++r) {
                const double c0 = bench::processCpuMs();
                const double t0 = nowMs();
                if (shown)
                    fast.lendProjections(shown);
                Expected<PooledTrace> t = fast.computePooled(p, w, request);
                if (!t) {
                    std::fprintf(stderr, "pe-bench-pooled: %s\n", t.error().message.c_str());
                    return 1;
                }
                ms.push_back(nowMs() - t0);
                cpu.push_back(bench::processCpuMs() - c0);
                fast.recycle(std::move(t.value().trace)); // as the window hands traces back
            }
            const double steal = bench::stealPercent(ticks0, bench::HostTicks::now());
            const double peakAfter = bench::sgemmPeak(threads, &cpuPeakAfter);
            const double first = ms.front(); // fresh buffers: page faults included
            std::sort(ms.begin(), ms.end());
            std::sort(cpu.begin(), cpu.end());
            const double N = p.seqLen(), D = d;
            const bool stops = toWeights || tileRows > 0;
            const double R = tileRows > 0 ? std::min<double>(tileRows, N) : N; // query rows
            // Stopped: K's projection of every position, Q's of the rows used, their product;
            // with Q and K lent, the product alone.
            double flop = shown   ? 2 * R * N * D
                          : stops ? 2 * N * D * D + 2 * R * D * D + 2 * R * N * D
                                  : 8 * N * D * D + 4 * N * N * D;
            if (p.scheme == Scheme::TransformerXL)
                flop += 2 * R * (N + 8) * D;
            const double limitMs = flop / (1e6 * peak);
            const double median = ms[ms.size() / 2];
            const double adjacentLimitMs = flop / (1e6 * std::max(peakBefore, peakAfter));
            rusage ru{};
            getrusage(RUSAGE_SELF, &ru);
            std::printf(
                "{\"scheme\":\"%s\",\"n\":%d,\"d\":%d,\"heads\":%d,\"pool\":%d,\"mode\":"
                "\"%s\",\"to_weights\":%s,\"tile_rows\":%d,\"lent\":%s,\"threads\":%d,"
                "\"ms_median\":%.1f,\"ms_min\":%.1f,\"ms_first\":%.1f,"
                "\"gemm_gflop\":%.1f,\"limit_ms\":%.1f,\"pct_limit\":%.1f,"
                "\"cpu_ms_median\":%.1f,\"cpu_pct_limit\":%.1f,\"peak_rss_mb\":%.0f,"
                "\"sgemm_peak_before_gflops\":%.1f,\"sgemm_peak_after_gflops\":%.1f,"
                "\"pct_limit_adjacent\":%.1f,\"cpu_pct_limit_adjacent\":%.1f,\"steal_pct\":%.1f}\n",
                name.c_str(), n, d, heads, pool, mode == PoolMode::Max ? "max" : "mean",
                toWeights ? "true" : "false", tileRows, shown ? "true" : "false", threads, median,
                ms.front(), first, flop / 1e9, limitMs, 100.0 * limitMs / median,
                cpu[cpu.size() / 2],
                100.0 * (flop / (1e6 * cpuPeak)) * threads / cpu[cpu.size() / 2],
                static_cast<double>(ru.ru_maxrss) / 1024.0, peakBefore, peakAfter,
                100.0 * adjacentLimitMs / median,
                100.0 * (flop / (1e6 * std::max(cpuPeakBefore, cpuPeakAfter))) * threads /
                    cpu[cpu.size() / 2],
                steal);
            std::fflush(stdout);
        }
    }
    return 0;
}
