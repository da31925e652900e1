// SPDX-License-Identifier: MIT
// SPEC §12, row by row: which configurations can map n identical inputs to distinct outputs.
#include <QTest>

#include "probe.h"
#include "spec12_table.h"
#include "weights.h"

using namespace pe;

class TestProbe : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void table_data();
    void table();
    void learnedTableBeyondTheSequenceIsNotDrawn();
    void drawCountIsWhatTheProbeDraws();
};

void TestProbe::table_data() {
    QTest::addColumn<int>("row");
    const std::vector<testing::Spec12Row> rows = testing::spec12Rows();
    for (std::size_t k = 0; k < rows.size(); ++k)
        QTest::newRow(qPrintable(rows[k].name)) << static_cast<int>(k);
}

void TestProbe::table() {
    QFETCH(int, row);
    const testing::Spec12Row r = testing::spec12Rows()[static_cast<std::size_t>(row)];
    const ProbeResult res = runProbe(testing::spec12Params(r), 2, r.shawValues);
    const QByteArray msg = "spread " + QByteArray::number(res.spread, 'g', 3);
    if (r.broken)
        QVERIFY2(res.spread > kProbeBrokenThreshold && res.canTellApart, msg.constData());
    else
        QVERIFY2(res.spread <= kProbeIdenticalThreshold && !res.canTellApart, msg.constData());
}

// The probe draws the learned table for the sequence only (the window may ask for 2^20 rows):
// exact, because the table is drawn in row order, so its first rows do not depend on how many
// follow.
void TestProbe::learnedTableBeyondTheSequenceIsNotDrawn() {
    const Eigen::MatrixXd all = seededNormal(4096, 16, 7, "learned.table");
    const Eigen::MatrixXd first = seededNormal(10, 16, 7, "learned.table");
    QCOMPARE(Eigen::MatrixXd(all.topRows(10)), first);
    Params p;
    p.scheme = Scheme::Learned;
    p.n = 10;
    p.d = 16;
    p.heads = 2;
    p.seed = 7;
    p.learnedRows = 4096;
    const ProbeResult wide = runProbe(p, 2, true);
    p.learnedRows = 10;
    const ProbeResult tight = runProbe(p, 2, true);
    QCOMPARE(wide.spread, tight.spread);
    QVERIFY(wide.canTellApart);
}

// What the window decides by (ProbeBox: inline or on a pool thread): the input's token row and
// tables, then per layer the four projections, the key noise and the FFN (9·d²) and the scheme's
// relative tables; an absolute scheme's tables (an MLP encoding's) are drawn once, for the input.
void TestProbe::drawCountIsWhatTheProbeDraws() {
    Params p;
    p.n = 8;
    p.d = 128;
    p.heads = 4;
    p.scheme = Scheme::None;
    const std::int64_t d = p.d;
    QCOMPARE(probeDrawCount(p), d + 4 * d * d + 2 * 9 * d * d); // 22·d² + d
    QCOMPARE(probeDrawCount(p, 1), d + 4 * d * d + 9 * d * d);
    p.scheme = Scheme::Mlp;
    p.mlpFeatures = 256;
    p.mlpHidden = 3138;
    const std::int64_t F2 = 2 * 256, H = 3138;
    QCOMPARE(probeDrawCount(p), d + 22 * d * d + F2 * H + H + H * d + d); // 2.4 million
    p.scheme = Scheme::Shaw;
    p.clip = 5;
    const std::int64_t shaw = 2 * (2 * 5 + 1) * p.headDim(); // w_k and w_v
    QCOMPARE(probeDrawCount(p), d + 22 * d * d + 3 * shaw);
    p.scheme = Scheme::Learned;
    p.learnedRows = 1 << 20; // the probe draws the sequence's rows only
    QCOMPARE(probeDrawCount(p), d + 22 * d * d + std::int64_t{8} * d);
}

QTEST_GUILESS_MAIN(TestProbe)
#include "tst_probe.moc"
