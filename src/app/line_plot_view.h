// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QPen>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPLayoutGrid;

namespace pe {

class QueuedPlot;

/** Faint: a thin, pale line (the per-head curves behind their mean); Bold: a 2 px line. */
enum class LineStyle { Line, Dashed, Points, LineAndPoints, Faint, Bold };

struct LineSeries {
    QString name;
    std::vector<double> values; ///< y at x = xStart, xStart + xStep, … (or at `x`); NaN: a gap
    double xStart = 0.0;
    double xStep = 1.0;
    std::vector<double> x{}; ///< x of each value, when not evenly spaced (overrides xStart/xStep)
    LineStyle style = LineStyle::Line;
    QColor colour{}; ///< invalid: the next colour of the palette
};

/** A vertical line at x with a label (a crossover, a bucket boundary). */
struct LineMarker {
    double x = 0;
    QString label;
};

/** What a line plot shows, as handed to setSeries. */
struct LinePlotContent {
    QString title;
    QString xTitle;
    QString yTitle;
    std::vector<LineSeries> series;
    QStringList xLabels;
    bool logX = false; ///< logarithmic axes: values <= 0 are left out
    bool logY = false;
    /** A fixed y range (e.g. [0, 1] for accuracies, also while empty); unset: fitted. */
    std::optional<std::pair<double, double>> yRange{};
    std::vector<LineMarker> markers{};
    /** Whole-number x ticks (positions, layers); off for real x such as n on a log axis. */
    bool integerX = true;
    /**
     * The legend's preferred corner inside the axes; another corner is taken when this one
     * would hide curves and it would not, the room above the axes when every corner would.
     */
    Qt::Alignment legendAt = Qt::AlignTop | Qt::AlignRight;
    /** A fixed x range (the steps a training will take, before its first); unset: fitted. */
    std::optional<std::pair<double, double>> xRange{};
};

/**
 * A few curves against position, with a legend (the d2l "columns of P" figure, a query row); or
 * against given x values on linear or logarithmic axes, with vertical markers (the insights).
 */
class LinePlotView : public QWidget {
    Q_OBJECT
public:
    explicit LinePlotView(QWidget* parent = nullptr);
    void setSeries(const QString& title, const QString& xTitle, const QString& yTitle,
                   const std::vector<LineSeries>& series, const QStringList& xLabels = {});
    void setContent(const LinePlotContent& c);
    const LinePlotContent& content() const { return m_content; }
    QCustomPlot* plot() const;
    int seriesCount() const;

private:
    /**
     * Places the legend before each replot: inside the axes, in the corner where it hides the
     * least of the curves (the content's legendAt where it hides nothing), wrapped into columns
     * when its entries are more than the axes' height holds. When every corner would hide some
     * curve: above the axes, in up to three rows, if those rows take at most a third of the
     * axes' height; else at their right in one column, if it fits beside them (tick labels
     * included) and takes at most a third of the plot's width. Short axes get fewer value
     * ticks.
     */
    void fitLegend();
    enum class LegendPlace { Inside, Above, Right };
    /** Moves the legend to `place` (inside: at `corner`). */
    void placeLegend(LegendPlace place, Qt::Alignment corner);

    QueuedPlot* m_plot;
    LinePlotContent m_content;
    LegendPlace m_legendPlace = LegendPlace::Inside;
    QPen m_legendBorder;                     ///< its frame inside the axes (none outside them)
    QCPLayoutGrid* m_legendRow = nullptr;    ///< the row above the axes that holds it there
    QCPLayoutGrid* m_legendColumn = nullptr; ///< the column at their right that holds it there
};

} // namespace pe
