// SPDX-License-Identifier: MIT
// SPEC §12, row by row: which configurations can map n identical inputs to distinct outputs.
#include <QTest>

#include "probe.h"
#include "spec12_table.h"

using namespace pe;

class TestProbe : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void table_data();
    void table();
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

QTEST_GUILESS_MAIN(TestProbe)
#include "tst_probe.moc"
