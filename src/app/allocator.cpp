// SPDX-License-Identifier: MIT
#include "allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <QCoreApplication>
#include <QTimer>

namespace pe {

void trimMemoryWhenIdle() {
#if defined(__GLIBC__)
    static QTimer* timer = [] {
        auto* t = new QTimer(QCoreApplication::instance());
        t->setSingleShot(true);
        t->setInterval(kTrimAfterMs);
        QObject::connect(t, &QTimer::timeout, [] { malloc_trim(0); });
        return t;
    }();
    timer->start();
#endif
}

void tuneAllocatorForLongSessions() {
#if defined(__GLIBC__)
    // Setting either also turns off glibc's dynamic adjustment of both.
    // 4 MB: an interactive change at n = 512 allocates blocks of 0.3–2 MB (the engine's
    // tables, the views' grids and images); mapped fresh each time, their zero-filled pages
    // cost this 2-vCPU VM 3–5 ms of CPU per change (engine 6.4–7.2 → 5.4–5.9 ms in the window).
    // Larger blocks (n² tensors) are still mapped and handed back when freed.
    mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
    // 8 MB (was 1 MB): the views' grids (a 512² map pooled in place: 2 MB, zero-filled) were
    // handed back to the system at every free at the heap's top and faulted in again at the
    // next change: 5 % of the GUI thread's time on the logit-terms tab. The idle trim
    // (trimMemoryWhenIdle) still returns what stays free once the window is quiet. (32 MB kept
    // more between the short soak's quiet points: growth after action 100 of 14–34 MB against
    // 6–15 MB with 8 and −2–10 MB with 1.)
    mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
    // Two arenas: the GUI thread's and one that the worker, pool and engine threads share.
    // glibc's default, 8 per core, spreads the window's many threads' frees over up to 16
    // arenas here, each keeping its own free fragments: the 10,000-action soak ended with
    // 34 MB free in the arenas instead of 72 (growth from action 500 +40 MB instead of +74).
    // The engine's hot loops do not allocate (their buffers are preallocated or mmapped).
    mallopt(M_ARENA_MAX, 2);
#endif
}

} // namespace pe
