// SPDX-License-Identifier: MIT
#include "comparison_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "trace_views.h"

namespace pe {

namespace {
QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
} // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent)
    , m_controller(new ComputeController(BackendKind::CpuReference, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("compare with")));
    m_scheme = new QComboBox;
    for (Scheme s : allSchemes())
        m_scheme->addItem(qs(toString(s)), static_cast<int>(s));
    m_scheme->setCurrentIndex(m_scheme->findData(static_cast<int>(Scheme::RoPE)));
    m_scheme->setToolTip(tr("Scheme B: the same inputs, sizes, seed and options under this "
                            "scheme; the right map is A − B"));
    bar->addWidget(m_scheme);
    bar->addWidget(new QLabel(tr("tensor")));
    m_tensor = new QComboBox;
    m_tensor->addItem(tr("attention weights"), QStringLiteral("weights"));
    m_tensor->addItem(tr("logits"), QStringLiteral("logits"));
    m_tensor->addItem(tr("output"), QStringLiteral("out"));
    bar->addWidget(m_tensor);
    bar->addWidget(new QLabel(tr("head")));
    m_head = new QSpinBox;
    bar->addWidget(m_head);
    bar->addStretch(1);
    layout->addLayout(bar);
    auto* split = new QSplitter(Qt::Horizontal);
    m_left = new HeatmapView(split);
    m_right = new HeatmapView(split);
    m_diff = new HeatmapView(split);
    layout->addWidget(split, 1);
    m_left->linkTo(m_right);
    m_left->linkTo(m_diff);
    m_right->linkTo(m_diff);
    for (HeatmapView* h : {m_left, m_right, m_diff})
        connect(h, &HeatmapView::hovered, this, &ComparisonView::hovered);

    connect(m_scheme, &QComboBox::currentIndexChanged, this, [this] {
        m_stale = true;
        request();
    });
    connect(m_tensor, &QComboBox::currentIndexChanged, this, &ComparisonView::redraw);
    connect(m_head, &QSpinBox::valueChanged, this, &ComparisonView::redraw);
    connect(m_controller, &ComputeController::resultReady, this, [this](const ComputeResult& r) {
        m_b = r.trace;
        redraw();
    });
}

void ComparisonView::setColorMap(ColorMapKind k) {
    for (HeatmapView* h : {m_left, m_right})
        h->setColorMap(k);
}

void ComparisonView::setPoolMode(PoolMode m) {
    for (HeatmapView* h : {m_left, m_right, m_diff})
        h->setPoolMode(m);
}

void ComparisonView::setOtherScheme(Scheme s) {
    m_scheme->setCurrentIndex(m_scheme->findData(static_cast<int>(s)));
}

bool ComparisonView::setTensor(const QString& name) {
    const int k = m_tensor->findData(name);
    if (k >= 0)
        m_tensor->setCurrentIndex(k);
    return k >= 0;
}

void ComparisonView::setHead(int h) {
    m_head->setValue(h);
}

void ComparisonView::setOther(std::shared_ptr<const Trace> b) {
    m_b = std::move(b);
    m_stale = false;
    redraw();
}

Params ComparisonView::otherParams(const Params& a, Scheme other) {
    Params p = a;
    p.scheme = other;
    // Keep A's masking behaviour; the paper's ALiBi form is defined under a causal mask.
    if (p.scheme == Scheme::ALiBi && p.alibiMode == AlibiMode::Causal)
        p.mask = MaskKind::Causal;
    return p;
}

void ComparisonView::setReference(std::shared_ptr<const Trace> a, const InputChoice& in) {
    m_a = std::move(a);
    m_input = in;
    m_stale = true;
    if (m_a) {
        const QSignalBlocker b(m_head);
        m_head->setRange(0, std::max(0, m_a->params.heads - 1));
    }
    if (isVisible())
        request();
}

void ComparisonView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_stale)
        request();
}

void ComparisonView::request() {
    if (!m_a || !isVisible())
        return;
    m_stale = false;
    m_controller->submit(
        otherParams(m_a->params, static_cast<Scheme>(m_scheme->currentData().toInt())), m_input);
}

void ComparisonView::redraw() {
    if (!m_a)
        return;
    const std::string name = m_tensor->currentData().toString().toStdString();
    const int h = m_head->value();
    int br = 1, bc = 1;
    auto grab = [&](const Trace* t) -> Grid {
        const Tensor* x = t ? t->find(name) : nullptr;
        return x ? sliceHeadBinned(*x, h, TraceViews::kMaxCells, TraceViews::kMaxCells, &br, &bc)
                 : Grid{};
    };
    const Grid a = grab(m_a.get());
    const Grid b = grab(m_b.get());
    const QString valueTitle = QString::fromStdString(name);
    auto info = [&](const Trace& t, const QString& title) {
        return traceHeatmapInfo(t, title, valueTitle, br, bc);
    };
    const QString sa = qs(toString(m_a->params.scheme));
    m_left->setData(a, info(*m_a, tr("A: %1, head %2").arg(sa).arg(h)));
    if (!m_b || b.rows != a.rows || b.cols != a.cols) {
        m_right->clear(tr("computing B…"));
        m_diff->clear(QString());
        return;
    }
    const QString sb = qs(toString(m_b->params.scheme));
    m_right->setData(b, info(*m_b, tr("B: %1, head %2").arg(sb).arg(h)));
    Grid d = a;
    for (std::size_t k = 0; k < d.values.size(); ++k)
        d.values[k] -= b.values[k];
    m_diff->setColorMap(ColorMapKind::RdBu); // a difference is signed: centre it on 0
    m_diff->setData(std::move(d), info(*m_a, tr("A − B (%1 − %2)").arg(sa, sb)));
    Q_EMIT updated();
}

} // namespace pe
