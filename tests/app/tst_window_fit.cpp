// SPDX-License-Identifier: MIT
// The window on a small screen: a declared minimum size of at most 1280×720, and at that size
// every plot and control of every tab on screen (the parameters panel scrolls vertically only).
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStatusBar>
#include <QTabBar>
#include <QTest>

#include "main_window.h"
#include "params_panel.h"
#include "qcp.h"
#include "stages.h"
#include "stepper_panel.h"
#include "trace_views.h"

using namespace pe;

namespace {

constexpr QSize kSmall(1280, 720);

/** Where a widget lies, for failure messages: class, object name and a tooltip or text. */
QString describe(const QWidget* w) {
    QString what = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        what += QLatin1Char('#') + w->objectName();
    if (const auto* b = qobject_cast<const QAbstractButton*>(w); b && !b->text().isEmpty())
        what += QStringLiteral(" \"%1\"").arg(b->text());
    else if (!w->toolTip().isEmpty())
        what += QStringLiteral(" (%1)").arg(w->toolTip().left(40));
    return what;
}

bool isPlotOrControl(const QWidget* w) {
    return qobject_cast<const QCustomPlot*>(w) || qobject_cast<const QAbstractButton*>(w) ||
           qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
           qobject_cast<const QSlider*>(w) || qobject_cast<const QScrollBar*>(w) ||
           qobject_cast<const QLineEdit*>(w) || qobject_cast<const QTabBar*>(w) ||
           qobject_cast<const QAbstractScrollArea*>(w);
}

/** The scroll area (a panel, a table, a list) `w` sits in, below `top`, if any. */
const QAbstractScrollArea* scrollAreaOf(const QWidget* w, const QWidget* top) {
    for (const QWidget* p = w->parentWidget(); p && p != top; p = p->parentWidget())
        if (const auto* s = qobject_cast<const QAbstractScrollArea*>(p))
            return s;
    return nullptr;
}

/**
 * Visible plots and controls of `top` that are not wholly inside it, or too small to use.
 * Widgets in a scroll area are reached by scrolling: the area and its scroll bars must fit.
 */
QStringList misplaced(const QWidget* top) {
    QStringList bad;
    const QRect inside = top->rect();
    const QList<QWidget*> all = top->findChildren<QWidget*>();
    for (const QWidget* w : all) {
        if (!w->isVisible() || !isPlotOrControl(w))
            continue;
        // Inside a scroll area: reachable by scrolling (the area itself must fit).
        if (scrollAreaOf(w, top))
            continue;
        const QRect r(w->mapTo(top, QPoint(0, 0)), w->size());
        const bool plot = qobject_cast<const QCustomPlot*>(w) != nullptr;
        const QSize least = plot ? QSize(120, 90) : QSize(8, 8);
        if (r.width() < least.width() || r.height() < least.height()) {
            bad << QStringLiteral("%1 is %2×%3").arg(describe(w)).arg(r.width()).arg(r.height());
            continue;
        }
        if (!inside.contains(r))
            bad << QStringLiteral("%1 at (%2, %3) %4×%5 is outside the window %6×%7")
                       .arg(describe(w))
                       .arg(r.x())
                       .arg(r.y())
                       .arg(r.width())
                       .arg(r.height())
                       .arg(inside.width())
                       .arg(inside.height());
    }
    return bad;
}

} // namespace

class TestWindowFit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void minimumSizeFitsASmallScreen();
    void everyTabFitsAtTheSmallSize_data();
    void everyTabFitsAtTheSmallSize();
    void tabBarShowsEveryTab();
    void parametersPanelScrollsDownOnly();
    void mapsStackWhenNarrow();
    void everyStepperStageFits();

private:
    void showTab(int tab);
    MainWindow* m_w = nullptr;
};

void TestWindowFit::init() {
    m_w = new MainWindow(Settings::defaultSession(), /*persist=*/false);
    m_w->resize(kSmall);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w));
    QVERIFY(QTest::qWaitFor([this] { return m_w->frames() > 0; }, 8000));
}

void TestWindowFit::cleanup() {
    delete m_w;
    m_w = nullptr;
}

void TestWindowFit::showTab(int tab) {
    m_w->views()->setCurrentIndex(tab);
    QTest::qWait(50); // layouts settle, replots run
}

void TestWindowFit::minimumSizeFitsASmallScreen() {
    const QSize hint = m_w->minimumSizeHint();
    QVERIFY2(
        hint.width() <= kSmall.width() && hint.height() <= kSmall.height(),
        qPrintable(QStringLiteral("minimumSizeHint %1×%2").arg(hint.width()).arg(hint.height())));
    const QSize least = m_w->minimumSize();
    QVERIFY2(
        least.width() <= kSmall.width() && least.height() <= kSmall.height(),
        qPrintable(QStringLiteral("minimumSize %1×%2").arg(least.width()).arg(least.height())));
    // Every tab's page: its minimum also leaves the window at the small size.
    for (int k = 0; k < m_w->views()->count(); ++k) {
        showTab(k);
        QCOMPARE(m_w->size(), kSmall);
    }
}

void TestWindowFit::everyTabFitsAtTheSmallSize_data() {
    QTest::addColumn<int>("tab");
    // The views' own tabs and whatever the window adds (compare, stepper, lab, …).
    MainWindow probe(Settings::defaultSession(), false);
    for (int k = 0; k < probe.views()->count(); ++k)
        QTest::newRow(qPrintable(probe.views()->tabText(k).remove(QLatin1Char('&')))) << k;
}

void TestWindowFit::everyTabFitsAtTheSmallSize() {
    QFETCH(int, tab);
    showTab(tab);
    QCOMPARE(m_w->size(), kSmall);
    const QStringList bad = misplaced(m_w);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QLatin1Char('\n'))));
    QVERIFY(m_w->statusBar()->geometry().bottom() < kSmall.height());
}

void TestWindowFit::tabBarShowsEveryTab() {
    QTabBar* bar = m_w->views()->tabBar();
    for (int k = 0; k < bar->count(); ++k) {
        const QRect r = bar->tabRect(k);
        QVERIFY2(bar->rect().contains(r),
                 qPrintable(QStringLiteral("tab %1 at x %2–%3, bar %4 wide")
                                .arg(bar->tabText(k))
                                .arg(r.left())
                                .arg(r.right())
                                .arg(bar->width())));
    }
    // No scroll arrows: they appear only when the tabs do not fit.
    for (const QWidget* arrow : bar->findChildren<QWidget*>())
        QVERIFY2(!arrow->isVisible(), qPrintable(describe(arrow)));
}

void TestWindowFit::parametersPanelScrollsDownOnly() {
    auto* dock = m_w->findChild<QDockWidget*>(QStringLiteral("parametersDock"));
    QVERIFY(dock);
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    QVERIFY(scroll);
    QVERIFY(scroll->widget()->isAncestorOf(m_w->panel()) || scroll->widget() == m_w->panel());
    // All of the panel's width is on screen: no horizontal scrolling; it is taller than the
    // window at this size, so it scrolls vertically to its last control.
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    QVERIFY2(scroll->widget()->width() <= scroll->viewport()->width(),
             qPrintable(QStringLiteral("panel %1 wide, viewport %2")
                            .arg(scroll->widget()->width())
                            .arg(scroll->viewport()->width())));
    // The panel leaves most of the width to the views.
    QVERIFY2(dock->width() <= kSmall.width() / 3, qPrintable(QString::number(dock->width())));
}

void TestWindowFit::mapsStackWhenNarrow() {
    showTab(0);
    HeatmapView* p = m_w->views()->positionMap();
    HeatmapView* gram = m_w->views()->similarityMap();
    const auto sideBySide = [&] {
        const QPoint a = p->mapTo(m_w, QPoint(0, 0));
        const QPoint b = gram->mapTo(m_w, QPoint(0, 0));
        return a.y() == b.y() && a.x() != b.x();
    };
    // Wide: the encoding's two maps side by side; in a narrow, tall window (a portrait screen,
    // or the panel taking much of a small one) stacked, one above the other, each keeping the
    // whole width.
    m_w->resize(1920, 1080);
    QTRY_VERIFY(sideBySide());
    m_w->resize(kSmall);
    QTRY_VERIFY(sideBySide()); // 1280×720 is still wide enough for two maps
    m_w->resize(900, 1000);
    QTRY_VERIFY(!sideBySide());
    QVERIFY(p->mapTo(m_w, QPoint(0, 0)).y() < gram->mapTo(m_w, QPoint(0, 0)).y());
    QCOMPARE(p->width(), gram->width());
    // The relative tab's index and bias maps likewise (T5 has both).
    QComboBox* scheme = m_w->panel()->schemeBox();
    scheme->setCurrentIndex(scheme->findData(static_cast<int>(Scheme::T5)));
    QVERIFY(QTest::qWaitFor(
        [this] { return m_w->shownParams() && m_w->shownParams()->scheme == Scheme::T5; }, 8000));
    showTab(1);
    HeatmapView* idx = m_w->views()->relIndexMap();
    HeatmapView* bias = m_w->views()->biasMap();
    QTRY_VERIFY(idx->mapTo(m_w, QPoint(0, 0)).y() < bias->mapTo(m_w, QPoint(0, 0)).y());
    m_w->resize(1920, 1080);
    QTRY_VERIFY(idx->mapTo(m_w, QPoint(0, 0)).y() == bias->mapTo(m_w, QPoint(0, 0)).y());
}

void TestWindowFit::everyStepperStageFits() {
    // The stepper's stages show one to four maps; an absolute scheme's logits (its four terms)
    // and DeBERTa's (three and their sum) are the most. At 1280 × 720 every stage fits (five
    // maps at the logits stage raised the window to 922 px).
    int stepperTab = -1;
    for (int k = 0; k < m_w->views()->count(); ++k)
        if (m_w->views()->tabText(k).remove(QLatin1Char('&')) == QStringLiteral("Stepper"))
            stepperTab = k;
    QVERIFY(stepperTab >= 0);
    showTab(stepperTab);
    for (Scheme s : {Scheme::Sinusoidal, Scheme::DeBERTa}) {
        QComboBox* box = m_w->panel()->schemeBox();
        box->setCurrentIndex(box->findData(static_cast<int>(s)));
        QVERIFY(QTest::qWaitFor(
            [&] { return m_w->shownParams() && m_w->shownParams()->scheme == s; }, 8000));
        for (int stage = 0; stage < kStageCount; ++stage) {
            m_w->stepper()->setStage(stage);
            QTest::qWait(50);
            QVERIFY2(m_w->size() == kSmall,
                     qPrintable(QStringLiteral("%1, stage %2: %3×%4")
                                    .arg(QString::fromStdString(std::string(toString(s))))
                                    .arg(stage)
                                    .arg(m_w->width())
                                    .arg(m_w->height())));
            const QStringList bad = misplaced(m_w);
            QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QLatin1Char('\n'))));
        }
    }
}

QTEST_MAIN(TestWindowFit)
#include "tst_window_fit.moc"
