// SPDX-License-Identifier: MIT
#pragma once

/**
 * The machine's sgemm peak as OpenBLAS measures it on its own threads: the best of three
 * cblas_sgemm 2048³ products after a warm-up, in GFLOP/s; 0 when the benchmark is built
 * without OpenBLAS (PE_HAVE_OPENBLAS). Shared by the benchmarks that print figures beside the
 * peak.
 */

#include <algorithm>
#include <chrono>
#include <vector>

#ifdef PE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace pe::bench {

inline double openBlasSgemmGflops(int threads) {
#ifdef PE_HAVE_OPENBLAS
    using Clock = std::chrono::steady_clock;
    const int n = 2048;
    std::vector<float> a(std::size_t(n) * n, 0.5f), b(std::size_t(n) * n, 0.25f),
        c(std::size_t(n) * n);
    double best = 1e300;
    openblas_set_num_threads(threads);
    for (int rep = 0; rep < 4; ++rep) {
        const auto t0 = Clock::now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
        if (rep > 0)
            best = std::min(best,
                            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    openblas_set_num_threads(1);
    return 2.0 * n * double(n) * n / (1e6 * best);
#else
    (void)threads;
    return 0.0;
#endif
}

} // namespace pe::bench
