// SPDX-License-Identifier: MIT
// The AVX registers' upper halves (vector_state.h): what dirties them, what clears them.
#include <QTest>

#include "upper_state.h"
#include "vector_state.h"

using namespace pe;

class TestVectorState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clearedAfter256BitCode();
};

void TestVectorState::clearedAfter256BitCode() {
    if (!upperVectorStateKnown())
        QSKIP("this CPU does not report the AVX state in use (XGETBV with ECX = 1)");
    clearUpperVectorState();
    QVERIFY(!upperVectorStateDirty());
    leaveUpperHalvesInUse();
    QVERIFY(upperVectorStateDirty());
    clearUpperVectorState();
    QVERIFY(!upperVectorStateDirty());
}

QTEST_GUILESS_MAIN(TestVectorState)
#include "tst_vector_state.moc"
