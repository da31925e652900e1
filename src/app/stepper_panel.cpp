// SPDX-License-Identifier: MIT
#include "stepper_panel.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

#include "allocator.h"
#include "exporter.h"
#include "line_plot_view.h"
#include "qcp.h"
#include "stepper_probe.h"
#include "stepper_strip.h"
#include "trace_views.h"
#include "weights.h"

namespace pe {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

/** A logit term's name in the focus plot's legend: its symbol ("e·p", "c2p", "(b)+(d)") or, for
 * the words, their translation. */
QString termLabel(const StageMatrix& m) {
    if (m.label == "content")
        return StepperPanel::tr("content");
    if (m.label == "position")
        return StepperPanel::tr("position");
    if (m.label == "rotation")
        return StepperPanel::tr("rotation");
    return qs(m.label.empty() ? m.name : m.label);
}

QString shapeOf(const StageMat& m) {
    return QStringLiteral("[%1 × %2]").arg(m.rows()).arg(m.cols());
}

/** A matrix as a view grid; −∞ (masked logits) stays, and the heat map draws it grey. */
Grid toGrid(const StageMat& m, bool* hadInfinity = nullptr) {
    Grid g{static_cast<int>(m.rows()), static_cast<int>(m.cols()), {}};
    g.values.resize(static_cast<std::size_t>(m.size()));
    bool inf = false;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const double v = m(r, c);
            g.at(static_cast<int>(r), static_cast<int>(c)) = v;
            inf = inf || !std::isfinite(v);
        }
    if (hadInfinity)
        *hadInfinity = inf;
    return g;
}

} // namespace

StepperPanel::StepperPanel(QWidget* parent)
    : QWidget(parent)
    , m_strip(new StageStrip)
    , m_tokens(new TokenBar)
    , m_timer(new QTimer(this)) {
    m_stagePool.setMaxThreadCount(1);
    m_stageWatcher = new QFutureWatcher<PreparedStage>(this);
    connect(m_stageWatcher, &QFutureWatcher<PreparedStage>::finished, this,
            &StepperPanel::stagePrepared);
    setFocusPolicy(Qt::StrongFocus);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->addWidget(m_strip);

    auto* controls = new QHBoxLayout;
    m_prev = new QPushButton(tr("◀ Previous"));
    m_prev->setToolTip(tr("Previous stage (Left arrow)"));
    m_next = new QPushButton(tr("Next ▶"));
    m_next->setToolTip(tr("Next stage (Right arrow)"));
    m_play = new QPushButton(tr("Play"));
    m_play->setCheckable(true);
    m_play->setToolTip(
        tr("Step through every stage, one every %1 s (Space)").arg(kPlayIntervalMs / 1000.0));
    m_prev->setObjectName(QStringLiteral("previousButton"));
    m_next->setObjectName(QStringLiteral("nextButton"));
    m_play->setObjectName(QStringLiteral("playButton"));
    for (QPushButton* b : {m_prev, m_next, m_play}) {
        b->setFocusPolicy(Qt::NoFocus);
        controls->addWidget(b);
    }
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("head")));
    m_head = new QSpinBox;
    m_head->setToolTip(tr("Head whose Q, K, V, logits and weights the stages show"));
    controls->addWidget(m_head);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("query")));
    m_queryBox = new QComboBox;
    m_queryBox->setToolTip(tr("Query in focus: its attention in every head and its logit terms "
                              "(or click a token, or right-click a row of a map)"));
    m_queryBox->setMinimumContentsLength(12);
    controls->addWidget(m_queryBox);
    controls->addStretch(1);
    auto* exportButton = new QPushButton(tr("Export stage…"));
    exportButton->setToolTip(tr("Write this stage's matrices as .npy and its figure as PNG into a "
                                "folder (File ▸ Export acts on the first map)"));
    exportButton->setFocusPolicy(Qt::NoFocus);
    controls->addWidget(exportButton);
    outer->addLayout(controls);

    auto* tokenScroll = new QScrollArea;
    tokenScroll->setWidget(m_tokens);
    tokenScroll->setWidgetResizable(true);
    tokenScroll->setFrameShape(QFrame::NoFrame);
    tokenScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tokenScroll->setFixedHeight(m_tokens->sizeHint().height() + 34);
    tokenScroll->setFocusPolicy(Qt::NoFocus);
    outer->addWidget(tokenScroll);

    m_message = new QLabel;
    m_message->setWordWrap(true);
    m_message->hide();
    outer->addWidget(m_message);

    auto* split = new QSplitter(Qt::Horizontal);
    m_stageArea = new QWidget;
    auto* sv = new QVBoxLayout(m_stageArea);
    sv->setContentsMargins(0, 0, 0, 0);
    m_weightsLabel = new QLabel;
    m_weightsLabel->setObjectName(QStringLiteral("weightsLabel"));
    sv->addWidget(m_weightsLabel);
    m_title = new QLabel;
    QFont tf = m_title->font();
    tf.setPointSize(tf.pointSize() + 3);
    tf.setBold(true);
    m_title->setFont(tf);
    sv->addWidget(m_title);
    m_formula = new QLabel;
    m_formula->setObjectName(QStringLiteral("formula"));
    QFont ff(QStringLiteral("DejaVu Serif"));
    ff.setPointSize(tf.pointSize());
    m_formula->setFont(ff);
    m_formula->setWordWrap(true);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_formula->setStyleSheet(
        QStringLiteral("QLabel { background: #f6f8fa; border: 1px solid #d0d7de; padding: 6px; }"));
    sv->addWidget(m_formula);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    sv->addWidget(m_note);
    m_shapes = new QLabel;
    m_shapes->setStyleSheet(QStringLiteral("color: #555"));
    sv->addWidget(m_shapes);
    m_empty = new QLabel;
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(QStringLiteral("color: #777; font-size: 14pt"));
    m_empty->hide();
    sv->addWidget(m_empty, 1);
    auto* host = new QWidget;
    m_grid = new QGridLayout(host);
    m_grid->setContentsMargins(0, 0, 0, 0);
    sv->addWidget(host, 4);
    split->addWidget(m_stageArea);

    auto* right = new QSplitter(Qt::Vertical);
    m_focus = new LinePlotView;
    m_terms = new LinePlotView;
    for (LinePlotView* v : {m_focus, m_terms})
        v->setMinimumSize(220, 140);
    m_probe = new ProbeBox;
    right->addWidget(m_focus);
    right->addWidget(m_terms);
    right->addWidget(m_probe);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 3);
    right->setStretchFactor(2, 2);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({3400, 1600}); // proportions: the size hints would favour the plots
    right->setSizes({1000, 1000, 900});
    outer->addWidget(split, 1);

    m_timer->setInterval(kPlayIntervalMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_stage + 1 >= kStageCount)
            setPlaying(false);
        else
            next();
    });
    connect(m_prev, &QPushButton::clicked, this, &StepperPanel::previous);
    connect(m_next, &QPushButton::clicked, this, &StepperPanel::next);
    connect(m_play, &QPushButton::toggled, this, &StepperPanel::setPlaying);
    connect(m_strip, &StageStrip::stageClicked, this, &StepperPanel::setStage);
    connect(m_tokens, &TokenBar::tokenClicked, this, &StepperPanel::setQuery);
    connect(m_head, &QSpinBox::valueChanged, this, [this] {
        refreshStage();
        refreshFocus();
    });
    connect(m_queryBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setQuery(i);
    });
    connect(m_probe, &ProbeBox::optionsChanged, this, &StepperPanel::refreshProbe);
    connect(exportButton, &QPushButton::clicked, this, &StepperPanel::exportClicked);
    m_stages = stageList(Params{});
    m_strip->setStages(m_stages);
    m_strip->setCurrent(0);
}

StepperPanel::~StepperPanel() = default;

void StepperPanel::setWeightsLabel(const QString& text) {
    m_weightsLabel->setText(text);
}

QString StepperPanel::weightsLabel() const {
    return m_weightsLabel->text();
}

void StepperPanel::setTrace(std::shared_ptr<const Trace> trace) {
    if (!trace || !m_trace || trace->params.d != m_trace->params.d ||
        trace->params.seed != m_trace->params.seed)
        m_wo.reset(); // W_O of another width or seed: the new trace's is drawn when asked for
    m_trace = std::move(trace);
    m_stale = true;
    if (isVisible())
        refresh();
}

void StepperPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    setFocus(Qt::OtherFocusReason); // the arrow keys step at once, not the tab bar
    if (m_stale)
        refresh();
}

const StageInfo& StepperPanel::stageInfo() const {
    return m_stages[static_cast<std::size_t>(m_stage)];
}

int StepperPanel::head() const {
    return m_head->value();
}

void StepperPanel::setHead(int h) {
    m_head->setValue(h);
}

void StepperPanel::setPlayInterval(int ms) {
    m_timer->setInterval(ms);
}

bool StepperPanel::playing() const {
    return m_timer->isActive();
}

void StepperPanel::setPlaying(bool on) {
    if (on && m_stage + 1 >= kStageCount)
        setStage(0); // play from the start once the end is reached
    if (on)
        m_timer->start();
    else
        m_timer->stop();
    const QSignalBlocker b(m_play);
    m_play->setChecked(on);
    m_play->setText(on ? tr("Pause") : tr("Play"));
}

void StepperPanel::setStage(int stage) {
    stage = std::clamp(stage, 0, kStageCount - 1);
    const bool changed = stage != m_stage;
    m_stage = stage;
    m_strip->setCurrent(stage);
    m_prev->setEnabled(stage > 0);
    m_next->setEnabled(stage + 1 < kStageCount);
    refreshStage();
    if (changed)
        Q_EMIT stageChanged(stage);
}

void StepperPanel::next() {
    setStage(m_stage + 1);
}

void StepperPanel::previous() {
    setStage(m_stage - 1);
}

void StepperPanel::setQuery(int i) {
    if (!m_trace)
        return;
    i = std::clamp(i, 0, m_trace->params.seqLen() - 1);
    m_query = i;
    m_tokens->setCurrent(i);
    {
        const QSignalBlocker b(m_queryBox);
        m_queryBox->setCurrentIndex(i);
    }
    refreshFocus();
}

void StepperPanel::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_Left:
        previous();
        return;
    case Qt::Key_Right:
        next();
        return;
    case Qt::Key_Space:
        setPlaying(!playing());
        return;
    default:
        QWidget::keyPressEvent(e);
    }
}

void StepperPanel::setColorMap(ColorMapKind k) {
    m_colorMap = k;
    refreshStage(); // new maps: see refreshStage
}

void StepperPanel::setPoolMode(PoolMode m) {
    m_pool = m;
    for (HeatmapView* h : m_maps)
        h->setPoolMode(m);
}

HeatmapView* StepperPanel::newHeatmap(std::size_t index) {
    auto* h = new HeatmapView;
    h->setMinimumSize(220, 200);
    h->setColorMap(m_colorMap);
    h->setPoolMode(m_pool);
    connect(h, &HeatmapView::hovered, this, &StepperPanel::hovered);
    connect(h, &HeatmapView::rowClicked, this, [this, index](int row) {
        if (index < m_matrices.size() && m_matrices[index].rows == StageAxis::Position)
            setQuery(row);
    });
    return h;
}

std::vector<HeatmapView*> StepperPanel::shownHeatmaps() const {
    const std::size_t n = std::min(m_matrices.size(), m_maps.size());
    return {m_maps.begin(), m_maps.begin() + static_cast<std::ptrdiff_t>(n)};
}

HeatmapView* StepperPanel::currentHeatmap() const {
    return m_matrices.empty() || m_maps.empty() ? nullptr : m_maps.front();
}

QString StepperPanel::formulaText() const {
    return m_formula->text();
}

QString StepperPanel::shapesText() const {
    return m_shapes->text();
}

void StepperPanel::refresh() {
    if (!m_trace) {
        m_stale = false;
        return;
    }
    const Params& p = m_trace->params;
    const int N = p.seqLen();
    // A trace computed as far as the weights (the window's, made while another tab was shown):
    // the rest of its pass is on its way (MainWindow::completeIfNeeded), and what is shown
    // stays until it comes rather than the value stages flashing empty.
    if (!m_trace->find("out") && N <= kMaxStepperPositions)
        return;
    m_stale = false;
    if (N > kMaxStepperPositions) {
        m_message->setText(tr("The stepper shows sequences of up to %1 positions (this one has "
                              "%2): lower n to step through it.")
                               .arg(kMaxStepperPositions)
                               .arg(N));
        m_message->show();
        m_matrices.clear();
        for (HeatmapView* h : m_maps)
            h->deleteLater();
        m_maps.clear();
        m_tokens->setTokens({}, 0);
        m_empty->hide();
        for (QLabel* l : {m_title, m_formula, m_note, m_shapes})
            l->clear();
        m_focus->setSeries({}, {}, {}, {});
        m_terms->setSeries({}, {}, {}, {});
        return;
    }
    m_message->hide();
    m_stages = stageList(p);
    m_strip->setStages(m_stages);
    m_labels.clear();
    for (int i = 0; i < N; ++i) {
        QString t = i < static_cast<int>(m_trace->tokens.size())
                        ? qs(m_trace->tokens[static_cast<std::size_t>(i)])
                        : QString::number(i);
        if (p.validLen >= 0 && i >= p.validLen)
            t += tr(" (pad)");
        m_labels << t;
    }
    QStringList plain;
    for (int i = 0; i < N; ++i)
        plain << (i < static_cast<int>(m_trace->tokens.size())
                      ? qs(m_trace->tokens[static_cast<std::size_t>(i)])
                      : QString::number(i));
    m_tokens->setTokens(plain, p.validLen >= 0 ? p.validLen : N);
    {
        const QSignalBlocker b1(m_head);
        const QSignalBlocker b2(m_queryBox);
        m_head->setRange(0, std::max(0, p.heads - 1));
        m_queryBox->clear();
        for (int i = 0; i < N; ++i)
            m_queryBox->addItem(QStringLiteral("%1: %2").arg(i).arg(m_labels.at(i)));
    }
    m_query = std::clamp(m_query, 0, N - 1);
    m_tokens->setCurrent(m_query);
    {
        const QSignalBlocker b(m_queryBox);
        m_queryBox->setCurrentIndex(m_query);
    }
    setStage(m_stage);
    refreshFocus();
    refreshProbe();
}

StepperPanel::PreparedStage StepperPanel::prepareStage(const Trace& trace, StageId id, int head,
                                                       std::shared_ptr<const Eigen::MatrixXd> wo) {
    const Params& p = trace.params;
    PreparedStage s;
    if (id == StageId::OutputProjection && !wo) {
        // The window's weights are generated from the seed (one stream per tensor name):
        // regenerate W_O alone. The others are marked given, so completeWeights skips them.
        Params q;
        q.scheme = Scheme::None;
        q.n = 1;
        q.d = p.d;
        q.heads = 1;
        q.seed = p.seed;
        Weights w;
        w.E = w.W_q = w.W_k = w.W_v = Eigen::MatrixXd::Zero(1, 1);
        completeWeights(q, w);
        wo = std::make_shared<const Eigen::MatrixXd>(std::move(w.W_o));
        s.wo = wo;
        s.woD = p.d;
        s.woSeed = p.seed;
    }
    s.matrices =
        stageMatrices(trace, id, head, id == StageId::OutputProjection ? wo.get() : nullptr);
    for (const StageMatrix& m : s.matrices) {
        bool inf = false;
        s.grids.push_back(toGrid(m.values, &inf));
        s.infinite.push_back(inf);
    }
    return s;
}

void StepperPanel::refreshStage() {
    if (!m_trace || m_stale || m_trace->params.seqLen() > kMaxStepperPositions)
        return;
    const StageInfo& info = stageInfo();
    const Params& p = m_trace->params;
    ++m_stageGeneration;
    m_title->setText(
        tr("Stage %1 of %2 · %3").arg(m_stage + 1).arg(kStageCount).arg(qs(info.title)));
    m_formula->setText(qs(info.formula));
    QString note = qs(info.note);
    if (info.positionEnters)
        note = QStringLiteral("<span style='color:#e07b00'>●</span> <b>%1</b>").arg(note);
    else if (!info.applies)
        note = tr("<i>Not used by %1: %2</i>").arg(qs(std::string(toString(p.scheme))), note);
    m_note->setText(note);

    // The largest matrix a stage shows: n × n (per head), n × d, or W_O's d × d; and the
    // products it is made with (stageFlops: the Logits stage's terms).
    const std::int64_t N = p.seqLen(), D = p.d;
    const std::int64_t cells =
        std::max({N * N, N * D, info.id == StageId::OutputProjection ? D * D : 0});
    if (cells <= kInlineStageCells && stageFlops(*m_trace, info.id) <= kInlineStageFlops) {
        PreparedStage prepared = prepareStage(*m_trace, info.id, head(), m_wo);
        prepared.generation = m_stageGeneration;
        keepWo(prepared);
        showStage(std::move(prepared));
        return;
    }
    // Large: computed on the stage thread, newest wins; the old maps go now.
    m_matrices.clear();
    for (HeatmapView* h : m_maps) {
        h->hide();
        h->deleteLater();
    }
    m_maps.clear();
    m_shapes->clear();
    m_empty->setText(tr("Preparing this stage (up to %1 million cells)…")
                         .arg(static_cast<double>(cells) / 1e6, 0, 'f', 1));
    m_empty->show();
    if (m_stageRunning) {
        m_stagePending = true; // started when the running one ends
        return;
    }
    m_stagePending = false;
    m_stageRunning = true;
    m_stageWatcher->setFuture(
        QtConcurrent::run(&m_stagePool, [trace = m_trace, id = info.id, h = head(), wo = m_wo,
                                         generation = m_stageGeneration] {
            PreparedStage prepared = prepareStage(*trace, id, h, wo);
            prepared.generation = generation;
            return prepared;
        }));
}

void StepperPanel::stagePrepared() {
    m_stageRunning = false;
    trimMemoryWhenIdle();
    PreparedStage prepared = m_stageWatcher->future().takeResult();
    keepWo(prepared); // drawn for an older request too: kept if the shown trace's
    if (prepared.generation == m_stageGeneration) {
        showStage(std::move(prepared));
    } else if (m_stagePending) {
        m_stagePending = false;
        refreshStage(); // the newest request, as it stands now
    }
}

void StepperPanel::keepWo(const PreparedStage& prepared) {
    // Only the shown trace's: one drawn for an earlier request of another width or seed (32 MB
    // at d = 2,048) would wait here until the Output projection stage of that trace came back.
    if (!prepared.wo || !m_trace || prepared.woD != m_trace->params.d ||
        prepared.woSeed != m_trace->params.seed)
        return;
    m_wo = prepared.wo;
}

void StepperPanel::showStage(PreparedStage prepared) {
    const Params& p = m_trace->params;
    m_matrices = std::move(prepared.matrices);
    QStringList shapes;
    for (const StageMatrix& m : m_matrices)
        shapes << QStringLiteral("%1 %2").arg(qs(m.name), shapeOf(m.values));
    m_shapes->setText(shapes.isEmpty() ? QString()
                                       : tr("shapes: %1").arg(shapes.join(QStringLiteral(",  "))));

    const int count = static_cast<int>(m_matrices.size());
    m_empty->setVisible(count == 0);
    m_empty->setText(tr("— nothing here for %1: the input passes through unchanged —")
                         .arg(qs(std::string(toString(p.scheme)))));
    const int columns = count <= 2 ? std::max(count, 1) : 2;
    // Fresh maps for every stage: a colour scale drawn once keeps its first gradient image in
    // this QCustomPlot build, so a reused map would show a stale colour bar.
    for (HeatmapView* h : m_maps) {
        h->hide();
        h->deleteLater();
    }
    m_maps.clear();
    for (int k = 0; k < count; ++k) {
        const auto u = static_cast<std::size_t>(k);
        const StageMatrix& m = m_matrices[u];
        HeatmapView* v = newHeatmap(u);
        QString title = qs(m.title); // shapes: in the line above the maps
        if (prepared.infinite[u])
            title += tr(" (grey: −∞)");
        HeatmapInfo hi = traceHeatmapInfo(*m_trace, title, qs(m.name), 1, 1);
        if (m.perHead)
            hi.subtitle = tr("head %1 · %2").arg(head()).arg(hi.subtitle);
        hi.rowLabels = m.rows == StageAxis::Position ? m_labels : QStringList();
        hi.colLabels = m.cols == StageAxis::Position ? m_labels : QStringList();
        if (m.cols == StageAxis::Vocabulary)
            for (const std::string& l : m.colLabels)
                hi.colLabels << qs(l);
        hi.yTitle =
            m.rows == StageAxis::Position
                ? (m.cols == StageAxis::Position ? tr("query position i") : tr("position i"))
            : m.rows == StageAxis::Feature ? tr("feature (in)")
                                           : QString();
        hi.xTitle = m.cols == StageAxis::Position     ? tr("key position j")
                    : m.cols == StageAxis::Vocabulary ? tr("token")
                    : m.rows == StageAxis::Feature    ? tr("feature (out)")
                                                      : tr("feature c");
        v->setData(std::move(prepared.grids[u]), hi);
        m_grid->addWidget(v, k / columns, k % columns);
        v->show(); // after setData: its first drawing has the final gradient
        m_maps.push_back(v);
    }
}

void StepperPanel::refreshFocus() {
    if (!m_trace || m_stale || m_trace->params.seqLen() > kMaxStepperPositions)
        return;
    const Params& p = m_trace->params;
    const int i = m_query;
    const QString token = m_labels.value(i);
    const Tensor* w = m_trace->find("weights");
    std::vector<LineSeries> heads;
    for (int h = 0; w && h < p.heads; ++h) // row i only: not every head's n × n slice
        heads.push_back(LineSeries{tr("head %1").arg(h), headRow(*w, h, i)});
    m_focus->setSeries(tr("query %1 “%2”: attention in every head").arg(i).arg(token),
                       tr("key position j"), tr("a_ij"), heads, m_labels);

    const int h = head();
    const std::vector<StageMatrix> terms = logitTermsRow(*m_trace, h, i);
    std::vector<LineSeries> rows;
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(p.seqLen());
    for (const StageMatrix& m : terms) {
        LineSeries s{termLabel(m), {}};
        for (Eigen::Index j = 0; j < m.values.cols(); ++j)
            s.values.push_back(m.values(0, j));
        sum += m.values.row(0);
        rows.push_back(std::move(s));
    }
    if (terms.size() > 1) {
        LineSeries s{tr("sum S"), {}};
        for (Eigen::Index j = 0; j < sum.size(); ++j)
            s.values.push_back(sum(j));
        rows.push_back(std::move(s));
    }
    const int hidden = static_cast<int>(p.seqLen() - visibilityMask(p).row(i).sum());
    QString title = tr("query %1, head %2: logit terms").arg(i).arg(h);
    if (hidden > 0)
        title += tr(" (%1 masked)").arg(hidden);
    m_terms->setSeries(title, tr("key position j"), tr("term"), rows, m_labels);
}

void StepperPanel::refreshProbe() {
    if (!m_trace || m_stale || m_trace->params.seqLen() > kMaxStepperPositions)
        return;
    m_probe->setTrace(*m_trace);
}

Status StepperPanel::exportStage(const QString& directory) {
    if (!m_trace || m_matrices.empty())
        return Error{"this stage has no matrix to export"};
    const QDir dir(directory);
    const QString stem = qs(stageName(stageInfo().id));
    for (const StageMatrix& m : m_matrices) {
        const QString path = dir.filePath(QStringLiteral("%1_%2.npy").arg(stem, qs(m.name)));
        if (Status s = writeNpy(toGrid(m.values), path); !s)
            return s;
    }
    return exportWidget(m_stageArea, dir.filePath(stem + QStringLiteral(".png")), FigureFormat::Png,
                        150);
}

void StepperPanel::exportClicked() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export stage into folder"));
    if (dir.isEmpty())
        return;
    if (Status s = exportStage(dir); !s)
        QMessageBox::warning(this, tr("Export failed"), qs(s.error().message));
}

} // namespace pe
