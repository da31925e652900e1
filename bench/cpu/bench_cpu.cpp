// SPDX-License-Identifier: MIT
// pe-bench-cpu: times full forward passes (every tensor of the trace materialised) of the fast
// CPU engine, and optionally the reference, printing one JSON line per configuration.
//
//   pe-bench-cpu [--repeat R] [--threads T] [--n 2048,4096] [--d 512] [--heads 8]
//                [--schemes none,t5,shaw,...] [--reference] [--gemm-peak]
//
// Fields: engine, scheme, n, d, heads, threads, repeat, ms_median, ms_min, ms_first (the first,
// cold run: fresh buffers), gflops (8·n·d² + 4·n²·d over the median).

#include "backend.h"
#include "cpu_fast_backend.h"
#include "cpu_gemm.h"
#include "weights.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void gemmPeak(int threads) {
    const int m = 2048, n = 2048, k = 2048;
    std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f),
        b(static_cast<std::size_t>(k) * n, 0.25f), c(static_cast<std::size_t>(m) * n);
    std::vector<double> times;
    for (int rep = 0; rep < 5; ++rep) {
        const double t0 = nowMs();
        const int blk = (m + threads - 1) / threads;
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const int r0 = t * blk, rows = std::min(blk, m - r0);
                if (rows > 0)
                    cpu::gemmAB(rows, n, k, 1.0f, a.data() + static_cast<std::size_t>(r0) * k, k,
                                b.data(), n, 0.0f, c.data() + static_cast<std::size_t>(r0) * n, n);
            });
        for (std::thread& t : pool)
            t.join();
        times.push_back(nowMs() - t0);
    }
    const double ms = median(times);
    std::printf("{\"engine\":\"sgemm\",\"target\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"threads\":%d,"
                "\"ms_median\":%.3f,\"gflops\":%.1f}\n",
                cpu::gemmTarget(), m, n, k, threads, ms, 2.0 * m * n * k / (ms * 1e6));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    int repeat = 5;
    int threads = 0;
    int d = 512;
    int heads = 8;
    bool withReference = false;
    bool peak = false;
    int rowBlock = 0;
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
        else if (a == "--reference")
            withReference = true;
        else if (a == "--gemm-peak")
            peak = true;
        else if (a == "--help" || a == "-h") {
            std::printf(
                "pe-bench-cpu [--repeat R] [--threads T] [--n 2048,4096] [--d 512] [--heads 8]\n"
                "             [--schemes none,t5,shaw,...] [--reference] [--gemm-peak] "
                "[--row-block R]\n");
            return 0;
        } else {
            std::fprintf(stderr, "pe-bench-cpu: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    CpuFastBackend fast(threads);
    threads = fast.threads();
    fast.setRowBlock(rowBlock);
    std::fprintf(stderr, "device: %s\n", qPrintable(fast.device()));
    if (peak)
        gemmPeak(threads);

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
            if (Status s = validate(p); !s) {
                std::fprintf(stderr, "pe-bench-cpu: %s\n", s.error().message.c_str());
                return 2;
            }
            Weights w;
            completeWeights(p, w);
            const double flops = 8.0 * p.n * double(d) * d + 4.0 * double(p.n) * p.n * d;

            struct Engine {
                const char* name;
                Backend* backend;
                int threads;
                int repeat;
            };
            CpuReferenceBackend ref;
            std::vector<Engine> engines{{"fast", &fast, threads, repeat}};
            if (withReference)
                engines.push_back({"reference", &ref, 1, std::min(repeat, 2)});
            for (const Engine& e : engines) {
                std::vector<double> times;
                double first = 0.0;
                for (int r = 0; r < e.repeat + 1; ++r) {
                    const double t0 = nowMs();
                    Expected<Trace> t = e.backend->compute(p, w);
                    const double ms = nowMs() - t0;
                    if (!t.ok()) {
                        std::fprintf(stderr, "pe-bench-cpu: %s\n", t.error().message.c_str());
                        return 1;
                    }
                    if (r == 0)
                        first = ms;
                    else
                        times.push_back(ms);
                    if (e.backend == &fast)
                        fast.recycle(std::move(*t));
                }
                const double med = median(times);
                std::printf("{\"engine\":\"%s\",\"scheme\":\"%s\",\"n\":%d,\"d\":%d,\"heads\":%d,"
                            "\"threads\":%d,\"repeat\":%d,\"ms_median\":%.3f,\"ms_min\":%.3f,"
                            "\"ms_first\":%.3f,\"gflops\":%.2f}\n",
                            e.name, sName.c_str(), p.n, d, heads, e.threads, e.repeat, med,
                            *std::min_element(times.begin(), times.end()), first,
                            flops / (med * 1e6));
                std::fflush(stdout);
            }
            fast.recycle(Trace{}); // nothing; keeps the pool for the next size
        }
    }
    return 0;
}
