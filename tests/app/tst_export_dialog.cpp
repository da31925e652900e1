// SPDX-License-Identifier: MIT
#include <QComboBox>
#include <QSpinBox>
#include <QTest>

#include "export_dialog.h"

using namespace pe;

class TestExportDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void suffixFollowsTheFormat_data();
    void suffixFollowsTheFormat();
};

void TestExportDialog::suffixFollowsTheFormat_data() {
    QTest::addColumn<int>("what");
    QTest::addColumn<int>("format");
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<bool>("dpiEnabled");
    QTest::newRow("figure png") << 0 << 0 << QStringLiteral(".png") << true;
    QTest::newRow("figure pdf") << 0 << 2 << QStringLiteral(".pdf") << false;
    QTest::newRow("panel svg") << 1 << 1 << QStringLiteral(".svg") << false;
    QTest::newRow("matrix npy") << 2 << 0 << QStringLiteral(".npy") << false;
    QTest::newRow("matrix csv") << 2 << 1 << QStringLiteral(".csv") << false;
}

void TestExportDialog::suffixFollowsTheFormat() {
    QFETCH(int, what);
    QFETCH(int, format);
    QFETCH(QString, suffix);
    QFETCH(bool, dpiEnabled);
    ExportDialog dlg(QStringLiteral("/tmp/x"), 450);
    dlg.setWhat(static_cast<ExportDialog::What>(what));
    auto* fmt = dlg.findChild<QComboBox*>(QStringLiteral("format"));
    QVERIFY(fmt);
    fmt->setCurrentIndex(format);
    QVERIFY2(dlg.path().endsWith(suffix), qPrintable(dlg.path()));
    QVERIFY(dlg.path().startsWith(QLatin1String("/tmp/x/figure")));
    QCOMPARE(dlg.dpi(), 450);
    QCOMPARE(dlg.findChild<QSpinBox*>(QStringLiteral("dpi"))->isEnabled(), dpiEnabled);
    QVERIFY(dlg.what() == static_cast<ExportDialog::What>(what));
}

QTEST_MAIN(TestExportDialog)
#include "tst_export_dialog.moc"
