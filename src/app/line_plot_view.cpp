// SPDX-License-Identifier: MIT
#include "line_plot_view.h"

#include <QVBoxLayout>

#include <algorithm>

#include "qcp.h"

namespace pe {

LinePlotView::LinePlotView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    // A replot schedules a paint (update) rather than painting and flushing this plot at once
    // (QCustomPlot's default): the plots a change touches are painted in one pass of the window.
    m_plot->setPlottingHint(QCP::phImmediateRefresh, false);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, QString(), QFont(font().family(), 10, QFont::Bold)));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

int LinePlotView::seriesCount() const {
    return m_plot->graphCount();
}

void LinePlotView::setContent(const LinePlotContent& c) {
    setSeries(c.title, c.xTitle, c.yTitle, c.series, c.xLabels);
}

void LinePlotView::setSeries(const QString& title, const QString& xTitle, const QString& yTitle,
                             const std::vector<LineSeries>& series, const QStringList& xLabels) {
    // An empty plot shown again as it is (a scheme without P, change after change): no replot.
    if (series.empty() && m_content.series.empty() && m_plot->graphCount() == 0 &&
        title == m_content.title && xTitle == m_content.xTitle && yTitle == m_content.yTitle &&
        xLabels == m_content.xLabels)
        return;
    m_content = LinePlotContent{title, xTitle, yTitle, series, xLabels};
    static const QColor kColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                      QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                                      QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        t->setText(title);
    m_plot->clearGraphs();
    m_plot->xAxis->setLabel(xTitle);
    m_plot->yAxis->setLabel(yTitle);
    int k = 0;
    std::size_t longest = 0;
    for (const LineSeries& s : series) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(s.name);
        // Long, jagged curves (an attention row) take Qt's fast 1-pixel stroker: a 1.5 px pen
        // sends every segment through the general path stroker, tens of ms per replot.
        g->setPen(QPen(kColours[k++ % 6], s.values.size() > 128 ? 1.0 : 1.5));
        // Curves longer than a few thousand points are decimated by QCustomPlot's adaptive
        // sampling; hand it the data sorted, in one call.
        QVector<double> x(static_cast<int>(s.values.size()));
        QVector<double> y(static_cast<int>(s.values.size()));
        for (int i = 0; i < x.size(); ++i) {
            x[i] = s.xStart + i * s.xStep;
            y[i] = s.values[static_cast<std::size_t>(i)];
        }
        g->setData(x, y, true);
        longest = std::max(longest, s.values.size());
    }
    // Positions are whole numbers: integer ticks, or the tokens themselves when few.
    if (!xLabels.isEmpty() && xLabels.size() <= 48 &&
        static_cast<std::size_t>(xLabels.size()) == longest) {
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        for (int k = 0; k < xLabels.size(); ++k)
            t->addTick(k, xLabels.at(k));
        m_plot->xAxis->setTicker(t);
        m_plot->xAxis->setTickLabelRotation(60);
    } else {
        QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
        t->setTickStep(1.0);
        t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        m_plot->xAxis->setTicker(t);
        m_plot->xAxis->setTickLabelRotation(0);
    }
    m_plot->legend->setVisible(!series.empty());
    m_plot->rescaleAxes();
    m_plot->yAxis->scaleRange(1.1);
    const QCPRange xr = m_plot->xAxis->range();
    m_plot->xAxis->setRange(xr.lower - 0.5, xr.upper + 0.5); // room for the end labels
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace pe
