// SPDX-License-Identifier: MIT
#pragma once

/**
 * The machine's sgemm peak for the benchmarks that state figures against it: the best of
 * OpenBLAS on its own threads and the engine's products (cpu::gemmAB, one single-threaded call
 * per thread on a share of the rows, as the engine calls them). Both count: where Debian's
 * OpenBLAS does not know the CPU it falls back to old kernels (0.3.21 runs its SSE3 "Prescott"
 * kernels on Intel's model 207, at a fifth of the engine's AVX-512 products), and a peak read
 * from it alone would make every pass look faster than the machine.
 */

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "cpu_gemm.h"
#include "openblas_peak.h"

namespace pe::bench {

/** CPU time (user + system) of the whole process so far, in ms. */
inline double processCpuMs() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/**
 * Best GFLOP/s of 2048³ products: OpenBLAS threaded, and the engine's one call per thread; also
 * (cpuPeak, when given) the engine's per-thread products over the CPU time they took, times the
 * threads.
 */
inline double sgemmPeak(int threads, double* cpuPeak = nullptr) {
    using Clock = std::chrono::steady_clock;
    const int n = 2048;
    const double flops = 2.0 * n * double(n) * n;
    std::vector<float> a(std::size_t(n) * n, 0.5f), b(std::size_t(n) * n, 0.25f),
        c(std::size_t(n) * n);
    const double openBlas = openBlasSgemmGflops(threads);
    double best = 1e300;
    double bestCpu = 1e300;
    for (int rep = 0; rep < 4; ++rep) {
        const double c0 = processCpuMs();
        const auto t0 = Clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const int r0 = n * t / threads, r1 = n * (t + 1) / threads;
                cpu::gemmAB(r1 - r0, n, n, 1.0f, a.data() + std::size_t(r0) * n, n, b.data(), n,
                            0.0f, c.data() + std::size_t(r0) * n, n);
            });
        for (auto& th : pool)
            th.join();
        if (rep > 0) {
            best = std::min(best,
                            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            bestCpu = std::min(bestCpu, (processCpuMs() - c0) / threads);
        }
    }
    if (cpuPeak)
        *cpuPeak = flops / (1e6 * bestCpu);
    return std::max(openBlas, flops / (1e6 * best));
}

} // namespace pe::bench
