// SPDX-License-Identifier: MIT
#pragma once

#include <QFutureWatcher>
#include <QThreadPool>
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
    /** True while the current stage's matrices are computed in the background. */
    bool preparingStage() const { return m_stageRunning; }
    /** The width of the W_O kept for the Output projection stage, -1 when none is kept. */
    int keptOutputProjectionWidth() const { return m_wo ? static_cast<int>(m_wo->rows()) : -1; }
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
    /** The stage's matrices and grids, computed: on the GUI thread for small ones, else
     *  in the background (the stage area says so meanwhile). */
    struct PreparedStage {
        quint64 generation = 0;
        std::vector<StageMatrix> matrices;
        std::vector<Grid> grids;
        std::vector<bool> infinite; ///< a grid holds −∞ (masked logits)
        std::shared_ptr<const Eigen::MatrixXd> wo;
        int woD = -1;
        std::uint64_t woSeed = 0;
    };
    /** `wo`: the trace's W_O where it is kept (m_wo), else null: drawn here for that stage. */
    static PreparedStage prepareStage(const Trace& trace, StageId id, int head,
                                      std::shared_ptr<const Eigen::MatrixXd> wo);
    /** Keeps the W_O a preparation drew as the cache for the next ones. */
    void keepWo(const PreparedStage& prepared);
    void showStage(PreparedStage prepared);
    void stagePrepared();
    void refreshFocus();
    void refreshProbe();
    HeatmapView* newHeatmap(std::size_t index);
    void exportClicked();

    std::shared_ptr<const Trace> m_trace;
    std::vector<StageInfo> m_stages;
    std::vector<StageMatrix> m_matrices;
    QStringList m_labels;
    int m_stage = 0;
    int m_query = 0;
    bool m_stale = true;
    /// W_O regenerated from the seed (the window's weights are seeded): null, or the shown
    /// trace's (its width and seed).
    std::shared_ptr<const Eigen::MatrixXd> m_wo;
    /// Stages with more cells than this are prepared in the background (a d = 4096 W_O stage
    /// took over a second of the GUI thread: regenerating, copying and converting 16.7 M cells).
    static constexpr std::int64_t kInlineStageCells = std::int64_t{1} << 20;
    /// ... and so are stages whose matrices take more multiply-adds than this to make: an
    /// absolute scheme's four logit terms at d = 2,048 with one head (n = 344: 1,024² cells at
    /// most, but 13 GFLOP in double) took a second of the GUI thread in a soak run.
    static constexpr double kInlineStageFlops = 2e8;
    quint64 m_stageGeneration = 0; ///< of the newest refreshStage
    bool m_stageRunning = false;   ///< a preparation runs, or its result is not yet taken
    bool m_stagePending = false;   ///< a newer stage waits for the running preparation
    QFutureWatcher<PreparedStage>* m_stageWatcher = nullptr;
    QThreadPool m_stagePool; ///< one thread: the newest stage starts when the running one ends

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
