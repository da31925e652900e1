// SPDX-License-Identifier: MIT
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <cmath>
#include <thread>

#include "lab_panel.h"
#include "line_plot_view.h"
#include "qcp.h"

using namespace pe;

/**
 * The panel against a stand-in trainer (the real one needs libtorch): a run that reports each
 * step and, before its last one, waits until the GUI thread has processed a timer event, so a
 * blocked window would hang the run (and fail the test by its timeout) instead of passing.
 */
class TestLabPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void withoutTrainerTrainIsGreyed();
    void beforeAnyRunTheTableSaysWhatItWillHold();
    void trainingFillsCurvesAndTable();
    void guiStaysResponsiveDuringTraining();
    void cancelStopsTheRun();
    void compareDrawsOneLinePerScheme();
    void evalLengths();
    void openInViewsSendsTheChosenLayer();
};

namespace {
std::atomic<int> g_guiTicks{0};

LabRunResult fakeTrain(const LabConfig& c, const std::vector<int>& lengths,
                       const std::function<void(const LabProgress&)>& progress,
                       const std::atomic<bool>& cancel, bool waitForGui) {
    const int ticksAtStart = g_guiTicks.load();
    for (int s = 1; s <= c.steps; ++s) {
        if (cancel)
            return {QStringLiteral("cancelled"), {}};
        progress({s, 2.0 / s, 1.0 - 1.0 / s});
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (waitForGui && s == c.steps - 1)
            while (g_guiTicks.load() < ticksAtStart + 3) {
                if (cancel)
                    return {QStringLiteral("cancelled"), {}};
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
    }
    LabRunResult r;
    for (std::size_t k = 0; k < lengths.size(); ++k)
        // A learned table ends at L: longer lengths have no positions.
        r.evals.push_back(
            {lengths[k], 1.0 / static_cast<double>(k + 1), c.scheme == Scheme::Learned && k > 0});
    for (int l = 0; l < c.layers; ++l) {
        LabLayerView v;
        v.params.scheme = c.scheme;
        v.params.d = c.width;
        v.params.heads = c.heads;
        v.params.n = c.trainLength;
        auto w = std::make_shared<Weights>();
        w->W_q = (l + 1.0) * Eigen::MatrixXd::Identity(c.width, c.width);
        v.weights = w;
        v.tokens = QStringLiteral("a b c");
        v.name = QStringLiteral("layer %1 of %2").arg(l + 1).arg(c.layers);
        r.layers.push_back(v);
    }
    return r;
}

LabConfig tiny() {
    LabConfig c;
    c.steps = 20;
    c.width = 16;
    c.heads = 2;
    c.layers = 1;
    c.trainLength = 8;
    return c;
}
} // namespace

void TestLabPanel::withoutTrainerTrainIsGreyed() {
    LabPanel p;
    QVERIFY(!p.trainButton()->isEnabled());
    QVERIFY(p.trainButton()->toolTip().contains(QLatin1String("not part of this build")));
}

void TestLabPanel::beforeAnyRunTheTableSaysWhatItWillHold() {
    LabPanel p;
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, false); });
    LabConfig c = tiny();
    c.trainLength = 12;
    p.setConfig(c);
    // The lengths a run will be evaluated at (L, 1.5L, 2L, 4L), following the length box.
    QVERIFY2(p.evalTableHint().contains(QStringLiteral("12, 18, 24 and 48")),
             qPrintable(p.evalTableHint()));
    QVERIFY(!p.evalTable()->isVisibleTo(&p));
    // Accuracies live in [0, 1], also before a run.
    const auto range = p.lengthPlot()->content().yRange;
    QVERIFY(range && range->first == 0.0 && range->second > 1.0 && range->second < 1.1);
    // The curves' axes are those the run will fill: its steps, a loss up to above ln V (where a
    // uniform guess starts), the lengths it will be evaluated at; no legend of empty curves.
    QCustomPlot* loss = p.lossPlot()->plot();
    QCOMPARE(loss->xAxis->range().lower, 0.0);
    QCOMPARE(loss->xAxis->range().upper, double(c.steps));
    QVERIFY(loss->yAxis->range().upper > std::log(double(c.vocab)));
    QVERIFY(loss->yAxis->range().upper < 1.2 * std::log(double(c.vocab)));
    QVERIFY(!loss->legend->visible());
    QCOMPARE(p.accuracyPlot()->plot()->xAxis->range().upper, double(c.steps));
    auto* ticks = dynamic_cast<QCPAxisTickerText*>(p.lengthPlot()->plot()->xAxis->ticker().data());
    QVERIFY(ticks);
    QCOMPARE(ticks->ticks().value(3.0), QStringLiteral("48"));
    QSignalSpy done(&p, &LabPanel::finished);
    p.trainButton()->click();
    QVERIFY(done.wait(10000));
    QVERIFY(p.evalTableHint().isEmpty());
    QVERIFY(p.evalTable()->isVisibleTo(&p));
    QCOMPARE(p.evalTable()->horizontalHeaderItem(3)->text(), QStringLiteral("4L = 48"));
    QVERIFY(loss->legend->visible()); // the curves have their points now
}

void TestLabPanel::trainingFillsCurvesAndTable() {
    LabPanel p;
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, false); });
    LabConfig c = tiny();
    c.scheme = Scheme::T5;
    p.setConfig(c);
    QSignalSpy done(&p, &LabPanel::finished);
    p.trainButton()->click();
    QVERIFY(p.running());
    QVERIFY(!p.trainButton()->isEnabled());
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toString(), QString());
    QCOMPARE(p.lossPlot()->content().series.at(0).values.size(), std::size_t{20});
    QCOMPARE(p.lossPlot()->content().series.at(0).values.back(), 2.0 / 20);
    QCOMPARE(p.accuracyPlot()->content().series.at(0).values.back(), 1.0 - 1.0 / 20);
    QCOMPARE(p.evalTable()->rowCount(), 1);
    QCOMPARE(p.evalTable()->columnCount(), 4);
    QCOMPARE(p.evalTable()->item(0, 0)->text(), QStringLiteral("1.000"));
    QCOMPARE(p.evalTable()->item(0, 3)->text(), QStringLiteral("0.250"));
    QCOMPARE(p.evalTable()->horizontalHeaderItem(3)->text(), QStringLiteral("4L = 32"));
    QCOMPARE(p.progressBar()->value(), 20);
    QVERIFY(p.trainButton()->isEnabled());
    // One layer: Open in views is offered, the layer choice is not.
    QVERIFY(p.openButton()->isEnabled());
    QVERIFY(!p.layerBox()->isEnabled());
}

void TestLabPanel::guiStaysResponsiveDuringTraining() {
    LabPanel p;
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, true); });
    p.setConfig(tiny());
    QTimer tick;
    tick.setInterval(5);
    connect(&tick, &QTimer::timeout, [] { ++g_guiTicks; });
    tick.start();
    QSignalSpy done(&p, &LabPanel::finished);
    p.train();
    // The run finishes only after the GUI thread has handled timer events while it ran.
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toString(), QString());
}

void TestLabPanel::cancelStopsTheRun() {
    LabPanel p;
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, true); });
    LabConfig c = tiny();
    c.steps = 100000; // would run for minutes
    p.setConfig(c);
    QSignalSpy done(&p, &LabPanel::finished);
    p.train();
    QTRY_VERIFY(p.progressBar()->value() > 0);
    QVERIFY(p.cancelButton()->isEnabled());
    p.cancelButton()->click();
    QVERIFY(done.wait(10000));
    QCOMPARE(done.at(0).at(0).toString(), QStringLiteral("cancelled"));
    QCOMPARE(p.statusText(), QStringLiteral("cancelled"));
    QVERIFY(p.trainButton()->isEnabled());
    QVERIFY(!p.running());
}

void TestLabPanel::compareDrawsOneLinePerScheme() {
    LabPanel p;
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, false); });
    LabConfig c = tiny();
    c.steps = 3;
    p.setConfig(c);
    QSignalSpy done(&p, &LabPanel::finished);
    p.compareSchemes();
    QVERIFY(done.wait(20000));
    const int schemes = static_cast<int>(allSchemes().size());
    QCOMPARE(p.evalTable()->rowCount(), schemes);
    QCOMPARE(static_cast<int>(p.lengthPlot()->content().series.size()), schemes);
    // The learned table ends at L: "no positions" beyond, never a number.
    int learnedRows = 0;
    for (int r = 0; r < schemes; ++r)
        if (p.evalTable()->verticalHeaderItem(r)->text() == QLatin1String("learned")) {
            ++learnedRows;
            QCOMPARE(p.evalTable()->item(r, 0)->text(), QStringLiteral("1.000"));
            QCOMPARE(p.evalTable()->item(r, 2)->text(), QStringLiteral("no positions"));
        }
    QCOMPARE(learnedRows, 1);
}

void TestLabPanel::evalLengths() {
    QCOMPARE(labEvalLengths(16), (std::vector<int>{16, 24, 32, 64}));
    QCOMPARE(labEvalLengths(7), (std::vector<int>{7, 11, 14, 28}));
    LabConfig c;
    c.scheme = Scheme::T5;
    c.layers = 1;
    QCOMPARE(describeLabRun(c), QStringLiteral("shift-3, t5, 1 layer"));
}

void TestLabPanel::openInViewsSendsTheChosenLayer() {
    LabPanel p;
    QVERIFY(!p.openButton()->isEnabled()); // nothing trained yet
    p.setTrainer([](auto& c, auto& l, auto& pr, auto& s) { return fakeTrain(c, l, pr, s, false); });
    LabConfig c = tiny();
    c.layers = 3;
    p.setConfig(c);
    QSignalSpy done(&p, &LabPanel::finished);
    p.train();
    QVERIFY(done.wait(10000));
    QVERIFY(p.layerBox()->isEnabled());
    QCOMPARE(p.layerBox()->maximum(), 3);
    QSignalSpy open(&p, &LabPanel::openInViews);
    p.layerBox()->setValue(2);
    p.openButton()->click();
    QCOMPARE(open.count(), 1);
    const auto v = open.at(0).at(0).value<LabLayerView>();
    QCOMPARE(v.name, QStringLiteral("layer 2 of 3"));
    QCOMPARE(v.weights->W_q(0, 0), 2.0);
}

QTEST_MAIN(TestLabPanel)
#include "tst_lab_panel.moc"
