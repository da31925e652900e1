// SPDX-License-Identifier: MIT
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include <limits>

#include "params_panel.h"
#include "seed_spin_box.h"

using namespace pe;

class TestSeedSpinBox : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void holdsTheWhole64BitRange();
    void stepsStopAtTheEnds();
    void typedTextIsValidated_data();
    void typedTextIsValidated();
    void panelRoundTripsLargeSeeds();
};

void TestSeedSpinBox::holdsTheWhole64BitRange() {
    SeedSpinBox box;
    QSignalSpy changed(&box, &SeedSpinBox::valueChanged);
    const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
    box.setValue(big);
    QCOMPARE(box.value(), big);
    QCOMPARE(box.text(), QStringLiteral("18446744073709551615"));
    QCOMPARE(changed.count(), 1);
    box.setValue(big); // no change, no signal
    QCOMPARE(changed.count(), 1);
}

void TestSeedSpinBox::stepsStopAtTheEnds() {
    SeedSpinBox box;
    box.stepBy(-5);
    QCOMPARE(box.value(), std::uint64_t{0});
    box.stepBy(3);
    QCOMPARE(box.value(), std::uint64_t{3});
    box.setValue(std::numeric_limits<std::uint64_t>::max() - 1);
    box.stepBy(10);
    QCOMPARE(box.value(), std::numeric_limits<std::uint64_t>::max());
}

void TestSeedSpinBox::typedTextIsValidated_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("state");
    QTest::newRow("2^31") << QStringLiteral("2147483648") << int(QValidator::Acceptable);
    QTest::newRow("2^64-1") << QStringLiteral("18446744073709551615")
                            << int(QValidator::Acceptable);
    QTest::newRow("2^64") << QStringLiteral("18446744073709551616") << int(QValidator::Invalid);
    QTest::newRow("negative") << QStringLiteral("-1") << int(QValidator::Invalid);
    QTest::newRow("letters") << QStringLiteral("12a") << int(QValidator::Invalid);
    QTest::newRow("empty") << QString() << int(QValidator::Intermediate);
}

void TestSeedSpinBox::typedTextIsValidated() {
    QFETCH(QString, text);
    QFETCH(int, state);
    SeedSpinBox box;
    int pos = 0;
    QCOMPARE(int(box.validate(text, pos)), state);
}

void TestSeedSpinBox::panelRoundTripsLargeSeeds() {
    ParamsPanel panel;
    Params p = panel.params();
    p.seed = (std::uint64_t{1} << 63) + 5;
    panel.setValues(p, InputChoice{});
    QCOMPARE(panel.params().seed, p.seed);
    // Typing a value and pressing Enter reaches the parameters.
    panel.show();
    QLineEdit* edit = panel.seedBox()->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("4294967296"));
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(panel.params().seed, std::uint64_t{4294967296});
}

QTEST_MAIN(TestSeedSpinBox)
#include "tst_seed_spin_box.moc"
