// SPDX-License-Identifier: MIT
#include "insights_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "allocator.h"
#include "qcp.h"

#include "insights_figures.h"
#include "line_plot_view.h"

namespace pe {

namespace {

/** A row of labelled controls on a transparent widget. */
QWidget* controlRow(const std::vector<std::pair<QString, QWidget*>>& items) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    for (const auto& [label, control] : items) {
        if (!label.isEmpty())
            l->addWidget(new QLabel(label));
        l->addWidget(control);
    }
    l->addStretch(1);
    return w;
}

/** What the measurement depends on: everything but n. */
Params measuredKey(Params p) {
    p.n = 0;
    p.validLen = -1;
    return p;
}

} // namespace

InsightsPanel::InsightsPanel(QWidget* parent)
    : QWidget(parent)
    , m_controller(new InsightsController(this))
    , m_pageChooser(new QComboBox)
    , m_controls(new QStackedWidget)
    , m_delta(new QSpinBox)
    , m_kernel(new QSpinBox)
    , m_measureMax(new QComboBox)
    , m_measure(new QPushButton(tr("&Measure")))
    , m_layers(new QSpinBox)
    , m_residual(new QCheckBox(tr("residual")))
    , m_norm(new QComboBox)
    , m_mlp(new QCheckBox(tr("MLP")))
    , m_progress(new QProgressBar)
    , m_cancel(new QPushButton(tr("Cancel")))
    , m_status(new QLabel)
    , m_explanation(new QLabel)
    , m_numbers(new QLabel)
    , m_figures(new InsightsFigures)
    , m_progressDelay(new QTimer(this)) {
    for (InsightPage page : allInsightPages())
        m_pageChooser->addItem(insightPageTitle(page), static_cast<int>(page));
    m_pageChooser->setObjectName(QStringLiteral("insightPage"));
    m_pageChooser->setToolTip(tr("Which argument of the chapter to show"));

    m_delta->setRange(1, 1 << 20); // narrowed to N − 1 when the parameters arrive
    m_delta->setToolTip(tr("The shift δ: P[i+δ] against M_δ·P[i]"));
    m_kernel->setRange(2, 65);
    m_kernel->setValue(3);
    m_kernel->setToolTip(tr("The CNN's kernel size k"));
    for (int n : {1024, 2048, 4096, 8192, 16384})
        m_measureMax->addItem(QString::number(n), n);
    m_measureMax->setCurrentIndex(m_measureMax->count() - 1);
    m_measureMax->setToolTip(tr("Measure n = 128, 256, … up to this (pooled above 2048)"));
    m_measure->setToolTip(tr("Time one attention layer of the current scheme on this machine's "
                             "fast CPU engine and fit the exponent of time against n"));
    m_layers->setRange(1, kMaxDepthLayers);
    m_layers->setValue(12);
    m_layers->setToolTip(tr("Layers L, each with its own seeded weights"));
    m_residual->setChecked(true);
    m_residual->setToolTip(tr("X ← X + f(X) instead of X ← f(X)"));
    m_norm->addItem(tr("no norm"), static_cast<int>(DepthNorm::None));
    m_norm->addItem(tr("LayerNorm"), static_cast<int>(DepthNorm::LayerNorm));
    m_norm->addItem(tr("RMSNorm"), static_cast<int>(DepthNorm::RmsNorm));
    m_norm->setToolTip(tr("Pre-norm before attention and MLP (no gain, no bias)"));
    m_mlp->setToolTip(tr("A ReLU MLP d → 4d → d after each attention"));

    // In the order of InsightPage.
    m_controls->addWidget(controlRow({}));
    m_controls->addWidget(controlRow({{tr("δ"), m_delta}}));
    m_controls->addWidget(controlRow({{tr("kernel k"), m_kernel},
                                      {tr("measure up to n"), m_measureMax},
                                      {QString(), m_measure}}));
    m_controls->addWidget(controlRow({}));
    m_controls->addWidget(controlRow({{tr("layers L"), m_layers},
                                      {QString(), m_residual},
                                      {QString(), m_norm},
                                      {QString(), m_mlp}}));
    showControls(InsightPage::Binary);

    m_progress->setMaximumWidth(140);
    m_progress->setObjectName(QStringLiteral("insightProgress"));
    m_progress->hide();
    m_cancel->setObjectName(QStringLiteral("insightCancel"));
    m_cancel->setToolTip(tr("Cancel the page's computation"));
    m_cancel->hide();
    m_status->setObjectName(QStringLiteral("insightStatus"));
    m_status->setToolTip(tr("Time to compute the page (on its worker) and to fill its figures"));
    m_status->setStyleSheet(QStringLiteral("color: #555"));
    // Its text ("12345.6 ms + 12.3 draw") must not widen the page: a fixed width, right-aligned.
    m_status->setMinimumWidth(m_status->fontMetrics().horizontalAdvance(
        tr("%1 ms + %2 draw").arg(99999.9, 0, 'f', 1).arg(999.9, 0, 'f', 1)));
    m_status->setMaximumWidth(m_status->minimumWidth());
    m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Page")));
    top->addWidget(m_pageChooser);
    top->addSpacing(12);
    top->addWidget(m_controls, 1);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    top->addWidget(m_status);

    for (QLabel* l : {m_explanation, m_numbers}) {
        l->setWordWrap(true);
        l->setTextFormat(Qt::RichText);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_explanation->setObjectName(QStringLiteral("insightExplanation"));
    m_numbers->setObjectName(QStringLiteral("insightNumbers"));
    m_numbers->setStyleSheet(QStringLiteral("font-weight: 600"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addLayout(top);
    layout->addWidget(m_explanation);
    layout->addWidget(m_numbers);
    m_figures->setPrepareInBackground(true); // large maps: converted off the GUI thread
    layout->addWidget(m_figures, 1);

    m_progressDelay->setSingleShot(true);
    m_progressDelay->setInterval(200);
    connect(m_progressDelay, &QTimer::timeout, this, [this] {
        m_progress->show();
        m_cancel->show();
    });
    connect(m_controller, &InsightsController::resultReady, this, &InsightsPanel::onResult);
    connect(m_controller, &InsightsController::busyChanged, this, &InsightsPanel::onBusy);
    connect(m_controller, &InsightsController::progressChanged, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_controller->cancel();
        m_status->setText(tr("cancelled"));
        m_stale = true; // shown again, it computes again
    });
    connect(m_pageChooser, &QComboBox::currentIndexChanged, this, [this](int index) {
        const auto page = static_cast<InsightPage>(m_pageChooser->itemData(index).toInt());
        showControls(page);
        m_figures->setPage(page);
        m_explanation->setText(insightExplanation(page));
        m_numbers->clear();
        submit();
    });
    connect(m_delta, &QSpinBox::valueChanged, this, [this] { submit(); });
    connect(m_kernel, &QSpinBox::valueChanged, this, [this] { submit(); });
    connect(m_measure, &QPushButton::clicked, this, [this] { submit(true); });
    connect(m_layers, &QSpinBox::valueChanged, this, [this] { submit(); });
    connect(m_residual, &QCheckBox::toggled, this, [this] { submit(); });
    connect(m_norm, &QComboBox::currentIndexChanged, this, [this] { submit(); });
    connect(m_mlp, &QCheckBox::toggled, this, [this] { submit(); });
    m_explanation->setText(insightExplanation(InsightPage::Binary));
}

InsightsPanel::~InsightsPanel() = default;

void InsightsPanel::setParams(const Params& p, const InputChoice& in) {
    if (m_haveParams && p == m_params && in == m_input)
        return;
    m_params = p;
    m_input = in;
    m_haveParams = true;
    updateDeltaRange();
    submit();
}

void InsightsPanel::updateDeltaRange() {
    const QSignalBlocker block(m_delta);
    m_delta->setRange(1, std::max(1, m_params.seqLen() - 1));
}

void InsightsPanel::setPage(InsightPage page) {
    m_pageChooser->setCurrentIndex(static_cast<int>(page));
}

InsightPage InsightsPanel::page() const {
    return static_cast<InsightPage>(m_pageChooser->currentData().toInt());
}

void InsightsPanel::setColorMap(ColorMapKind k) {
    m_figures->setColorMap(k);
}

void InsightsPanel::showControls(InsightPage page) {
    // A stacked widget is as wide as its widest page: only the shown row may count, or the
    // depth page's controls would widen every page (and the window's minimum).
    for (int k = 0; k < m_controls->count(); ++k)
        m_controls->widget(k)->setSizePolicy(k == static_cast<int>(page) ? QSizePolicy::Preferred
                                                                         : QSizePolicy::Ignored,
                                             QSizePolicy::Preferred);
    m_controls->setCurrentIndex(static_cast<int>(page));
    m_controls->updateGeometry();
}

InsightSettings InsightsPanel::settings() const {
    InsightSettings s;
    s.delta = m_delta->value();
    s.kernel = m_kernel->value();
    s.measureNMax = m_measureMax->currentData().toInt();
    s.depth.layers = m_layers->value();
    s.depth.residual = m_residual->isChecked();
    s.depth.norm = static_cast<DepthNorm>(m_norm->currentData().toInt());
    s.depth.mlp = m_mlp->isChecked();
    return s;
}

void InsightsPanel::setSettings(const InsightSettings& s) {
    m_delta->setValue(s.delta);
    m_kernel->setValue(s.kernel);
    m_layers->setValue(s.depth.layers);
    m_residual->setChecked(s.depth.residual);
    m_norm->setCurrentIndex(std::max(0, m_norm->findData(static_cast<int>(s.depth.norm))));
    m_mlp->setChecked(s.depth.mlp);
}

HeatmapView* InsightsPanel::currentHeatmap() const {
    return m_figures->mainHeatmap(page());
}

QCustomPlot* InsightsPanel::currentPlot() const {
    const std::vector<QWidget*> f = m_figures->figures(page());
    if (f.empty())
        return nullptr;
    if (auto* h = qobject_cast<HeatmapView*>(f.front()))
        return h->plot();
    if (auto* l = qobject_cast<LinePlotView*>(f.front()))
        return l->plot();
    return nullptr;
}

QString InsightsPanel::numbersText() const {
    return m_numbers->text();
}

QString InsightsPanel::explanationText() const {
    return m_explanation->text();
}

void InsightsPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_stale)
        submit();
}

void InsightsPanel::submit(bool measure) {
    if (!m_haveParams)
        return;
    // Hidden: computed when shown (a depth stack at every parameter change would cost seconds).
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    m_stale = false;
    InsightSettings s = settings();
    s.measure = measure && page() == InsightPage::Cost;
    m_controller->submit(page(), m_params, m_input, s);
    m_status->setText(s.measure ? tr("measuring…") : tr("computing…"));
}

void InsightsPanel::onResult(const InsightResult& result) {
    trimMemoryWhenIdle();
    InsightResult r = result;
    if (r.page == InsightPage::Cost && r.ok()) {
        if (r.measured) {
            m_measured = r.measured;
            m_measuredFor = measuredKey(r.params);
        } else if (m_measured && m_measuredFor == measuredKey(r.params)) {
            r.measured = m_measured; // the last measurement of these parameters
        }
    }
    QElapsedTimer draw;
    draw.start();
    m_figures->setResult(r);
    m_numbers->setText(insightNumbers(r));
    m_drawMs = static_cast<double>(draw.nsecsElapsed()) / 1e6;
    m_numbers->setStyleSheet(r.ok() ? QStringLiteral("font-weight: 600")
                                    : QStringLiteral("font-weight: 600; color: #b00020"));
    m_status->setText(
        r.ok() ? tr("%1 ms + %2 draw").arg(r.computeMs, 0, 'f', 1).arg(m_drawMs, 0, 'f', 1)
               : (r.error == QLatin1String("cancelled") ? tr("cancelled") : tr("error")));
    m_shown = std::move(r);
    ++m_resultsShown;
    Q_EMIT resultShown();
}

void InsightsPanel::onBusy(bool busy) {
    if (busy) {
        m_progress->setRange(0, 0);
        m_progressDelay->start();
        return;
    }
    m_progressDelay->stop();
    m_progress->hide();
    m_cancel->hide();
}

} // namespace pe
