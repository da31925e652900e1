// SPDX-License-Identifier: MIT
#pragma once

/**
 * The figures of `pe-explorer-cli render`: the window's own views (TraceViews, ComparisonView)
 * are filled from a trace without being shown; each requested view is then copied into a fresh
 * HeatmapView / LinePlotView (or a panel of them) of the requested size, shown offscreen and
 * exported with the window's exporter. What the window draws, render draws.
 */

#include <QSize>
#include <QString>

#include <memory>
#include <string>
#include <vector>

#include "compute_worker.h"
#include "expected.h"
#include "grid.h"
#include "heatmap_view.h"
#include "insights_worker.h"
#include "trace.h"

class QCustomPlot;
class QWidget;

namespace pe {

/** One drawable view of the window, by the name render knows it. */
struct RenderView {
    std::string name;        ///< e.g. "position", "term:c2p", "attention-head:2"
    std::string description; ///< one line for `--view list`
};

/** Every view name (the per-head and per-term forms as patterns), in the window's tab order. */
std::vector<RenderView> renderViewCatalog();

/** The trace tensor a view draws ("P", "weights", …); empty for an unknown name. */
std::string tensorNeeded(const std::string& view);

/** The schemes whose trace (other parameters as in `p`) has what `view` draws. */
std::vector<Scheme> schemesWithView(const std::string& view, const Params& p);

/** How the figures look, besides the trace. */
struct FigureStyle {
    QSize size{800, 600}; ///< figure size in pixels at 96 dpi (points × 4/3 in SVG / PDF)
    ColorMapKind colorMap = ColorMapKind::Auto;
    PoolMode pool = PoolMode::Mean;
    int head = 0;                                ///< head of the per-head views
    int query = 0;                               ///< query row of query-row
    QString columns = QStringLiteral("6 7 8 9"); ///< columns of P for position-lines
    QString compareTensor = QStringLiteral("weights");
};

/** A figure ready to export: one plot (exported alone) or a panel of several. */
struct Figure {
    std::unique_ptr<QWidget> widget;
    QCustomPlot* plot = nullptr; ///< set when the figure is a single plot
};

/**
 * Draws views of one trace. `compared` are the traces of the "compare" view: scheme B first,
 * then the gallery's schemes (empty when that view is not drawn). Needs a QApplication.
 */
class FigureMaker {
public:
    FigureMaker(std::shared_ptr<const Trace> trace,
                std::vector<std::shared_ptr<const Trace>> compared, const FigureStyle& style,
                const PoolInfo& pool = {}, std::shared_ptr<const PositionView> positions = {});
    ~FigureMaker();
    FigureMaker(const FigureMaker&) = delete;
    FigureMaker& operator=(const FigureMaker&) = delete;

    /** The size a view gets when none is asked for: 800x600, more for panels of maps. */
    QSize defaultSize(const std::string& view) const;
    void setSize(QSize size) { m_style.size = size; }

    /** The figure of `view` (a catalog name, per-head / per-term forms resolved). */
    Expected<Figure> make(const std::string& view);

private:
    struct Views;
    std::unique_ptr<Views> m_views;
    std::shared_ptr<const Trace> m_trace;
    FigureStyle m_style;
};

/**
 * The figure of an insights page (InsightsFigures, as the window's Insights tab draws it) under
 * the page's title and parameters line. Needs a QApplication.
 */
Expected<Figure> insightFigure(const InsightResult& r, const FigureStyle& style);
/** The size an insights page gets when none is asked for. */
QSize defaultInsightSize(InsightPage page);

/** Writes a figure as PNG (at `dpi`), SVG or PDF, atomically. */
Status exportFigure(const Figure& f, const QString& path, const QString& format, int dpi);

} // namespace pe
