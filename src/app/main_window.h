// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>

#include <thread>

#include "compute_worker.h"
#include "session.h"
#include "settings.h"

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;
class QUndoStack;

class QAction;

namespace pe {

class ComparisonView;
class LabPanel;
class TourDialog;
class HeatmapView;
class InsightsPanel;
class ParamsPanel;
class StepperPanel;
class TraceViews;

/** Wires the parameter panel, the worker and the views; owns menus and the status bar. */
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /** `persist` = false leaves QSettings alone (tests, screenshots). */
    explicit MainWindow(const Session& initial, bool persist = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    ParamsPanel* panel() const { return m_panel; }
    TraceViews* views() const { return m_views; }
    ComparisonView* comparison() const { return m_compare; }
    StepperPanel* stepper() const { return m_stepper; }
    LabPanel* lab() const { return m_lab; }
    InsightsPanel* insights() const { return m_insights; }
    /** Help → Tour of the tabs (also shown at the first start of a persistent window). */
    TourDialog* showTour();
    /** Help → About this scheme: the current scheme's help text. */
    QString schemeHelpText() const;
    ComputeController* controller() const { return m_controller; }
    QUndoStack* undoStack() const { return m_undo; }
    /**
     * Steps of Edit → Undo kept: each holds two sessions (0.7 kB measured, and a trained model's
     * weights while one refers to them), so an unbounded history grew with every change of a long
     * session (7 MB per 10,000 changes).
     */
    static constexpr int kUndoSteps = 1000;
    Session session() const;
    /** Applies a session: controls, then a computation (no undo entry). */
    void applySession(const Session& s);
    /** Parameters of the trace now on screen; frames() counts traces shown. */
    const Params* shownParams() const;
    int frames() const { return m_frames; }
    /** The engine's device and any fallback reason (the status bar's tooltip). */
    QString backendToolTip() const;
    QString statusText() const;

    /** View → Square cells. */
    QAction* squareCellsAction() const { return m_squareCells; }
    /** The heat map that export and copy act on: the current tab's main one. */
    HeatmapView* currentHeatmap() const;
    /** The plot that export figure and copy act on (the Insights tab's may be a line plot). */
    QCustomPlot* currentPlot() const;
    Status exportFigure(const QString& path, int dpi);
    Status exportMatrix(const QString& path);

Q_SIGNALS:
    void frameShown();

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildMenus();
    void onPanelChanged(const Params& p, const InputChoice& in);
    void submit(const Session& s);
    /**
     * How far the main views' forward pass goes: to the end where the tab shown needs more
     * than the attention weights (the Stepper's value stages, the Compare tab's output), else
     * to the weights: no value projection, weights · V or W_O (half a short pass's products,
     * a third of a long pooled one's).
     */
    TraceExtent extentWanted() const;
    /** Asks for the rest of the pass when the tab shown now needs it (extentWanted). */
    void completeIfNeeded();
    void onResult(const ComputeResult& r);
    /** The inputs (and relative matrices) of the newest request, ahead of its whole result. */
    void onEarlyResult(const ComputeResult& r);
    void showPending();
    /** Names the engine and device in the status bar; says a new fallback reason once. */
    void announceBackend(const ComputeResult& r);
    void onBusy(bool busy);
    void openSession();
    void saveSession();
    void exportDialog(int what); ///< 0 figure, 1 panel, 2 matrix
    void copyFigure();

    Settings m_settings;
    bool m_persist;
    QAction* m_squareCells = nullptr;
    ParamsPanel* m_panel;
    TraceViews* m_views;
    LabPanel* m_lab = nullptr;
    TourDialog* m_tour = nullptr;
    std::thread m_labPreload; ///< loads the lab's libtorch module when the Lab tab is first shown
    ComparisonView* m_compare;
    StepperPanel* m_stepper;
    InsightsPanel* m_insights = nullptr;
    ComputeController* m_controller;
    QUndoStack* m_undo;
    Session m_current;
    TraceExtent m_extent = TraceExtent::Whole; ///< what the last submit() asked for

    ComputeResult m_pending;
    QTimer* m_frameTimer;
    QElapsedTimer m_lastFrame; ///< when the last frame was shown
    QTimer* m_progressDelay;
    QLabel* m_timing;
    QLabel* m_hover;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    int m_frames = 0;
    QString m_lastBackendNote;
};

} // namespace pe
