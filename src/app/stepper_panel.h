// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>
#include <vector>

#include "expected.h"
#include "heatmap_view.h"
#include "stages.h"
#include "trace.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTimer;

namespace pe {

class LinePlotView;
class ProbeBox;
class StageStrip;
class TokenBar;

/**
 * Steps through one attention layer, stage by stage, on the window's trace: a strip of stages,
 * Next / Previous / Play and the arrow keys, a head selector; each stage shows its matrices
 * with token labels, their shapes and this scheme's formula. A query in focus (click a token, or
 * right-click a row) shows its attention to every key in every head and its logit terms. The
 * probe box says whether the configuration can tell identical tokens apart.
 */
class StepperPanel : public QWidget {
    Q_OBJECT
public:
    explicit StepperPanel(QWidget* parent = nullptr);
    ~StepperPanel() override;

    void setTrace(std::shared_ptr<const Trace> trace);
    /** Which weights the traces are computed with, e.g. "weights: identity projections". */
    void setWeightsLabel(const QString& text);
    QString weightsLabel() const;
    const Trace* trace() const { return m_trace.get(); }

    int stage() const { return m_stage; }
    void setStage(int stage);
    void next();
    void previous();
    void setPlaying(bool on);
    bool playing() const;
    int head() const;
    void setHead(int h);
    int query() const { return m_query; }
    void setQuery(int i);

    /** The current stage's description and matrices (true values: masked logits are −∞). */
    const StageInfo& stageInfo() const;
    const std::vector<StageMatrix>& matrices() const { return m_matrices; }
    /** The heat maps showing matrices(), in the same order. */
    std::vector<HeatmapView*> shownHeatmaps() const;
    HeatmapView* currentHeatmap() const;
    QString formulaText() const;
    QString shapesText() const;
    LinePlotView* focusPlot() const { return m_focus; }
    LinePlotView* termsPlot() const { return m_terms; }
    ProbeBox* probe() const { return m_probe; }
    StageStrip* strip() const { return m_strip; }
    TokenBar* tokenBar() const { return m_tokens; }
    /** Token labels of the axes: padded positions carry " (pad)". */
    QStringList axisLabels() const { return m_labels; }

    void setColorMap(ColorMapKind k);
    void setPoolMode(PoolMode m);

    /** Every matrix of the current stage as <stage>_<name>.npy, and the stage as <stage>.png. */
    Status exportStage(const QString& directory);

    static constexpr int kPlayIntervalMs = 1500;
    void setPlayInterval(int ms);

Q_SIGNALS:
    void hovered(const QString& text);
    void stageChanged(int stage);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void refresh();
    void refreshStage();
    void refreshFocus();
    void refreshProbe();
    HeatmapView* newHeatmap(std::size_t index);
    const Eigen::MatrixXd* outputProjection();
    void exportClicked();

    std::shared_ptr<const Trace> m_trace;
    std::vector<StageInfo> m_stages;
    std::vector<StageMatrix> m_matrices;
    QStringList m_labels;
    int m_stage = 0;
    int m_query = 0;
    bool m_stale = true;
    Eigen::MatrixXd m_wo; ///< W_O regenerated from the seed (the window's weights are seeded)
    int m_woD = -1;
    std::uint64_t m_woSeed = 0;

    StageStrip* m_strip;
    TokenBar* m_tokens;
    QPushButton* m_prev;
    QPushButton* m_next;
    QPushButton* m_play;
    QSpinBox* m_head;
    QComboBox* m_queryBox;
    QTimer* m_timer;
    QLabel* m_title;
    QLabel* m_weightsLabel;
    QLabel* m_formula;
    QLabel* m_note;
    QLabel* m_shapes;
    QLabel* m_message;
    QLabel* m_empty;
    QWidget* m_stageArea;
    QGridLayout* m_grid;
    std::vector<HeatmapView*> m_maps;
    LinePlotView* m_focus;
    LinePlotView* m_terms;
    ProbeBox* m_probe;
    ColorMapKind m_colorMap = ColorMapKind::Auto;
    PoolMode m_pool = PoolMode::Mean;
};

} // namespace pe
