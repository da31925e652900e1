// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QCustomPlot;

namespace pe {

struct LineSeries {
    QString name;
    std::vector<double> values; ///< y at x = xStart, xStart + xStep, …
    double xStart = 0.0;
    double xStep = 1.0;
};

/** What a line plot shows, as handed to setSeries. */
struct LinePlotContent {
    QString title;
    QString xTitle;
    QString yTitle;
    std::vector<LineSeries> series;
    QStringList xLabels;
};

/** A few curves against position, with a legend (the d2l "columns of P" figure, a query row). */
class LinePlotView : public QWidget {
    Q_OBJECT
public:
    explicit LinePlotView(QWidget* parent = nullptr);
    void setSeries(const QString& title, const QString& xTitle, const QString& yTitle,
                   const std::vector<LineSeries>& series, const QStringList& xLabels = {});
    void setContent(const LinePlotContent& c);
    const LinePlotContent& content() const { return m_content; }
    QCustomPlot* plot() const { return m_plot; }
    int seriesCount() const;

private:
    QCustomPlot* m_plot;
    LinePlotContent m_content;
};

} // namespace pe
