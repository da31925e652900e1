// SPDX-License-Identifier: MIT
// GL backend against the CPU reference: ms per forward pass, one JSON object per line.
//
//   pe_bench_gl [--scheme S] [--d D] [--heads H] [--clip K] [--reps R] [--pool RES]
//               [--cpu-max N] [--full-max N] [--fast-max N] [--threads T] [n ...]
//               (defaults: t5, 512, 8, 16, 3, 512, 2048, 4096, 16384, all hardware threads, 1024)
//
// For each n: "gl_full_ms" (compute(): every tensor read back), "gl_pooled_ms"
// (computePooled(): logits/weights pooled to RES×RES on the GPU, the large-n path; full
// read-back is skipped above --full-max, since it holds every n×n tensor in host memory),
// "fast_full_ms" and "fast_pooled_ms" (the fast CPU engine on T threads, the same two requests,
// measured in the same run on the same host: the ratio the README states; full skipped above
// --full-max, both above --fast-max) and "cpu_ms" (pe::computeTrace, the single-threaded
// reference, skipped above --cpu-max); skipped runs print −1. "gl_pooled_fused" says whether
// the GPU pooled through the fused pass (PE_GL_FUSED_POOL=0: the chunked passes, to compare).
// "gemm_gflop" counts the products (8·n·d² + 4·n²·d) and "gl_pooled_gflops" is that over
// gl_pooled_ms. Each figure is the median of R runs after one warm-up (shader compilation,
// first-touch buffers). --clip sets Shaw's k and DeBERTa's span. The first line names the GL
// renderer and the CPU engine.

#include "backend.h"
#include "cpu/cpu_fast_backend.h"
#include "gl_backend.h"
#include "trace.h"
#include "weights.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace pe;

namespace {

double medianMs(int reps, const std::function<bool()>& run) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!run())
            return -1;
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::string jsonEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

int usage() {
    std::fprintf(stderr, "usage: pe_bench_gl [--scheme S] [--d D] [--heads H] [--clip K] "
                         "[--reps R] [--pool RES] [--cpu-max N] [--full-max N] [--fast-max N] "
                         "[--threads T] [n ...]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    Params base;
    base.scheme = Scheme::T5;
    base.d = 512;
    base.heads = 8;
    int reps = 3, pool = 512, cpuMax = 2048, fullMax = 4096, fastMax = 16384, threads = 0;
    std::vector<int> sizes;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        auto next = [&]() -> const char* { return a + 1 < argc ? argv[++a] : nullptr; };
        const char* v = nullptr;
        if (arg == "--scheme" && (v = next())) {
            auto s = schemeFromString(v);
            if (!s)
                return usage();
            base.scheme = *s;
        } else if (arg == "--d" && (v = next())) {
            base.d = std::atoi(v);
        } else if (arg == "--heads" && (v = next())) {
            base.heads = std::atoi(v);
        } else if (arg == "--clip" && (v = next())) {
            base.clip = std::atoi(v);
        } else if (arg == "--reps" && (v = next())) {
            reps = std::max(1, std::atoi(v));
        } else if (arg == "--pool" && (v = next())) {
            pool = std::atoi(v);
        } else if (arg == "--cpu-max" && (v = next())) {
            cpuMax = std::atoi(v);
        } else if (arg == "--full-max" && (v = next())) {
            fullMax = std::atoi(v);
        } else if (arg == "--fast-max" && (v = next())) {
            fastMax = std::atoi(v);
        } else if (arg == "--threads" && (v = next())) {
            threads = std::atoi(v);
        } else if (!arg.empty() && arg[0] != '-') {
            sizes.push_back(std::atoi(arg.c_str()));
        } else {
            return usage();
        }
    }
    if (sizes.empty())
        sizes = {1024};

    QString why;
    auto gl = GlBackend::create(&why);
    if (!gl) {
        std::printf("{\"error\":\"%s\"}\n", jsonEscape(why.toStdString()).c_str());
        return 1;
    }
    CpuFastBackend fast(threads);
    std::printf("{\"renderer\":\"%s\",\"cpu\":\"%s\",\"scheme\":\"%s\",\"d\":%d,"
                "\"heads\":%d,\"clip\":%d}\n",
                jsonEscape(gl->device().toStdString()).c_str(),
                jsonEscape(fast.device().toStdString()).c_str(),
                std::string(toString(base.scheme)).c_str(), base.d, base.heads, base.clip);
    std::fflush(stdout);

    for (int n : sizes) {
        Params p = base;
        p.n = n;
        p.learnedRows = std::max(p.learnedRows, n);
        if (Status s = validate(p); !s) {
            std::printf("{\"n\":%d,\"error\":\"%s\"}\n", n, jsonEscape(s.error().message).c_str());
            continue;
        }
        Weights w;
        completeWeights(p, w);
        std::string err;
        auto runFull = [&] {
            auto t = gl->compute(p, w);
            if (!t.ok() || !gl->lastFallbackReason().isEmpty()) {
                err = t.ok() ? gl->lastFallbackReason().toStdString() : t.error().message;
                return false;
            }
            return true;
        };
        auto runPooled = [&] {
            auto t = gl->computePooled(p, w, pool);
            if (!t.ok())
                err = t.error().message;
            return t.ok();
        };
        runPooled(); // warm-up: shader compilation
        const double pooledMs = medianMs(reps, runPooled);
        const bool pooledFused = gl->lastPoolFused();
        const double fullMs = err.empty() && n <= fullMax ? medianMs(reps, runFull) : -1;
        double fastPooledMs = -1, fastFullMs = -1;
        if (n <= fastMax) {
            PoolRequest req;
            req.resolution = pool;
            auto fastPooled = [&] { return fast.computePooled(p, w, req).ok(); };
            fastPooled(); // warm-up
            fastPooledMs = medianMs(reps, fastPooled);
            if (n <= fullMax) {
                auto fastFull = [&] {
                    auto t = fast.compute(p, w);
                    if (!t.ok())
                        return false;
                    fast.recycle(std::move(*t)); // buffers reused, as the window does
                    return true;
                };
                fastFull();
                fastFullMs = medianMs(reps, fastFull);
            }
        }
        double cpuMs = -1;
        if (n <= cpuMax)
            cpuMs = medianMs(1, [&] { return computeTrace(p, w).ok(); });
        const double nn = n, dd = p.d;
        const double gflop = (8.0 * nn * dd * dd + 4.0 * nn * nn * dd) * 1e-9;
        std::printf("{\"n\":%d,\"gl_pooled_ms\":%.2f,\"gl_full_ms\":%.2f,\"fast_pooled_ms\":%.2f,"
                    "\"fast_full_ms\":%.2f,\"cpu_ms\":%.2f,\"pool\":%d,\"gemm_gflop\":%.1f,"
                    "\"gl_pooled_gflops\":%.0f,\"gl_pooled_fused\":%s",
                    n, pooledMs, fullMs, fastPooledMs, fastFullMs, cpuMs, pool, gflop,
                    pooledMs > 0 ? gflop / pooledMs * 1e3 : -1.0, pooledFused ? "true" : "false");
        if (!err.empty())
            std::printf(",\"error\":\"%s\"", jsonEscape(err).c_str());
        std::printf("}\n");
        std::fflush(stdout);
    }
    return 0;
}
