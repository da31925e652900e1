// SPDX-License-Identifier: MIT
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>

#include "main_window.h"
#include "params_panel.h"
#include "settings.h"

using namespace pe;

class TestSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void defaultsAreTheFirstView();
    void valuesRoundTrip();
    void windowRestoresLastParameters();
};

void TestSettings::initTestCase() {
    QStandardPaths::setTestModeEnabled(true); // never touch the user's settings
    QCoreApplication::setOrganizationName(QStringLiteral("pe-explorer-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_settings"));
}

void TestSettings::init() {
    QSettings().clear();
}

void TestSettings::defaultsAreTheFirstView() {
    const Settings s;
    const Session d = s.lastSession();
    QVERIFY(d == Settings::defaultSession());
    QVERIFY(d.params.scheme == Scheme::Sinusoidal);
    QCOMPARE(d.params.n, 64);
    QCOMPARE(d.params.d, 128);
    QCOMPARE(d.params.heads, 4);
    QCOMPARE(s.exportDpi(), 300);
    QVERIFY(s.colorMap() == ColorMapKind::Auto);
}

void TestSettings::valuesRoundTrip() {
    Settings s;
    Session x = Settings::defaultSession();
    x.params.scheme = Scheme::T5;
    x.params.buckets = 16;
    x.params.seed = 42;
    x.input.kind = InputKind::Text;
    x.input.text = QStringLiteral("hello world");
    s.setLastSession(x);
    s.setColorMap(ColorMapKind::Magma);
    s.setPoolMode(PoolMode::Max);
    s.setExportDpi(5000); // clamped on read
    const Settings t;
    QVERIFY(t.lastSession() == x);
    QVERIFY(t.colorMap() == ColorMapKind::Magma);
    QVERIFY(t.poolMode() == PoolMode::Max);
    QCOMPARE(t.exportDpi(), 1200);
    QCOMPARE(t.cpuThreads(), 0); // one per core unless chosen
    s.setCpuThreads(3);
    QCOMPARE(Settings().cpuThreads(), 3);
    for (BackendKind k : {BackendKind::OpenGL, BackendKind::CpuReference, BackendKind::CpuFast}) {
        s.setBackend(k);
        QVERIFY(Settings().backend() == k);
    }
}

void TestSettings::windowRestoresLastParameters() {
    {
        MainWindow w(Settings().lastSession(), /*persist=*/true);
        w.show();
        w.panel()->widthBox()->setValue(48);
        QVERIFY(QTest::qWaitFor([&] { return w.shownParams() && w.shownParams()->d == 48; }, 8000));
        w.close();
    }
    MainWindow again(Settings().lastSession(), true);
    QCOMPARE(again.panel()->params().d, 48);
    QVERIFY(
        QTest::qWaitFor([&] { return again.shownParams() && again.shownParams()->d == 48; }, 8000));
}

QTEST_MAIN(TestSettings)
#include "tst_settings.moc"
