// SPDX-License-Identifier: MIT
#pragma once

/**
 * The Lab tab: train a small attention model on a toy task (shift-k, copy, reverse, first-token,
 * sort) with one positional scheme, then read its accuracy at the training length L and at
 * 1.5L, 2L, 4L; "Compare schemes" trains the same task with every scheme (same seed and budget)
 * and draws accuracy against evaluation length, one line per scheme.
 *
 * The training itself is a LabTrainer: a function run on a background thread that reports
 * progress through a callback and polls an atomic cancel flag. The window never blocks: progress
 * reaches the panel by queued calls, and the curves are redrawn at most every 100 ms.
 */

#include <QString>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "params.h"
#include "weights.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTimer;

namespace pe {

class LinePlotView;
class SeedSpinBox;

/** One training run's settings, as the tab's controls give them. */
struct LabConfig {
    QString task = QStringLiteral("shift"); ///< shift, copy, reverse, first-token, sort
    int shift = 3;                          ///< k of shift-k
    int vocab = 16;
    Scheme scheme = Scheme::Sinusoidal;
    int layers = 2;
    int width = 64;
    int heads = 4;
    int trainLength = 32; ///< L
    int steps = 1000;
    int batch = 32;
    double learningRate = 1e-2;
    std::uint64_t seed = 0;
};

/** One logged training step. */
struct LabProgress {
    int step = 0;
    double loss = 0;
    double accuracy = 0; ///< token accuracy of this batch, 0 … 1
};

/** Accuracy at one evaluation length; `noPositions`: a learned table ends before it. */
struct LabEval {
    int length = 0;
    double accuracy = 0;
    bool noPositions = false;
};

/**
 * One layer of a trained model on the task's sample input, as the explorer shows it: Params and
 * Weights whose forward pass reproduces that layer's attention (weights.E is the layer's input).
 */
struct LabLayerView {
    Params params;
    std::shared_ptr<const Weights> weights;
    QString tokens; ///< the sample input, space-separated (typed-text input)
    QString name;   ///< "shift-3, t5, layer 1 of 2"
};

struct LabRunResult {
    QString error{}; ///< empty on success; "cancelled" when cancelled
    std::vector<LabEval> evals{};
    std::vector<LabLayerView> layers{}; ///< the trained model, one entry per layer (may be empty)
    /** Further rows of the table for this model: RoPE's "rope + pi" and "rope + ntk". */
    std::vector<std::pair<QString, std::vector<LabEval>>> variants{};
    /** Writes model.safetensors and run.json into a folder; returns an error or "". Null: the
     *  trainer cannot save. */
    std::function<QString(const QString& folder)> save{};
    LabConfig config{}; ///< the settings the model was trained with (a loaded model's own)
    std::vector<LabProgress> curve{}; ///< a loaded model's training curve (from its run.json)
};

/** The evaluation lengths of a run: L, 1.5L, 2L, 4L. */
std::vector<int> labEvalLengths(int trainLength);

/** "shift-3, t5, 2 layers": what a trained model is called in labels. */
QString describeLabRun(const LabConfig& c);

/** Trains and evaluates at `lengths`; called on a background thread. */
using LabTrainer = std::function<LabRunResult(
    const LabConfig& config, const std::vector<int>& lengths,
    const std::function<void(const LabProgress&)>& progress, const std::atomic<bool>& cancel)>;

/** Loads a saved model (model.safetensors); error set when it cannot. */
using LabLoader = std::function<LabRunResult(const QString& path)>;

class LabPanel : public QWidget {
    Q_OBJECT
public:
    explicit LabPanel(QWidget* parent = nullptr);
    ~LabPanel() override;

    /** The training engine; without one, Train is greyed and says why. */
    void setTrainer(LabTrainer trainer);
    /** Loading saved models; without one, Load is greyed. */
    void setLoader(LabLoader loader);
    /** Shows a loaded model: its settings, evaluation and layers, as if just trained. */
    void showLoaded(const LabRunResult& r);
    LabConfig config() const;
    void setConfig(const LabConfig& c);
    bool running() const { return m_thread.joinable() && !m_idle; }

    QPushButton* trainButton() const { return m_train; }
    QPushButton* compareButton() const { return m_compare; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* openButton() const { return m_open; }
    QPushButton* saveButton() const { return m_save; }
    QPushButton* loadButton() const { return m_load; }
    /** Loads a saved model with the loader and shows it; returns an error or "". */
    QString loadModel(const QString& path);
    /** Saves the last single run's model into `folder`; returns an error or "". */
    QString saveModel(const QString& folder);
    QSpinBox* layerBox() const { return m_layer; }
    QProgressBar* progressBar() const { return m_progress; }
    LinePlotView* lossPlot() const { return m_loss; }
    LinePlotView* accuracyPlot() const { return m_accuracy; }
    LinePlotView* lengthPlot() const { return m_lengthPlot; }
    QTableWidget* evalTable() const { return m_table; }
    /** The text in the table's place before the first run (empty once a run has shown). */
    QString evalTableHint() const;
    QString statusText() const;

public Q_SLOTS:
    void train();
    void compareSchemes();
    void cancel();

Q_SIGNALS:
    /** "Open in views": show this layer of the trained model in the explorer's views. */
    void openInViews(const pe::LabLayerView& layer);
    /** A run (or a whole comparison) ended; `error` is empty, "cancelled" or a message. */
    void finished(const QString& error);

private:
    void start(const std::vector<LabConfig>& runs);
    void onProgress(int run, const LabProgress& p);
    void onRunDone(int run, const LabRunResult& r);
    void onAllDone(const QString& error);
    void redraw();
    void updateEnabled();

    LabTrainer m_trainer;
    LabLoader m_loader;
    std::function<QString(const QString&)> m_saveModel; ///< the last single run's
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    bool m_idle = true;
    std::vector<LabConfig> m_runs;
    std::vector<LabRunResult> m_results;
    std::vector<LabProgress> m_log; ///< the current run's steps
    bool m_dirty = false;

    QComboBox* m_task;
    QSpinBox* m_shift;
    QSpinBox* m_vocab;
    QComboBox* m_scheme;
    QSpinBox* m_layers;
    QSpinBox* m_width;
    QSpinBox* m_heads;
    QSpinBox* m_length;
    QSpinBox* m_steps;
    QSpinBox* m_batch;
    QDoubleSpinBox* m_lr;
    SeedSpinBox* m_seed;
    QPushButton* m_train;
    QPushButton* m_compare;
    QPushButton* m_cancel;
    QPushButton* m_open;
    QPushButton* m_save;
    QPushButton* m_load;
    QSpinBox* m_layer;
    std::vector<LabLayerView> m_model; ///< the last single run's layers
    QProgressBar* m_progress;
    QLabel* m_status;
    LinePlotView* m_loss;
    LinePlotView* m_accuracy;
    LinePlotView* m_lengthPlot;
    QTableWidget* m_table;
    QLabel* m_tableHint;          ///< in the table's place before the first run
    QStackedWidget* m_tableStack; ///< the hint or the table
    QTimer* m_redraw;
};

} // namespace pe

Q_DECLARE_METATYPE(pe::LabLayerView)
