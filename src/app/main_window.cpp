// SPDX-License-Identifier: MIT
#include "main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <thread>
#include <vector>

#include "allocator.h"
#include "qcp.h"

#include "comparison_view.h"
#include "export_dialog.h"
#include "exporter.h"
#include "help.h"
#include "insights_panel.h"
#include "lab_panel.h"
#ifdef PE_HAVE_LAB
#include "lab_engine.h"
#endif
#include "params_command.h"
#include "params_panel.h"
#include "presets.h"
#include "presets_menu.h"
#include "stepper_panel.h"
#include "trace_views.h"
#include "translation.h"

namespace pe {

namespace {

/**
 * Sets the text of a status-bar label that changes every frame without laying the window out
 * again. QLabel::setText asks the layout above it to recompute whenever the label's size may
 * change, and that request climbs from the status bar to the main window: a relayout of the
 * whole window per frame. A label of fixed size asks nothing, so the label keeps one, widened
 * when a text needs more room and narrowed only when one needs much less.
 */
void setFrameText(QLabel* label, const QString& text) {
    label->setText(text);
    const QSize hint = label->sizeHint();
    const int width = label->maximumWidth();
    if (hint.width() > width || hint.width() + 80 < width)
        label->setFixedWidth(hint.width() + 24); // a little room: one more digit fits
    if (label->maximumHeight() != hint.height())
        label->setFixedHeight(hint.height());
}

} // namespace

MainWindow::MainWindow(const Session& initial, bool persist, QWidget* parent)
    : QMainWindow(parent)
    , m_persist(persist)
    , m_panel(new ParamsPanel)
    , m_views(new TraceViews)
    , m_compare(new ComparisonView)
    , m_stepper(new StepperPanel)
    , m_controller(
          new ComputeController(persist ? m_settings.backend() : BackendKind::CpuFast, this))
    , m_undo(new QUndoStack(this))
    , m_frameTimer(new QTimer(this))
    , m_progressDelay(new QTimer(this)) {
    setWindowTitle(tr("pe-explorer"));
    m_undo->setUndoLimit(kUndoSteps); // only an empty stack takes a limit
    setCentralWidget(m_views);
    m_views->addTab(m_compare, tr("Com&pare"));
    m_views->addTab(m_stepper, tr("&Stepper"));
    auto* lab = m_lab = new LabPanel; // the learning lab (lab_panel.h)
#ifdef PE_HAVE_LAB
    if (labEngineAvailable()) { // else Train and Load stay greyed and say why
        lab->setTrainer(labEngineTrainer());
        lab->setLoader(labEngineLoader());
    }
    // libtorch loads in about a second: start when the Lab tab is first shown, not at start-up.
    connect(m_views, &QTabWidget::currentChanged, this, [this] {
        if (m_views->currentWidget() == m_lab && !m_labPreload.joinable())
            m_labPreload = preloadLabEngine();
    });
#endif
    m_views->addTab(lab, tr("&Lab"));
    connect(lab, &LabPanel::openInViews, this, [this](const LabLayerView& v) {
        m_panel->setTrainedModel(v.weights, v.name);
        InputChoice in{InputKind::Text, 0, v.tokens, WeightsKind::Trained, v.weights, v.name};
        applySession(Session{v.params, in});
        m_views->setCurrentIndex(3); // Attention
    });
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    // As narrow as the panel allows; it scrolls down, never sideways (a 1280×720 screen).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_panel->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width() +
                            2 * scroll->frameWidth());
    auto* dock = new QDockWidget(tr("Parameters"), this);
    dock->setObjectName(QStringLiteral("parametersDock"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_timing = new QLabel;
    m_hover = new QLabel;
    m_progress = new QProgressBar;
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(120);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setToolTip(tr("Cancel the running computation (Esc)"));
    m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_progress->setObjectName(QStringLiteral("progress"));
    statusBar()->addWidget(m_hover, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_timing);
    m_progress->hide();
    m_cancel->hide();

    // Results are shown at most once per 16 ms (onResult); the progress bar appears after 200 ms.
    m_frameTimer->setSingleShot(true);
    m_frameTimer->setInterval(16);
    m_progressDelay->setSingleShot(true);
    m_progressDelay->setInterval(200);
    connect(m_frameTimer, &QTimer::timeout, this, &MainWindow::showPending);
    connect(m_progressDelay, &QTimer::timeout, this, [this] {
        m_progress->show();
        m_cancel->show();
    });
    connect(m_cancel, &QPushButton::clicked, m_controller, &ComputeController::cancel);
    connect(m_panel, &ParamsPanel::changed, this, &MainWindow::onPanelChanged);
    connect(m_controller, &ComputeController::resultReady, this, &MainWindow::onResult);
    connect(m_controller, &ComputeController::earlyResultReady, this, &MainWindow::onEarlyResult);
    connect(m_controller, &ComputeController::busyChanged, this, &MainWindow::onBusy);
    connect(m_views, &TraceViews::hovered, m_hover, &QLabel::setText);
    connect(m_compare, &ComparisonView::hovered, m_hover, &QLabel::setText);
    // The Stepper's value stages and the Compare tab's output need the pass to the end.
    connect(m_views, &QTabWidget::currentChanged, this, &MainWindow::completeIfNeeded);
    connect(m_compare, &ComparisonView::tensorChanged, this, &MainWindow::completeIfNeeded);
    connect(m_stepper, &StepperPanel::hovered, m_hover, &QLabel::setText);
    m_insights = new InsightsPanel; // the "why" pages (insights_panel.h), on their own worker
    m_views->addTab(m_insights, tr("&Insights"));

    m_views->setColorMap(persist ? m_settings.colorMap() : ColorMapKind::Auto);
    m_views->setPoolMode(persist ? m_settings.poolMode() : PoolMode::Mean);
    m_controller->setPooling(ComputeWorker::kDefaultPoolThreshold,
                             ComputeWorker::kDefaultPoolResolution,
                             persist ? m_settings.poolMode() : PoolMode::Mean);
    // Zooming a pooled map past its cells: the visible part at full resolution (newest wins).
    connect(m_views, &TraceViews::tileRequested, this, [this](PoolRegion region) {
        const Params* shown = shownParams();
        const bool free = !m_controller->busy() || m_controller->busyWithTile();
        if (free && shown && *shown == m_current.params)
            m_controller->submitTile(m_current.params, m_current.input, region);
    });
    buildMenus();
    if (persist) {
        restoreGeometry(m_settings.geometry());
        restoreState(m_settings.windowState());
    }
    applySession(initial);
    if (m_persist && !m_settings.tourDone())
        QTimer::singleShot(0, this, [this] { showTour(); }); // first start: a tour of the tabs
}

TourDialog* MainWindow::showTour() {
    if (!m_tour) {
        m_tour = new TourDialog(this);
        connect(m_tour, &TourDialog::pageShown, this, [this](int page) {
            if (page < m_views->count())
                m_views->setCurrentIndex(page);
        });
        connect(m_tour, &QDialog::finished, this, [this] {
            if (m_persist && m_tour->dontShowAgain())
                m_settings.setTourDone(true);
        });
    }
    m_tour->setPage(0);
    m_tour->show();
    m_tour->raise();
    return m_tour;
}

QString MainWindow::schemeHelpText() const {
    return schemeHelpHtml(m_panel->params().scheme);
}

MainWindow::~MainWindow() {
    if (m_labPreload.joinable())
        m_labPreload.join(); // never leave libtorch loading while the process exits
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open session…"), QKeySequence::Open, this, &MainWindow::openSession);
    file->addAction(tr("&Save session…"), QKeySequence::Save, this, &MainWindow::saveSession);
    file->addSeparator();
    file->addAction(tr("&Export figure (PNG/SVG/PDF)…"), QKeySequence(tr("Ctrl+E")), this,
                    [this] { exportDialog(0); });
    file->addAction(tr("Export whole &panel…"), QKeySequence(tr("Ctrl+Shift+P")), this,
                    [this] { exportDialog(1); });
    file->addAction(tr("Export &matrix (.npy/.csv)…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                    [this] { exportDialog(2); });
    file->addAction(tr("&Copy figure"), QKeySequence(tr("Ctrl+Shift+C")), this,
                    &MainWindow::copyFigure);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_undo->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_undo->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    addPresetsMenu(menuBar(), [this](const ModelPreset& m) {
        const Session next{withPreset(m_panel->params(), m), m_panel->input()};
        m_panel->setValues(next.params, next.input);
        onPanelChanged(next.params, next.input); // undoable, like any parameter change
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QStringList tabs = {tr("&Encoding"),  tr("&Relative"), tr("&Logit terms"),
                              tr("&Attention"), tr("Com&pare"),  tr("&Stepper"),
                              tr("La&b"),       tr("&Insights")};
    for (int k = 0; k < tabs.size(); ++k)
        view->addAction(tabs.at(k), QKeySequence(QStringLiteral("Ctrl+%1").arg(k + 1)), this,
                        [this, k] { m_views->setCurrentIndex(k); });
    view->addSeparator();
    QMenu* maps = view->addMenu(tr("&Colour map"));
    auto* mapGroup = new QActionGroup(this);
    for (ColorMapKind k : {ColorMapKind::Auto, ColorMapKind::Viridis, ColorMapKind::Magma,
                           ColorMapKind::Greys, ColorMapKind::RdBu, ColorMapKind::PuOr}) {
        QAction* a = maps->addAction(toString(k));
        a->setCheckable(true);
        a->setChecked(k == (m_persist ? m_settings.colorMap() : ColorMapKind::Auto));
        a->setToolTip(tr("auto: diverging RdBu centred on 0 for signed data, viridis otherwise"));
        mapGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, k] {
            m_views->setColorMap(k);
            m_compare->setColorMap(k);
            m_stepper->setColorMap(k);
            m_insights->setColorMap(k);
            if (m_persist)
                m_settings.setColorMap(k);
        });
    }
    QAction* square = view->addAction(tr("S&quare cells"));
    square->setCheckable(true);
    square->setToolTip(tr("Draw every map with square cells (as matplotlib's imshow), centred in "
                          "its box; off: maps fill their boxes"));
    square->setChecked(m_persist && m_settings.squareCells());
    HeatmapView::setSquareCellsEverywhere(square->isChecked());
    connect(square, &QAction::toggled, this, [this](bool on) {
        HeatmapView::setSquareCellsEverywhere(on);
        if (m_persist)
            m_settings.setSquareCells(on);
    });
    m_squareCells = square;
    QMenu* engines = view->addMenu(tr("Compute &backend"));
    auto* engineGroup = new QActionGroup(this);
    const BackendKind current = m_persist ? m_settings.backend() : BackendKind::CpuFast;
    for (auto [kind, name] : {std::pair{BackendKind::CpuFast, tr("fast CPU")},
                              std::pair{BackendKind::CpuReference, tr("reference CPU (exact)")},
                              std::pair{BackendKind::OpenGL, tr("OpenGL compute (GPU)")}}) {
        QAction* a = engines->addAction(name);
        a->setCheckable(true);
        a->setChecked(kind == current);
        engineGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, kind = kind] {
            m_controller->setBackendKind(kind);
            if (m_persist)
                m_settings.setBackend(kind);
            submit(m_current); // show the same parameters from the new engine
        });
    }
    // Threads of the fast CPU engine: all cores by default; fewer keep a shared machine usable.
    QMenu* threads = view->addMenu(tr("CPU &threads"));
    auto* threadGroup = new QActionGroup(this);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int chosen = m_persist ? m_settings.cpuThreads() : 0;
    std::vector<int> counts{0};
    for (int t = 1; t < cores; t *= 2)
        counts.push_back(t);
    if (cores > 1)
        counts.push_back(cores);
    for (int t : counts) {
        QAction* a = threads->addAction(t == 0 ? tr("one per core (%1)").arg(cores)
                                               : tr("%n thread(s)", nullptr, t));
        a->setCheckable(true);
        a->setChecked(t == chosen);
        a->setData(t);
        threadGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] {
            m_controller->setThreads(t);
            if (m_persist)
                m_settings.setCpuThreads(t);
            submit(m_current);
        });
    }
    m_controller->setThreads(chosen);
    QMenu* pooling = view->addMenu(tr("&Pooling of large matrices"));
    auto* poolGroup = new QActionGroup(this);
    for (PoolMode m : {PoolMode::Mean, PoolMode::Max}) {
        QAction* a = pooling->addAction(m == PoolMode::Mean ? tr("mean") : tr("max"));
        a->setCheckable(true);
        a->setChecked(m == (m_persist ? m_settings.poolMode() : PoolMode::Mean));
        poolGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, m] {
            m_views->setPoolMode(m);
            m_compare->setPoolMode(m);
            m_stepper->setPoolMode(m);
            if (m_persist)
                m_settings.setPoolMode(m);
            // Pooled mode pools in the engine: recompute with the new mode.
            m_controller->setPooling(ComputeWorker::kDefaultPoolThreshold,
                                     ComputeWorker::kDefaultPoolResolution, m);
            if (m_views->poolInfo().pooled)
                submit(m_current);
        });
    }
    // The language is read once at start (runExplorer): texts built at run time (plot titles,
    // status lines, tooltips) would each need retranslating, so a change waits for a restart.
    QMenu* languages = view->addMenu(tr("Lan&guage"));
    languages->setObjectName(QStringLiteral("languageMenu"));
    languages->setToolTipsVisible(true);
    auto* languageGroup = new QActionGroup(this);
    const QString chosenLanguage = m_persist ? m_settings.language() : QString();
    std::vector<InterfaceLanguage> choices{{QString(), tr("&System language")}};
    for (const InterfaceLanguage& l : interfaceLanguages())
        choices.push_back(l);
    for (const InterfaceLanguage& l : choices) {
        QAction* a = languages->addAction(l.name);
        a->setCheckable(true);
        a->setChecked(l.code == chosenLanguage);
        a->setData(l.code);
        a->setToolTip(tr("Takes effect when pe-explorer is restarted"));
        languageGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, code = l.code] {
            if (m_persist)
                m_settings.setLanguage(code);
            statusBar()->showMessage(tr("The new language takes effect when pe-explorer is "
                                        "restarted."),
                                     10000);
        });
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about =
        help->addAction(tr("About this &scheme"), QKeySequence::HelpContents, this, [this] {
            QMessageBox box(this);
            box.setWindowTitle(tr("About this scheme"));
            box.setTextFormat(Qt::RichText);
            box.setText(schemeHelpText());
            box.exec();
        });
    about->setObjectName(QStringLiteral("aboutSchemeAction"));
    help->addAction(tr("&Tour of the tabs"), this, [this] { showTour(); })
        ->setObjectName(QStringLiteral("tourAction"));
    help->addSeparator();
    help->addAction(tr("&About pe-explorer"), this,
                    [this] { QMessageBox::about(this, tr("About pe-explorer"), aboutHtml()); })
        ->setObjectName(QStringLiteral("aboutAction"));
}

Session MainWindow::session() const {
    return Session{m_panel->params(), m_panel->input(),
                   InsightsState{m_insights->page(), m_insights->settings()}};
}

void MainWindow::applySession(const Session& s) {
    if (s.insights) { // a session file's tab state; an undo step has none and leaves it
        m_insights->setSettings(s.insights->settings);
        m_insights->setPage(s.insights->page);
    }
    m_panel->setValues(s.params, s.input);
    submit(s);
}

void MainWindow::onPanelChanged(const Params& p, const InputChoice& in) {
    const Session next{p, in};
    if (next == m_current)
        return;
    m_undo->push(new ParamsCommand(m_current, next, [this](const Session& s) { applySession(s); }));
    submit(next);
}

void MainWindow::submit(const Session& s) {
    m_current = s;
    // The Encoding and Relative tabs show nothing of the attention: their part comes first.
    m_extent = extentWanted();
    m_controller->submit(s.params, s.input, m_views->earlyPartWanted(), m_extent);
    m_compare->prepare(s.params, s.input); // B beside A, where the Compare tab is shown
    m_insights->setParams(s.params, s.input);
}

TraceExtent MainWindow::extentWanted() const {
    const QWidget* tab = m_views->currentWidget();
    if (tab == m_stepper && m_current.params.seqLen() <= kMaxStepperPositions) // else a note
        return TraceExtent::Whole;
    if (tab == m_compare)
        return m_compare->extentNeeded();
    // The Logit terms tab shows the logits and their n × n position terms (the Relative tab
    // too, where no tables by offset came); the others no n × n tensor but the weights.
    return m_views->showsPositionTerms() ? TraceExtent::Weights : TraceExtent::WeightsAlone;
}

void MainWindow::completeIfNeeded() {
    const TraceExtent wanted = extentWanted();
    if (extentCovers(m_extent, wanted))
        return;
    // (Engines that cannot stop at the weights gave the whole pass: nothing to ask again.)
    const Trace* shown = m_views->trace();
    if (shown && shown->params == m_current.params && traceCovers(*shown, wanted))
        return;
    submit(m_current); // the same parameters, further: the views keep what they show
}

void MainWindow::onEarlyResult(const ComputeResult& r) {
    // A whole result waiting for its frame is older and shows the tab itself; this early part's
    // own whole result follows it.
    if (m_frameTimer->isActive() || !r.trace)
        return;
    m_views->setWeightsLabel(r.weights);
    m_views->setEarlyTrace(r.trace, r.pool, r.positions, r.early);
}

void MainWindow::onResult(const ComputeResult& r) {
    m_pending = r;
    if (m_frameTimer->isActive())
        return;
    // At most one frame per 16 ms: at once when the last one is older, else when it is due.
    const qint64 since = m_lastFrame.isValid() ? m_lastFrame.elapsed() : 16;
    if (since >= 16)
        showPending();
    else
        m_frameTimer->start(static_cast<int>(16 - since));
}

void MainWindow::showPending() {
    const ComputeResult r = std::move(m_pending);
    m_pending = {};
    m_lastFrame.start();
    trimMemoryWhenIdle(); // the trace this one replaces is freed as the views let go of it
    if (!r.trace || r.pool.tile)
        m_compare->cancelPrepared(); // the parameters announced to it will not come
    if (!r.error.isEmpty()) {
        if (r.error != QLatin1String("cancelled"))
            statusBar()->showMessage(tr("Error: %1").arg(r.error), 8000);
        setFrameText(m_timing, QStringLiteral("%1 | %2").arg(r.error, r.backend));
        announceBackend(r);
        return;
    }
    if (!r.trace)
        return;
    QElapsedTimer render;
    render.start();
    if (r.pool.tile) { // a full-resolution tile of the pooled trace on screen
        m_views->setTile(r.trace, r.pool);
        statusBar()->showMessage(
            tr("%1 (%2 ms)").arg(r.pool.describe()).arg(r.computeMs, 0, 'f', 1), 8000);
        return;
    }
    m_views->setWeightsLabel(r.weights);
    m_views->setTrace(r.trace, r.pool, r.positions);
    m_compare->setReference(r.trace, m_current.input);
    m_stepper->setWeightsLabel(r.weights);
    m_stepper->setTrace(r.trace);
    ++m_frames;
    setFrameText(
        m_timing,
        tr("compute %1 ms | render %2 ms | %3")
                .arg(r.computeMs, 0, 'f', 1)
                .arg(static_cast<double>(render.nsecsElapsed()) / 1e6, 0, 'f', 1)
                .arg(r.backend == QLatin1String("gl")
                         ? tr("gl: %1").arg(r.device.section(QLatin1Char('('), 0, 0).trimmed())
                         : r.backend) +
            (r.pool.pooled ? QStringLiteral(" | %1").arg(r.pool.describe()) : QString()));
    announceBackend(r);
    Q_EMIT frameShown();
}

QString MainWindow::backendToolTip() const {
    return m_timing->toolTip();
}

void MainWindow::announceBackend(const ComputeResult& r) {
    m_timing->setToolTip(r.backendNote.isEmpty() ? r.device : r.device + u'\n' + r.backendNote);
    // A fallback (no GL 4.3 context, float64 on the GPU, …) is said once, when it first happens.
    if (r.backendNote != m_lastBackendNote && !r.backendNote.isEmpty())
        statusBar()->showMessage(r.backendNote, 10000);
    m_lastBackendNote = r.backendNote;
}

const Params* MainWindow::shownParams() const {
    return m_views->trace() ? &m_views->trace()->params : nullptr;
}

QString MainWindow::statusText() const {
    return m_timing->text();
}

void MainWindow::onBusy(bool busy) {
    if (busy) {
        m_progressDelay->start();
        return;
    }
    m_progressDelay->stop();
    m_progress->hide();
    m_cancel->hide();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (m_persist) {
        m_settings.setGeometry(saveGeometry());
        m_settings.setWindowState(saveState());
        m_settings.setLastSession(session());
    }
    QMainWindow::closeEvent(e);
}

HeatmapView* MainWindow::currentHeatmap() const {
    if (m_views->currentWidget() == m_stepper)
        return m_stepper->currentHeatmap();
    if (m_views->currentWidget() == m_insights)
        return m_insights->currentHeatmap();
    return m_views->currentWidget() == m_compare ? m_compare->difference()
                                                 : m_views->currentHeatmap();
}

QCustomPlot* MainWindow::currentPlot() const {
    if (m_views->currentWidget() == m_insights) // its first figure may be a line plot
        return m_insights->currentPlot();
    HeatmapView* h = currentHeatmap();
    return h ? h->plot() : nullptr;
}

Status MainWindow::exportFigure(const QString& path, int dpi) {
    QCustomPlot* plot = currentPlot();
    if (!plot)
        return Error{"this view has no figure to export"};
    bool ok = false;
    const FigureFormat fmt = figureFormatFor(path, &ok);
    if (!ok)
        return Error{"figures are written as .png, .svg or .pdf"};
    return exportPlot(plot, path, fmt, dpi);
}

Status MainWindow::exportMatrix(const QString& path) {
    HeatmapView* h = currentHeatmap();
    if (!h || h->data().empty())
        return Error{"this view has no matrix to export"};
    if (QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0)
        return writeCsv(h->data(), path);
    return writeNpy(h->data(), path);
}

namespace {
void report(QWidget* parent, const Status& st) {
    if (!st)
        QMessageBox::warning(parent, QObject::tr("Export failed"),
                             QString::fromStdString(st.error().message));
}
} // namespace

void MainWindow::exportDialog(int what) {
    ExportDialog dlg(m_settings.lastDirectory(), m_settings.exportDpi(), this);
    dlg.setWhat(static_cast<ExportDialog::What>(what));
    if (dlg.exec() != QDialog::Accepted)
        return;
    const QString path = dlg.path();
    m_settings.setExportDpi(dlg.dpi());
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    switch (dlg.what()) {
    case ExportDialog::What::Figure:
        report(this, exportFigure(path, dlg.dpi()));
        break;
    case ExportDialog::What::Panel: {
        bool ok = false;
        const FigureFormat fmt = figureFormatFor(path, &ok);
        report(this, ok ? exportWidget(m_views->currentWidget(), path, fmt, dlg.dpi())
                        : Status(Error{"panels are written as .png, .svg or .pdf"}));
        break;
    }
    case ExportDialog::What::Matrix:
        report(this, exportMatrix(path));
        break;
    }
}

void MainWindow::copyFigure() {
    if (QCustomPlot* plot = currentPlot())
        QApplication::clipboard()->setPixmap(plot->toPixmap());
}

void MainWindow::openSession() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open session"), m_settings.lastDirectory(), tr("pe-explorer session (*.json)"));
    if (path.isEmpty())
        return;
    QString ignored;
    const Expected<Session> s = loadSession(path, &ignored);
    if (!s) {
        QMessageBox::warning(this, tr("Open session"), QString::fromStdString(s.error().message));
        return;
    }
    const Session before = m_current;
    applySession(s.value());
    m_undo->push(
        new ParamsCommand(before, s.value(), [this](const Session& x) { applySession(x); }));
    if (!ignored.isEmpty())
        statusBar()->showMessage(tr("Session opened; %1").arg(ignored), 15000);
}

void MainWindow::saveSession() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save session"), m_settings.lastDirectory(), tr("pe-explorer session (*.json)"));
    if (!path.isEmpty())
        report(this, pe::saveSession(session(), path));
}

} // namespace pe
