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
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
#endif
}

} // namespace pe
