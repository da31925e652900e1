// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

#include "heatmap_view.h"
#include "insights_worker.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTimer;

namespace pe {

class InsightsFigures;

/**
 * The Insights tab: a page list, the page's controls, its explanation and key numbers, and its
 * figures (InsightsFigures). Pages are computed on their own worker (InsightsController: newest
 * wins, progress, cancel) from the current parameters, only while the tab is shown.
 */
class InsightsPanel : public QWidget {
    Q_OBJECT
public:
    explicit InsightsPanel(QWidget* parent = nullptr);
    ~InsightsPanel() override;

    /** The window's parameters changed: recompute the page (now if shown, else when shown). */
    void setParams(const Params& p, const InputChoice& in);
    void setPage(InsightPage page);
    InsightPage page() const;
    void setColorMap(ColorMapKind k);

    InsightSettings settings() const;
    /** Sets the page controls (a session's state; Measure is not part of it). */
    void setSettings(const InsightSettings& s);
    InsightsFigures* figures() const { return m_figures; }
    /** The current page's first heat map (export matrix), null for pages of line plots. */
    HeatmapView* currentHeatmap() const;
    /** The current page's first plot (export figure, copy). */
    QCustomPlot* currentPlot() const;
    InsightsController* controller() const { return m_controller; }
    /** The text of the key-numbers line (rich text as shown). */
    QString numbersText() const;
    QString explanationText() const;
    /** The result on screen (empty members before the first). */
    const InsightResult& shownResult() const { return m_shown; }
    int resultsShown() const { return m_resultsShown; }
    /** GUI-thread time of the last result: filling the figures (not their paint). */
    double drawMs() const { return m_drawMs; }

    QComboBox* pageChooser() const { return m_pageChooser; }
    QSpinBox* deltaSpin() const { return m_delta; }
    QSpinBox* kernelSpin() const { return m_kernel; }
    QPushButton* measureButton() const { return m_measure; }
    QSpinBox* layersSpin() const { return m_layers; }
    QCheckBox* residualCheck() const { return m_residual; }
    QComboBox* normChooser() const { return m_norm; }
    QCheckBox* mlpCheck() const { return m_mlp; }
    QPushButton* cancelButton() const { return m_cancel; }

Q_SIGNALS:
    /** A result (or an error) reached the figures. */
    void resultShown();

protected:
    void showEvent(QShowEvent* e) override;

private:
    void submit(bool measure = false);
    void onResult(const InsightResult& r);
    void onBusy(bool busy);
    void updateDeltaRange();
    void showControls(InsightPage page);

    InsightsController* m_controller;
    Params m_params;
    InputChoice m_input;
    bool m_haveParams = false;
    bool m_stale = true;
    InsightResult m_shown;
    int m_resultsShown = 0;
    double m_drawMs = 0;
    /** The last measurement, kept while the parameters it timed stay the same. */
    std::shared_ptr<const CostMeasurement> m_measured;
    Params m_measuredFor;

    QComboBox* m_pageChooser;
    QStackedWidget* m_controls;
    QSpinBox* m_delta;
    QSpinBox* m_kernel;
    QComboBox* m_measureMax;
    QPushButton* m_measure;
    QSpinBox* m_layers;
    QCheckBox* m_residual;
    QComboBox* m_norm;
    QCheckBox* m_mlp;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_status;
    QLabel* m_explanation;
    QLabel* m_numbers;
    InsightsFigures* m_figures;
    QTimer* m_progressDelay;
};

} // namespace pe
