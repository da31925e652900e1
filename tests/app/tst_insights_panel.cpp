// SPDX-License-Identifier: MIT
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

#include <cmath>

#include "insights_figures.h"
#include "insights_panel.h"
#include "line_plot_view.h"
#include "main_window.h"
#include "params_panel.h"
#include "qcp.h"
#include "trace_views.h"

using namespace pe;

/**
 * The Insights tab: every page reaches its figures with the core's numbers, from the panel's
 * own worker (newest wins, progress, cancel), and the window carries the tab.
 */
class TestInsightsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mainWindowHasTheTab();
    void everyPageShowsItsFigures_data();
    void everyPageShowsItsFigures();
    void binaryHasOneColumnPerBit_data();
    void binaryHasOneColumnPerBit();
    void offsetResidual_data();
    void offsetResidual();
    void offsetWithoutPSaysSo();
    void costFlopsAreExact();
    void depthCollapsesWithoutResidual();
    void distanceOverlaysEveryScheme();
    void staysResponsiveWithProgressAndCancels();
    void newestRequestWins();
    void fitsBesideTheParameters();
    void largeMapsArePreparedInTheBackground();
};

namespace {

Params params(Scheme s, int n = 32, int d = 32) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = d;
    p.heads = 4;
    return p;
}

/** Shows the panel on `page` with `p`; waits for that page's result. */
bool showPage(InsightsPanel& panel, InsightPage page, const Params& p) {
    if (!panel.isVisible()) {
        panel.resize(1200, 800);
        panel.show();
        if (!QTest::qWaitForWindowExposed(&panel))
            return false;
    }
    panel.setPage(page);
    panel.setParams(p, InputChoice{});
    return QTest::qWaitFor(
        [&] {
            return !panel.controller()->busy() && panel.shownResult().page == page &&
                   panel.shownResult().params == p;
        },
        30000);
}

/** The number after `name = ` in the panel's key-numbers line (NaN when absent). */
double numberAfter(const QString& text, const QString& name) {
    const QRegularExpression re(QRegularExpression::escape(name) +
                                QStringLiteral(" = ([-+0-9.eE]+)"));
    const QRegularExpressionMatch m = re.match(text);
    return m.hasMatch() ? m.captured(1).toDouble() : std::nan("");
}

bool nonEmpty(QWidget* w) {
    if (auto* h = qobject_cast<HeatmapView*>(w))
        return h->hasData();
    if (auto* l = qobject_cast<LinePlotView*>(w)) {
        for (const LineSeries& s : l->content().series)
            if (!s.values.empty())
                return true;
    }
    return false;
}

} // namespace

void TestInsightsPanel::mainWindowHasTheTab() {
    MainWindow w(Session{params(Scheme::Sinusoidal), InputChoice{}}, false);
    w.resize(1500, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    InsightsPanel* panel = w.insights();
    QVERIFY(panel);
    const int index = w.views()->indexOf(panel);
    QVERIFY(index >= 0);
    QCOMPARE(w.views()->tabText(index), QStringLiteral("&Insights"));
    QCOMPARE(panel->pageChooser()->count(), 5);
    // Shown, it computes the page from the window's parameters; a change reaches it.
    w.views()->setCurrentWidget(panel);
    QVERIFY(QTest::qWaitFor([&] { return panel->resultsShown() > 0; }, 30000));
    QCOMPARE(panel->shownResult().params.n, 32);
    Params p = w.panel()->params();
    p.n = 20;
    w.applySession(Session{p, InputChoice{}});
    QVERIFY(QTest::qWaitFor([&] { return panel->shownResult().params.n == 20; }, 30000));
    QCOMPARE(panel->shownResult().binary->bitCount, 5);
    // Export figure and copy act on the tab's first plot.
    QVERIFY(w.currentPlot() == panel->currentPlot());
    QVERIFY(w.currentHeatmap() == panel->figures()->bitsMap());
}

void TestInsightsPanel::everyPageShowsItsFigures_data() {
    QTest::addColumn<int>("page");
    for (InsightPage page : allInsightPages())
        QTest::newRow(std::string(toString(page)).c_str()) << static_cast<int>(page);
}

void TestInsightsPanel::everyPageShowsItsFigures() {
    QFETCH(int, page);
    InsightsPanel panel;
    const auto pg = static_cast<InsightPage>(page);
    QVERIFY(showPage(panel, pg, params(Scheme::Sinusoidal)));
    QVERIFY2(panel.shownResult().ok(), qPrintable(panel.shownResult().error));
    const std::vector<QWidget*> figures = panel.figures()->figures(pg);
    QVERIFY(figures.size() >= 3);
    // The measured-time plot stays empty until Measure is pressed; every other figure is drawn.
    for (QWidget* f : figures)
        if (f != panel.figures()->measuredPlot())
            QVERIFY2(nonEmpty(f), f->metaObject()->className());
    QVERIFY(panel.explanationText().contains(QStringLiteral("d2l")));
    QVERIFY(!panel.numbersText().isEmpty());
    QVERIFY(panel.currentPlot() != nullptr);
}

void TestInsightsPanel::binaryHasOneColumnPerBit_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("cls");
    QTest::addColumn<int>("bits");
    QTest::newRow("16") << 16 << false << 4;
    QTest::newRow("17") << 17 << false << 5;
    QTest::newRow("16+cls") << 16 << true << 5; // N = 17
    QTest::newRow("100") << 100 << false << 7;
    QTest::newRow("4096") << 4096 << false << 12;
}

void TestInsightsPanel::binaryHasOneColumnPerBit() {
    QFETCH(int, n);
    QFETCH(bool, cls);
    QFETCH(int, bits);
    InsightsPanel panel;
    Params p = params(Scheme::Sinusoidal, n, 64);
    p.cls = cls;
    QVERIFY(showPage(panel, InsightPage::Binary, p));
    const HeatmapView* map = panel.figures()->bitsMap();
    QCOMPARE(map->dataCols(), bits);
    QCOMPARE(map->dataRows(), p.seqLen());
    // Bit b of position i, lowest first: position 5 = 101b.
    QCOMPARE(map->data().at(5, 0), 1.0);
    QCOMPARE(map->data().at(5, 1), 0.0);
    QCOMPARE(map->data().at(5, 2), 1.0);
    QCOMPARE(panel.figures()->binaryPMap()->dataCols(), 64);
    // Periods: bits 2^(b+1); the first sinusoid pair 2π (ω_0 = 1), the ladder's d/2 pairs.
    const auto& series = panel.figures()->periodsPlot()->content().series;
    QCOMPARE(series.size(), std::size_t{2});
    QCOMPARE(series[0].values.back(), std::pow(2.0, bits));
    QCOMPARE(series[1].values.size(), std::size_t{32});
    QVERIFY(std::abs(series[1].values[0] - 2 * M_PI) < 1e-12);
    QCOMPARE(numberAfter(panel.numbersText(), QStringLiteral("\u2309")), double(bits));
}

void TestInsightsPanel::offsetResidual_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<int>("layout");
    QTest::addColumn<bool>("roundOff");
    const auto s = [](Scheme x) { return static_cast<int>(x); };
    const auto l = [](SinLayout x) { return static_cast<int>(x); };
    QTest::newRow("sinusoidal interleaved")
        << s(Scheme::Sinusoidal) << l(SinLayout::Interleaved) << true;
    QTest::newRow("sinusoidal concat") << s(Scheme::Sinusoidal) << l(SinLayout::Concat) << true;
    QTest::newRow("sinusoidal t2t") << s(Scheme::Sinusoidal) << l(SinLayout::T2T) << true;
    QTest::newRow("rope") << s(Scheme::RoPE) << l(SinLayout::Interleaved) << true;
    QTest::newRow("learned") << s(Scheme::Learned) << l(SinLayout::Interleaved) << false;
}

void TestInsightsPanel::offsetResidual() {
    QFETCH(int, scheme);
    QFETCH(int, layout);
    QFETCH(bool, roundOff);
    InsightsPanel panel;
    Params p = params(static_cast<Scheme>(scheme), 64, 16); // N − δ > d: least squares is fitted
    p.layout = static_cast<SinLayout>(layout);
    panel.deltaSpin()->setValue(3);
    QVERIFY(showPage(panel, InsightPage::Offset, p));
    QVERIFY2(panel.shownResult().ok(), qPrintable(panel.shownResult().error));
    QCOMPARE(panel.shownResult().settings.delta, 3);
    const double residual = numberAfter(panel.numbersText(), QStringLiteral("relative residual"));
    QVERIFY2(std::isfinite(residual), qPrintable(panel.numbersText()));
    // The label shows the core's number (to its 3 or 4 digits).
    const double exact = panel.shownResult().offset->relativeResidual;
    QVERIFY2(std::abs(residual - exact) <= 0.01 * exact, qPrintable(panel.numbersText()));
    if (roundOff) {
        QVERIFY2(residual <= 1e-5, qPrintable(panel.numbersText())); // float32 round-off
        QVERIFY(panel.numbersText().contains(QStringLiteral("exact")));
    } else {
        QVERIFY2(residual > 0.1, qPrintable(panel.numbersText()));
        QVERIFY(panel.numbersText().contains(QStringLiteral("least-squares")));
    }
    QCOMPARE(panel.figures()->offsetMap()->dataRows(), 16);
    QCOMPARE(panel.figures()->residualMap()->dataRows(), p.seqLen() - 3);
}

void TestInsightsPanel::offsetWithoutPSaysSo() {
    InsightsPanel panel;
    QVERIFY(showPage(panel, InsightPage::Offset, params(Scheme::Sinusoidal)));
    QVERIFY(panel.figures()->offsetMap()->hasData());
    for (Scheme s : {Scheme::T5, Scheme::ALiBi, Scheme::None}) {
        QVERIFY(showPage(panel, InsightPage::Offset, params(s)));
        QVERIFY(!panel.shownResult().ok());
        QVERIFY2(panel.numbersText().contains(QStringLiteral("no position table P")),
                 qPrintable(panel.numbersText()));
        QVERIFY(!panel.figures()->offsetMap()->hasData());
        QVERIFY(panel.figures()->offsetMap()->info().title.contains(QStringLiteral("no position")));
    }
}

void TestInsightsPanel::costFlopsAreExact() {
    InsightsPanel panel;
    panel.kernelSpin()->setValue(5);
    QVERIFY(showPage(panel, InsightPage::Cost, params(Scheme::Sinusoidal, 32, 64)));
    const auto& series = panel.figures()->flopsPlot()->content().series;
    QCOMPARE(series.size(), std::size_t{3});
    for (std::size_t i = 0; i < series[0].x.size(); ++i) {
        const double n = series[0].x[i];
        QCOMPARE(series[0].values[i], 2 * 5 * n * 64 * 64); // CNN 2knd²
        QCOMPARE(series[1].values[i], 2 * n * 64 * 64);     // RNN 2nd²
        QCOMPARE(series[2].values[i], 4 * n * n * 64);      // attention 4n²d
    }
    QCOMPARE(series[0].x.back(), 16384.0);
    QCOMPARE(numberAfter(panel.numbersText(), QStringLiteral("d/2")), 32.0);
    QCOMPARE(numberAfter(panel.numbersText(), QStringLiteral("kd/2")), 160.0);
    QCOMPARE(panel.figures()->flopsPlot()->content().markers.size(), std::size_t{2});
}

// The distance page overlays every scheme's mean attention profile on the same input; the page's
// own scheme is drawn bold and is exactly the profile of the page's first figure.
void TestInsightsPanel::distanceOverlaysEveryScheme() {
    InsightsPanel panel;
    QVERIFY(showPage(panel, InsightPage::Distance, params(Scheme::T5, 24, 32)));
    const auto& all = panel.figures()->everySchemePlot()->content().series;
    QCOMPARE(all.size(), allSchemes().size()); // symmetric ALiBi joins without a causal mask
    const auto& own = panel.figures()->weightProfilePlot()->content().series.back(); // the mean
    int bold = 0;
    for (const LineSeries& s : all) {
        QCOMPARE(s.values.size(), std::size_t{2 * 24 - 1});
        if (s.style != LineStyle::Bold)
            continue;
        ++bold;
        QCOMPARE(s.name, QStringLiteral("t5"));
        for (std::size_t k = 0; k < s.values.size(); ++k)
            QCOMPARE(s.values[k], own.values[k]);
    }
    QCOMPARE(bold, 1);
    // Schemes differ: T5's profile is not none's.
    QVERIFY(all[0].values != all[5].values);
}

void TestInsightsPanel::depthCollapsesWithoutResidual() {
    InsightsPanel panel;
    panel.layersSpin()->setValue(12);
    panel.residualCheck()->setChecked(false);
    const Params p = params(Scheme::Sinusoidal, 32, 32);
    QVERIFY(showPage(panel, InsightPage::Depth, p));
    auto uniformity = [&] { return panel.figures()->uniformityPlot()->content().series[0].values; };
    std::vector<double> u = uniformity();
    QCOMPARE(u.size(), std::size_t{13}); // the input and 12 layers
    QVERIFY2(u[12] < 1e-3 * u[1], qPrintable(panel.numbersText()));
    panel.residualCheck()->setChecked(true);
    QVERIFY(QTest::qWaitFor(
        [&] { return !panel.controller()->busy() && panel.shownResult().settings.depth.residual; },
        30000));
    u = uniformity();
    QVERIFY2(u[12] > 0.1, qPrintable(panel.numbersText()));
    QVERIFY(panel.numbersText().contains(QStringLiteral("at layer 12")));
}

void TestInsightsPanel::staysResponsiveWithProgressAndCancels() {
    InsightsPanel panel;
    QVERIFY(showPage(panel, InsightPage::Binary, params(Scheme::Sinusoidal, 1024, 64)));
    QSignalSpy progress(panel.controller(), &InsightsController::progressChanged);
    int ticksWhileBusy = 0;
    QElapsedTimer sinceTick;
    qint64 longestGap = 0; // printed, not asserted: the GUI thread's longest wait between ticks
    QTimer timer;
    timer.setInterval(5);
    connect(&timer, &QTimer::timeout, this, [&] {
        if (panel.controller()->busy()) {
            ++ticksWhileBusy;
            if (sinceTick.isValid())
                longestGap = std::max(longestGap, sinceTick.elapsed());
        }
        sinceTick.start();
    });
    timer.start();
    // 32 layers at N = 1024 on the worker: the GUI thread keeps turning meanwhile.
    panel.layersSpin()->setValue(32);
    panel.setPage(InsightPage::Depth);
    QVERIFY(panel.controller()->busy());
    QVERIFY(QTest::qWaitFor([&] { return progress.size() >= 2; }, 30000));
    QVERIFY(ticksWhileBusy > 0);
    qInfo("longest GUI-thread gap while the depth page computed: %lld ms", longestGap);
    const QList<QVariant> last = progress.last();
    QCOMPARE(last.at(1).toInt(), 32);
    QVERIFY(last.at(0).toInt() >= 1);
    // Cancel: nothing more reaches the figures from that request.
    const int shown = panel.resultsShown();
    QVERIFY(panel.controller()->busy());
    panel.cancelButton()->click();
    QVERIFY(!panel.controller()->busy());
    panel.setPage(InsightPage::Binary); // queued behind the cancelled run
    QVERIFY(QTest::qWaitFor([&] { return panel.resultsShown() > shown; }, 30000));
    QCOMPARE(panel.resultsShown(), shown + 1);
    QVERIFY(panel.shownResult().page == InsightPage::Binary);
}

void TestInsightsPanel::newestRequestWins() {
    InsightsPanel panel;
    QVERIFY(showPage(panel, InsightPage::Offset, params(Scheme::Sinusoidal, 512, 64)));
    const int before = panel.resultsShown();
    for (int delta = 2; delta <= 12; ++delta)
        panel.deltaSpin()->setValue(delta);
    QVERIFY(QTest::qWaitFor([&] { return !panel.controller()->busy(); }, 30000));
    QCOMPARE(panel.shownResult().settings.delta, 12);
    QCOMPARE(panel.shownResult().offset->delta, 12);
    QVERIFY(panel.resultsShown() - before <= 11);
}

void TestInsightsPanel::fitsBesideTheParameters() {
    // A 1280×720 window less the parameters dock, the tab bar and the status bar.
    InsightsPanel panel;
    for (InsightPage page : allInsightPages()) {
        QVERIFY(showPage(panel, page, params(Scheme::Sinusoidal)));
        const QSize min = panel.minimumSizeHint();
        qInfo("%s: minimum %dx%d", std::string(toString(page)).c_str(), min.width(), min.height());
        QVERIFY2(min.width() <= 860 && min.height() <= 560,
                 qPrintable(QStringLiteral("%1: %2x%3")
                                .arg(QString::fromStdString(std::string(toString(page))))
                                .arg(min.width())
                                .arg(min.height())));
    }
}

QTEST_MAIN(TestInsightsPanel)
// P at n = 4096, d = 512 (2.1 M cells) is converted off the GUI thread: the map says so, then
// shows the sinusoid; a smaller request made meanwhile wins over the larger one still running.
void TestInsightsPanel::largeMapsArePreparedInTheBackground() {
    InsightsPanel panel;
    InsightsFigures* f = panel.figures();
    QVERIFY(showPage(panel, InsightPage::Binary, params(Scheme::Sinusoidal, 4096, 512)));
    QTRY_COMPARE_WITH_TIMEOUT(f->preparing(), 0, 30000);
    const HeatmapView* map = f->binaryPMap();
    QCOMPARE(map->dataRows(), 4096);
    QCOMPARE(map->dataCols(), 512);
    const int i = 4000, c = 10; // interleaved: column 2j is sin(i·ω_j), ω_j = 10000^(−2j/d)
    QVERIFY(std::abs(map->data().at(i, c) - std::sin(i * std::pow(10000.0, -10.0 / 512))) < 1e-12);
    const InsightResult big = panel.shownResult();
    QVERIFY(showPage(panel, InsightPage::Binary, params(Scheme::Sinusoidal, 64, 32)));
    const InsightResult small = panel.shownResult();

    f->setResult(big); // no event processed in between: the map waits for its grid
    QCOMPARE(f->preparing(), 1);
    QVERIFY(!map->hasData());
    QCOMPARE(f->bitsMap()->dataRows(), 4096); // small: at once
    f->setResult(small);
    QCOMPARE(map->dataRows(), 64); // at once
    QTRY_COMPARE_WITH_TIMEOUT(f->preparing(), 0, 30000);
    QCOMPARE(map->dataRows(), 64); // the late 4096-row grid was not shown
    QCOMPARE(map->dataCols(), 32);
}

#include "tst_insights_panel.moc"
