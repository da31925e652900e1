// SPDX-License-Identifier: MIT
#include "line_plot_view.h"

#include <QLineF>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
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
    // A short line sample (QCustomPlot's is 32 px): more entries fit a row above the axes.
    m_plot->legend->setIconSize(20, 14); // not lower: a text's "_" is drawn below its line
    m_plot->legend->setIconTextPadding(4);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_legendBorder = m_plot->legend->borderPen();
    // What a legend inside the axes still covers shows through it, faintly (as matplotlib's).
    m_plot->legend->setBrush(QColor(255, 255, 255, 215));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Before each replot: the legend placed where it hides the least of the curves.
    connect(m_plot, &QCustomPlot::beforeReplot, this, &LinePlotView::fitLegend);
}

namespace {

/** Whether the segment a–b (pixels) passes through r, neither end inside it. */
bool crosses(const QLineF& line, const QRectF& r) {
    const QPointF a = line.p1(), b = line.p2();
    if ((a.x() < r.left() && b.x() < r.left()) || (a.x() > r.right() && b.x() > r.right()) ||
        (a.y() < r.top() && b.y() < r.top()) || (a.y() > r.bottom() && b.y() > r.bottom()))
        return false;
    const QLineF edges[] = {{r.topLeft(), r.topRight()},
                            {r.topRight(), r.bottomRight()},
                            {r.bottomRight(), r.bottomLeft()},
                            {r.bottomLeft(), r.topLeft()}};
    for (const QLineF& e : edges)
        if (line.intersects(e, nullptr) == QLineF::BoundedIntersection)
            return true;
    return false;
}

/**
 * How much of the curves a legend at r (pixels) would hide: the points inside it and the
 * segments through it, at most ~2,000 points a curve (longer ones sampled). The axes are laid
 * out at `now`; the points are placed as they will be with the axes at `then` (taller by the
 * row of a legend above them, or wider by the column of one at their right, that is to come
 * inside).
 */
int hiddenBy(const QCustomPlot* plot, const QRectF& r, const QRect& now, const QRect& then) {
    const double sx = now.width() > 0 ? double(then.width()) / now.width() : 1.0;
    const double sy = now.height() > 0 ? double(then.height()) / now.height() : 1.0;
    int hidden = 0;
    for (int g = 0; g < plot->graphCount(); ++g) {
        const QCPGraph* graph = plot->graph(g);
        const auto data = graph->data();
        const int size = data->size();
        const int stride = std::max(1, size / 2000);
        const bool lines = graph->lineStyle() != QCPGraph::lsNone;
        QPointF previous;
        bool joined = false; // previous is a point of this curve, not a gap
        for (int i = 0; i < size; i += stride) {
            const auto point = data->at(i);
            if (!std::isfinite(point->value)) {
                joined = false;
                continue;
            }
            const QPointF p(
                then.left() + (graph->keyAxis()->coordToPixel(point->key) - now.left()) * sx,
                then.top() + (graph->valueAxis()->coordToPixel(point->value) - now.top()) * sy);
            if (r.contains(p) || (lines && joined && crosses(QLineF(previous, p), r)))
                ++hidden;
            previous = p;
            joined = true;
        }
    }
    return hidden;
}

} // namespace

void LinePlotView::placeLegend(LegendPlace place, Qt::Alignment corner) {
    QCPLegend* legend = m_plot->legend;
    QCPLayoutInset* inset = m_plot->axisRect()->insetLayout();
    if (place != m_legendPlace) {
        // Back inside first, then out to its new place.
        if (m_legendRow) {
            m_legendRow->take(legend);
            m_plot->plotLayout()->remove(m_legendRow); // deletes it and its spacers
            m_plot->plotLayout()->simplify();
            m_legendRow = nullptr;
        } else if (m_legendColumn) {
            m_legendColumn->take(legend);
            m_plot->plotLayout()->remove(m_legendColumn); // deletes it and its spacer
            m_plot->plotLayout()->simplify();             // the empty column goes too
            m_legendColumn = nullptr;
        } else {
            inset->take(legend);
            inset->simplify();
        }
        if (place == LegendPlace::Above) {
            // Under the title, centred between two stretching spacers at its own width.
            m_legendRow = new QCPLayoutGrid;
            m_plot->plotLayout()->insertRow(1);
            m_plot->plotLayout()->addElement(1, 0, m_legendRow);
            m_plot->plotLayout()->setRowStretchFactor(1, 0.001); // its own height, no more
            m_legendRow->addElement(0, 0, new QCPLayoutElement(m_plot));
            m_legendRow->addElement(0, 1, legend);
            m_legendRow->addElement(0, 2, new QCPLayoutElement(m_plot));
            m_legendRow->setColumnStretchFactors({1.0, 0.001, 1.0});
            legend->setBorderPen(Qt::NoPen);
        } else if (place == LegendPlace::Right) {
            // Beside the axes, level with their top, over a stretching spacer.
            const int row = m_plot->plotLayout()->rowCount() - 1; // the axes' row
            m_legendColumn = new QCPLayoutGrid;
            m_plot->plotLayout()->addElement(row, 1, m_legendColumn);
            m_plot->plotLayout()->setColumnStretchFactors({1.0, 0.001}); // its own width
            m_legendColumn->addElement(0, 0, legend);
            m_legendColumn->addElement(1, 0, new QCPLayoutElement(m_plot));
            m_legendColumn->setRowStretchFactors({0.001, 1.0});
            legend->setBorderPen(Qt::NoPen);
        } else {
            inset->addElement(legend, corner);
            legend->setBorderPen(m_legendBorder);
        }
        m_legendPlace = place;
    }
    if (place == LegendPlace::Inside)
        inset->setInsetAlignment(0, corner);
}

void LinePlotView::fitLegend() {
    QCPLegend* legend = m_plot->legend;
    // itemCount() counts the grid's cells, empty ones of a wrapped legend included.
    int items = 0;
    QSize entry(0, 0); // the largest entry
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* it = legend->item(i)) {
            ++items;
            entry = entry.expandedTo(it->minimumOuterSizeHint());
        }
    if (items == 0)
        return;
    const QMargins m = legend->margins();
    // The axes laid out for the new ranges (their tick labels' width moves them), so that the
    // curves' pixels below are where the replot will draw them.
    m_plot->layOut();
    // The axes as they are with the legend inside them (taller by its row when it is above,
    // wider by its column when it is at their right).
    const QRect now = m_plot->axisRect()->rect();
    QRect axes = now;
    if (m_legendRow)
        axes.setTop(m_legendRow->outerRect().top());
    if (m_legendColumn)
        axes.setRight(axes.right() + m_legendColumn->outerRect().width());
    // Inside: as few columns as fit the axes' height, the entries spread evenly over them.
    const int rowHeight = entry.height() + legend->rowSpacing();
    const int room = axes.height() - 10 - m.top() - m.bottom() + legend->rowSpacing();
    const int fit = std::max(1, room / std::max(1, rowHeight));
    const int columns = (items + fit - 1) / fit;
    const int rows = (items + columns - 1) / columns;
    const QSize inside(
        columns * entry.width() + (columns - 1) * legend->columnSpacing() + m.left() + m.right(),
        rows * entry.height() + (rows - 1) * legend->rowSpacing() + m.top() + m.bottom());
    // The corner where the legend hides the least of the curves: the content's choice first,
    // then the others (matplotlib's "best"). It sits where the inset places it (12 px from the
    // axes' edges); a curve within 3 px of its frame counts as hidden too.
    const QRect inner = axes - m_plot->axisRect()->insetLayout()->margins();
    // A corner that hides nothing ends the search; each corner is counted once.
    Qt::Alignment at = m_content.legendAt;
    int least = std::numeric_limits<int>::max();
    for (Qt::Alignment a :
         {m_content.legendAt, Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
          Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft}) {
        if (a == m_content.legendAt && least != std::numeric_limits<int>::max())
            continue;
        const int hidden = hiddenBy(
            m_plot, QStyle::alignedRect(Qt::LeftToRight, a, inside, inner).adjusted(-3, -3, 3, 3),
            now, axes);
        if (hidden < least) {
            least = hidden;
            at = a;
        }
        if (least == 0)
            break;
    }
    // Every corner hides some curve (an attention row, sinusoids across the whole plot): the
    // legend goes above the axes, in up to three rows across the plot's width, where it hides
    // nothing, unless that would take more than a third of the axes' height; else beside them
    // at their right in one column (a short, wide plot), if that column fits the height of the
    // axes and their tick labels and takes at most a third of the plot's width.
    const int perRow = std::max(1, (m_plot->viewport().width() - 20 + legend->columnSpacing()) /
                                       std::max(1, entry.width() + legend->columnSpacing()));
    const int rowsAbove = (items + perRow - 1) / perRow;
    const bool above = least > 0 && rowsAbove <= 3 && 3 * rowsAbove * rowHeight <= axes.height();
    const QRect outer = m_plot->axisRect()->outerRect();
    const int besideHeight = outer.bottom() - (m_legendRow ? axes.top() : outer.top());
    const int columnHeight =
        items * entry.height() + (items - 1) * legend->rowSpacing() + m.top() + m.bottom();
    const int columnWidth = entry.width() + m.left() + m.right();
    const bool right = least > 0 && !above && columnHeight <= besideHeight &&
                       3 * columnWidth <= m_plot->viewport().width();
    placeLegend(above ? LegendPlace::Above : right ? LegendPlace::Right : LegendPlace::Inside, at);
    // Fewer value ticks on short axes (QCustomPlot aims at 5 whatever the height: at 75 px their
    // labels touched): about one per 30 px.
    const int height = axes.height() - (above ? rowsAbove * rowHeight : 0);
    m_plot->yAxis->ticker()->setTickCount(std::clamp(height / 30, 3, 5));
    // Above: balanced rows; beside: one column; inside: columns of `rows`.
    const int wrap = above ? (items + rowsAbove - 1) / rowsAbove : right || columns == 1 ? 0 : rows;
    const auto order = above ? QCPLayoutGrid::foColumnsFirst : QCPLayoutGrid::foRowsFirst;
    if (legend->wrap() == wrap && legend->fillOrder() == order)
        return;
    legend->setWrap(wrap);
    legend->setFillOrder(order, true); // rearranged
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
               (static_cast<std::size_t>(c.xLabels.size()) == longest || longest == 0) &&
               !explicitX) { // no data yet: the slots the labels name
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
    // Placed by fitLegend, before the replot; none while no curve has a point (a training's
    // loss before its first step).
    m_plot->legend->setVisible(longest > 0);
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
    if (c.xRange)
        m_plot->xAxis->setRange(c.xRange->first, c.xRange->second);
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
