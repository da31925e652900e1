// SPDX-License-Identifier: MIT
// How long freeing a large tensor stops the other threads' mmap and munmap (a malloc of a few
// megabytes maps; so does a new tensor). The kernel frees a block's pages under the process's
// address-space lock: one munmap of the whole block held it until every page was freed, and a
// GUI thread that allocated meanwhile stood still (a 1 s gap in a soak run, after a multi-GB
// trace was let go). Tensor storage now goes back in pieces (detail::kUnmapPieceBytes).
//
//   pe-bench-unmap [--gb G] [--rounds R]
//
// For each of R rounds and each page size (transparent huge pages as a tensor asks for them,
// and 4 KB pages, which the kernel falls back to when it has no free 2 MB page), a G GB tensor
// is written and freed, then a G GB mapping of the same pages is freed by one munmap (the old
// way), while a second thread maps, touches and unmaps 1 MB every 0.2 ms. One JSON line per
// case: how long the free took and the probe's longest call while it ran.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tensor.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Probe {
    std::atomic<bool> stop{false};
    double worstMs = 0;
    long calls = 0;
    std::thread thread;

    void start() {
        thread = std::thread([this] {
            while (!stop.load()) {
                const auto t0 = Clock::now();
                void* q = ::mmap(nullptr, std::size_t{1} << 20, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (q != MAP_FAILED) {
                    static_cast<char*>(q)[0] = 1;
                    ::munmap(q, std::size_t{1} << 20);
                }
                worstMs = std::max(worstMs, msSince(t0));
                ++calls;
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
    }
    void finish() {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        stop.store(true);
        thread.join();
    }
};

void touch(char* p, std::size_t bytes) {
    for (std::size_t k = 0; k < bytes; k += 4096)
        p[k] = 1;
}

void report(const char* how, bool hugePages, double gb, double freeMs, const Probe& probe) {
    std::printf("{\"bench\":\"unmap\",\"free\":\"%s\",\"pages\":\"%s\",\"gb\":%.1f,"
                "\"free_ms\":%.1f,\"probe_worst_ms\":%.2f,\"probe_calls\":%ld}\n",
                how, hugePages ? "thp" : "4k", gb, freeMs, probe.worstMs, probe.calls);
    std::fflush(stdout);
}

/** Frees with `release` while the probe runs and reports how long that took and held it up. */
template <class Release>
void timeRelease(const char* how, bool hugePages, std::size_t bytes, Release release) {
    Probe probe;
    probe.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const auto t0 = Clock::now();
    release();
    const double ms = msSince(t0);
    probe.finish();
    report(how, hugePages, double(bytes) / (1 << 30), ms, probe);
}

void tensorCase(std::size_t bytes, bool hugePages) {
    auto t = std::make_unique<pe::Tensor>(pe::DType::F32,
                                          std::vector<std::int64_t>{std::int64_t(bytes / 4)});
    char* p = reinterpret_cast<char*>(t->data<float>());
    if (!hugePages)
        ::madvise(p, bytes, MADV_NOHUGEPAGE);
    touch(p, bytes);
    timeRelease("tensor, in pieces", hugePages, bytes, [&t] { t.reset(); }); // freeTensorBytes
}

void oneCallCase(std::size_t bytes, bool hugePages) {
    void* raw = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        std::fprintf(stderr, "mmap of %zu bytes failed\n", bytes);
        return;
    }
    ::madvise(raw, bytes, hugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    touch(static_cast<char*>(raw), bytes);
    timeRelease("one munmap", hugePages, bytes, [raw, bytes] { ::munmap(raw, bytes); });
}

} // namespace

int main(int argc, char** argv) {
    double gb = 2;
    int rounds = 2;
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--gb" && k + 1 < argc)
            gb = std::atof(argv[++k]);
        else if (a == "--rounds" && k + 1 < argc)
            rounds = std::atoi(argv[++k]);
        else {
            std::fprintf(stderr, "usage: pe-bench-unmap [--gb G] [--rounds R]\n");
            return 2;
        }
    }
    if (!(gb > 0) || rounds < 1) {
        std::fprintf(stderr, "--gb must be positive and --rounds at least 1\n");
        return 2;
    }
    const auto bytes = static_cast<std::size_t>(gb * double(1 << 30)) / 4096 * 4096;
    for (int r = 0; r < rounds; ++r)
        for (bool huge : {true, false}) {
            tensorCase(bytes, huge);
            oneCallCase(bytes, huge);
        }
    return 0;
}
