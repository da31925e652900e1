// SPDX-License-Identifier: MIT
// Usage: pe-bench-tiles [--n 16384] [--dh 64] [--blocks 4] [--repeat 15] [--tile 512]
//                       [--norm softmax|l2|exp|relu2] [--bias] [--pool 1024]
//
// The fused tile pass of the pooled path (cpu::attendTiles) alone, on one thread: one head's
// blocks of --rows (128) query rows against n keys, with a per-offset bias table (T5, ALiBi) when
// --bias and the logits and weights pooled to --pool cells per side (0: none). Denormals are
// flushed, as in the engine. One JSON line: `ms_min`, `ms_median`, `products_gflops`
// (4·rows·n·dh per block at ms_min) and `pct_peak` against `sgemm_1thread_gflops`, the best of
// OpenBLAS's and the engine's single-threaded 2048³ product measured in the same run
// (sgemm_peak.h: OpenBLAS alone reads a fifth of the machine where it does not know the CPU).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "cpu_attention_tiles.h"
#include "cpu_gemm.h"
#include "sgemm_peak.h"
#include "stats.h"
#include "tensor.h"

namespace {

struct Options {
    int n = 16384;
    int dh = 64;
    int blocks = 4;
    int repeat = 15;
    int tile = 512;
    int norm = 0; // pe::Normaliser: softmax 0, exp 1, l2 2, relu2 3
    bool bias = false;
    int pool = 1024;
    int rows = 128; // query rows per block, as the engine's rowBlockSize at n ≥ 1024
};

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "pe-bench-tiles: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--n")
            o.n = std::atoi(next().c_str());
        else if (a == "--dh")
            o.dh = std::atoi(next().c_str());
        else if (a == "--blocks")
            o.blocks = std::atoi(next().c_str());
        else if (a == "--repeat")
            o.repeat = std::atoi(next().c_str());
        else if (a == "--tile")
            o.tile = std::atoi(next().c_str());
        else if (a == "--bias")
            o.bias = true;
        else if (a == "--pool")
            o.pool = std::atoi(next().c_str());
        else if (a == "--rows")
            o.rows = std::atoi(next().c_str());
        else if (a == "--norm") {
            const std::string v = next();
            o.norm = v == "softmax" ? 0 : v == "exp" ? 1 : v == "l2" ? 2 : v == "relu2" ? 3 : -1;
            if (o.norm < 0) {
                std::fprintf(stderr, "pe-bench-tiles: --norm is softmax, l2, exp or relu2\n");
                return 2;
            }
        } else {
            std::fprintf(stderr,
                         "pe-bench-tiles [--n 16384] [--dh 64] [--blocks 4] [--repeat 15] "
                         "[--tile 512]\n               [--norm softmax|l2|exp|relu2] [--bias] "
                         "[--pool 1024] [--rows 128]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    // OpenBLAS's own kernels where it does not know the CPU, as the CLI, the window and
    // pe-bench-pooled choose them (cpu_gemm.h): otherwise the peak is its SSE3 fallback's.
    pe::cpu::chooseGemmLibraryKernels();
#if defined(__SSE__) || defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | 0x8040u); // flush-to-zero, denormals-are-zero: as the engine runs
#endif
    const int rows = o.rows;
    if (rows < 1 || o.n < rows * o.blocks || o.dh < 1 || o.dh > 1024 || o.repeat < 1 ||
        o.tile < 1 || o.pool < 0 || o.pool > o.n) {
        std::fprintf(stderr,
                     "pe-bench-tiles: need rows ≥ 1, n ≥ rows·blocks, 1 ≤ dh ≤ 1024, repeat ≥ 1, "
                     "tile ≥ 1, 0 ≤ pool ≤ n\n");
        return 2;
    }
    const int n = o.n, dh = o.dh;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto fill = [&](std::vector<float>& v) {
        for (float& x : v)
            x = normal(rng);
    };
    std::vector<float> q(static_cast<std::size_t>(rows) * o.blocks * dh),
        k(static_cast<std::size_t>(n) * dh), v(static_cast<std::size_t>(n) * dh),
        bias(static_cast<std::size_t>(2 * n - 1));
    fill(q);
    fill(k);
    fill(v);
    fill(bias);
    pe::TensorBuffer<float> panels(static_cast<std::size_t>(pe::cpu::panelFloats(n, dh)));
    pe::cpu::packPanels(k.data(), n, dh, dh, panels.data());
    pe::TensorBuffer<float> chunks(static_cast<std::size_t>(pe::cpu::valueChunkFloats(n, dh)));
    pe::cpu::packValueChunks(v.data(), n, dh, dh, chunks.data());

    const int R = o.pool;
    std::vector<int> limit(rows, n), colStart(static_cast<std::size_t>(R) + 1), rowCell(rows);
    for (int c = 0; c <= R; ++c)
        colStart[static_cast<std::size_t>(c)] =
            static_cast<int>(static_cast<long long>(c) * n / std::max(R, 1));
    const int cellRows = R > 0 ? rows * R / n + 2 : 0;
    std::vector<float> logitCells(static_cast<std::size_t>(cellRows) * R),
        weightCells(logitCells.size()), out(static_cast<std::size_t>(rows) * dh);
    std::vector<std::int32_t> counts(logitCells.size());

    pe::cpu::TileAttention t;
    t.n = n;
    t.dh = dh;
    t.rows = rows;
    t.keyPanels = panels.data();
    t.valueChunks = chunks.data();
    t.valueChunkKeys = n;
    t.scale = 0.125f;
    t.norm = o.norm;
    t.relu2Denominator = static_cast<float>(n);
    t.limit = limit.data();
    t.tileCols = o.tile;
    t.out = out.data();
    if (o.bias)
        t.addOffsets = bias.data();
    if (R > 0) {
        t.c0 = 0;
        t.c1 = n;
        t.cells = R;
        t.colStart = colStart.data();
        t.rowCell = rowCell.data();
        t.logitCells = logitCells.data();
        t.logitCounts = counts.data();
        t.weightCells = weightCells.data();
    }
    auto pass = [&] {
        const auto start = std::chrono::steady_clock::now();
        for (int b = 0; b < o.blocks; ++b) {
            t.row0 = b * rows;
            t.q = q.data() + static_cast<std::size_t>(b) * rows * dh;
            const int firstCell =
                R > 0 ? static_cast<int>(static_cast<long long>(t.row0) * R / n) : 0;
            for (int r = 0; r < rows; ++r)
                rowCell[static_cast<std::size_t>(r)] =
                    R > 0 ? static_cast<int>(static_cast<long long>(t.row0 + r) * R / n) - firstCell
                          : 0;
            pe::cpu::attendTiles(t);
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    };
    pass(); // warm-up: scratch, page faults
    std::vector<double> ms;
    for (int rep = 0; rep < o.repeat; ++rep)
        ms.push_back(pass());
    const double peak = pe::bench::sgemmPeak(1);
    const double gflop = 4.0 * rows * double(n) * dh * o.blocks / 1e9;
    const double best = *std::min_element(ms.begin(), ms.end());
    const double gflops = gflop / (best / 1e3);
    std::printf("{\"bench\":\"tiles\",\"n\":%d,\"dh\":%d,\"blocks\":%d,\"rows\":%d,"
                "\"tile\":%d,\"norm\":%d,\"bias\":%s,\"pool\":%d,\"repeat\":%d,"
                "\"ms_min\":%.2f,\"ms_median\":%.2f,\"products_gflops\":%.1f,"
                "\"sgemm_1thread_gflops\":%.1f,\"pct_peak\":%.1f}\n",
                n, dh, o.blocks, rows, o.tile, o.norm, o.bias ? "true" : "false", R, o.repeat, best,
                pe::bench::median(ms), gflops, peak, peak > 0 ? 100.0 * gflops / peak : 0.0);
    return 0;
}
