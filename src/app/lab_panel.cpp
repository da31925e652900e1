// SPDX-License-Identifier: MIT
#include "lab_panel.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

#include "line_plot_view.h"
#include "seed_spin_box.h"

namespace pe {

std::vector<int> labEvalLengths(int trainLength) {
    const int l = std::max(1, trainLength);
    return {l, (3 * l + 1) / 2, 2 * l, 4 * l};
}

QString describeLabRun(const LabConfig& c) {
    const QString task =
        c.task == QLatin1String("shift") ? QStringLiteral("shift-%1").arg(c.shift) : c.task;
    return QStringLiteral("%1, %2, %3 layer%4")
        .arg(task, QString::fromUtf8(std::string(toString(c.scheme))))
        .arg(c.layers)
        .arg(c.layers == 1 ? QString() : QStringLiteral("s"));
}

namespace {
QSpinBox* spin(int lo, int hi, int value, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}
} // namespace

LabPanel::LabPanel(QWidget* parent)
    : QWidget(parent) {
    auto* outer = new QHBoxLayout(this);
    auto* left = new QWidget;
    auto* lv = new QVBoxLayout(left);
    auto* taskBox = new QGroupBox(tr("Task"));
    auto* tf = new QFormLayout(taskBox);
    m_task = new QComboBox;
    for (const char* t : {"shift", "copy", "reverse", "first-token", "sort"})
        m_task->addItem(QString::fromLatin1(t), QString::fromLatin1(t));
    m_task->setToolTip(tr("shift-k: output token i is input token i − k; copy; reverse; "
                          "first-token: every output is the first input; sort"));
    tf->addRow(tr("Task"), m_task);
    m_shift = spin(1, 64, 3, tr("k of shift-k"));
    tf->addRow(tr("Shift k"), m_shift);
    m_vocab = spin(2, 1024, 16, tr("Vocabulary size of the task's tokens"));
    tf->addRow(tr("Vocabulary"), m_vocab);
    lv->addWidget(taskBox);

    auto* modelBox = new QGroupBox(tr("Model and training"));
    auto* mf = new QFormLayout(modelBox);
    m_scheme = new QComboBox;
    for (Scheme s : allSchemes())
        m_scheme->addItem(QString::fromUtf8(std::string(toString(s))), static_cast<int>(s));
    mf->addRow(tr("Scheme"), m_scheme);
    m_layers = spin(1, 4, 2, tr("Attention layers"));
    mf->addRow(tr("Layers"), m_layers);
    m_width = spin(8, 512, 64, tr("Width d"));
    m_width->setSingleStep(8);
    mf->addRow(tr("Width"), m_width);
    m_heads = spin(1, 16, 4, tr("Heads (d must be a multiple)"));
    mf->addRow(tr("Heads"), m_heads);
    m_length = spin(2, 512, 16, tr("Training length L; evaluation at L, 1.5L, 2L, 4L"));
    mf->addRow(tr("Length L"), m_length);
    m_steps = spin(1, 1000000, 500, tr("Optimiser steps"));
    mf->addRow(tr("Steps"), m_steps);
    m_batch = spin(1, 4096, 32, tr("Sequences per step"));
    mf->addRow(tr("Batch"), m_batch);
    m_lr = new QDoubleSpinBox;
    m_lr->setDecimals(5);
    m_lr->setRange(1e-5, 1.0);
    m_lr->setSingleStep(1e-4);
    m_lr->setValue(1e-3);
    mf->addRow(tr("Learning rate"), m_lr);
    m_seed = new SeedSpinBox;
    mf->addRow(tr("Seed"), m_seed);
    lv->addWidget(modelBox);

    auto* buttons = new QHBoxLayout;
    m_train = new QPushButton(tr("&Train"));
    m_compare = new QPushButton(tr("Compare &schemes"));
    m_compare->setToolTip(tr("Train the same task with every scheme, same seed and budget, one "
                             "after another"));
    m_cancel = new QPushButton(tr("Cancel"));
    buttons->addWidget(m_train);
    buttons->addWidget(m_compare);
    buttons->addWidget(m_cancel);
    lv->addLayout(buttons);
    auto* openRow = new QHBoxLayout;
    m_open = new QPushButton(tr("&Open in views"));
    m_open->setToolTip(tr("Show the trained model in every view and the stepper, on the task's "
                          "sample input (Weights = trained)"));
    m_layer = spin(1, 1, 1, tr("Which layer of the trained model the views show"));
    m_layer->setPrefix(tr("layer "));
    openRow->addWidget(m_open);
    openRow->addWidget(m_layer);
    lv->addLayout(openRow);
    auto* fileRow = new QHBoxLayout;
    m_save = new QPushButton(tr("Sa&ve model…"));
    m_save->setToolTip(tr("Write model.safetensors and run.json into a folder (the same files "
                          "as pe-explorer-cli train)"));
    m_load = new QPushButton(tr("&Load model…"));
    m_load->setToolTip(tr("Open a model.safetensors saved by the lab or by pe-explorer-cli train"));
    fileRow->addWidget(m_save);
    fileRow->addWidget(m_load);
    lv->addLayout(fileRow);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    lv->addWidget(m_progress);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    lv->addWidget(m_status);
    lv->addStretch();
    outer->addWidget(left);

    auto* right = new QSplitter(Qt::Vertical);
    auto* curves = new QSplitter(Qt::Horizontal);
    m_loss = new LinePlotView;
    m_accuracy = new LinePlotView;
    curves->addWidget(m_loss);
    curves->addWidget(m_accuracy);
    right->addWidget(curves);
    auto* results = new QSplitter(Qt::Horizontal);
    // Before the first run the table's place says what it will hold (not an empty white box).
    m_tableStack = new QStackedWidget;
    m_tableHint = new QLabel;
    m_tableHint->setObjectName(QStringLiteral("evalTableHint"));
    m_tableHint->setWordWrap(true);
    m_tableHint->setAlignment(Qt::AlignCenter);
    m_tableHint->setMargin(12);
    m_tableHint->setFrameShape(QFrame::StyledPanel);
    m_tableStack->addWidget(m_tableHint);
    m_table = new QTableWidget;
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tableStack->addWidget(m_table);
    results->addWidget(m_tableStack);
    m_lengthPlot = new LinePlotView;
    results->addWidget(m_lengthPlot);
    right->addWidget(results);
    outer->addWidget(right, 1);

    m_redraw = new QTimer(this);
    m_redraw->setInterval(100);
    connect(m_redraw, &QTimer::timeout, this, [this] {
        if (m_dirty)
            redraw();
    });
    connect(m_train, &QPushButton::clicked, this, &LabPanel::train);
    connect(m_compare, &QPushButton::clicked, this, &LabPanel::compareSchemes);
    connect(m_cancel, &QPushButton::clicked, this, &LabPanel::cancel);
    connect(m_open, &QPushButton::clicked, this, [this] {
        const int k = m_layer->value() - 1;
        if (k >= 0 && k < static_cast<int>(m_model.size()))
            Q_EMIT openInViews(m_model[static_cast<std::size_t>(k)]);
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Save the model into"));
        if (folder.isEmpty())
            return;
        const QString error = saveModel(folder);
        m_status->setText(error.isEmpty() ? tr("saved model.safetensors and run.json in %1")
                                                .arg(QDir::toNativeSeparators(folder))
                                          : tr("not saved: %1").arg(error));
    });
    connect(m_load, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load a lab model"), QString(),
                                                          tr("Lab models (*.safetensors)"));
        if (!path.isEmpty())
            loadModel(path);
    });
    connect(m_task, &QComboBox::currentIndexChanged, this, [this] { updateEnabled(); });
    connect(m_length, &QSpinBox::valueChanged, this, [this] {
        if (m_runs.empty())
            redraw(); // the hint names the lengths a run will be evaluated at
    });
    for (QSpinBox* box : {m_steps, m_vocab}) // the empty curves' axes: steps, ln V
        connect(box, &QSpinBox::valueChanged, this, [this] {
            if (m_log.empty())
                redraw();
        });
    results->setSizes({400, 400});
    setConfig(LabConfig{});
    redraw(); // titles and axes before the first run
}

LabPanel::~LabPanel() {
    m_stop = true;
    if (m_thread.joinable())
        m_thread.join();
}

void LabPanel::setTrainer(LabTrainer trainer) {
    const bool had = static_cast<bool>(m_trainer);
    m_trainer = std::move(trainer);
    if (m_trainer && !had && m_idle)
        m_status->clear(); // no longer "not part of this build"
    updateEnabled();
}

void LabPanel::setLoader(LabLoader loader) {
    m_loader = std::move(loader);
    updateEnabled();
}

QString LabPanel::loadModel(const QString& path) {
    if (!m_loader)
        return tr("the lab's engine is not part of this build");
    if (!m_idle)
        return tr("a run is in progress");
    const LabRunResult r = m_loader(path);
    if (!r.error.isEmpty()) {
        m_status->setText(tr("not loaded: %1").arg(r.error));
        return r.error;
    }
    showLoaded(r);
    return {};
}

QString LabPanel::saveModel(const QString& folder) {
    if (!m_saveModel)
        return tr("no trained model to save");
    return m_saveModel(folder);
}

void LabPanel::showLoaded(const LabRunResult& r) {
    if (!m_idle)
        return;
    setConfig(r.config);
    m_runs = {r.config};
    m_results = {r};
    m_log = r.curve;
    m_model = r.layers;
    m_saveModel = r.save;
    m_status->setText(tr("loaded: %1").arg(describeLabRun(r.config)));
    redraw();
    updateEnabled();
}

LabConfig LabPanel::config() const {
    LabConfig c;
    c.task = m_task->currentData().toString();
    c.shift = m_shift->value();
    c.vocab = m_vocab->value();
    c.scheme = static_cast<Scheme>(m_scheme->currentData().toInt());
    c.layers = m_layers->value();
    c.width = m_width->value();
    c.heads = m_heads->value();
    c.trainLength = m_length->value();
    c.steps = m_steps->value();
    c.batch = m_batch->value();
    c.learningRate = m_lr->value();
    c.seed = m_seed->value();
    return c;
}

void LabPanel::setConfig(const LabConfig& c) {
    m_task->setCurrentIndex(std::max(0, m_task->findData(c.task)));
    m_shift->setValue(c.shift);
    m_vocab->setValue(c.vocab);
    m_scheme->setCurrentIndex(std::max(0, m_scheme->findData(static_cast<int>(c.scheme))));
    m_layers->setValue(c.layers);
    m_width->setValue(c.width);
    m_heads->setValue(c.heads);
    m_length->setValue(c.trainLength);
    m_steps->setValue(c.steps);
    m_batch->setValue(c.batch);
    m_lr->setValue(c.learningRate);
    m_seed->setValue(c.seed);
    updateEnabled();
}

QString LabPanel::evalTableHint() const {
    return m_tableStack->currentWidget() == m_tableHint ? m_tableHint->text() : QString();
}

QString LabPanel::statusText() const {
    return m_status->text();
}

void LabPanel::updateEnabled() {
    const bool idle = m_idle;
    const bool can = idle && static_cast<bool>(m_trainer);
    m_train->setEnabled(can);
    m_compare->setEnabled(can);
    const QString why =
        m_trainer ? QString()
                  : tr("The lab's training engine (pe_lab, libtorch) is not part of this build.");
    m_train->setToolTip(why.isEmpty() ? tr("Train one model with these settings") : why);
    m_cancel->setEnabled(!idle);
    if (!m_trainer)
        m_status->setText(why);
    m_shift->setEnabled(m_task->currentData().toString() == QLatin1String("shift"));
    m_open->setEnabled(idle && !m_model.empty());
    m_save->setEnabled(idle && static_cast<bool>(m_saveModel));
    m_load->setEnabled(idle && static_cast<bool>(m_loader));
    m_load->setToolTip(m_loader ? tr("Open a model.safetensors saved by the lab or by "
                                     "pe-explorer-cli train")
                                : why);
    m_layer->setRange(1, std::max<int>(1, static_cast<int>(m_model.size())));
    m_layer->setEnabled(idle && m_model.size() > 1);
}

void LabPanel::train() {
    start({config()});
}

void LabPanel::compareSchemes() {
    std::vector<LabConfig> runs;
    for (Scheme s : allSchemes()) {
        LabConfig c = config();
        c.scheme = s;
        runs.push_back(c);
    }
    start(runs);
}

void LabPanel::cancel() {
    m_stop = true;
}

void LabPanel::start(const std::vector<LabConfig>& runs) {
    if (!m_trainer || !m_idle || runs.empty())
        return;
    if (m_thread.joinable())
        m_thread.join(); // the previous run has ended (m_idle): reap it
    m_runs = runs;
    m_results.assign(runs.size(), LabRunResult{});
    m_log.clear();
    m_stop = false;
    m_idle = false;
    m_progress->setRange(0, static_cast<int>(runs.size()) * runs.front().steps);
    m_progress->setValue(0);
    m_status->setText(tr("training %1 …").arg(describeLabRun(runs.front())));
    m_table->clear();
    m_table->setRowCount(0);
    m_dirty = true;
    redraw();
    m_redraw->start();
    updateEnabled();
    const LabTrainer trainer = m_trainer;
    m_thread = std::thread([this, trainer, runs] {
        QString error;
        for (std::size_t k = 0; k < runs.size() && error.isEmpty(); ++k) {
            const int run = static_cast<int>(k);
            const auto report = [this, run](const LabProgress& p) {
                QMetaObject::invokeMethod(
                    this, [this, run, p] { onProgress(run, p); }, Qt::QueuedConnection);
            };
            LabRunResult r = trainer(runs[k], labEvalLengths(runs[k].trainLength), report, m_stop);
            if (m_stop && r.error.isEmpty())
                r.error = QStringLiteral("cancelled");
            // A comparison goes on past a scheme that fails (says why in its row); cancel stops.
            if (r.error == QLatin1String("cancelled") || runs.size() == 1)
                error = r.error;
            QMetaObject::invokeMethod(
                this, [this, run, r] { onRunDone(run, r); }, Qt::QueuedConnection);
        }
        QMetaObject::invokeMethod(
            this, [this, error] { onAllDone(error); }, Qt::QueuedConnection);
    });
}

void LabPanel::onProgress(int run, const LabProgress& p) {
    if (run >= static_cast<int>(m_runs.size()))
        return;
    if (m_log.empty() || p.step < m_log.back().step)
        m_log.clear(); // a new run of a comparison
    m_log.push_back(p);
    m_progress->setValue(run * m_runs.front().steps + p.step);
    m_status->setText(tr("%1: step %2 of %3, loss %4, accuracy %5")
                          .arg(describeLabRun(m_runs[run]))
                          .arg(p.step)
                          .arg(m_runs[run].steps)
                          .arg(p.loss, 0, 'g', 4)
                          .arg(p.accuracy, 0, 'f', 3));
    m_dirty = true;
}

void LabPanel::onRunDone(int run, const LabRunResult& r) {
    if (run < static_cast<int>(m_results.size()))
        m_results[run] = r;
    if (m_runs.size() == 1 && r.error.isEmpty()) {
        m_model = r.layers;
        m_saveModel = r.save;
    }
    m_dirty = true;
    redraw();
}

void LabPanel::onAllDone(const QString& error) {
    m_idle = true;
    m_redraw->stop();
    redraw();
    m_status->setText(error.isEmpty() ? tr("done: %1").arg(describeLabRun(m_runs.front()))
                      : error == QLatin1String("cancelled") ? tr("cancelled")
                                                            : tr("error: %1").arg(error));
    updateEnabled();
    Q_EMIT finished(error);
}

void LabPanel::redraw() {
    m_dirty = false;
    LineSeries loss{tr("loss"), {}}, acc{tr("accuracy"), {}};
    for (const LabProgress& p : m_log) {
        loss.values.push_back(p.loss);
        acc.values.push_back(p.accuracy);
        loss.x.push_back(p.step); // against the training step itself
        acc.x.push_back(p.step);
    }
    LinePlotContent lossPlot{tr("training loss"), tr("step"), tr("cross-entropy"), {loss}, {}};
    LinePlotContent accuracy{tr("training accuracy"), tr("step"), tr("token accuracy"), {acc}, {}};
    accuracy.yRange = {0, 1.02}; // accuracies live in [0, 1], also before the first step
    if (m_log.empty()) {
        // Before the first step, the axes the training will fill: its steps, and a loss from 0
        // to above ln V, where a uniform guess over the vocabulary starts.
        lossPlot.xRange = accuracy.xRange = std::pair{0.0, double(m_steps->value())};
        lossPlot.yRange = {0.0, 1.15 * std::log(double(std::max(m_vocab->value(), 2)))};
        lossPlot.integerX = accuracy.integerX = false;
    }
    m_loss->setContent(lossPlot);
    m_accuracy->setContent(accuracy);

    // The evaluation table: one row per run, one column per length.
    if (m_runs.empty()) {
        const std::vector<int> lengths = labEvalLengths(m_length->value());
        m_tableHint->setText(
            tr("Train a model, or compare every scheme, on the task at the left. Each model is "
               "then evaluated on sequences of its training length L and longer: here %1, %2, "
               "%3 and %4 tokens. This table and the plot beside it give its token accuracy at "
               "each length: how far what it learned about positions generalises.")
                .arg(lengths[0])
                .arg(lengths[1])
                .arg(lengths[2])
                .arg(lengths[3]));
        m_tableStack->setCurrentWidget(m_tableHint);
        QStringList slots;
        for (int len : lengths)
            slots << QString::number(len);
        LinePlotContent empty{
            tr("accuracy against evaluation length"), tr("length"), tr("accuracy"), {}, slots};
        empty.yRange = {0, 1.02};
        empty.xRange = {-0.5, lengths.size() - 0.5}; // the lengths it will be evaluated at
        m_lengthPlot->setContent(empty);
        return;
    }
    m_tableStack->setCurrentWidget(m_table);
    const std::vector<int> lengths = labEvalLengths(m_runs.front().trainLength);
    m_table->setColumnCount(static_cast<int>(lengths.size()));
    QStringList header;
    const char* names[] = {"L", "1.5L", "2L", "4L"};
    for (std::size_t c = 0; c < lengths.size(); ++c)
        header << QStringLiteral("%1 = %2").arg(QLatin1String(names[c])).arg(lengths[c]);
    m_table->setHorizontalHeaderLabels(header);
    int rowCount = 0;
    for (const LabRunResult& res : m_results)
        rowCount += 1 + static_cast<int>(res.variants.size());
    m_table->setRowCount(rowCount);
    QStringList rows;
    std::vector<LineSeries> lines;
    QStringList xLabels;
    for (int len : lengths)
        xLabels << QString::number(len);
    int row = 0;
    // One table row (and one line) per model, and one per RoPE stretch of it.
    auto addRow = [&](const QString& name, const QString& error, const std::vector<LabEval>& ev) {
        rows << name;
        LineSeries line{name, {}};
        for (std::size_t c = 0; c < lengths.size(); ++c) {
            QString text;
            if (!error.isEmpty())
                text = c == 0 ? error : QString();
            else if (c < ev.size())
                text = ev[c].noPositions ? tr("no positions")
                                         : QString::number(ev[c].accuracy, 'f', 3);
            auto* item = new QTableWidgetItem(text);
            if (error.isEmpty() && c < ev.size() && ev[c].noPositions)
                item->setToolTip(tr("A learned table (and URPE's C) has no rows past the "
                                    "training length: the model cannot run at %1 tokens")
                                     .arg(lengths[c]));
            m_table->setItem(row, static_cast<int>(c), item);
            if (error.isEmpty() && c < ev.size())
                line.values.push_back(ev[c].noPositions ? std::nan("") : ev[c].accuracy);
        }
        if (!line.values.empty())
            lines.push_back(line);
        ++row;
    };
    for (std::size_t r = 0; r < m_runs.size(); ++r) {
        const LabRunResult& res = m_results[r];
        addRow(QString::fromUtf8(std::string(toString(m_runs[r].scheme))), res.error, res.evals);
        for (const auto& [name, ev] : res.variants)
            addRow(name, QString(), ev);
    }
    m_table->setVerticalHeaderLabels(rows);
    m_table->resizeColumnsToContents();
    LinePlotContent byLength{tr("accuracy against evaluation length"), tr("length"), tr("accuracy"),
                             lines, xLabels};
    byLength.yRange = {0, 1.02};
    m_lengthPlot->setContent(byLength);
}

} // namespace pe
