// SPDX-License-Identifier: MIT
#include "heatmap_view.h"

#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "qcp.h"

namespace pe {

namespace {

constexpr int kLabelLimit = 48; // token labels on the axes up to this many positions

QCPColorGradient stops(std::initializer_list<const char*> colours) {
    QCPColorGradient g;
    g.clearColorStops();
    const int n = static_cast<int>(colours.size());
    int k = 0;
    for (const char* c : colours)
        g.setColorStopAt(static_cast<double>(k++) / (n - 1), QColor(QLatin1String(c)));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

QCPColorGradient gradientFor(ColorMapKind k) {
    switch (k) {
    case ColorMapKind::Auto:
    case ColorMapKind::Viridis:
        return stops({"#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779",
                      "#6ece58", "#b5de2b", "#fde725"});
    case ColorMapKind::Magma:
        return stops({"#000004", "#180f3d", "#440f76", "#721f81", "#9e2f7f", "#cd4071", "#f1605d",
                      "#fd9668", "#feca8d", "#fcfdbf"});
    case ColorMapKind::Greys:
        return stops({"#ffffff", "#000000"});
    case ColorMapKind::RdBu:
        return stops({"#053061", "#2166ac", "#4393c3", "#92c5de", "#f7f7f7", "#f4a582", "#d6604d",
                      "#b2182b", "#67001f"});
    case ColorMapKind::PuOr:
        return stops({"#2d004b", "#542788", "#998ec3", "#d8daeb", "#f7f7f7", "#fee0b6", "#f1a340",
                      "#b35806", "#7f3b08"});
    }
    return QCPColorGradient(QCPColorGradient::gpGrayscale);
}

bool isDiverging(ColorMapKind k) {
    return k == ColorMapKind::RdBu || k == ColorMapKind::PuOr;
}

} // namespace

QString toString(ColorMapKind k) {
    switch (k) {
    case ColorMapKind::Auto:
        return QStringLiteral("auto");
    case ColorMapKind::Viridis:
        return QStringLiteral("viridis");
    case ColorMapKind::Magma:
        return QStringLiteral("magma");
    case ColorMapKind::Greys:
        return QStringLiteral("greys");
    case ColorMapKind::RdBu:
        return QStringLiteral("RdBu");
    case ColorMapKind::PuOr:
        return QStringLiteral("PuOr");
    }
    return {};
}

ColorMapKind colorMapFromString(const QString& s) {
    for (ColorMapKind k : {ColorMapKind::Viridis, ColorMapKind::Magma, ColorMapKind::Greys,
                           ColorMapKind::RdBu, ColorMapKind::PuOr})
        if (s == toString(k))
            return k;
    return ColorMapKind::Auto;
}

HeatmapView::HeatmapView(QWidget* parent, bool compact)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_rebuildTimer(new QTimer(this))
    , m_compact(compact) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_plot, 1);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setAntialiasedElements(QCP::aeNone);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false); // whole cells: the outer ones are not cut in half
    m_plot->yAxis->setRangeReversed(true);
    m_plot->axisRect()->setupFullAxesBox(true);
    m_plot->xAxis2->setTickLabels(false);
    m_plot->yAxis2->setTickLabels(false);

    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(),
                                 QFont(font().family(), compact ? 8 : 11, QFont::Bold));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    if (!compact) {
        m_plot->plotLayout()->insertRow(1);
        m_subtitle = new QCPTextElement(m_plot, QString(), QFont(font().family(), 8));
        m_subtitle->setTextColor(QColor(80, 80, 80));
        m_plot->plotLayout()->addElement(1, 0, m_subtitle);
        m_scale = new QCPColorScale(m_plot);
        m_plot->plotLayout()->addElement(2, 1, m_scale);
        m_scale->setType(QCPAxis::atRight);
        m_scale->setBarWidth(12);
        m_map->setColorScale(m_scale);
        auto* group = new QCPMarginGroup(m_plot);
        m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
        m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
        m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        m_readout = new QLabel(this);
        m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_readout->setToolTip(
            tr("Cell under the mouse: query i, key j, their tokens and the value"));
        layout->addWidget(m_readout);
    } else {
        m_plot->xAxis->setTickLabels(false);
        m_plot->yAxis->setTickLabels(false);
        m_plot->xAxis->setTicks(false);
        m_plot->yAxis->setTicks(false);
        m_plot->axisRect()->setAutoMargins(QCP::msNone);
        m_plot->axisRect()->setMargins(QMargins(2, 2, 2, 2));
        m_plot->setCursor(Qt::PointingHandCursor);
    }
    applyGradient();

    m_rebuildTimer->setSingleShot(true);
    m_rebuildTimer->setInterval(30);
    connect(m_rebuildTimer, &QTimer::timeout, this, &HeatmapView::rebuild);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
        if (!m_rebuildTimer->isActive())
            m_rebuildTimer->start();
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapView::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &HeatmapView::onMousePress);
}

HeatmapView::~HeatmapView() = default;

void HeatmapView::linkTo(HeatmapView* other) {
    auto follow = [](QCPAxis* from, QCPAxis* to, QCustomPlot* plot) {
        QObject::connect(from, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), to,
                         [to, plot](const QCPRange& r) {
                             if (to->range() == r)
                                 return; // already there: stops the ping-pong
                             to->setRange(r);
                             plot->replot(QCustomPlot::rpQueuedReplot);
                         });
    };
    for (auto [a, b] : {std::pair{this, other}, std::pair{other, this}}) {
        follow(a->m_plot->xAxis, b->m_plot->xAxis, b->m_plot);
        follow(a->m_plot->yAxis, b->m_plot->yAxis, b->m_plot);
    }
}

void HeatmapView::setColorMap(ColorMapKind k) {
    m_colorMap = k;
    applyGradient();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::setPoolMode(PoolMode m) {
    m_pool = m;
    scheduleRebuild();
}

void HeatmapView::applyGradient() {
    ColorMapKind k = m_colorMap;
    if (k == ColorMapKind::Auto)
        k = m_signed ? ColorMapKind::RdBu : ColorMapKind::Viridis;
    m_map->setGradient(gradientFor(k));
    double lo = m_lo;
    double hi = m_hi;
    if (isDiverging(k)) { // centre the diverging map on 0
        const double a = std::max({std::abs(lo), std::abs(hi), 1e-12});
        lo = -a;
        hi = a;
    }
    if (!(hi > lo))
        hi = lo + 1.0;
    m_map->setDataRange(QCPRange(lo, hi));
}

void HeatmapView::setData(Grid g, const HeatmapInfo& info) {
    m_grid = std::move(g);
    m_info = info;
    m_lo = 0;
    m_hi = 1;
    if (!m_grid.empty()) {
        const auto [lo, hi] = std::minmax_element(m_grid.values.begin(), m_grid.values.end());
        m_lo = *lo;
        m_hi = *hi;
    }
    m_signed = m_lo < 0 && m_hi > 0;
    m_title->setText(info.title);
    if (m_subtitle)
        m_subtitle->setText(info.subtitle);
    if (!m_compact) {
        m_plot->xAxis->setLabel(info.xTitle);
        m_plot->yAxis->setLabel(info.yTitle);
        m_scale->axis()->setLabel(info.valueTitle);
    }
    applyTicks();
    applyGradient();
    const QSignalBlocker block(m_plot->xAxis);
    m_plot->xAxis->setRange(-0.5, std::max(m_grid.cols, 1) - 0.5);
    m_plot->yAxis->setRange(-0.5, std::max(m_grid.rows, 1) - 0.5);
    rebuild();
}

void HeatmapView::clear(const QString& message) {
    HeatmapInfo info;
    info.title = message;
    info.xTitle.clear();
    info.yTitle.clear();
    setData(Grid{}, info);
}

void HeatmapView::applyTicks() {
    if (m_compact)
        return;
    auto setLabels = [](QCPAxis* axis, const QStringList& labels, int count) {
        if (count > 0 && count <= kLabelLimit && labels.size() == count) {
            const QFont font(axis->tickLabelFont().family(), count > 24 ? 6 : 8);
            // Where the map is too small for a label per cell, label every step-th cell
            // rather than letting the labels overlap.
            const bool horizontal = axis->orientation() == Qt::Horizontal;
            const int length = horizontal ? axis->axisRect()->width() : axis->axisRect()->height();
            const double cells = std::min<double>(count, axis->range().size());
            const double perCell = length > 0 && cells > 0 ? length / cells : 1e9;
            const double needed = QFontMetricsF(font).height() * (horizontal ? 1.15 : 1.0);
            const int step = std::max(1, static_cast<int>(std::ceil(needed / perCell)));
            QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
            for (int k = 0; k < count; k += step)
                t->addTick(k, labels.at(k));
            axis->setTicker(t);
            axis->setTickLabelRotation(horizontal ? 60 : 0);
            axis->setTickLabelFont(font);
        } else {
            QSharedPointer<QCPAxisTicker> t(new QCPAxisTicker);
            t->setTickCount(6);
            axis->setTicker(t);
            axis->setTickLabelRotation(0);
            axis->setTickLabelFont(QFont(axis->tickLabelFont().family(), 8));
        }
    };
    setLabels(m_plot->xAxis, m_info.colLabels, m_grid.cols);
    setLabels(m_plot->yAxis, m_info.rowLabels, m_grid.rows);
}

void HeatmapView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    scheduleRebuild();
}

void HeatmapView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_dirty)
        scheduleRebuild();
}

void HeatmapView::scheduleRebuild() {
    if (!m_rebuildTimer->isActive())
        m_rebuildTimer->start();
}

void HeatmapView::rebuild() {
    m_rebuildTimer->stop();
    if (!isVisible()) { // hidden tabs: pool and draw once they are shown, at their real size
        m_dirty = true;
        return;
    }
    m_dirty = false;
    applyTicks(); // the label step depends on the map's size and zoom
    if (m_grid.empty()) {
        m_map->data()->clear();
        m_displayed = {};
        ++m_redraws;
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    // The visible block, in whole cells, pooled to the axis rect's pixel size.
    const QCPRange xr = m_plot->xAxis->range();
    const QCPRange yr = m_plot->yAxis->range();
    const int c0 = std::clamp(static_cast<int>(std::floor(xr.lower + 0.5)), 0, m_grid.cols - 1);
    const int c1 = std::clamp(static_cast<int>(std::ceil(xr.upper + 0.5)), c0 + 1, m_grid.cols);
    const int r0 = std::clamp(static_cast<int>(std::floor(yr.lower + 0.5)), 0, m_grid.rows - 1);
    const int r1 = std::clamp(static_cast<int>(std::ceil(yr.upper + 0.5)), r0 + 1, m_grid.rows);
    const QRect px = m_plot->axisRect()->rect();
    const qreal dpr = m_plot->devicePixelRatioF();
    const int outCols = std::max(16, static_cast<int>(px.width() * dpr));
    const int outRows = std::max(16, static_cast<int>(px.height() * dpr));
    const Grid p = pool(m_grid, r0, r1, c0, c1, outRows, outCols, m_pool);

    // Bin k covers [c0 + k·w/out, c0 + (k+1)·w/out) in cells; place the bin centres accordingly.
    const double cw = static_cast<double>(c1 - c0) / p.cols;
    const double rh = static_cast<double>(r1 - r0) / p.rows;
    auto* data = new QCPColorMapData(p.cols, p.rows, QCPRange(c0 - 0.5 + cw / 2, c1 - 0.5 - cw / 2),
                                     QCPRange(r0 - 0.5 + rh / 2, r1 - 0.5 - rh / 2));
    for (int r = 0; r < p.rows; ++r)
        for (int c = 0; c < p.cols; ++c)
            data->setCell(c, r, p.at(r, c));
    m_map->setData(data, false);
    m_displayed = QSize(p.cols, p.rows);
    ++m_redraws;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString HeatmapView::describeCell(int i, int j) const {
    if (i < 0 || j < 0 || i >= m_grid.rows || j >= m_grid.cols)
        return {};
    auto label = [](const QStringList& l, int k) {
        return k < l.size() ? QStringLiteral(" \u201c%1\u201d").arg(l.at(k)) : QString();
    };
    auto index = [](int k, int bin) {
        return bin <= 1 ? QString::number(k)
                        : QStringLiteral("%1\u2013%2").arg(k * bin).arg((k + 1) * bin - 1);
    };
    return QStringLiteral("%1   i = %2%3   j = %4%5   value = %6")
        .arg(m_info.title, index(i, m_info.binRows), label(m_info.rowLabels, i),
             index(j, m_info.binCols), label(m_info.colLabels, j))
        .arg(m_grid.at(i, j), 0, 'g', 6);
}

void HeatmapView::onMouseMove(QMouseEvent* e) {
    const double x = m_plot->xAxis->pixelToCoord(e->position().x());
    const double y = m_plot->yAxis->pixelToCoord(e->position().y());
    const int j = static_cast<int>(std::lround(x));
    const int i = static_cast<int>(std::lround(y));
    const QString text = describeCell(i, j);
    if (text.isEmpty() || text == m_hover)
        return;
    m_hover = text;
    if (m_readout)
        m_readout->setText(text);
    Q_EMIT hovered(text);
}

void HeatmapView::onMousePress(QMouseEvent* e) {
    Q_EMIT clicked();
    const double y = m_plot->yAxis->pixelToCoord(e->position().y());
    const int i = static_cast<int>(std::lround(y));
    // A right click picks the query row (a left drag pans, the wheel zooms).
    if (i >= 0 && i < m_grid.rows && e->button() == Qt::RightButton)
        Q_EMIT rowClicked(i);
}

} // namespace pe
