// SPDX-License-Identifier: MIT
#pragma once

#include <QStackedWidget>
#include <QThreadPool>

#include <functional>
#include <map>
#include <vector>

#include "heatmap_view.h"
#include "insights_worker.h"

class QGridLayout;

namespace pe {

class LinePlotView;

/**
 * The figures of the five insights pages, one stacked page each, filled from an InsightResult
 * (the window's Insights tab and pe-explorer-cli render draw the same). No controls, no text.
 */
class InsightsFigures : public QStackedWidget {
    Q_OBJECT
public:
    explicit InsightsFigures(QWidget* parent = nullptr);

    /** Fills the result's page and shows it; an error clears that page's figures with it. */
    void setResult(const InsightResult& r);
    void setPage(InsightPage page);
    InsightPage page() const;
    void setColorMap(ColorMapKind k);
    /** The title of the measured-time plot when nothing was measured ("press Measure"). */
    void setMeasureHint(const QString& text) { m_measureHint = text; }

    /** The page's figures (HeatmapView / LinePlotView), in reading order. */
    std::vector<QWidget*> figures(InsightPage page) const;
    /** The first heat map of the page (null for pages of line plots only). */
    HeatmapView* mainHeatmap(InsightPage page) const;

    // binary
    HeatmapView* bitsMap() const { return m_bits; }
    HeatmapView* binaryPMap() const { return m_binaryP; }
    LinePlotView* periodsPlot() const { return m_periods; }
    // offset
    HeatmapView* offsetMap() const { return m_offsetM; }
    HeatmapView* residualMap() const { return m_residual; }
    LinePlotView* shiftPlot() const { return m_shift; }
    LinePlotView* toeplitzPlot() const { return m_toeplitz; }
    // cost
    LinePlotView* flopsPlot() const { return m_flops; }
    LinePlotView* pathPlot() const { return m_path; }
    LinePlotView* measuredPlot() const { return m_measured; }
    // distance
    LinePlotView* weightProfilePlot() const { return m_weightProfile; }
    LinePlotView* positionProfilePlot() const { return m_positionProfile; }
    LinePlotView* ropeDecayPlot() const { return m_ropeDecay; }
    LinePlotView* everySchemePlot() const { return m_everyScheme; }
    // depth
    LinePlotView* rankPlot() const { return m_rank; }
    LinePlotView* uniformityPlot() const { return m_uniformity; }
    LinePlotView* entropyPlot() const { return m_entropy; }
    LinePlotView* probePlot() const { return m_probe; }

    /**
     * Off (the default, for `render`): every map is filled before show() returns. On (the
     * window): a map of more than kInlineGridCells is converted on a thread of its own and shown
     * when ready, the newest request of each map winning (16384 × 4096 took 0.8 s to convert).
     */
    void setPrepareInBackground(bool on) { m_background = on; }
    /** Maps still being prepared in the background. */
    int preparing() const { return m_pendingGrids; }
    static constexpr std::int64_t kInlineGridCells = std::int64_t{1} << 20;

private:
    /** Shows make()'s grid in `view` (see setPrepareInBackground). */
    void setGrid(HeatmapView* view, std::int64_t cells, std::function<Grid()> make,
                 const HeatmapInfo& info);
    QWidget* addPage(int columns, const std::vector<QWidget*>& views);
    void clearPage(InsightPage page, const QString& message);
    void showBinary(const InsightResult& r);
    void showOffset(const InsightResult& r);
    void showCost(const InsightResult& r);
    void showDistance(const InsightResult& r);
    void showDepth(const InsightResult& r);
    /** Bits and P share one colour map: the chosen one, viridis for auto. */
    ColorMapKind binaryColorMap() const;

    ColorMapKind m_colorMap = ColorMapKind::Auto;
    bool m_background = false;
    int m_pendingGrids = 0;
    quint64 m_lastGridRequest = 0;
    std::map<const HeatmapView*, quint64> m_gridRequest; ///< the newest request of each map
    QThreadPool m_gridPool;                              ///< one thread
    HeatmapView* m_bits;
    HeatmapView* m_binaryP;
    LinePlotView* m_periods;
    HeatmapView* m_offsetM;
    HeatmapView* m_residual;
    LinePlotView* m_shift;
    LinePlotView* m_toeplitz;
    LinePlotView* m_flops;
    LinePlotView* m_path;
    LinePlotView* m_measured;
    LinePlotView* m_weightProfile;
    LinePlotView* m_positionProfile;
    LinePlotView* m_ropeDecay;
    LinePlotView* m_everyScheme;
    LinePlotView* m_rank;
    LinePlotView* m_uniformity;
    LinePlotView* m_entropy;
    LinePlotView* m_probe;
    QString m_measureHint;
};

/** The page's name as the list shows it, e.g. "binary: sinusoids as bits". */
QString insightPageTitle(InsightPage page);
/** The page's heading over a figure, e.g. "binary — sinusoids as binary digits". */
QString insightPageHeading(InsightPage page);
/** The page's explanation (rich text): the argument, its formula, the seed it answers. */
QString insightExplanation(InsightPage page);
/** The page's key numbers in one or two lines (rich text), e.g. the offset residual. */
QString insightNumbers(const InsightResult& r);
/** The parameters a page depends on, one line (figure subtitles). */
QString insightSubtitle(const InsightResult& r);

} // namespace pe
