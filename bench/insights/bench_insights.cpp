// SPDX-License-Identifier: MIT
// pe-bench-insights: the cost page's measurement (measureAttentionCost) as a benchmark: one
// attention layer on the fast CPU engine at n = 128 … 16384 (pooled above 2048, as the window's
// worker computes), the fitted exponent of time against n for n ≥ 1024 (quadratic attention: near
// 2; the issue asks for 1.6 … 2.4), beside the machine's sgemm peak. JSON lines:
//
//   pe-bench-insights [--n-max 16384] [--d 64] [--heads 4] [--scheme none] [--threads T]
//                     [--repeat 3] [--fit-from 1024]
//
// First line: the machine's sgemm peak (2048³; OpenBLAS on its own threads where built, else
// Eigen on one thread per share of the rows). Then one line per n: ms (fastest of --repeat),
// pooled, gflops = (8·n·d² + 4·n²·d) / ms and its share of the peak. Last line: the exponent.

#include "backend.h"
#include "insights_engine.h"
#include "openblas_peak.h"

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

using namespace pe;

namespace {

double nowMs() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/** GFLOP/s of the best of 3 square sgemms of size 2048: OpenBLAS's, else Eigen's. */
double sgemmPeak(int threads) {
    if (const double openBlas = bench::openBlasSgemmGflops(threads); openBlas > 0)
        return openBlas;
    const int n = 2048;
    const double flops = 2.0 * n * double(n) * n;
    double best = 1e300;
    const Eigen::MatrixXf a = Eigen::MatrixXf::Constant(n, n, 0.5f);
    const Eigen::MatrixXf b = Eigen::MatrixXf::Constant(n, n, 0.25f);
    Eigen::MatrixXf c(n, n);
    for (int rep = 0; rep < 4; ++rep) {
        const double t0 = nowMs();
        c.noalias() = a * b;
        if (rep > 0)
            best = std::min(best, nowMs() - t0);
    }
    return flops / (1e6 * best);
}

int intArg(const char* v) {
    return std::atoi(v);
}

} // namespace

int main(int argc, char** argv) {
    Params p;
    p.scheme = Scheme::None;
    p.d = 64;
    p.heads = 4;
    CostMeasureOptions o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--n-max")
            o.nMax = intArg(argv[i + 1]);
        else if (a == "--d")
            p.d = intArg(argv[i + 1]);
        else if (a == "--heads")
            p.heads = intArg(argv[i + 1]);
        else if (a == "--threads")
            o.threads = intArg(argv[i + 1]);
        else if (a == "--repeat")
            o.repeats = intArg(argv[i + 1]);
        else if (a == "--fit-from")
            o.fitFrom = std::atof(argv[i + 1]);
        else if (a == "--scheme") {
            const auto s = schemeFromString(argv[i + 1]);
            if (!s) {
                std::fprintf(stderr, "pe-bench-insights: unknown scheme %s\n", argv[i + 1]);
                return 2;
            }
            p.scheme = *s;
        } else {
            std::fprintf(stderr, "pe-bench-insights: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    const int threads = o.threads > 0
                            ? o.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const double peak = sgemmPeak(threads);
    std::printf("{\"engine\":\"machine\",\"threads\":%d,\"sgemm_peak_gflops\":%.1f}\n", threads,
                peak);
    std::fflush(stdout);
    const auto m = measureAttentionCost(
        p, o, [](int done, int total) { std::fprintf(stderr, "\r%d/%d", done, total); });
    std::fprintf(stderr, "\n");
    if (!m) {
        std::fprintf(stderr, "pe-bench-insights: %s\n", m.error().message.c_str());
        return 1;
    }
    for (std::size_t i = 0; i < m->n.size(); ++i) {
        const double n = m->n[i], d = p.d;
        const double gflops = (8 * n * d * d + 4 * n * n * d) / (1e6 * m->ms[i]);
        std::printf("{\"scheme\":\"%s\",\"n\":%d,\"d\":%d,\"heads\":%d,\"pooled\":%s,\"ms\":%.3f,"
                    "\"gflops\":%.2f,\"pct_sgemm_peak\":%.1f}\n",
                    std::string(toString(p.scheme)).c_str(), m->n[i], p.d, p.heads,
                    m->pooled[i] ? "true" : "false", m->ms[i], gflops, 100 * gflops / peak);
    }
    std::printf(
        "{\"exponent\":%.3f,\"fit_from_n\":%.0f,\"engine\":\"%s\",\"in_range_1.6_2.4\":%s}\n",
        m->exponent, m->fitFrom, m->engine.toStdString().c_str(),
        (m->exponent >= 1.6 && m->exponent <= 2.4) ? "true" : "false");
    return 0;
}
