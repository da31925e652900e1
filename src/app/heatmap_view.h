// SPDX-License-Identifier: MIT
#pragma once

#include <QCoreApplication>
#include <QImage>
#include <QMargins>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "grid.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPMarginGroup;
class QCPTextElement;
class QLabel;
class QTimer;
class QMouseEvent;

namespace pe {

class QueuedPlot;

class FastColorMap;

enum class ColorMapKind { Auto, Viridis, Magma, Greys, RdBu, PuOr };

/** What a heat map shows: titles and axis labels; labels are per row / column index. */
struct HeatmapInfo {
    QString title;
    QString subtitle; ///< parameters line, shown under the title
    QString xTitle = QCoreApplication::translate("pe::HeatmapView", "key position j");
    QString yTitle = QCoreApplication::translate("pe::HeatmapView", "query position i");
    QString valueTitle;
    QStringList rowLabels;
    QStringList colLabels;
    int binRows = 1; ///< positions per displayed row when the source was binned
    int binCols = 1;
    /** Axis value of cell 0 and per cell, for tables indexed by distance (−k … k) or sampled;
     *  the ticks and the hover read-out show these values (no labels, no binning). */
    double rowStart = 0.0;
    double rowStep = 1.0;
    double colStart = 0.0;
    double colStep = 1.0;
    bool affineRows() const { return rowStart != 0.0 || rowStep != 1.0; }
    bool affineCols() const { return colStart != 0.0 || colStep != 1.0; }
    bool operator==(const HeatmapInfo&) const = default;
};

/**
 * One matrix as a QCustomPlot colour map with a titled colour scale. The full-resolution grid is
 * kept; what reaches QCustomPlot is the visible block pooled to the plot's pixel size (mean or
 * max), so a 16384² matrix costs what a screen-sized one does. Zooming re-pools the visible part.
 */
class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr, bool compact = false);
    ~HeatmapView() override;

    void setData(Grid g, const HeatmapInfo& info);
    /**
     * Shows head `head` of `tensor` (sliceHead's slice) read in place: the colour range and the
     * pooled cells come straight from the tensor, nothing is copied at full size. `owner` keeps
     * the tensor alive (its trace) until the next setData / setSlice / clear.
     */
    void setSlice(std::shared_ptr<const void> owner, const Tensor* tensor, int head,
                  const HeatmapInfo& info);
    /** What setSlice pools, computed ahead by a job from slicePreparer() (on any thread). */
    struct PreparedSlice {
        QSize target; ///< the plot size the cells were pooled for
        PoolMode mode = PoolMode::Mean;
        Grid cells;
        double lo = 0.0, hi = 0.0;
        bool any = false;
        /** The cells coloured as the view will colour them: with imageColours over imageLo …
         *  imageHi (the view draws it if its map and range are still those). */
        QImage image;
        ColorMapKind imageColours = ColorMapKind::Viridis;
        double imageLo = 0.0, imageHi = 1.0;
    };
    /**
     * A job that pools head `head` of `tensor` as setSlice would at this view's current size
     * (single-threaded; it reads only the tensor, so views can prepare in parallel; nothing for
     * a view not visible yet). Call on the GUI thread, run the job anywhere, hand its result to
     * setSlice while the tensor lives.
     */
    std::function<PreparedSlice()> slicePreparer(const Tensor* tensor, int head) const;
    /** setSlice with the cells prepared; re-pools if the view's size or mode changed since. */
    void setSlice(std::shared_ptr<const void> owner, const Tensor* tensor, int head,
                  const HeatmapInfo& info, PreparedSlice prepared);
    void clear(const QString& message);
    /** The matrix shown, at full resolution (a slice shown in place is copied out on demand). */
    const Grid& data() const;
    /** The tensor shown in place (setSlice), or null (a grid of its own, or nothing). */
    const Tensor* shownTensor() const { return m_tensor; }
    /** Whether head `head` of `tensor` is what the view shows now (setSlice's, in place). */
    bool showsSlice(const Tensor* tensor, int head) const;
    /** Rows and columns of the matrix shown (without copying it out). */
    int dataRows() const { return m_rows; }
    int dataCols() const { return m_cols; }
    bool hasData() const { return m_rows > 0 && m_cols > 0; }
    const HeatmapInfo& info() const { return m_info; }

    void setColorMap(ColorMapKind k);
    void setPoolMode(PoolMode m);
    ColorMapKind colorMap() const { return m_colorMap; }
    /**
     * The values the colour scale spans, shared with other maps (A and B of a comparison: one
     * colour, one value); unset, the default: the data's own range. Kept across setData.
     */
    void setColourRange(std::optional<std::pair<double, double>> range);
    /** What setColourRange set (unset: the data's own range). */
    std::optional<std::pair<double, double>> sharedColourRange() const { return m_sharedRange; }
    /** The range the colour scale shows now (after a diverging map's centring on 0). */
    std::pair<double, double> colourRange() const;
    /** The finite values' range of the whole matrix shown, whatever range is shared; none
     *  where it has no finite value (or nothing is shown). */
    std::optional<std::pair<double, double>> dataRange() const;
    /** Size of the grid last handed to QCustomPlot (after pooling). */
    QSize displayedCells() const { return m_displayed; }
    int redrawCount() const { return m_redraws; }
    /** Images of the map coloured on this (the GUI) thread: not those a preparing job coloured. */
    int mapsColoured() const;
    QCustomPlot* plot() const;
    QString hoverText() const { return m_hover; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    /** Zoom and pan together with `other` (both ways), for maps of the same positions. */
    void linkTo(HeatmapView* other);

    /** Value read-out for a cell, as shown on hover. */
    QString describeCell(int i, int j) const;

    /**
     * Declares the grid a pooled view of a sourceRows × sourceCols matrix (0, 0: the grid is the
     * matrix; setData resets it). Zoomed in until a grid cell spans more than a pixel, the view
     * asks for the visible positions at full resolution (tileWanted), 150 ms after the last zoom
     * or pan step, unless the tile it shows already covers them.
     */
    void setSource(int sourceRows, int sourceCols);
    /** What setSource declared (0, 0: the grid is the matrix). */
    int sourceRows() const { return m_sourceRows; }
    int sourceCols() const { return m_sourceCols; }
    /** Draws `tile`, the cells of source positions `region`, over the pooled grid. */
    void setTile(Grid tile, PoolRegion region, const QString& note);
    bool hasTile() const { return !m_tile.empty(); }
    PoolRegion tileRegion() const { return m_tileRegion; }
    /** The source positions on screen (for pooled views). */
    PoolRegion visibleSource() const;
    QString titleText() const;
    /** Height of the title and parameters lines as their texts now need it (0: compact map). */
    int headerHeight() const;
    /**
     * Gives the title and parameters lines at least `px` pixels (0: what their texts need), the
     * room below the texts left empty: maps side by side start their axes at one height when
     * one title takes more lines than another's.
     */
    void setHeaderHeight(int px);
    /**
     * Square cells: the map's box shrinks to the visible cells' shape (a 64 × 64 map in a wide
     * box is drawn square, centred under its title; an n × d map d/n as wide as tall), as
     * matplotlib's imshow draws by default. Off: the map fills its box. Pooled and binned maps
     * count source positions, so a pooled n × n map stays square.
     */
    void setSquareCells(bool on);
    bool squareCells() const { return m_square; }
    /** The default of views made from now on, and setSquareCells on every view there is. */
    static void setSquareCellsEverywhere(bool on);
    static bool squareCellsByDefault();
    /** What the tile on screen is, e.g. "tile i 100–399 × j 0–511, full resolution". */
    QString tileNote() const { return m_tileNote; }

Q_SIGNALS:
    /** The visible source positions, wanted at full resolution (see setSource). */
    void tileWanted(pe::PoolRegion region);
    void hovered(const QString& text);
    void clicked();
    void rowClicked(int row);
    /** headerHeight() changed (a title or parameters line was broken anew). */
    void headerChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    static constexpr int kReadoutSpacing = 2;
    /** The plot above the read-out line, filling the view. */
    void placeChildren();
    void scheduleRebuild();
    /** Replots the plot at the next turn of the event loop, or before the window paints. */
    void queueReplot();
    void rebuild();
    void applyGradient();
    void applyTicks();
    void onMouseMove(QMouseEvent* e);
    void onMousePress(QMouseEvent* e);
    void checkTile(bool zoomedPast);
    void showMatrix(const HeatmapInfo& info, bool any);
    /** The subtitle (parameters line, and a tile's note) broken at its commas to the plot's width.
     */
    void fitSubtitle();
    /** The parameters line's box: tall enough for m_headerHeight with the title. */
    void applyHeaderHeight();
    /** The width the title and subtitle are broken to: the plot's, less the colour scale's. */
    int textWidth() const;
    /**
     * Before each replot: with square cells, the room the axis rect does not need for them is
     * added to its margins (across: half on either side; down: below it, so that maps side by
     * side keep their tops level), and the colour scale's bar keeps the map's height.
     */
    void fitAspect();
    /** Numeric ticks by the axes' length: about one per 50 px across, one per 28 px down. */
    void fitTicks();
    /** Cells wanted across × down: the axis rect's size in device pixels (16 at least). */
    QSize poolTarget() const;
    double cell(int r, int c) const;

    QueuedPlot* m_plot;
    FastColorMap* m_map;
    QCPColorScale* m_scale = nullptr;
    QCPMarginGroup* m_marginGroup = nullptr; ///< the map's and the bar's tops and bottoms
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_subtitle = nullptr;
    QLabel* m_readout = nullptr;
    QTimer* m_rebuildTimer;
    FastColorMap* m_tileMap;
    QTimer* m_tileTimer;
    Grid m_tile;
    PoolRegion m_tileRegion;
    PoolRegion m_wanted;
    QString m_tileNote;
    QString m_subtitleFull; ///< the unbroken subtitle fitSubtitle last broke, and at which width
    int m_subtitleWidth = -1;
    QString m_titleFull; ///< the unbroken title fitSubtitle last broke (at m_subtitleWidth)
    QString m_measuredTitle, m_measuredSubtitle; ///< the texts m_widestText was measured for
    int m_widestText = 0;                        ///< their widest line, in pixels
    int m_headerHeight = 0;                      ///< setHeaderHeight's
    int m_naturalHeader = 0; ///< headerHeight() when headerChanged was last emitted
    int m_sourceRows = 0;
    int m_sourceCols = 0;
    mutable Grid m_grid; ///< the matrix, or (setSlice) a copy made on demand by data()
    std::shared_ptr<const void> m_owner;
    const Tensor* m_tensor = nullptr; ///< setSlice: the matrix is this tensor's head m_sliceHead
    int m_sliceHead = 0;
    Grid m_prepooled; ///< setSlice: the whole slice pooled to m_prepooledFor, for rebuild()
    QSize m_prepooledFor;
    QImage m_prepooledImage; ///< m_prepooled coloured by its job, with these colours and range
    ColorMapKind m_prepooledColours = ColorMapKind::Viridis;
    double m_prepooledLo = 0.0;
    double m_prepooledHi = 1.0;
    int m_rows = 0;
    int m_cols = 0;
    HeatmapInfo m_info;
    ColorMapKind m_colorMap = ColorMapKind::Auto;
    PoolMode m_pool = PoolMode::Mean;
    QSize m_displayed;
    QString m_hover;
    int m_redraws = 0;
    bool m_compact;
    double m_lo = 0; ///< data range of the whole grid (the colour scale stays put while zooming)
    double m_hi = 1;
    bool m_anyFinite = false; ///< m_lo, m_hi are the data's (else the default 0, 1)
    std::optional<std::pair<double, double>> m_sharedRange; ///< setColourRange's
    bool m_square = false;                                  ///< setSquareCells
    /** Square cells: a map at least this wide has its colour bar beside it (see fitAspect). */
    static constexpr int kMinWidthBesideBar = 160;
    QMargins m_aspectExtra;      ///< what fitAspect added to the axis rect's margins
    QMargins m_baseMargins;      ///< the axis rect's minimum margins (compact: its margins) without
    QMargins m_baseScaleMargins; ///< and the colour scale's
    QMargins m_baseTitleMargins; ///< and the title's and parameters line's (square cells move
    QMargins m_baseSubtitleMargins; ///< them over the map)
    QSize m_pooledFor;              ///< the pool target of the cells on screen (rebuild)
    bool m_dirty = false;           ///< data arrived while hidden: rebuild when shown
    bool m_unpainted = false;       ///< data arrived and the plot has not painted since
};

/**
 * Maps laid out `columns` to a row, in order: each row's maps are given its tallest header
 * (setHeaderHeight), so that their axes start at one height.
 */
void alignHeaders(const std::vector<HeatmapView*>& maps, int columns);

QString toString(ColorMapKind k);
ColorMapKind colorMapFromString(const QString& s);

} // namespace pe
