// SPDX-License-Identifier: MIT
// The window's idle trim: free memory that malloc keeps resident in fragments goes back to the
// system once the window has been quiet for kTrimAfterMs, and not while calls keep coming.
#include <QTest>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "allocator.h"
#include "memory_budget.h"

using namespace pe;

namespace {

/** RssAnon of this process in MB. */
double anonymousMb() {
    return static_cast<double>(procFieldBytes("/proc/self/status", "RssAnon:").value_or(0)) /
           (1024.0 * 1024.0);
}

} // namespace

class TestAllocator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void idleTrimReturnsFreedFragments();
};

void TestAllocator::idleTrimReturnsFreedFragments() {
#if !defined(__GLIBC__)
    QSKIP("the trim is glibc's");
#elif defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("a sanitizer's allocator replaces glibc's malloc here: nothing for malloc_trim");
#else
    tuneAllocatorForLongSessions(); // as the window: 100 KB blocks come from the arenas
    // 64 MB in 100 KB blocks, each followed by a small block that stays: freed, they are free
    // chunks in the middle of the heap, which free() never returns.
    std::vector<void*> big, keep;
    for (int k = 0; k < 640; ++k) {
        big.push_back(std::malloc(100 * 1024));
        std::memset(big.back(), 1, 100 * 1024);
        keep.push_back(std::malloc(64));
    }
    const double touched = anonymousMb();
    for (void* p : big)
        std::free(p);
    const double freed = anonymousMb();
    QVERIFY2(touched - freed < 16, qPrintable(QStringLiteral("%1 -> %2").arg(touched).arg(freed)));
    // Calls keep coming: no trim yet.
    for (int k = 0; k < 4; ++k) {
        trimMemoryWhenIdle();
        QTest::qWait(kTrimAfterMs / 4);
    }
    QVERIFY(anonymousMb() > freed - 16);
    QTest::qWait(kTrimAfterMs + 500); // quiet: trimmed
    const double trimmed = anonymousMb();
    QVERIFY2(freed - trimmed > 48, qPrintable(QStringLiteral("%1 -> %2").arg(freed).arg(trimmed)));
    for (void* p : keep)
        std::free(p);
#endif
}

QTEST_GUILESS_MAIN(TestAllocator)
#include "tst_allocator.moc"
