// SPDX-License-Identifier: MIT
// Help in the window: About this scheme for every scheme, Help → About, and the first-run tour
// (shown once on a persistent window, moving the tabs, remembered when dismissed).
#include <QAction>
#include <QCheckBox>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "help.h"
#include "main_window.h"
#include "settings.h"
#include "trace_views.h"

using namespace pe;

class TestHelp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everySchemeHasHelp();
    void helpMenu();
    void tourMovesTheTabs();
    void tourShownOnceAtFirstStart();

private:
    QTemporaryDir m_settingsDir;
};

void TestHelp::initTestCase() {
    // Settings in a folder of this run only: never the user's, nor another run's in parallel.
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("pe-explorer-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_help"));
    QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7"));
    QSettings().clear();
}

void TestHelp::everySchemeHasHelp() {
    QStringList names;
    for (Scheme s : allSchemes()) {
        const SchemeHelp h = schemeHelp(s);
        const QByteArray id = QByteArray::fromStdString(std::string(toString(s)));
        QVERIFY2(!h.name.isEmpty() && !h.formula.isEmpty() && !h.paper.isEmpty() &&
                     !h.lookAt.isEmpty() && !h.article.isEmpty(),
                 id.constData());
        QVERIFY2(!names.contains(h.name), id.constData()); // not one text for all
        names << h.name;
        const QString html = schemeHelpHtml(s);
        for (const QString& part : {h.name, h.formula, h.paper, h.lookAt})
            QVERIFY2(html.contains(part), id.constData());
    }
    QVERIFY(schemeHelp(Scheme::T5).paper.contains(QLatin1String("Raffel")));
    QVERIFY(schemeHelp(Scheme::ALiBi).formula.contains(QStringLiteral("|i − j|")));
    QVERIFY(schemeHelp(Scheme::Shaw).article.contains(QLatin1String("2021")));
}

void TestHelp::helpMenu() {
    MainWindow w(Settings::defaultSession(), /*persist=*/false);
    QMenu* help = nullptr;
    for (QAction* a : w.menuBar()->actions())
        if (a->text() == QLatin1String("&Help"))
            help = a->menu();
    QVERIFY(help);
    QCOMPARE(w.menuBar()->actions().last()->menu(), help); // Help comes last
    QVERIFY(w.findChild<QAction*>(QStringLiteral("aboutSchemeAction")));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("tourAction")));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("aboutAction")));
    // The scheme help follows the panel's scheme.
    QVERIFY(w.schemeHelpText().contains(QLatin1String("Sinusoidal")));
    Session s = Settings::defaultSession();
    s.params.scheme = Scheme::T5;
    w.applySession(s);
    QVERIFY(w.schemeHelpText().contains(QLatin1String("T5 relative attention bias")));
    QVERIFY(aboutHtml().contains(QLatin1String("9.8.7")));
    QVERIFY(aboutHtml().contains(QLatin1String("MIT")));
    QVERIFY(aboutHtml().contains(QLatin1String("Eigen 3.")));
    // Not a persistent window: no tour pops up by itself.
    QTest::qWait(50);
    QVERIFY(!w.findChild<TourDialog*>());
}

void TestHelp::tourMovesTheTabs() {
    MainWindow w(Settings::defaultSession(), /*persist=*/false);
    w.show();
    TourDialog* t = w.showTour();
    QVERIFY(t->isVisible());
    QCOMPARE(t->page(), 0);
    QCOMPARE(w.views()->currentIndex(), 0);
    QVERIFY(!t->backButton()->isEnabled());
    t->nextButton()->click();
    QCOMPARE(t->page(), 1);
    QCOMPARE(w.views()->currentIndex(), 1);
    const int pages = static_cast<int>(tourPages().size());
    QCOMPARE(pages, w.views()->count()); // one page per tab
    for (int k = 1; k < pages - 1; ++k)
        t->nextButton()->click();
    QCOMPARE(t->page(), pages - 1);
    QCOMPARE(w.views()->currentIndex(), pages - 1);
    QCOMPARE(t->nextButton()->text(), QStringLiteral("&Done"));
    t->nextButton()->click();
    QVERIFY(!t->isVisible());
}

void TestHelp::tourShownOnceAtFirstStart() {
    QSettings().clear();
    {
        MainWindow w(Settings::defaultSession(), /*persist=*/true);
        w.show();
        QTRY_VERIFY(w.findChild<TourDialog*>() && w.findChild<TourDialog*>()->isVisible());
        TourDialog* t = w.findChild<TourDialog*>();
        QVERIFY(t->dontShowBox()->isChecked());
        t->reject(); // closed: remembered
    }
    QVERIFY(Settings().tourDone());
    {
        MainWindow w(Settings::defaultSession(), /*persist=*/true);
        w.show();
        QTest::qWait(100);
        QVERIFY(!w.findChild<TourDialog*>());
    }
    // "Don't show again" unticked: the tour comes back next time.
    QSettings().clear();
    {
        MainWindow w(Settings::defaultSession(), /*persist=*/true);
        w.show();
        QTRY_VERIFY(w.findChild<TourDialog*>());
        TourDialog* t = w.findChild<TourDialog*>();
        t->dontShowBox()->setChecked(false);
        t->accept();
    }
    QVERIFY(!Settings().tourDone());
    QSettings().clear();
}

QTEST_MAIN(TestHelp)
#include "tst_help.moc"
