// SPDX-License-Identifier: MIT
// The Lab tab with its real engine (libtorch): a run trains in the background and fills the
// curves and the table, RoPE adds its stretch rows, a learned table says "no positions", the
// model saves and loads back with the same numbers, and "Open in views" hands over every layer.
#include <QDir>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "lab_engine.h"
#include "lab_panel.h"
#include "line_plot_view.h"
#include "memory_budget.h"
#include "trace.h"

using namespace pe;

namespace {
LabConfig tiny(Scheme s) {
    LabConfig c;
    c.scheme = s;
    c.steps = 40;
    c.width = 16;
    c.heads = 2;
    c.layers = 2;
    c.trainLength = 8;
    c.shift = 2;
    c.vocab = 8;
    c.batch = 8;
    return c;
}
} // namespace

class TestLabEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trainsSavesLoads();
    void learnedSaysNoPositions();
    void runOverTheBudgetIsRefused();
};

void TestLabEngine::trainsSavesLoads() {
    LabPanel p;
    p.setTrainer(labEngineTrainer());
    p.setLoader(labEngineLoader());
    QVERIFY(p.trainButton()->isEnabled());
    QVERIFY(p.loadButton()->isEnabled());
    QVERIFY(!p.saveButton()->isEnabled()); // nothing trained yet
    p.setConfig(tiny(Scheme::RoPE));
    QSignalSpy done(&p, &LabPanel::finished);
    p.trainButton()->click();
    QVERIFY(done.wait(60000));
    QCOMPARE(done.at(0).at(0).toString(), QString());
    QCOMPARE(p.lossPlot()->content().series.at(0).values.size(), std::size_t{4}); // every 10 steps
    // rope, rope + pi, rope + ntk; accuracies in [0, 1] at L, 1.5L, 2L, 4L.
    QCOMPARE(p.evalTable()->rowCount(), 3);
    QCOMPARE(p.evalTable()->verticalHeaderItem(1)->text(), QStringLiteral("rope + pi"));
    QStringList first;
    for (int c = 0; c < 4; ++c) {
        bool ok = false;
        const double a = p.evalTable()->item(0, c)->text().toDouble(&ok);
        QVERIFY2(ok && a >= 0 && a <= 1, qPrintable(p.evalTable()->item(0, c)->text()));
        first << p.evalTable()->item(0, c)->text();
    }
    // Two layers to open; each is a computable layer of the engine.
    QVERIFY(p.layerBox()->isEnabled());
    QCOMPARE(p.layerBox()->maximum(), 2);
    QSignalSpy opened(&p, &LabPanel::openInViews);
    p.layerBox()->setValue(2);
    p.openButton()->click();
    QCOMPARE(opened.count(), 1);
    const auto view = opened.at(0).at(0).value<LabLayerView>();
    QVERIFY(view.name.contains(QLatin1String("layer 2 of 2")));
    QCOMPARE(view.params.n, 8);
    QCOMPARE(view.tokens.split(QLatin1Char(' ')).size(), 8);
    QVERIFY(computeTrace(view.params, *view.weights));

    // Save, then load into a fresh panel: the same settings and evaluation.
    QVERIFY(p.saveButton()->isEnabled());
    QTemporaryDir dir;
    QCOMPARE(p.saveModel(dir.path()), QString());
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("model.safetensors"))));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("run.json"))));
    LabPanel q;
    q.setLoader(labEngineLoader());
    const LabRunResult loaded =
        labEngineLoader()(dir.filePath(QStringLiteral("model.safetensors")));
    QCOMPARE(loaded.error, QString());
    q.showLoaded(loaded);
    QVERIFY(q.config().scheme == Scheme::RoPE);
    QCOMPARE(q.config().layers, 2);
    QCOMPARE(q.evalTable()->rowCount(), 3);
    for (int c = 0; c < 4; ++c)
        QCOMPARE(q.evalTable()->item(0, c)->text(), first[c]);
    QVERIFY(q.openButton()->isEnabled());
    // A file that is not a lab model: a clear error, nothing shown.
    QFile junk(dir.filePath(QStringLiteral("junk.safetensors")));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("not a model");
    junk.close();
    const LabRunResult bad = labEngineLoader()(junk.fileName());
    QVERIFY(!bad.error.isEmpty());
}

void TestLabEngine::learnedSaysNoPositions() {
    LabPanel p;
    p.setTrainer(labEngineTrainer());
    p.setConfig(tiny(Scheme::Learned));
    QSignalSpy done(&p, &LabPanel::finished);
    p.trainButton()->click();
    QVERIFY(done.wait(60000));
    QCOMPARE(p.evalTable()->rowCount(), 1);
    QVERIFY(p.evalTable()->item(0, 0)->text().toDouble() >= 0);
    for (int c = 1; c < 4; ++c)
        QCOMPARE(p.evalTable()->item(0, c)->text(), QStringLiteral("no positions"));
}

// The window's largest settings need terabytes: refused before libtorch allocates anything,
// with the reason and what to lower; the budget is free again after (a small run trains).
void TestLabEngine::runOverTheBudgetIsRefused() {
    LabPanel p;
    p.setTrainer(labEngineTrainer());
    LabConfig huge = tiny(Scheme::T5);
    huge.batch = 4096;
    huge.trainLength = 512;
    huge.width = 512;
    huge.heads = 16;
    huge.layers = 4;
    p.setConfig(huge);
    QSignalSpy done(&p, &LabPanel::finished);
    p.trainButton()->click();
    QVERIFY(done.wait(10000));
    const QString error = done.at(0).at(0).toString();
    QVERIFY2(error.contains(QLatin1String("needs about")) &&
                 error.contains(QLatin1String("lower the batch")),
             qPrintable(error));
    QVERIFY(p.statusText().contains(QLatin1String("needs about")));
    QCOMPARE(MemoryBudget::process()->reserved(), std::uint64_t{0});
    p.setConfig(tiny(Scheme::T5));
    p.trainButton()->click();
    QVERIFY(done.wait(60000));
    QCOMPARE(done.at(1).at(0).toString(), QString());
}

QTEST_MAIN(TestLabEngine)
#include "tst_lab_engine.moc"
