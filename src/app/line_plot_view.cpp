// SPDX-License-Identifier: MIT
#include "line_plot_view.h"

#include <QVBoxLayout>

#include <algorithm>
#include <limits>

#include "plot_background.h"
#include "plot_text.h"
#include "qcp.h"
#include "queued_plot.h"

namespace pe {

LinePlotView::LinePlotView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QueuedPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    // A replot schedules a paint (update) rather than painting and flushing this plot at once
    // (QCustomPlot's default): the plots a change touches are painted in one pass of the window.
    m_plot->setPlottingHint(QCP::phImmediateRefresh, false);
    // One paint buffer: the "overlay" layer (selection rectangles, unused) is not buffered apart
    // (HeatmapView does the same).
    if (QCPLayer* overlay = m_plot->layer(QStringLiteral("overlay")))
        overlay->setMode(QCPLayer::lmLogical);
    paintBackgroundInBuffer(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new PlotText(m_plot, QString(), QFont(font().family(), 10, QFont::Bold)));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Before each replot (the axes' rect is laid out for the current size by then): the legend
    // in as many columns as keep it inside the axes.
    connect(m_plot, &QCustomPlot::beforeReplot, this, &LinePlotView::fitLegend);
}

void LinePlotView::fitLegend() {
    QCPLegend* legend = m_plot->legend;
    // itemCount() counts the grid's cells, empty ones of a wrapped legend included.
    int items = 0;
    QCPAbstractLegendItem* first = nullptr;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* it = legend->item(i)) {
            ++items;
            first = first ? first : it;
        }
    if (items == 0)
        return;
    const QMargins m = legend->margins();
    const int rowHeight = first->minimumOuterSizeHint().height() + legend->rowSpacing();
    const int room = m_plot->axisRect()->rect().height() - 10 - m.top() - m.bottom() +
                     legend->rowSpacing(); // the last row has no spacing below it
    const int rows = std::max(1, room / std::max(1, rowHeight));
    // As few columns as fit, the entries spread evenly over them (0: one column).
    const int columns = (items + rows - 1) / rows;
    const int wrap = columns > 1 ? (items + columns - 1) / columns : 0;
    if (legend->wrap() == wrap)
        return;
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true); // rearranged into columns of `wrap`
}

int LinePlotView::seriesCount() const {
    return m_plot->graphCount();
}

void LinePlotView::setSeries(const QString& title, const QString& xTitle, const QString& yTitle,
                             const std::vector<LineSeries>& series, const QStringList& xLabels) {
    LinePlotContent c;
    c.title = title;
    c.xTitle = xTitle;
    c.yTitle = yTitle;
    c.series = series;
    c.xLabels = xLabels;
    setContent(c);
}

namespace {

void setLogAxis(QCPAxis* axis, bool log) {
    if (log) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> t(new QCPAxisTickerLog);
        t->setLogBase(10);
        axis->setTicker(t);
        axis->setNumberFormat(QStringLiteral("eb")); // 10^k as a power
        axis->setNumberPrecision(0);
    } else {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setNumberFormat(QStringLiteral("gb"));
        axis->setNumberPrecision(6);
        // A log ticker left from an earlier plot finds no ticks on a linear range through zero
        // (and QCustomPlot warns on every replot). The x axis sets its own ticker after this.
        if (axis->ticker().dynamicCast<QCPAxisTickerLog>())
            axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
}

} // namespace

void LinePlotView::setContent(const LinePlotContent& c) {
    // An empty plot shown again as it is (a scheme without P, change after change): no replot.
    if (c.series.empty() && m_content.series.empty() && m_plot->graphCount() == 0 &&
        c.title == m_content.title && c.xTitle == m_content.xTitle &&
        c.yTitle == m_content.yTitle && c.xLabels == m_content.xLabels && c.markers.empty() &&
        m_content.markers.empty())
        return;
    m_content = c;
    static const QColor kColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                      QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                                      QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        t->setText(c.title);
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->xAxis->setLabel(c.xTitle);
    m_plot->yAxis->setLabel(c.yTitle);
    setLogAxis(m_plot->yAxis, c.logY);
    int k = 0;
    std::size_t longest = 0;
    bool explicitX = false;
    for (const LineSeries& s : c.series) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(s.name);
        const QColor colour = s.colour.isValid() ? s.colour : kColours[k++ % 6];
        // Long, jagged curves (an attention row) take Qt's fast 1-pixel stroker: a 1.5 px pen
        // sends every segment through the general path stroker, tens of ms per replot.
        QPen pen(colour, s.values.size() > 128 ? 1.0 : 1.5);
        if (s.style == LineStyle::Dashed)
            pen.setStyle(Qt::DashLine);
        if (s.style == LineStyle::Bold) // thinner on thousands of jagged points: not a band
            pen.setWidthF(s.values.size() > 1024 ? 1.2 : 2.0);
        if (s.style == LineStyle::Faint) {
            QColor pale = colour;
            pale.setAlpha(90);
            pen = QPen(pale, 1.0);
        }
        g->setPen(pen);
        if (s.style == LineStyle::Points || s.style == LineStyle::LineAndPoints)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 5));
        if (s.style == LineStyle::Points)
            g->setLineStyle(QCPGraph::lsNone);
        // Curves longer than a few thousand points are decimated by QCustomPlot's adaptive
        // sampling; hand it the data sorted, in one call.
        const bool given = s.x.size() == s.values.size();
        explicitX = explicitX || given;
        QVector<double> x(static_cast<int>(s.values.size()));
        QVector<double> y(static_cast<int>(s.values.size()));
        for (int i = 0; i < x.size(); ++i) {
            const auto u = static_cast<std::size_t>(i);
            x[i] = given ? s.x[u] : s.xStart + i * s.xStep;
            y[i] = s.values[u];
            // A log axis has no room for 0 or below: a gap.
            if ((c.logX && x[i] <= 0) || (c.logY && y[i] <= 0))
                y[i] = std::numeric_limits<double>::quiet_NaN();
        }
        g->setData(x, y, !given);
        longest = std::max(longest, s.values.size());
    }
    // Positions are whole numbers: integer ticks, or the tokens themselves when few.
    if (c.logX) {
        setLogAxis(m_plot->xAxis, true);
        m_plot->xAxis->setTickLabelRotation(0);
    } else if (!c.xLabels.isEmpty() && c.xLabels.size() <= 48 &&
               static_cast<std::size_t>(c.xLabels.size()) == longest && !explicitX) {
        setLogAxis(m_plot->xAxis, false);
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        for (int j = 0; j < c.xLabels.size(); ++j)
            t->addTick(j, c.xLabels.at(j));
        m_plot->xAxis->setTicker(t);
        m_plot->xAxis->setTickLabelRotation(60);
    } else if (c.integerX) {
        setLogAxis(m_plot->xAxis, false);
        QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
        t->setTickStep(1.0);
        t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        m_plot->xAxis->setTicker(t);
        m_plot->xAxis->setTickLabelRotation(0);
    } else {
        setLogAxis(m_plot->xAxis, false);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->xAxis->setTickLabelRotation(0);
    }
    m_plot->legend->setVisible(!c.series.empty());
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, c.legendAt);
    m_plot->rescaleAxes();
    if (c.series.empty()) { // nothing to fit: a few decades on a log axis
        if (c.logX)
            m_plot->xAxis->setRange(1, 1e4);
        if (c.logY)
            m_plot->yAxis->setRange(1, 1e4);
    }
    if (c.logY) {
        const QCPRange yr = m_plot->yAxis->range();
        m_plot->yAxis->setRange(yr.lower / 2, yr.upper * 2);
    } else {
        m_plot->yAxis->scaleRange(1.1);
    }
    if (c.yRange)
        m_plot->yAxis->setRange(c.yRange->first, c.yRange->second);
    const QCPRange xr = m_plot->xAxis->range();
    if (c.logX)
        m_plot->xAxis->setRange(xr.lower / 1.3, xr.upper * 1.3);
    else if (c.integerX)
        m_plot->xAxis->setRange(xr.lower - 0.5, xr.upper + 0.5); // room for the end labels
    int labelled = 0;
    for (const LineMarker& m : c.markers) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->setPen(QPen(QColor(90, 90, 90), 1, Qt::DotLine));
        line->point1->setCoords(m.x, 1);
        line->point2->setCoords(m.x, 2);
        if (m.label.isEmpty())
            continue;
        auto* text = new QCPItemText(m_plot);
        text->setText(m.label);
        text->setFont(QFont(font().family(), 8));
        text->setColor(QColor(60, 60, 60));
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->position->setAxes(m_plot->xAxis, m_plot->yAxis);
        text->position->setAxisRect(m_plot->axisRect());
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(m.x, 0.02 + 0.05 * (labelled++ % 2)); // neighbours apart
        text->setPadding(QMargins(3, 0, 0, 0));
    }
    m_plot->queueReplot();
}

QCustomPlot* LinePlotView::plot() const {
    return m_plot;
}

} // namespace pe
