// SPDX-License-Identifier: MIT
#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "comparison_view.h"
#include "lab_panel.h"
#include "line_plot_view.h"
#include "main_window.h"
#include "memory_budget.h"
#include "params_panel.h"
#include "qcp.h"
#include "stepper_panel.h"
#include "trace_views.h"

using namespace pe;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void firstViewIsSinusoidal();
    void controlReachesWorkerAndRedraws_data();
    void controlReachesWorkerAndRedraws();
    void quickChangesEndOnTheLast();
    void encodingTabIsDrawnBeforeTheForwardPass();
    void relativeTabIsDrawnFromTheTables();
    void sliderDragCoalesces();
    void undoRedoRestoresParameters();
    void undoHistoryIsBounded();
    void presetsMenuAppliesAModel();
    void everySchemeShowsItsViews_data();
    void everySchemeShowsItsViews();
    void exportsCurrentView();
    void comparisonShowsTheDifference();
    void comparisonGoesOnAfterAFailedComputation();
    void comparedOutputCompletesTheReference();
    void weightsAloneUntilATabShowsTheTerms();
    void longWorkShowsProgressAndCancels();
    void chosenColumnsOfP();
    void squareCellsReachEveryMap();
    void pooledModeAndZoomedTile();
    void openGlBackendMatchesTheCpu();
    void glUnavailableIsSaidOnce();
    void glContextLostIsSaidOnce();
    void overBudgetKeepsThePreviousView();
    void memoryHeldElsewhereKeepsThePreviousView();
    void closingDuringALongComputationIsPrompt();
    void identityWeightsShowThePurePositionEffect_data();
    void identityWeightsShowThePurePositionEffect();
    void labModelOpensInTheViews();
    void trainedWeightsAreGreyedUntilAModelIsGiven();

private:
    bool waitForShown(std::function<bool(const Params&)> pred, int ms = 8000);
    MainWindow* m_w = nullptr;
    /** View → Compute backend → OpenGL. */
    QAction* glAction() const {
        for (QAction* a : m_w->findChildren<QAction*>())
            if (a->text().contains(QLatin1String("OpenGL")))
                return a;
        return nullptr;
    }
};

bool TestMainWindow::waitForShown(std::function<bool(const Params&)> pred, int ms) {
    return QTest::qWaitFor([&] { return m_w->shownParams() && pred(*m_w->shownParams()); }, ms);
}

void TestMainWindow::init() {
    m_w = new MainWindow(Settings::defaultSession(), /*persist=*/false);
    m_w->resize(1200, 800);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w));
    QVERIFY(waitForShown([](const Params&) { return true; }));
}

void TestMainWindow::cleanup() {
    delete m_w;
    m_w = nullptr;
}

void TestMainWindow::firstViewIsSinusoidal() {
    const Params& p = *m_w->shownParams();
    QVERIFY(p.scheme == Scheme::Sinusoidal);
    QCOMPARE(p.n, 64);
    QCOMPARE(p.d, 128);
    QCOMPARE(p.heads, 4);
    HeatmapView* h = m_w->views()->currentHeatmap();
    QCOMPARE(h->data().rows, 64);
    QCOMPARE(h->data().cols, 128);
    QVERIFY(m_w->statusText().contains(QLatin1String("compute")));
}

void TestMainWindow::controlReachesWorkerAndRedraws_data() {
    QTest::addColumn<QString>("control");
    QTest::addColumn<int>("value");
    QTest::newRow("length") << QStringLiteral("n") << 33;
    QTest::newRow("width") << QStringLiteral("d") << 64;
    QTest::newRow("heads") << QStringLiteral("heads") << 8;
}

void TestMainWindow::controlReachesWorkerAndRedraws() {
    QFETCH(QString, control);
    QFETCH(int, value);
    ParamsPanel* panel = m_w->panel();
    QSpinBox* box = control == QLatin1String("n")   ? panel->lengthBox()
                    : control == QLatin1String("d") ? panel->widthBox()
                                                    : panel->headsBox();
    HeatmapView* p = m_w->views()->currentHeatmap();
    const int before = p->redrawCount();
    const int frames = m_w->frames();
    box->setValue(value);
    QVERIFY(waitForShown([&](const Params& s) {
        return control == QLatin1String("n")   ? s.n == value
               : control == QLatin1String("d") ? s.d == value
                                               : s.heads == value;
    }));
    QVERIFY(m_w->frames() > frames);
    QTRY_VERIFY(p->redrawCount() > before);
    if (control == QLatin1String("n"))
        QCOMPARE(p->data().rows, value);
    if (control == QLatin1String("d"))
        QCOMPARE(p->data().cols, value);
}

// On the Encoding tab a change is drawn from its early part (E, P, X), before the forward pass
// ends, and the whole result that follows does not draw the tab again; the Attention tab waits
// for the whole result, and asks for no early part.
void TestMainWindow::encodingTabIsDrawnBeforeTheForwardPass() {
    TraceViews* views = m_w->views();
    QCOMPARE(views->currentIndex(), 0);
    HeatmapView* p = views->positionMap();
    int rowsAtEarly = -1, wholeNAtEarly = -1;
    const double* drawnAtEarly = nullptr;
    QSignalSpy early(m_w->controller(), &ComputeController::earlyResultReady);
    // Runs after the window's own handler of the early part.
    connect(m_w->controller(), &ComputeController::earlyResultReady, m_w, [&] {
        rowsAtEarly = p->data().rows;
        drawnAtEarly = p->data().values.data();
        wholeNAtEarly = views->trace()->params.n;
    });
    m_w->panel()->lengthBox()->setValue(200);
    QVERIFY(waitForShown([](const Params& s) { return s.n == 200; }));
    QCOMPARE(early.count(), 1);
    QCOMPARE(rowsAtEarly, 200);
    QCOMPARE(wholeNAtEarly, 64); // drawn while trace() was still the last whole one
    QCOMPARE(views->trace()->params.n, 200);
    QVERIFY(views->trace()->find("weights"));
    QTest::qWait(100);
    QCOMPARE(p->data().values.data(), drawnAtEarly); // the whole result set no new data

    views->setCurrentIndex(3); // Attention: from the whole trace
    QCOMPARE(views->attentionMap()->data().rows, 200);
    early.clear();
    m_w->panel()->lengthBox()->setValue(150);
    QVERIFY(waitForShown([](const Params& s) { return s.n == 150; }));
    QCOMPARE(early.count(), 0);
    QTRY_COMPARE(views->attentionMap()->data().rows, 150);
}

// The Relative tab is drawn from the early part too, with no n × n matrix in it: its maps are
// the tables by offset copied out row by row, at full resolution, and equal the whole trace's
// rel_index and bias entry for entry (DeBERTa's index, read by i − j, and URPE's C too); the
// whole result does not draw them again, and another head's bias is that head's.
void TestMainWindow::relativeTabIsDrawnFromTheTables() {
    TraceViews* views = m_w->views();
    views->setCurrentIndex(1);
    QComboBox* box = m_w->panel()->schemeBox();
    HeatmapView* index = views->relIndexMap();
    HeatmapView* bias = views->biasMap();
    const auto sameAs = [](const Grid& g, const Tensor* t, int head) {
        if (!t || g.rows != t->dim(t->rank() - 2) || g.cols != t->dim(t->rank() - 1))
            return false;
        const std::size_t cells = static_cast<std::size_t>(g.rows) * g.cols;
        for (std::size_t k = 0; k < cells; ++k) {
            const std::size_t at = static_cast<std::size_t>(head) * cells + k;
            const double v =
                t->dtype() == DType::I32 ? t->data<std::int32_t>()[at] : t->data<float>()[at];
            if (g.values[k] != v)
                return false;
        }
        return true;
    };
    int n = 90;
    for (Scheme s : {Scheme::T5, Scheme::DeBERTa, Scheme::URPE, Scheme::ALiBi, Scheme::Shaw}) {
        box->setCurrentIndex(box->findData(static_cast<int>(s)));
        QVERIFY(waitForShown([s](const Params& q) { return q.scheme == s; }));
        int rowsAtEarly = -1, wholeNAtEarly = -1;
        const double* drawnAtEarly = nullptr;
        QSignalSpy early(m_w->controller(), &ComputeController::earlyResultReady);
        HeatmapView* map = s == Scheme::ALiBi ? bias : index; // ALiBi has no index
        const QMetaObject::Connection c =
            connect(m_w->controller(), &ComputeController::earlyResultReady, m_w, [&] {
                rowsAtEarly = map->data().rows;
                drawnAtEarly = map->data().values.data();
                wholeNAtEarly = views->trace()->params.n;
            });
        const int before = m_w->shownParams()->n;
        n += 7;
        m_w->panel()->lengthBox()->setValue(n);
        QVERIFY(waitForShown([n](const Params& q) { return q.n == n; }));
        disconnect(c);
        const std::string name(toString(s));
        QCOMPARE(early.count(), 1);
        const Params& p = views->trace()->params;
        QCOMPARE(rowsAtEarly, p.seqLen());
        QCOMPARE(wholeNAtEarly, before); // drawn while trace() was still the last whole one
        QTest::qWait(50);
        QCOMPARE(map->data().values.data(), drawnAtEarly); // not drawn again
        QVERIFY2(!map->titleText().contains(QStringLiteral("pooled")),
                 qPrintable(map->titleText()));
        // The window's trace holds no n × n index or bias (the weights alone serve this tab):
        // the maps are the reference trace's.
        QVERIFY2(!views->trace()->find("rel_index") && !views->trace()->find("bias") &&
                     !views->trace()->find("urpe_C"),
                 name.c_str());
        Weights w;
        completeWeights(p, w);
        const Trace ref = std::move(computeTrace(p, w)).value();
        if (s == Scheme::URPE)
            QVERIFY2(sameAs(index->data(), ref.find("urpe_C"), 0), name.c_str());
        else if (s != Scheme::ALiBi)
            QVERIFY2(sameAs(index->data(), ref.find("rel_index"), 0), name.c_str());
        if (hasBias(p)) {
            QVERIFY2(sameAs(bias->data(), ref.find("bias"), 0), name.c_str());
            views->selectHead(2);
            QTRY_VERIFY2(bias->titleText().contains(QStringLiteral("head 2")),
                         qPrintable(bias->titleText()));
            QVERIFY2(sameAs(bias->data(), ref.find("bias"), 2), name.c_str());
            views->selectHead(0);
        }
    }
    // Two buffers per map while changes come (the one shown, the one filled next); once idle,
    // only what is shown: Shaw's index (the hidden bias map let go of ALiBi's).
    QVERIFY(views->toeplitzBuffersHeld() <= 4);
    QTRY_COMPARE_WITH_TIMEOUT(views->toeplitzBuffersHeld(), 1, 4000);
    QVERIFY(!bias->hasData());
    views->setCurrentIndex(0);
}

void TestMainWindow::quickChangesEndOnTheLast() {
    QSpinBox* n = m_w->panel()->lengthBox();
    for (int v = 100; v <= 400; v += 10) {
        n->setValue(v);
        QCoreApplication::processEvents(); // events interleave as they would under a drag
    }
    QVERIFY(waitForShown([](const Params& s) { return s.n == 400; }));
    QTest::qWait(300);
    QCOMPARE(m_w->shownParams()->n, 400);
    QCOMPARE(m_w->views()->currentHeatmap()->data().rows, 400);
}

void TestMainWindow::sliderDragCoalesces() {
    QSlider* s = m_w->panel()->lengthSlider();
    QSignalSpy changed(m_w->panel(), &ParamsPanel::changed);
    for (int v = 500; v <= 800; v += 5)
        s->setValue(v); // no event loop turn between the steps: one emission
    QVERIFY(changed.wait(2000));
    QTest::qWait(ParamsPanel::kCoalesceMs * 3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).value<Params>().n, sliderToLength(800));
    QCOMPARE(m_w->panel()->lengthBox()->value(), sliderToLength(800));
}

void TestMainWindow::undoRedoRestoresParameters() {
    m_w->panel()->widthBox()->setValue(32);
    QVERIFY(waitForShown([](const Params& s) { return s.d == 32; }));
    QVERIFY(m_w->undoStack()->canUndo());
    m_w->undoStack()->undo();
    QCOMPARE(m_w->panel()->params().d, 128);
    QVERIFY(waitForShown([](const Params& s) { return s.d == 128; }));
    m_w->undoStack()->redo();
    QCOMPARE(m_w->panel()->params().d, 32);
    QVERIFY(waitForShown([](const Params& s) { return s.d == 32; }));
}

void TestMainWindow::undoHistoryIsBounded() {
    // Hours of changes must not grow the window without end: the oldest steps are dropped.
    QUndoStack* undo = m_w->undoStack();
    QCOMPARE(undo->undoLimit(), MainWindow::kUndoSteps);
    for (int k = 0; k < MainWindow::kUndoSteps + 10; ++k)
        undo->push(new QUndoCommand(QStringLiteral("step %1").arg(k)));
    QCOMPARE(undo->count(), MainWindow::kUndoSteps);
    QCOMPARE(undo->text(0), QStringLiteral("step 10")); // the first ten went
    undo->clear();
}

void TestMainWindow::presetsMenuAppliesAModel() {
    for (const char* name : {"bert", "gpt2", "t5", "deberta-v3", "llama", "gpt-neox", "bloom"})
        QVERIFY2(m_w->findChild<QAction*>(QStringLiteral("preset-") + QLatin1String(name)), name);
    const int n = m_w->panel()->params().n;
    m_w->findChild<QAction*>(QStringLiteral("preset-bloom"))->trigger();
    QVERIFY(waitForShown([](const Params& s) { return s.scheme == Scheme::ALiBi; }));
    const Params p = m_w->panel()->params();
    QCOMPARE(p.d, 1024);
    QCOMPARE(p.heads, 16);
    QVERIFY(p.alibiMode == AlibiMode::Causal && p.mask == MaskKind::Causal);
    QCOMPARE(p.n, n);         // the sequence length is the user's
    m_w->undoStack()->undo(); // one step back to the defaults
    QCOMPARE(m_w->panel()->params().d, 128);
    QVERIFY(waitForShown([](const Params& s) { return s.d == 128; }));
}

void TestMainWindow::everySchemeShowsItsViews_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << static_cast<int>(s);
}

void TestMainWindow::everySchemeShowsItsViews() {
    QFETCH(int, scheme);
    const auto s = static_cast<Scheme>(scheme);
    QComboBox* box = m_w->panel()->schemeBox();
    box->setCurrentIndex(box->findData(scheme));
    QVERIFY(waitForShown([s](const Params& p) { return p.scheme == s; }));
    TraceViews* v = m_w->views();
    const Trace* t = v->trace();
    QVERIFY(t);
    // Encoding tab: P for absolute schemes, else X (none) or the scheme's own table; the second
    // map (P·Pᵀ, X·Xᵀ or a second table) holds data exactly when it is shown.
    QVERIFY(!v->heatmaps()[0]->data().empty());
    QCOMPARE(!v->heatmaps()[1]->data().empty(), !v->heatmaps()[1]->isHidden());
    QCOMPARE(!v->heatmaps()[1]->isHidden(),
             isAbsolute(s) || v->positions()->maps.size() > 1 || s == Scheme::None);
    // Relative tab: the bias view holds the trace's bias for head 0 (prepared when opened).
    v->setCurrentIndex(1);
    if (const Tensor* b = t->find("bias")) {
        QCOMPARE(v->heatmaps()[3]->data().rows, t->params.seqLen());
        QCOMPARE(v->heatmaps()[3]->data().at(1, 0), b->at(t->params.seqLen()));
    }
    // Attention tab: the enlarged map is head 0's weights; rows sum to 1 under softmax (URPE
    // multiplies the softmax by its C table afterwards).
    v->setCurrentIndex(3);
    const Grid& w = v->currentHeatmap()->data();
    v->setCurrentIndex(0); // the next row starts from the encoding tab
    QCOMPARE(w.rows, t->params.seqLen());
    double sum = 0;
    for (int j = 0; j < w.cols; ++j)
        sum += w.at(5, j);
    if (s != Scheme::URPE)
        QVERIFY(qAbs(sum - 1.0) < 1e-5);
    QCOMPARE(w.at(5, 3), t->find("weights")->at(5 * w.cols + 3));
}

void TestMainWindow::exportsCurrentView() {
    QTemporaryDir dir;
    for (const char* name : {"v.png", "v.svg", "v.pdf", "v.npy", "v.csv"}) {
        const QString path = dir.filePath(QLatin1String(name));
        const bool matrix =
            path.endsWith(QLatin1String("npy")) || path.endsWith(QLatin1String("csv"));
        const Status st = matrix ? m_w->exportMatrix(path) : m_w->exportFigure(path, 96);
        QVERIFY2(st.ok(), st.ok() ? name : st.error().message.c_str());
        QVERIFY(QFileInfo(path).size() > 500);
    }
    QVERIFY(!m_w->exportFigure(dir.filePath(QStringLiteral("v.bmp")), 96).ok());
}

void TestMainWindow::comparisonShowsTheDifference() {
    ComparisonView* c = m_w->comparison();
    QSignalSpy updated(c, &ComparisonView::updated);
    c->setOtherScheme(Scheme::ALiBi);
    m_w->views()->setCurrentWidget(c); // B is computed only while the view is shown
    QVERIFY(updated.wait(8000) || updated.count() > 0);
    QVERIFY(c->other());
    QVERIFY(c->other()->params.scheme == Scheme::ALiBi);
    QCOMPARE(c->other()->params.n, 64);
    const Grid& a = c->left()->data();
    const Grid& b = c->right()->data();
    const Grid& d = c->difference()->data();
    QCOMPARE(d.rows, 64);
    QCOMPARE(d.at(3, 7), a.at(3, 7) - b.at(3, 7));
    QVERIFY(qAbs(d.at(3, 7)) > 0); // sinusoidal and ALiBi attend differently
    QCOMPARE(m_w->currentHeatmap(), c->difference());
    // Linked zoom: zooming A zooms B and the difference, and they re-pool the visible block.
    c->left()->plot()->xAxis->setRange(9.5, 25.5);
    QCOMPARE(c->difference()->plot()->xAxis->range().lower, 9.5);
    QCOMPARE(c->right()->plot()->xAxis->range().upper, 25.5);
    QTRY_COMPARE(c->difference()->displayedCells().width(), 16);
}

// On the Compare tab each submitted change is announced to the view, which computes B for it
// ahead; a change whose computation fails never comes, and the view must go on with the
// reference it has (it held its requests back, waiting: a new B was never computed).
void TestMainWindow::comparisonGoesOnAfterAFailedComputation() {
    ComparisonView* c = m_w->comparison();
    m_w->views()->setCurrentWidget(c);
    QTRY_VERIFY_WITH_TIMEOUT(c->other(), 8000);
    m_w->controller()->setMemoryBudget(1 << 20); // 1 MiB: n = 4,096 is refused
    m_w->panel()->lengthBox()->setValue(4096);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->statusBar()->currentMessage().contains(QLatin1String("more than the")), 8000);
    QCOMPARE(m_w->shownParams()->n, 64);
    c->setOtherScheme(Scheme::T5);
    QTRY_VERIFY_WITH_TIMEOUT(c->other() && c->other()->params.scheme == Scheme::T5, 8000);
    QCOMPARE(c->other()->params.n, 64);
}

// The window's pass stops at the weights unless a tab shown needs more: on the Compare tab,
// comparing the layer's output asks for the rest of A's pass (and B's).
void TestMainWindow::comparedOutputCompletesTheReference() {
    ComparisonView* c = m_w->comparison();
    m_w->views()->setCurrentWidget(c);
    QTRY_VERIFY_WITH_TIMEOUT(c->other(), 8000);
    const Trace* a = m_w->views()->trace();
    QVERIFY(a && a->find("weights") && !a->find("V") && !a->find("head_out") && !a->find("out"));
    const Params shown = a->params;
    QVERIFY(c->setTensor(QStringLiteral("out")));
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->views()->trace()->find("out") && c->other() && c->other()->find("out"), 8000);
    QCOMPARE(m_w->views()->trace()->params, shown);
    QTRY_COMPARE_WITH_TIMEOUT(c->left()->shownTensor(), m_w->views()->trace()->find("out"), 8000);
    QCOMPARE(c->left()->data().rows, shown.seqLen()); // [n, d]
    QCOMPARE(c->left()->data().cols, shown.d);
    // Another change on this tab is computed to the end at once.
    m_w->panel()->lengthBox()->setValue(48);
    QTRY_VERIFY_WITH_TIMEOUT(m_w->shownParams()->n == 48, 8000);
    QVERIFY(m_w->views()->trace()->find("out"));
}

// The Attention tab shows no n × n tensor but the weights: its pass makes no logits and no
// position-term tensor (T5's bias, the bucket index). The Logit terms tab, opened, has the same
// parameters computed with them, and keeps what it showed until they come.
void TestMainWindow::weightsAloneUntilATabShowsTheTerms() {
    Session s = m_w->session();
    s.params.scheme = Scheme::T5;
    s.params.n = 40;
    m_w->views()->setCurrentIndex(3);
    m_w->applySession(s);
    QVERIFY(waitForShown([](const Params& p) { return p.scheme == Scheme::T5 && p.n == 40; }));
    const Trace* t = m_w->views()->trace();
    QVERIFY(t->find("weights") && t->find("Q") && !t->find("logits") && !t->find("bias") &&
            !t->find("rel_index") && !t->find("out"));
    const Params shown = t->params;
    m_w->views()->setCurrentIndex(2);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->views()->trace()->find("logits") && m_w->views()->trace()->find("bias"), 8000);
    QCOMPARE(m_w->views()->trace()->params, shown);
    // The tab's maps are the new trace's: the logits and the bias among them.
    QTRY_VERIFY_WITH_TIMEOUT(m_w->views()->findChildren<HeatmapView*>().size() > 0, 8000);
    bool logitsShown = false, biasShown = false;
    for (HeatmapView* v : m_w->views()->findChildren<HeatmapView*>()) {
        logitsShown = logitsShown || v->shownTensor() == m_w->views()->trace()->find("logits");
        biasShown = biasShown || v->shownTensor() == m_w->views()->trace()->find("bias");
    }
    QVERIFY(logitsShown && biasShown);
    // Back on the Attention tab, the next change leaves them out again.
    m_w->views()->setCurrentIndex(3);
    m_w->panel()->lengthBox()->setValue(44);
    QTRY_VERIFY_WITH_TIMEOUT(m_w->shownParams()->n == 44, 8000);
    QVERIFY(!m_w->views()->trace()->find("logits") && !m_w->views()->trace()->find("bias"));
    // The Relative tab draws its index and bias from the tables by offset that come with every
    // result: the weights alone serve it, nothing is computed again on opening it or after a
    // change there, and its bias is T5's.
    const Trace* alone = m_w->views()->trace();
    m_w->views()->setCurrentIndex(1);
    QTest::qWait(300);
    QCOMPARE(m_w->views()->trace(), alone);
    QVERIFY(!m_w->controller()->busy());
    m_w->panel()->lengthBox()->setValue(48);
    QTRY_VERIFY_WITH_TIMEOUT(m_w->shownParams()->n == 48, 8000);
    const Trace* relative = m_w->views()->trace();
    QVERIFY(!relative->find("logits") && !relative->find("bias") && !relative->find("rel_index"));
    Weights w;
    completeWeights(relative->params, w);
    const Trace ref = std::move(computeTrace(relative->params, w)).value();
    QTRY_COMPARE(m_w->views()->biasMap()->data().cols, 48);
    QCOMPARE(m_w->views()->biasMap()->data().at(5, 30), ref.find("bias")->at(5 * 48 + 30));
    QCOMPARE(m_w->views()->relIndexMap()->data().at(30, 5), ref.find("rel_index")->at(30 * 48 + 5));
}

void TestMainWindow::longWorkShowsProgressAndCancels() {
    // Seconds of work (pooled DeBERTa at n = 8000; n = 2500 took under 200 ms on a fast
    // machine): the progress bar and Cancel appear after 200 ms.
    Session big = m_w->session();
    big.params.scheme = Scheme::DeBERTa;
    big.params.n = 8000;
    big.params.heads = 8;
    m_w->applySession(big);
    auto* cancel = m_w->findChild<QPushButton*>(QStringLiteral("cancelButton"));
    auto* progress = m_w->findChild<QProgressBar*>(QStringLiteral("progress"));
    QVERIFY(cancel && progress);
    QVERIFY(!cancel->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(cancel->isVisible() && progress->isVisible(), 3000);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(!cancel->isVisible());
    QVERIFY(!m_w->controller()->busy());
    QTest::qWait(500);
    QCOMPARE(m_w->shownParams()->n, 64); // the cancelled result never reaches the views
    // The window is still live: the next change is computed and shown.
    m_w->panel()->lengthBox()->setValue(20);
    QVERIFY(waitForShown([](const Params& p) { return p.n == 20; }));
}

void TestMainWindow::chosenColumnsOfP() {
    TraceViews* v = m_w->views();
    QCustomPlot* plot = v->columnsPlot()->plot();
    QCOMPARE(plot->graphCount(), 4); // d2l's columns 6 7 8 9
    const Tensor* P = v->trace()->find("P");
    QCOMPARE(plot->graph(0)->data()->at(5)->value, P->at(5 * 128 + 6));
    v->columnsEdit()->setText(QStringLiteral("0 127 500 x"));
    Q_EMIT v->columnsEdit()->editingFinished();
    QCOMPARE(plot->graphCount(), 2); // out-of-range and non-numbers are skipped
    QCOMPARE(plot->graph(1)->data()->at(9)->value, P->at(9 * 128 + 127));

    // n = 4096 (pooled mode): P's 4096 rows are shown as 2048 means of two, each at its bin's
    // centre on a position axis (they were at 0, 1, 2, … under "position / 2").
    v->columnsEdit()->setText(QStringLiteral("6"));
    Q_EMIT v->columnsEdit()->editingFinished();
    m_w->panel()->lengthBox()->setValue(4096);
    QVERIFY(waitForShown([](const Params& s) { return s.n == 4096; }, 60000));
    const Tensor* P2 = v->trace()->find("P");
    QVERIFY(P2 && P2->dim(0) == 4096);
    QTRY_COMPARE(plot->graph(0)->data()->size(), 2048);
    QCOMPARE(plot->graph(0)->data()->at(1)->key, 2.5);
    QVERIFY(std::abs(plot->graph(0)->data()->at(1)->value -
                     0.5 * (P2->at(2 * 128 + 6) + P2->at(3 * 128 + 6))) < 1e-6);
    QCOMPARE(plot->xAxis->label(), QStringLiteral("position (means of 2)"));
    // The maps' ticks are positions too: up to 4096, not 2048.
    HeatmapView* map = v->positionMap();
    map->plot()->replot();
    double top = 0;
    for (const QString& label : map->plot()->yAxis->tickVectorLabels())
        top = std::max(top, QLocale().toDouble(label));
    QVERIFY2(top > 2100, qPrintable(map->plot()->yAxis->tickVectorLabels().join(u' ')));
}

// View > Square cells: every map of the window, those of other tabs too, draws square cells;
// P (64 × 128) twice as wide as tall. Off again, P fills its box.
void TestMainWindow::squareCellsReachEveryMap() {
    QAction* square = m_w->squareCellsAction();
    QVERIFY(square && square->isCheckable() && !square->isChecked());
    HeatmapView* p = m_w->views()->currentHeatmap();
    p->plot()->replot();
    const QRect filled = p->plot()->axisRect()->rect();
    QVERIFY(std::abs(filled.width() - 2 * filled.height()) > 20);
    square->trigger();
    p->plot()->replot();
    const QRect r = p->plot()->axisRect()->rect();
    QVERIFY2(std::abs(r.width() - 2 * r.height()) <= 2,
             qPrintable(QStringLiteral("%1 x %2").arg(r.width()).arg(r.height())));
    const auto maps = m_w->findChildren<HeatmapView*>();
    QVERIFY(maps.size() > 10); // the tabs' maps, the stepper's, the comparison's
    for (HeatmapView* v : maps)
        QVERIFY(v->squareCells());
    square->trigger();
    p->plot()->replot();
    QCOMPARE(p->plot()->axisRect()->rect(), filled);
    for (HeatmapView* v : maps)
        QVERIFY(!v->squareCells());
}

void TestMainWindow::pooledModeAndZoomedTile() {
    // Tests lower the threshold: above 100 positions the worker pools to 64 cells per side.
    m_w->controller()->setPooling(100, 64, PoolMode::Mean);
    Session s = m_w->session();
    s.params.scheme = Scheme::T5;
    s.params.n = 300;
    s.params.d = 32;
    s.params.heads = 2;
    m_w->applySession(s);
    QVERIFY(waitForShown([](const Params& p) { return p.n == 300 && p.scheme == Scheme::T5; }));
    TraceViews* v = m_w->views();
    const int N = s.params.seqLen();
    QVERIFY(v->poolInfo().pooled);
    const QString pooled = QStringLiteral("pooled %1\u219264, mean").arg(N);
    QVERIFY2(m_w->statusText().contains(pooled), qPrintable(m_w->statusText()));
    // The relative tab's n×n matrices, which pooled mode does not compute, are pooled from
    // the tables by offset, to the logits' cells.
    v->setCurrentIndex(1);
    QTRY_VERIFY(v->relativeNote().contains(QLatin1String("Pooled mode")));
    QVERIFY(v->relIndexMap()->isVisible() && v->biasMap()->isVisible());
    QCOMPARE(v->biasMap()->dataRows(), 64);
    QVERIFY2(v->biasMap()->titleText().contains(pooled), qPrintable(v->biasMap()->titleText()));
    const Grid relativeBias = v->biasMap()->data();
    // The Logit terms tab: T5's logits and, from the same tables, its bias; nothing left out,
    // so no note.
    v->setCurrentIndex(2);
    QTRY_VERIFY(v->termMaps().size() >= 2 && v->termMaps()[1]->isVisible());
    HeatmapView* termBias = v->termMaps()[1];
    QCOMPARE(termBias->info().valueTitle, QStringLiteral("bias"));
    QVERIFY(termBias->data() == relativeBias);
    QCOMPARE(termBias->sourceRows(), N);
    QVERIFY2(termBias->titleText().contains(pooled), qPrintable(termBias->titleText()));
    QVERIFY(!v->termMaps()[0]->info().subtitle.contains(QLatin1String("not computed")));

    v->setCurrentIndex(3);
    HeatmapView* e = v->currentHeatmap();
    QTRY_COMPARE(e->data().rows, 64);
    QVERIFY(e->titleText().contains(pooled));
    QSignalSpy wanted(e, &HeatmapView::tileWanted);
    e->plot()->yAxis->setRange(9.5, 19.5);
    e->plot()->xAxis->setRange(9.5, 19.5); // 10 cells on a few hundred pixels: past the cells
    QVERIFY(wanted.wait(3000));
    QTRY_VERIFY_WITH_TIMEOUT(e->hasTile(), 8000);
    const PoolRegion t = e->tileRegion();
    QCOMPARE(t.r0, 10 * N / 64);
    QVERIFY(t.r1 >= 20 * N / 64 && t.r1 <= 20 * N / 64 + 1);
    QVERIFY(t.rows() <= 64); // within the resolution: at full resolution
    QVERIFY2(e->tileNote().contains(QLatin1String("full resolution")), qPrintable(e->tileNote()));
    const PoolRegion tile = t;
    QTRY_VERIFY(!m_w->controller()->busy());
    // The same parameters without pooling: the tile is the slice of the full weights.
    const int frames = m_w->frames();
    m_w->controller()->setPooling(1 << 20, 64, PoolMode::Mean);
    Grid shownTile = sliceHead(*v->trace()->find("weights"), 0); // pooled cells, for the shape
    QCOMPARE(shownTile.rows, 64);
    m_w->controller()->submit(s.params, s.input);
    QTRY_VERIFY_WITH_TIMEOUT(m_w->frames() > frames, 8000);
    QVERIFY(!v->poolInfo().pooled);
    const Grid full = sliceHead(*v->trace()->find("weights"), v->selectedHead());
    QCOMPARE(full.rows, N);
    // Ask for the same tile again through the controller and compare cell by cell.
    QSignalSpy tiles(m_w->controller(), &ComputeController::resultReady);
    m_w->controller()->setPooling(100, 64, PoolMode::Mean);
    m_w->controller()->submitTile(s.params, s.input, tile);
    QVERIFY(tiles.wait(8000));
    const auto r = tiles.at(0).at(0).value<ComputeResult>();
    QVERIFY(r.pool.tile && r.pool.fullResolution());
    const Grid got = sliceHead(*r.trace->find("weights"), v->selectedHead());
    QCOMPARE(got.rows, tile.rows());
    for (int i = 0; i < got.rows; ++i)
        for (int j = 0; j < got.cols; ++j)
            QVERIFY(std::abs(got.at(i, j) - full.at(tile.r0 + i, tile.c0 + j)) < 1e-5);
}

void TestMainWindow::openGlBackendMatchesTheCpu() {
    QVERIFY(m_w->statusText().contains(QLatin1String("cpu")));
    const Tensor a = *m_w->views()->trace()->find("weights");
    const int frames = m_w->frames();
    QAction* gl = glAction();
    QVERIFY(gl);
    gl->trigger(); // recomputes the same parameters on the GPU engine
    QTRY_VERIFY_WITH_TIMEOUT(m_w->frames() > frames, 10000);
    // Under a display, the window's context is a QOpenGLContext (Xvfb + Mesa give GL 4.5).
    QVERIFY2(m_w->statusText().contains(QLatin1String("gl: ")), qPrintable(m_w->statusText()));
    QVERIFY2(m_w->backendToolTip().contains(QLatin1String("through Qt")),
             qPrintable(m_w->backendToolTip()));
    const Tensor* b = m_w->views()->trace()->find("weights");
    QVERIFY(b && a.shape() == b->shape());
    double maxDiff = 0;
    for (std::int64_t e = 0; e < a.size(); ++e)
        maxDiff = std::max(maxDiff, std::abs(a.at(e) - b->at(e)));
    QVERIFY2(maxDiff < 1e-4, qPrintable(QString::number(maxDiff))); // fp32 on both engines
}

void TestMainWindow::glContextLostIsSaidOnce() {
    // The GL context lost in the middle of a computation (fault injection, gl_backend.h): that
    // result and the later ones come from the CPU, and the status bar says why once.
    qputenv("PE_GL_LOSE_CONTEXT_AFTER", "3");
    QStringList said;
    connect(m_w->statusBar(), &QStatusBar::messageChanged, this, [&said](const QString& m) {
        if (m.contains(QLatin1String("context was lost")))
            said << m;
    });
    QAction* gl = glAction();
    QVERIFY(gl);
    const int frames = m_w->frames();
    gl->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(m_w->frames() > frames, 10000);
    for (int n : {40, 48}) {
        m_w->panel()->lengthBox()->setValue(n);
        QVERIFY(waitForShown([n](const Params& p) { return p.n == n; }));
    }
    qunsetenv("PE_GL_LOSE_CONTEXT_AFTER");
    if (m_w->backendToolTip().contains(QLatin1String("PE_GL_UNAVAILABLE")) ||
        m_w->backendToolTip().contains(QLatin1String("no OpenGL")))
        QSKIP("no OpenGL 4.3 context here");
    QVERIFY2(m_w->backendToolTip().contains(QLatin1String("context was lost")),
             qPrintable(m_w->backendToolTip()));
    QCOMPARE(said.size(), 1);
    QCOMPARE(m_w->views()->currentHeatmap()->data().rows, 48); // computed all the same
}

void TestMainWindow::glUnavailableIsSaidOnce() {
    // No GL 4.3 context (fault injection, gl_context.h): the CPU computes and the status bar says
    // why once, not on every later result.
    qputenv("PE_GL_UNAVAILABLE", "1");
    QStringList said;
    connect(m_w->statusBar(), &QStatusBar::messageChanged, this, [&said](const QString& m) {
        if (m.contains(QLatin1String("PE_GL_UNAVAILABLE")))
            said << m;
    });
    QAction* gl = glAction();
    QVERIFY(gl);
    int frames = m_w->frames();
    gl->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(m_w->frames() > frames, 10000);
    for (int n : {40, 48}) { // two more results on the same fallback
        frames = m_w->frames();
        m_w->panel()->lengthBox()->setValue(n);
        QVERIFY(waitForShown([n](const Params& p) { return p.n == n; }));
    }
    qunsetenv("PE_GL_UNAVAILABLE");
    QVERIFY2(!m_w->statusText().contains(QLatin1String("gl: ")), qPrintable(m_w->statusText()));
    QVERIFY2(m_w->backendToolTip().contains(QLatin1String("using the CPU")),
             qPrintable(m_w->backendToolTip()));
    QCOMPARE(said.size(), 1);
    QCOMPARE(m_w->views()->currentHeatmap()->data().rows, 48); // computed all the same
}

void TestMainWindow::overBudgetKeepsThePreviousView() {
    // A request over the memory budget is refused by the worker's estimate before anything is
    // allocated: the status bar says why and the views keep what they showed.
    m_w->controller()->setMemoryBudget(1 << 20); // 1 MiB
    const Grid before = m_w->views()->currentHeatmap()->data();
    m_w->panel()->lengthBox()->setValue(4096);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->statusBar()->currentMessage().contains(QLatin1String("more than the")), 8000);
    QVERIFY2(m_w->statusBar()->currentMessage().contains(QLatin1String("lower n")),
             qPrintable(m_w->statusBar()->currentMessage()));
    QTest::qWait(200);
    QCOMPARE(m_w->shownParams()->n, 64);
    const Grid after = m_w->views()->currentHeatmap()->data();
    QCOMPARE(after.rows, before.rows);
    QVERIFY(after.values == before.values);
    // Within budget again, the window computes.
    m_w->controller()->setMemoryBudget(std::uint64_t{1} << 30);
    m_w->panel()->lengthBox()->setValue(100);
    QVERIFY(waitForShown([](const Params& p) { return p.n == 100; }));
}

void TestMainWindow::memoryHeldElsewhereKeepsThePreviousView() {
    // The window's workers share the process's budget. With the Insights tab's computation
    // holding all but a kilobyte of it (a reservation in its name, made here), a request that
    // fits the budget alone is refused: the status bar names the holder and the views keep what
    // they showed. Once the Insights tab lets go, the next request computes, in full.
    const std::shared_ptr<MemoryBudget> budget = MemoryBudget::process();
    const std::string views = ComputeWorker::kDefaultMemoryHolder;
    const auto restore =
        qScopeGuard([budget, total = budget->total()] { budget->setTotal(total); });
    const std::uint64_t others = budget->total() - budget->availableTo(views); // the Compare tab
    Params next = *m_w->shownParams();
    next.n = 200;
    const std::uint64_t need = estimateTraceBytes(next) + estimateWeightBytes(next);
    auto insights = budget->reserve(kInsightsMemoryHolder, need + need / 4 - 1024);
    QVERIFY2(insights, insights ? "" : insights.error().message.c_str());
    budget->setTotal(others + need + need / 4); // 1 KiB left to the views
    QCOMPARE(budget->availableTo(views), std::uint64_t{1024});

    const Grid before = m_w->views()->currentHeatmap()->data();
    m_w->panel()->lengthBox()->setValue(200);
    QTRY_VERIFY2_WITH_TIMEOUT(
        m_w->statusBar()->currentMessage().contains(
            QLatin1String("the Insights tab's computation holds")),
        qPrintable(m_w->statusBar()->currentMessage() + u'|' + m_w->statusText()), 8000);
    QVERIFY2(m_w->statusBar()->currentMessage().contains(QLatin1String("lower n")),
             qPrintable(m_w->statusBar()->currentMessage()));
    QTest::qWait(200);
    QCOMPARE(m_w->shownParams()->n, 64);
    const Grid after = m_w->views()->currentHeatmap()->data();
    QCOMPARE(after.rows, before.rows);
    QVERIFY(after.values == before.values);

    insights->release();
    m_w->panel()->lengthBox()->setValue(199); // (200 is still the current request: not posted)
    QVERIFY(waitForShown([](const Params& p) { return p.n == 199; }));
    QVERIFY2(!m_w->statusText().contains(QLatin1String("pooled")), qPrintable(m_w->statusText()));
}

void TestMainWindow::closingDuringALongComputationIsPrompt() {
    // A hang check, not a speed claim: the window closes while an n = 16384 computation runs
    // (the destructor cancels it and joins the worker thread); 5 s is a generous bound for what
    // takes milliseconds on the development machine.
    Session big = m_w->session();
    big.params.scheme = Scheme::DeBERTa;
    big.params.n = 16384;
    big.params.heads = 8;
    m_w->applySession(big);
    QTRY_VERIFY_WITH_TIMEOUT(m_w->controller()->busy(), 3000);
    QTest::qWait(300); // well inside the computation
    QVERIFY(m_w->controller()->busy());
    QElapsedTimer t;
    t.start();
    m_w->close();
    delete m_w;
    m_w = nullptr;
    const qint64 ms = t.elapsed();
    qInfo("closed during an n = 16384 computation in %lld ms", static_cast<long long>(ms));
    QVERIFY2(ms < 5000, qPrintable(QString::number(ms)));
}

QTEST_MAIN(TestMainWindow)
void TestMainWindow::identityWeightsShowThePurePositionEffect_data() {
    QTest::addColumn<int>("scheme");
    QTest::newRow("alibi symmetric") << int(Scheme::ALiBi);
    QTest::newRow("t5") << int(Scheme::T5);
}

// n identical tokens + identity projections + a relative scheme: Q = K = X holds the same row
// everywhere, so q_i·k_j is one constant and the logits are the position bias alone, a function
// of j − i: a Toeplitz matrix; each weights row is then a softmax of a shifted window of it.
void TestMainWindow::identityWeightsShowThePurePositionEffect() {
    QFETCH(int, scheme);
    Session s = Settings::defaultSession();
    s.params.scheme = static_cast<Scheme>(scheme);
    s.params.alibiMode = AlibiMode::Symmetric;
    s.params.n = 48;
    s.params.d = 32;
    s.params.heads = 4;
    s.input.kind = InputKind::Identical;
    s.input.weights = WeightsKind::Identity;
    m_w->views()->setCurrentIndex(2); // the Logit terms tab: the logits are computed for it
    m_w->applySession(s);
    QVERIFY(waitForShown([&](const Params& p) {
        return int(p.scheme) == scheme && p.n == 48 &&
               m_w->views()->weightsLabel().contains(QLatin1String("identity"));
    }));
    QVERIFY(m_w->views()->caption().contains(QLatin1String("weights: identity projections")));
    QCOMPARE(m_w->findChild<StepperPanel*>()->weightsLabel(),
             QStringLiteral("weights: identity projections"));
    const Trace* t = m_w->views()->trace();
    const Tensor* logits = t->find("logits");
    const Tensor* weights = t->find("weights");
    QVERIFY(logits && weights);
    const int n = 48;
    double worstLogit = 0, worstRatio = 0;
    for (int h = 0; h < 4; ++h)
        for (int i = 1; i < n; ++i)
            for (int j = 1; j < n; ++j) {
                const std::int64_t a = (std::int64_t{h} * n + i) * n + j;
                const std::int64_t b = (std::int64_t{h} * n + i - 1) * n + j - 1;
                worstLogit = std::max(worstLogit, std::abs(logits->at(a) - logits->at(b)));
                // The softmax normaliser depends on the row; ratios along a row do not.
                if (j + 1 < n) {
                    const double r1 = std::log(weights->at(a + 1) / weights->at(a));
                    const double r0 = std::log(weights->at(b + 1) / weights->at(b));
                    worstRatio = std::max(worstRatio, std::abs(r1 - r0));
                }
            }
    QVERIFY2(worstLogit < 1e-5, qPrintable(QString::number(worstLogit)));
    // With W_q = W_k = I the constant is |x_h|²/√d_h (x_h: head h's slice of the one input row),
    // plus the bias at distance 0 (0 for alibi): random projections would give another number.
    if (scheme == int(Scheme::ALiBi)) {
        const Tensor* x = t->find("X");
        QVERIFY(x);
        const int dh = 32 / 4;
        for (int h = 0; h < 4; ++h) {
            double sq = 0;
            for (int k = 0; k < dh; ++k)
                sq += x->at(h * dh + k) * x->at(h * dh + k);
            QVERIFY(std::abs(logits->at(std::int64_t{h} * n * n) - sq / std::sqrt(dh)) <
                    1e-4 * std::max(1.0, sq));
        }
    }
    QVERIFY2(worstRatio < 1e-4, qPrintable(QString::number(worstRatio)));
    // Back to random weights: the label follows.
    s.input.weights = WeightsKind::Random;
    m_w->applySession(s);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->views()->caption().contains(QLatin1String("weights: random, seed 0")), 8000);
}

// "Open in views" from the Lab tab: Weights = trained, the layer's tensors in the forward pass,
// the input the task's sample tokens, and the label naming the model.
void TestMainWindow::labModelOpensInTheViews() {
    auto* lab = m_w->findChild<LabPanel*>();
    QVERIFY(lab);
    LabLayerView v;
    v.params.scheme = Scheme::T5;
    v.params.n = 6;
    v.params.d = 16;
    v.params.heads = 2;
    auto w = std::make_shared<Weights>();
    w->W_q = 3.0 * Eigen::MatrixXd::Identity(16, 16);
    w->W_k = w->W_v = w->W_o = Eigen::MatrixXd::Identity(16, 16);
    v.weights = w;
    v.tokens = QStringLiteral("a b c d e f");
    v.name = QStringLiteral("shift-3, t5, layer 1 of 2");
    Q_EMIT lab->openInViews(v);
    QVERIFY(waitForShown([](const Params& p) { return p.scheme == Scheme::T5 && p.n == 6; }));
    QTRY_VERIFY(m_w->views()->caption().contains(
        QLatin1String("weights: trained: shift-3, t5, layer 1 of 2")));
    QVERIFY(m_w->panel()->input().weights == WeightsKind::Trained);
    const Trace* t = m_w->views()->trace();
    const Tensor* x = t->find("X");
    const Tensor* q = t->find("Q");
    QCOMPARE(q->at(2 * 8 + 5), 3 * x->at(2 * 16 + 5)); // head 0, position 2, column 5
}

void TestMainWindow::trainedWeightsAreGreyedUntilAModelIsGiven() {
    QComboBox* box = m_w->panel()->weightsBox();
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    QVERIFY(model);
    const int trained = box->findData(static_cast<int>(WeightsKind::Trained));
    QVERIFY(!model->item(trained)->isEnabled());
    QVERIFY(model->item(trained)->toolTip().contains(QLatin1String("Lab tab")));
    m_w->panel()->setTrainedModel(std::make_shared<Weights>(), QStringLiteral("copy, rope"));
    QVERIFY(model->item(trained)->isEnabled());
    // Identity projections from the panel reach the views' caption.
    box->setCurrentIndex(box->findData(static_cast<int>(WeightsKind::Identity)));
    QTRY_VERIFY_WITH_TIMEOUT(
        m_w->views()->caption().contains(QLatin1String("weights: identity projections")), 8000);
    m_w->panel()->setTrainedModel(nullptr, {});
    QVERIFY(!model->item(trained)->isEnabled());
}

#include "tst_main_window.moc"
