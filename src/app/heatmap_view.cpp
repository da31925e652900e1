// SPDX-License-Identifier: MIT
#include "heatmap_view.h"

#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QTimer>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "map_image.h"
#include "plot_background.h"
#include "plot_text.h"
#include "qcp.h"
#include "queued_plot.h"

namespace pe {

namespace {

constexpr int kLabelLimit = 48; // token labels on the axes up to this many positions

/** The head of `t` that setSlice shows for `head`: clamped to its heads (rank 3), else 0. */
int headOf(const Tensor& t, int head) {
    return t.rank() == 3 ? std::clamp(head, 0, static_cast<int>(t.dim(0)) - 1) : 0;
}

/** Masked cells (−inf logits, all-masked pooled cells): a grey no colour map uses. */
const QColor kMaskedColour(190, 190, 190);

QCPColorGradient stops(std::initializer_list<const char*> colours) {
    QCPColorGradient g;
    g.clearColorStops();
    const int n = static_cast<int>(colours.size());
    int k = 0;
    for (const char* c : colours)
        g.setColorStopAt(static_cast<double>(k++) / (n - 1), QColor(QLatin1String(c)));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    g.setNanHandling(QCPColorGradient::nhNanColor); // masked cells (fed as NaN) in grey
    g.setNanColor(kMaskedColour);
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

/**
 * A numeric axis's ticks, as many as HeatmapView::fitTicks finds room for. An axis too short for
 * two labels gets its first tick only: the 20 px column of P at n = 8192 and d = 128 with square
 * cells showed "0" and "100" on top of each other ("0100").
 */
class FittingTicker : public QCPAxisTicker {
public:
    FittingTicker() { setTickCount(6); }
    void setOneTick(bool one) { m_oneTick = one; }
    bool oneTick() const { return m_oneTick; }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        QVector<double> ticks = QCPAxisTicker::createTickVector(tickStep, range);
        if (m_oneTick && ticks.size() > 1) {
            // The first tick inside the range (the generic vector starts one step before it).
            const auto inside = std::find_if(ticks.cbegin(), ticks.cend(),
                                             [&range](double t) { return range.contains(t); });
            ticks = {inside != ticks.cend() ? *inside : ticks.front()};
        }
        return ticks;
    }

private:
    bool m_oneTick = false;
};

/**
 * Ticks of a pooled view's axis, labelled in source positions: axis coordinate a (grid cells)
 * shows position (a + 0.5)·scale − 0.5, and ticks fall on round positions.
 */
class PositionTicker : public FittingTicker {
public:
    explicit PositionTicker(double scale)
        : m_scale(scale) {
        setTickOrigin(0.5 / scale - 0.5);
    }

protected:
    double getTickStep(const QCPRange& range) override {
        return QCPAxisTicker::getTickStep(QCPRange(range.lower * m_scale, range.upper * m_scale)) /
               m_scale;
    }
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override {
        Q_UNUSED(formatChar)
        Q_UNUSED(precision)
        return locale.toString(std::llround((tick + 0.5) * m_scale - 0.5));
    }

private:
    double m_scale;
};

/** Ticks of value start + index·step (a distance axis −k … k, or sampled positions). */
class AffineTicker : public FittingTicker {
public:
    AffineTicker(double start, double step)
        : m_start(start)
        , m_step(step) {
        setTickOrigin(-start / step);
    }

protected:
    double getTickStep(const QCPRange& range) override {
        const double a = m_start + range.lower * m_step;
        const double b = m_start + range.upper * m_step;
        return std::max(1.0, QCPAxisTicker::getTickStep(QCPRange(std::min(a, b), std::max(a, b)))) /
               m_step;
    }
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override {
        Q_UNUSED(formatChar)
        Q_UNUSED(precision)
        return locale.toString(m_start + tick * m_step, 'g', 6);
    }

private:
    double m_start;
    double m_step;
};

bool isDiverging(ColorMapKind k) {
    return k == ColorMapKind::RdBu || k == ColorMapKind::PuOr;
}

/** The colour map a view draws with and the data range it spans. */
struct ColourChoice {
    ColorMapKind kind = ColorMapKind::Viridis; ///< never Auto
    double lo = 0.0;
    double hi = 1.0;
};

/**
 * What a view asked for `requested` draws data spanning lo … hi with (`any`: some value is
 * finite; with none the range is 0 … 1): auto is RdBu for signed data and viridis otherwise, a
 * diverging map is centred on 0, and an empty range is widened to lo … lo + 1. The views and
 * the jobs that colour their cells ahead both decide here.
 */
ColourChoice colourChoice(ColorMapKind requested, double lo, double hi, bool any) {
    if (!any) {
        lo = 0.0;
        hi = 1.0;
    }
    ColourChoice c;
    c.kind = requested;
    if (c.kind == ColorMapKind::Auto)
        c.kind = lo < 0 && hi > 0 ? ColorMapKind::RdBu : ColorMapKind::Viridis;
    if (isDiverging(c.kind)) {
        const double a = std::max({std::abs(lo), std::abs(hi), 1e-12});
        lo = -a;
        hi = a;
    }
    if (!(hi > lo))
        hi = lo + 1.0;
    c.lo = lo;
    c.hi = hi;
    return c;
}

/** The levels of each colour map (read once, on whichever thread asks first). */
const ColourTable& tableFor(ColorMapKind k) {
    static const std::array<ColourTable, 6> tables = [] {
        std::array<ColourTable, 6> t;
        for (ColorMapKind kind : {ColorMapKind::Auto, ColorMapKind::Viridis, ColorMapKind::Magma,
                                  ColorMapKind::Greys, ColorMapKind::RdBu, ColorMapKind::PuOr})
            t[static_cast<std::size_t>(kind)] = colourTable(gradientFor(kind));
        return t;
    }();
    return tables[static_cast<std::size_t>(k)];
}

/**
 * `text` with line breaks at the ", " between its items wherever the next item would pass
 * `width` pixels; an item wider than that stays on a line of its own (and is clipped).
 */
QString wrapAtCommas(const QString& text, const QFontMetrics& fm, int width) {
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString& item : line.split(QStringLiteral(", "))) {
            const QString longer = current.isEmpty() ? item : current + QStringLiteral(", ") + item;
            // Measured with the comma a broken line ends with (3 px past its box, unmeasured).
            if (!current.isEmpty() && fm.horizontalAdvance(longer + QLatin1Char(',')) > width) {
                lines << current + QLatin1Char(',');
                current = item;
            } else {
                current = longer;
            }
        }
        lines << current;
    }
    return lines.join(QLatin1Char('\n'));
}

/** text broken at its spaces into lines of at most `width` pixels where it can be. */
QString wrapAtSpaces(const QString& text, const QFontMetrics& fm, int width) {
    if (fm.horizontalAdvance(text) <= width)
        return text;
    QStringList lines;
    QString current;
    for (const QString& word : text.split(QLatin1Char(' '))) {
        const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
        if (!current.isEmpty() && fm.horizontalAdvance(longer) > width) {
            lines << current;
            current = word;
        } else {
            current = longer;
        }
    }
    lines << current;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

/**
 * A colour map that keeps the pooled grid it shows and colours it itself (colourCells: one pass,
 * pixel-identical to QCustomPlot's colouring), or takes the image a preparing job coloured on
 * another thread. QCPColorMapData is only sized and placed, never filled: the copy into it and
 * QCustomPlot's colorize cost the GUI thread 2–3 ms per change on the attention tab at n = 512.
 */
class FastColorMap : public QCPColorMap {
public:
    using QCPColorMap::QCPColorMap;

    /**
     * Shows `g` (row r = value index r) with its cell centres spread over keys × values.
     * `ready`, if not null, is colourCells' top-down image of `g` for `readyGradient` over
     * `readyRange`: it is drawn if the map's gradient and range are those when it is painted.
     */
    void setCells(Grid g, const QCPRange& keys, const QCPRange& values, QImage ready = {},
                  const QCPColorGradient& readyGradient = {}, const QCPRange& readyRange = {}) {
        // QCPColorMapData is not polymorphic: the map remembers the object it was given here.
        // It holds one cell (none for an empty grid) and the range: its cells array would be a
        // second, zero-filled copy of the grid. QCustomPlot's own drawing (exports) sizes it.
        const int side = g.empty() ? 0 : 1;
        auto* data = ownData();
        if (!data) {
            data = new MapData(side, side, keys, values);
            setData(data, false);
            setProperty(kData, QVariant::fromValue(static_cast<void*>(data)));
        } else {
            data->setSize(side, side);
            data->setRange(keys, values);
        }
        m_cells = std::move(g);
        m_ready = std::move(ready);
        m_readyGradient = readyGradient;
        m_readyRange = readyRange;
        m_screenValid = false;
        mMapImageInvalidated = true;
    }
    /** Images this map coloured itself (those handed in ready are not counted). */
    int colourings() const { return m_colourings; }

protected:
    /**
     * On screen the image is kept top-down (row 0 on the top scanline: the value axis is
     * reversed) and drawn as it is; QCPColorMap::draw mirrors a copy of its bottom-up image at
     * every paint. Exports (vectorized painters) and other set-ups take QCustomPlot's way.
     */
    void draw(QCPPainter* painter) override {
        MapData* data = ownData();
        const bool screen = data && !painter->modes().testFlag(QCPPainter::pmVectorized) &&
                            linear() && !mKeyAxis->rangeReversed() &&
                            mValueAxis->orientation() == Qt::Vertical &&
                            mValueAxis->rangeReversed() && !mTightBoundary;
        if (!screen) {
            QCPColorMap::draw(painter);
            return;
        }
        if (data->isEmpty() || m_cells.empty())
            return;
        applyDefaultAntialiasingHint(painter);
        if (!m_screenValid || !(m_screenGradient == mGradient) || !(m_screenRange == mDataRange)) {
            if (!m_ready.isNull() && m_readyGradient == mGradient && m_readyRange == mDataRange)
                m_screen = std::move(m_ready);
            else
                colourHere(&m_screen, true);
            m_ready = QImage();
            m_screenGradient = mGradient;
            m_screenRange = mDataRange;
            m_screenValid = true;
        }
        // The cells' centres span the data's key and value ranges: the image reaches half a
        // cell further on every side.
        QRectF rect = QRectF(coordsToPixels(data->keyRange().lower, data->valueRange().lower),
                             coordsToPixels(data->keyRange().upper, data->valueRange().upper))
                          .normalized();
        const double halfWidth = m_cells.cols > 1 ? 0.5 * rect.width() / (m_cells.cols - 1) : 0.0;
        const double halfHeight = m_cells.rows > 1 ? 0.5 * rect.height() / (m_cells.rows - 1) : 0.0;
        rect.adjust(-halfWidth, -halfHeight, halfWidth, halfHeight);
        const bool smooth = painter->renderHints().testFlag(QPainter::SmoothPixmapTransform);
        painter->setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter->drawImage(rect, m_screen);
        painter->setRenderHint(QPainter::SmoothPixmapTransform, smooth);
    }

    /**
     * QCustomPlot's bottom-up image (exports), coloured from the cells kept here; the data
     * object takes the grid's size for QCustomPlot's drawing, which reads it next.
     */
    void updateMapImage() override {
        MapData* data = ownData();
        if (!data || data->isEmpty() || m_cells.empty()) {
            QCPColorMap::updateMapImage(); // data set from outside (none here): QCP's way
            return;
        }
        data->setSize(m_cells.cols, m_cells.rows);
        if (linear()) {
            colourHere(&mMapImage, false);
        } else {
            data->fillFrom(m_cells);
            QCPColorMap::updateMapImage();
            ++m_colourings;
        }
        data->settle();
        mMapImageInvalidated = false;
    }

private:
    /** The colour map's data object: sized and placed by FastColorMap, which keeps the cells. */
    class MapData : public QCPColorMapData {
    public:
        using QCPColorMapData::QCPColorMapData;
        /** The map's image is up to date with this object's size and range. */
        void settle() { mDataModified = false; }
        /** Copies `g` in (masked cells as NaN), for QCustomPlot's own colouring. */
        void fillFrom(const Grid& g) {
            const std::size_t count = g.values.size();
            for (std::size_t i = 0; i < count; ++i) {
                const double v = g.values[i];
                mData[i] = v - v == 0.0 ? v : std::numeric_limits<double>::quiet_NaN();
            }
        }
    };

    /** The data object setCells made, unless the map was given another one. */
    MapData* ownData() const {
        auto* data = static_cast<MapData*>(property(kData).value<void*>());
        return data && static_cast<QCPColorMapData*>(data) == mMapData ? data : nullptr;
    }
    /** Coloured the way colourCells colours: a linear, not periodic gradient, no smoothing. */
    bool linear() const {
        return mDataScaleType == QCPAxis::stLinear && !mGradient.periodic() && mKeyAxis &&
               mValueAxis && mKeyAxis->orientation() == Qt::Horizontal && !mInterpolate;
    }
    void colourHere(QImage* image, bool topDown) {
        if (m_table.empty() || !(m_tableFor == mGradient)) {
            m_table = colourTable(mGradient);
            m_tableFor = mGradient;
        }
        colourCells(m_cells, m_table, mDataRange.lower, mDataRange.upper, image, topDown);
        ++m_colourings;
    }

    static constexpr const char* kData = "pe-map-data";
    Grid m_cells;
    QImage m_screen; ///< top-down, for m_screenGradient over m_screenRange
    bool m_screenValid = false;
    QCPColorGradient m_screenGradient;
    QCPRange m_screenRange;
    QImage m_ready;
    QCPColorGradient m_readyGradient;
    QCPRange m_readyRange;
    ColourTable m_table;
    QCPColorGradient m_tableFor;
    int m_colourings = 0;
};

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
    , m_plot(new QueuedPlot(this))
    , m_rebuildTimer(new QTimer(this))
    , m_compact(compact) {
    // No layout object: placeChildren() puts the plot above the read-out. A layout would pass
    // every size-hint change of the plot up the widget tree (its colour scale's margins change
    // with the tick labels, so most changes), and each such request lays the whole window out
    // again and repaints the tab widget holding the view.
    // Never 0 × 0, even hidden in a splitter: a zero-sized plot's paint buffer cannot be drawn
    // into (QPainter warnings when a window holding it is grabbed).
    m_plot->setMinimumSize(16, 16);
    m_plot->setNoAntialiasingOnDrag(true);
    // A replot schedules a paint (update) rather than painting and flushing this plot at once
    // (QCustomPlot's default): the plots a change touches are painted in one pass of the window.
    m_plot->setPlottingHint(QCP::phImmediateRefresh, false);
    m_plot->setAntialiasedElements(QCP::aeNone);
    // One paint buffer, not two: QCustomPlot buffers its "overlay" layer (selection rectangles,
    // unused here) separately, and clears and blends that second full-size buffer on every
    // replot and paint.
    if (QCPLayer* overlay = m_plot->layer(QStringLiteral("overlay")))
        overlay->setMode(QCPLayer::lmLogical);
    paintBackgroundInBuffer(m_plot);
    m_plot->installEventFilter(this);

    m_map = new FastColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false); // whole cells: the outer ones are not cut in half
    // A full-resolution tile of a pooled matrix, drawn over the pooled map.
    m_tileMap = new FastColorMap(m_plot->xAxis, m_plot->yAxis);
    m_tileMap->setInterpolate(false);
    m_tileMap->setTightBoundary(false);
    m_tileMap->setVisible(false);
    m_tileTimer = new QTimer(this);
    m_tileTimer->setSingleShot(true);
    m_tileTimer->setInterval(150);
    connect(m_tileTimer, &QTimer::timeout, this, [this] { Q_EMIT tileWanted(m_wanted); });
    m_plot->yAxis->setRangeReversed(true);
    m_plot->axisRect()->setupFullAxesBox(true);
    m_plot->xAxis2->setTickLabels(false);
    m_plot->yAxis2->setTickLabels(false);

    m_plot->plotLayout()->insertRow(0);
    m_title =
        new PlotText(m_plot, QString(), QFont(font().family(), compact ? 8 : 11, QFont::Bold));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    // A title wider than the plot must not claim the colour scale's column (the bar would get a
    // negative width and be drawn empty) nor widen the window: it is clipped instead.
    m_title->setMinimumSize(QSize(1, 0));
    if (!compact) {
        m_plot->plotLayout()->insertRow(1);
        m_subtitle = new PlotText(m_plot, QString(), QFont(font().family(), 8));
        m_subtitle->setTextColor(QColor(80, 80, 80));
        m_subtitle->setMinimumSize(QSize(1, 0));
        // Room given beyond the text (setHeaderHeight) stays below it.
        m_subtitle->setTextFlags(Qt::AlignHCenter | Qt::AlignTop);
        m_plot->plotLayout()->addElement(1, 0, m_subtitle);
        // Before each replot lays the plot out: a parameters line wider than the map (three
        // maps side by side at 1280 × 720) takes two lines instead of being clipped at both ends.
        // And as many numeric ticks as the axes have room for (six overlapped on a map 70 px
        // wide: three maps side by side in a narrow window).
        connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
            fitSubtitle();
            fitAspect();
            fitTicks();
        });
        m_scale = new QCPColorScale(m_plot);
        m_plot->plotLayout()->addElement(2, 1, m_scale);
        m_scale->setType(QCPAxis::atRight);
        m_scale->setBarWidth(12);
        m_map->setColorScale(m_scale);
        m_tileMap->setColorScale(m_scale);
        m_marginGroup = new QCPMarginGroup(m_plot);
        m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, m_marginGroup);
        m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, m_marginGroup);
        m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        m_readout = new QLabel(this);
        m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_readout->setToolTip(
            tr("Cell under the mouse: query i, key j, their tokens and the value"));
    } else {
        m_plot->xAxis->setTickLabels(false);
        m_plot->yAxis->setTickLabels(false);
        m_plot->xAxis->setTicks(false);
        m_plot->yAxis->setTicks(false);
        m_plot->axisRect()->setAutoMargins(QCP::msNone);
        m_plot->axisRect()->setMargins(QMargins(2, 2, 2, 2));
        m_plot->setCursor(Qt::PointingHandCursor);
        connect(m_plot, &QCustomPlot::beforeReplot, this, &HeatmapView::fitAspect);
    }
    m_baseMargins = compact ? m_plot->axisRect()->margins() : m_plot->axisRect()->minimumMargins();
    if (m_scale)
        m_baseScaleMargins = m_scale->minimumMargins();
    m_baseTitleMargins = m_title->margins();
    if (m_subtitle)
        m_baseSubtitleMargins = m_subtitle->margins();
    m_square = squareCellsByDefault();
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

bool HeatmapView::eventFilter(QObject* watched, QEvent* e) {
    if (watched == m_plot && e->type() == QEvent::Paint)
        m_unpainted = false;
    return QWidget::eventFilter(watched, e);
}

void HeatmapView::linkTo(HeatmapView* other) {
    auto follow = [](HeatmapView* fromView, QCPAxis* from, HeatmapView* toView, QCPAxis* to) {
        QObject::connect(from, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), to,
                         [fromView, toView, to](const QCPRange& r) {
                             if (to->range() == r)
                                 return; // already there: stops the ping-pong
                             // Only maps of the same shape zoom together: an emptied view or a
                             // per-head table beside an n×n map keeps its own axes.
                             if (fromView->m_rows != toView->m_rows ||
                                 fromView->m_cols != toView->m_cols)
                                 return;
                             to->setRange(r);
                             toView->queueReplot();
                         });
    };
    for (auto [a, b] : {std::pair{this, other}, std::pair{other, this}}) {
        follow(a, a->m_plot->xAxis, b, b->m_plot->xAxis);
        follow(a, a->m_plot->yAxis, b, b->m_plot->yAxis);
    }
}

void HeatmapView::setColorMap(ColorMapKind k) {
    m_colorMap = k;
    applyGradient();
    queueReplot();
}

void HeatmapView::setPoolMode(PoolMode m) {
    m_pool = m;
    scheduleRebuild();
}

void HeatmapView::setColourRange(std::optional<std::pair<double, double>> range) {
    if (range == m_sharedRange)
        return;
    m_sharedRange = range;
    applyGradient();
    queueReplot();
}

std::pair<double, double> HeatmapView::colourRange() const {
    const QCPRange r = m_map->dataRange();
    return {r.lower, r.upper};
}

std::optional<std::pair<double, double>> HeatmapView::dataRange() const {
    if (!m_anyFinite)
        return std::nullopt;
    return std::pair{m_lo, m_hi};
}

void HeatmapView::applyGradient() {
    const ColourChoice c =
        m_sharedRange ? colourChoice(m_colorMap, m_sharedRange->first, m_sharedRange->second, true)
                      : colourChoice(m_colorMap, m_lo, m_hi, true);
    const QCPColorGradient g = gradientFor(c.kind);
    m_map->setGradient(g);
    m_tileMap->setGradient(g);
    m_map->setDataRange(QCPRange(c.lo, c.hi));
    m_tileMap->setDataRange(QCPRange(c.lo, c.hi));
}

void HeatmapView::setData(Grid g, const HeatmapInfo& info) {
    m_grid = std::move(g);
    m_prepooled = {};
    m_owner.reset();
    m_tensor = nullptr;
    m_rows = m_grid.rows;
    m_cols = m_grid.cols;
    // The colour range of the finite values: masked logits (−inf) are drawn grey.
    showMatrix(info, m_grid.finiteRange(&m_lo, &m_hi));
}

void HeatmapView::setSlice(std::shared_ptr<const void> owner, const Tensor* tensor, int head,
                           const HeatmapInfo& info) {
    setSlice(std::move(owner), tensor, head, info, PreparedSlice{});
}

std::function<HeatmapView::PreparedSlice()> HeatmapView::slicePreparer(const Tensor* tensor,
                                                                       int head) const {
    // A view not on screen yet has no size to pool for: setSlice pools it once it has.
    if (!isVisible() || !tensor || tensor->empty() || tensor->rank() < 2 || tensor->rank() > 3)
        return [] { return PreparedSlice{}; };
    const QSize target = poolTarget();
    const PoolMode mode = m_pool;
    const ColorMapKind colours = m_colorMap;
    return [tensor, head, target, mode, colours] {
        PreparedSlice s;
        s.target = target;
        s.mode = mode;
        const std::size_t rank = tensor->rank();
        const int rows = static_cast<int>(tensor->dim(rank - 2));
        const int cols = static_cast<int>(tensor->dim(rank - 1));
        s.cells = poolSlice(*tensor, head, 0, rows, 0, cols, target.height(), target.width(), mode,
                            &s.lo, &s.hi, &s.any, false);
        // Coloured here too, as the view will colour them (its map used if it still matches).
        const ColourChoice c = colourChoice(colours, s.lo, s.hi, s.any);
        colourCells(s.cells, tableFor(c.kind), c.lo, c.hi, &s.image, true);
        s.imageColours = c.kind;
        s.imageLo = c.lo;
        s.imageHi = c.hi;
        return s;
    };
}

void HeatmapView::setSlice(std::shared_ptr<const void> owner, const Tensor* tensor, int head,
                           const HeatmapInfo& info, PreparedSlice prepared) {
    if (!tensor || tensor->empty() || tensor->rank() < 1 || tensor->rank() > 3) {
        setData(Grid{}, info);
        return;
    }
    m_grid = {};
    m_owner = std::move(owner);
    m_tensor = tensor;
    const std::size_t rank = tensor->rank();
    m_sliceHead = headOf(*tensor, head);
    m_rows = rank == 1 ? 1 : static_cast<int>(tensor->dim(rank - 2));
    m_cols = static_cast<int>(tensor->dim(rank - 1));
    bool any = false;
    if (isVisible() && !prepared.target.isEmpty() && prepared.target == poolTarget() &&
        prepared.mode == m_pool) {
        m_prepooledFor = prepared.target; // pooled ahead, maybe with other views in parallel
        m_prepooled = std::move(prepared.cells);
        m_prepooledImage = std::move(prepared.image);
        m_prepooledColours = prepared.imageColours;
        m_prepooledLo = prepared.imageLo;
        m_prepooledHi = prepared.imageHi;
        m_lo = prepared.lo;
        m_hi = prepared.hi;
        any = prepared.any;
    } else if (isVisible()) {
        // The view opens on the whole matrix: pool it and take the colour range in one pass;
        // rebuild() uses the cells if the plot's size is still the one they were pooled for.
        m_prepooledFor = poolTarget();
        m_prepooled = poolSlice(*tensor, m_sliceHead, 0, m_rows, 0, m_cols, m_prepooledFor.height(),
                                m_prepooledFor.width(), m_pool, &m_lo, &m_hi, &any);
    } else {
        m_prepooled = {};
        any = sliceRange(*tensor, m_sliceHead, &m_lo, &m_hi);
    }
    showMatrix(info, any);
}

bool HeatmapView::showsSlice(const Tensor* tensor, int head) const {
    return tensor && tensor == m_tensor && headOf(*tensor, head) == m_sliceHead;
}

const Grid& HeatmapView::data() const {
    if (m_tensor && m_grid.empty())
        m_grid = sliceHead(*m_tensor, m_sliceHead);
    return m_grid;
}

double HeatmapView::cell(int r, int c) const {
    return m_tensor ? sliceAt(*m_tensor, m_sliceHead, r, c) : m_grid.at(r, c);
}

void HeatmapView::showMatrix(const HeatmapInfo& info, bool any) {
    m_info = info;
    m_sourceRows = m_sourceCols = 0;
    m_tile = {};
    m_tileRegion = {};
    m_tileNote.clear();
    m_tileTimer->stop();
    m_tileMap->data()->clear();
    m_tileMap->setVisible(false);
    m_anyFinite = any && hasData();
    if (!any) {
        m_lo = 0;
        m_hi = 1;
    }
    if (!m_subtitle)
        m_title->setText(info.title); // else broken to the plot's width by fitSubtitle
    fitSubtitle();
    if (!m_compact) {
        m_plot->xAxis->setLabel(info.xTitle);
        m_plot->yAxis->setLabel(info.yTitle);
        m_scale->axis()->setLabel(info.valueTitle);
    }
    applyTicks();
    applyGradient();
    const QSignalBlocker block(m_plot->xAxis);
    m_plot->xAxis->setRange(-0.5, std::max(m_cols, 1) - 0.5);
    m_plot->yAxis->setRange(-0.5, std::max(m_rows, 1) - 0.5);
    m_unpainted = true;
    rebuild();
}

void HeatmapView::clear(const QString& message) {
    // Already showing this message and nothing else (a scheme without P, change after change):
    // leave the plot as it is, no replot.
    if (!hasData() && !m_tensor && m_sourceRows == 0 && !hasTile() && m_info.title == message &&
        m_info.xTitle.isEmpty() && m_info.yTitle.isEmpty() && m_info.subtitle.isEmpty() &&
        m_redraws > 0 && !m_dirty)
        return;
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
            axis->setTicker(QSharedPointer<QCPAxisTicker>(new FittingTicker));
            axis->setTickLabelRotation(0);
            axis->setTickLabelFont(QFont(axis->tickLabelFont().family(), 8));
        }
    };
    setLabels(m_plot->xAxis, m_info.colLabels, m_cols);
    setLabels(m_plot->yAxis, m_info.rowLabels, m_rows);
    if (m_info.affineCols())
        m_plot->xAxis->setTicker(
            QSharedPointer<QCPAxisTicker>(new AffineTicker(m_info.colStart, m_info.colStep)));
    if (m_info.affineRows())
        m_plot->yAxis->setTicker(
            QSharedPointer<QCPAxisTicker>(new AffineTicker(m_info.rowStart, m_info.rowStep)));
    // Binned on arrival (P of n = 8192 shown as 2048 rows of 4 positions): the ticks say the
    // positions, as the hover read-out does (they said 0…2048).
    if (m_info.binCols > 1 && m_info.colLabels.isEmpty() && !m_info.affineCols())
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PositionTicker(m_info.binCols)));
    if (m_info.binRows > 1 && m_info.rowLabels.isEmpty() && !m_info.affineRows())
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PositionTicker(m_info.binRows)));
    if (m_sourceRows > 0 && hasData()) { // pooled: label positions, not cells
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(
            new PositionTicker(static_cast<double>(m_sourceCols) / m_cols)));
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(
            new PositionTicker(static_cast<double>(m_sourceRows) / m_rows)));
    }
}

QSize HeatmapView::sizeHint() const {
    // QCustomPlot narrows sizeHint to protected; it is public on QWidget.
    QSize s = static_cast<const QWidget*>(m_plot)->sizeHint().expandedTo(m_plot->minimumSize());
    if (m_readout) {
        const QSize r = m_readout->sizeHint();
        s = QSize(std::max(s.width(), r.width()), s.height() + kReadoutSpacing + r.height());
    }
    return s;
}

QSize HeatmapView::minimumSizeHint() const {
    QSize s = m_plot->minimumSize();
    if (m_readout) {
        const QSize r = m_readout->minimumSizeHint();
        s = QSize(std::max(s.width(), r.width()), s.height() + kReadoutSpacing + r.height());
    }
    return s;
}

void HeatmapView::placeChildren() {
    int plotHeight = height();
    if (m_readout) {
        const int h = m_readout->sizeHint().height();
        plotHeight = std::max(height() - h - kReadoutSpacing, 0);
        m_readout->setGeometry(0, height() - h, width(), h);
    }
    m_plot->setGeometry(0, 0, width(), plotHeight);
}

void HeatmapView::resizeEvent(QResizeEvent* e) {
    placeChildren(); // before pooling: rebuild() pools for the plot's new size
    QWidget::resizeEvent(e);
    // New data not painted yet (a neighbouring view was shown or hidden by the same change):
    // pool for the new size now, so the change costs one paint. Otherwise the resize is a step of
    // a drag: pool once it pauses.
    if (m_unpainted && isVisible())
        rebuild();
    else
        scheduleRebuild();
}

void HeatmapView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_dirty && m_unpainted)
        rebuild(); // data that arrived while hidden, for the paint that showing brings
    else if (m_dirty)
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
    if (!hasData()) {
        m_map->data()->clear();
        m_displayed = {};
        ++m_redraws;
        queueReplot();
        return;
    }
    // The visible block, in whole cells, pooled to the axis rect's pixel size.
    const QCPRange xr = m_plot->xAxis->range();
    const QCPRange yr = m_plot->yAxis->range();
    const int c0 = std::clamp(static_cast<int>(std::floor(xr.lower + 0.5)), 0, m_cols - 1);
    const int c1 = std::clamp(static_cast<int>(std::ceil(xr.upper + 0.5)), c0 + 1, m_cols);
    const int r0 = std::clamp(static_cast<int>(std::floor(yr.lower + 0.5)), 0, m_rows - 1);
    const int r1 = std::clamp(static_cast<int>(std::ceil(yr.upper + 0.5)), r0 + 1, m_rows);
    const QSize target = poolTarget();
    m_pooledFor = target;
    const int outCols = target.width();
    const int outRows = target.height();
    Grid p;
    QImage image; // the cells coloured by the job that pooled them, if one did
    if (!m_prepooled.empty() && r0 == 0 && c0 == 0 && r1 == m_rows && c1 == m_cols &&
        m_prepooledFor == target) {
        p = std::move(m_prepooled); // pooled by setSlice, with the colour range
        image = std::move(m_prepooledImage);
    } else if (m_tensor) {
        p = poolSlice(*m_tensor, m_sliceHead, r0, r1, c0, c1, outRows, outCols, m_pool);
    } else {
        p = pool(m_grid, r0, r1, c0, c1, outRows, outCols, m_pool);
    }
    m_prepooled = {};
    m_prepooledImage = QImage();
    checkTile(r1 - r0 < outRows || c1 - c0 < outCols);

    // Bin k covers [c0 + k·w/out, c0 + (k+1)·w/out) in cells; place the bin centres accordingly.
    const double cw = static_cast<double>(c1 - c0) / p.cols;
    const double rh = static_cast<double>(r1 - r0) / p.rows;
    m_displayed = QSize(p.cols, p.rows);
    const QCPColorGradient imageGradient =
        image.isNull() ? QCPColorGradient() : gradientFor(m_prepooledColours);
    m_map->setCells(std::move(p), QCPRange(c0 - 0.5 + cw / 2, c1 - 0.5 - cw / 2),
                    QCPRange(r0 - 0.5 + rh / 2, r1 - 0.5 - rh / 2), std::move(image), imageGradient,
                    QCPRange(m_prepooledLo, m_prepooledHi));
    ++m_redraws;
    queueReplot();
}

void HeatmapView::queueReplot() {
    m_plot->queueReplot();
}

QSize HeatmapView::poolTarget() const {
    // (The x axis's rect: QCustomPlot::axisRect() walks the whole layout to list them.)
    const QRect px = m_plot->xAxis->axisRect()->rect();
    const qreal dpr = m_plot->devicePixelRatioF();
    return {std::max(16, static_cast<int>(px.width() * dpr)),
            std::max(16, static_cast<int>(px.height() * dpr))};
}

void HeatmapView::setSource(int sourceRows, int sourceCols) {
    if (sourceRows == m_sourceRows && sourceCols == m_sourceCols)
        return;
    m_sourceRows = sourceRows;
    m_sourceCols = sourceCols;
    // The cells stay as pooled: only the axes' labels (positions, not cells) and the box's
    // shape (fitAspect, at the replot) change. A rebuild here pooled every pooled map a second
    // time, on this thread, 30 ms after it was first drawn.
    applyTicks();
    queueReplot();
}

PoolRegion HeatmapView::visibleSource() const {
    if (m_sourceRows <= 0 || !hasData())
        return {};
    // Axis coordinate a of grid cells ↔ source position (a + 0.5) · source / cells.
    auto range = [](const QCPRange& r, int cells, int source, int* lo, int* hi) {
        const double scale = static_cast<double>(source) / cells;
        *lo = std::clamp(static_cast<int>(std::floor((r.lower + 0.5) * scale)), 0, source - 1);
        *hi = std::clamp(static_cast<int>(std::ceil((r.upper + 0.5) * scale)), *lo + 1, source);
    };
    PoolRegion v;
    range(m_plot->yAxis->range(), m_rows, m_sourceRows, &v.r0, &v.r1);
    range(m_plot->xAxis->range(), m_cols, m_sourceCols, &v.c0, &v.c1);
    return v;
}

void HeatmapView::checkTile(bool zoomedPast) {
    if (m_sourceRows <= 0 || !zoomedPast) {
        m_tileTimer->stop();
        return;
    }
    const PoolRegion v = visibleSource();
    if (2 * v.rows() > m_sourceRows && 2 * v.cols() > m_sourceCols) {
        m_tileTimer->stop(); // most of the matrix: a tile would be pooled about as coarsely
        return;
    }
    const PoolRegion& t = m_tileRegion;
    const bool covered = hasTile() && t.r0 <= v.r0 && t.r1 >= v.r1 && t.c0 <= v.c0 &&
                         t.c1 >= v.c1 &&
                         ((m_tile.rows == t.rows() && m_tile.cols == t.cols()) ||
                          (2 * v.rows() > t.rows() && 2 * v.cols() > t.cols()));
    if (covered) {
        m_tileTimer->stop();
        return;
    }
    m_wanted = v;
    m_tileTimer->start(); // restarted by every zoom or pan step: debounced
}

void HeatmapView::setTile(Grid tile, PoolRegion region, const QString& note) {
    if (m_sourceRows <= 0 || tile.empty() || !hasData())
        return;
    m_tile = std::move(tile);
    m_tileRegion = region;
    // Source position s sits at axis coordinate s · cells / source − 0.5 (a cell's left edge).
    const double sx = static_cast<double>(m_cols) / m_sourceCols;
    const double sy = static_cast<double>(m_rows) / m_sourceRows;
    const double x0 = region.c0 * sx - 0.5, x1 = region.c1 * sx - 0.5;
    const double y0 = region.r0 * sy - 0.5, y1 = region.r1 * sy - 0.5;
    const double cw = (x1 - x0) / m_tile.cols, rh = (y1 - y0) / m_tile.rows;
    m_tileMap->setCells(m_tile, QCPRange(x0 + cw / 2, x1 - cw / 2),
                        QCPRange(y0 + rh / 2, y1 - rh / 2));
    m_tileMap->setVisible(true);
    m_tileNote = note;
    if (m_subtitle) // under the title: "tile i a–b × j c–d, full resolution"
        fitSubtitle();
    else
        m_title->setText(QStringLiteral("%1 [%2]").arg(m_info.title, note));
    queueReplot();
}

int HeatmapView::textWidth() const {
    // The plot less the colour scale's column (its last laid-out width, or the width it asks
    // for before the first layout).
    const int scaleWidth =
        std::max(m_scale->outerRect().width(), m_scale->minimumOuterSizeHint().width());
    // The texts' column is what the colour scale's leaves, and their boxes lie inside their
    // margins (a text broken for the column alone ran 5 px off each end of its box).
    const QMargins m = m_subtitle->margins();
    return std::max(m_plot->viewport().width() - scaleWidth -
                        m_plot->plotLayout()->columnSpacing() - m.left() - m.right(),
                    1);
}

void HeatmapView::fitSubtitle() {
    if (!m_subtitle)
        return;
    const QString full =
        m_tileNote.isEmpty() ? m_info.subtitle : m_info.subtitle + QLatin1Char('\n') + m_tileNote;
    const QFontMetrics titleMetrics(m_title->font()), subtitleMetrics(m_subtitle->font());
    // Every replot comes here, most with the texts of the last one: measured once per text.
    if (m_info.title != m_measuredTitle || full != m_measuredSubtitle) {
        m_measuredTitle = m_info.title;
        m_measuredSubtitle = full;
        m_widestText = titleMetrics.horizontalAdvance(m_info.title);
        for (const QString& line : full.split(QLatin1Char('\n')))
            m_widestText = std::max(m_widestText, subtitleMetrics.horizontalAdvance(line));
    }
    // Where a text comes near the width, the plot is laid out first: the colour scale's labels
    // for a new range set its width (tens of pixels either way). Most texts are far from it.
    int width = textWidth();
    if (m_widestText > width - 60) {
        m_plot->layOut();
        width = textWidth();
    }
    // The title too, at its spaces, where it is wider than that (three maps side by side in a
    // narrow window): both its ends were clipped off ("sinusoidal, hea").
    if (m_info.title != m_titleFull || width != m_subtitleWidth) {
        m_titleFull = m_info.title;
        m_title->setText(wrapAtSpaces(m_titleFull, titleMetrics, width));
    }
    if (full != m_subtitleFull || width != m_subtitleWidth) { // most replots change neither
        m_subtitleFull = full;
        m_subtitleWidth = width;
        m_subtitle->setText(wrapAtCommas(full, subtitleMetrics, width));
    }
    applyHeaderHeight();
    if (const int natural = headerHeight(); natural != m_naturalHeader) {
        m_naturalHeader = natural;
        Q_EMIT headerChanged();
    }
}

namespace {
/** The height a text row asks for: its own hint (PlotText keeps it per text), not its box. */
int hintHeight(const QCPLayoutElement* e) {
    return e->minimumOuterSizeHint().height();
}
} // namespace

int HeatmapView::headerHeight() const {
    return m_subtitle ? hintHeight(m_title) + hintHeight(m_subtitle) : 0;
}

void HeatmapView::setHeaderHeight(int px) {
    px = std::max(px, 0);
    if (px == m_headerHeight)
        return;
    m_headerHeight = px;
    applyHeaderHeight();
    queueReplot();
}

void alignHeaders(const std::vector<HeatmapView*>& maps, int columns) {
    columns = std::max(columns, 1);
    for (std::size_t r0 = 0; r0 < maps.size(); r0 += static_cast<std::size_t>(columns)) {
        const auto begin = maps.begin() + static_cast<std::ptrdiff_t>(r0);
        const auto end = maps.begin() + static_cast<std::ptrdiff_t>(
                                            std::min(maps.size(), r0 + std::size_t(columns)));
        int tallest = 0;
        for (auto it = begin; it != end; ++it)
            tallest = std::max(tallest, (*it)->headerHeight());
        for (auto it = begin; it != end; ++it)
            (*it)->setHeaderHeight(tallest);
    }
}

void HeatmapView::applyHeaderHeight() {
    if (!m_subtitle)
        return;
    // A layout element's minimum height, where set, replaces its text's (it is not a floor), and
    // its maximum is the text's: both are set, for the box without its margins.
    const int wanted = m_headerHeight - hintHeight(m_title);
    if (wanted <= hintHeight(m_subtitle)) {
        m_subtitle->setMinimumSize(QSize(1, 0));
        m_subtitle->setMaximumSize(QSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX));
        return;
    }
    const QMargins m = m_subtitle->margins();
    const int inner = wanted - m.top() - m.bottom();
    m_subtitle->setMinimumSize(QSize(1, inner));
    m_subtitle->setMaximumSize(QSize(QWIDGETSIZE_MAX, inner));
}

namespace {
bool g_squareCells = false; // GUI thread only
} // namespace

void HeatmapView::setSquareCells(bool on) {
    if (on == m_square)
        return;
    m_square = on;
    queueReplot(); // fitAspect lays the map out, and re-pools it for its new size
}

void HeatmapView::setSquareCellsEverywhere(bool on) {
    g_squareCells = on;
    for (QWidget* w : QApplication::allWidgets())
        if (auto* view = qobject_cast<HeatmapView*>(w))
            view->setSquareCells(on);
}

bool HeatmapView::squareCellsByDefault() {
    return g_squareCells;
}

void HeatmapView::fitAspect() {
    QCPAxisRect* axes = m_plot->xAxis->axisRect();
    // scaleExtra: what the colour bar gives up below (at most the map's: a bar shorter than
    // 100 px had its labels on top of each other).
    const auto apply = [&](const QMargins& extra, const QMargins& natural, int scaleBottom,
                           int scaleExtra, bool beside) {
        m_aspectExtra = extra;
        if (m_compact) {
            axes->setMargins(m_baseMargins + extra);
            return;
        }
        // Minimum margins are floors under the automatic ones (tick labels, axis titles): the
        // margins laid out without the extra, plus the extra. The room across on the right goes
        // to the right of the colour bar, which stays beside the map (at the box's right edge,
        // a wide box left it hundreds of pixels away); the titles above, which span the map's
        // column, are given the room on the left as a margin, so that they stay over the map.
        // Not beside a map too narrow for its titles (P of n = 8192, d = 128: 20 px wide), whose
        // titles then keep the box's width and the bar its right edge.
        const int right = beside ? 0 : extra.right();
        const QMargins axesExtra(extra.left(), extra.top(), right, extra.bottom());
        axes->setMinimumMargins(extra.isNull() ? m_baseMargins : natural + axesExtra);
        const QMargins textExtra(beside ? extra.left() : 0, 0, 0, 0);
        for (auto [text, base] :
             {std::pair{m_title, m_baseTitleMargins}, std::pair{m_subtitle, m_baseSubtitleMargins}})
            if (text->margins() != base + textExtra)
                text->setMargins(base + textExtra);
        // The margin group gives the bar the map's bottom margin, minimum margins included: with
        // square cells the bar leaves it below and is given its own (its automatic margin is
        // then its margin as it stands, QCPLayoutElement's: set back each time).
        QMargins scale = m_baseScaleMargins;
        if (!extra.isNull()) {
            scale.setBottom(scaleBottom + scaleExtra);
            scale.setRight(scale.right() + extra.right() - right);
        }
        m_scale->setMarginGroup(QCP::msBottom, extra.isNull() ? m_marginGroup : nullptr);
        m_scale->setMinimumMargins(scale);
        m_scale->setMargins(scale);
    };
    const bool wanted = m_square && hasData();
    if (!wanted && m_aspectExtra.isNull())
        return;
    apply(QMargins(), QMargins(), 0, 0, false); // the layout without square cells
    if (!wanted) {
        m_plot->layOut(); // fitTicks, next, spaces the ticks for the map's new size
        if (m_pooledFor != QSize())
            scheduleRebuild(); // a larger box: pool for it
        return;
    }
    m_plot->layOut();
    const QRect r = axes->rect();
    // The visible cells in source positions (a pooled or binned cell stands for several).
    const double perCol =
        (m_sourceCols > 0 ? double(m_sourceCols) / m_cols : 1.0) * std::max(m_info.binCols, 1);
    const double perRow =
        (m_sourceRows > 0 ? double(m_sourceRows) / m_rows : 1.0) * std::max(m_info.binRows, 1);
    const double across = m_plot->xAxis->range().size() * perCol;
    const double down = m_plot->yAxis->range().size() * perRow;
    if (r.width() < 2 || r.height() < 2 || !(across > 0) || !(down > 0))
        return;
    const double side = std::min(r.width() / across, r.height() / down);
    // A very long, thin matrix (P of n = 16, d = 4096) keeps a few pixels across its short side.
    const auto kept = [](double px, int room) {
        return std::max(static_cast<int>(std::lround(px)), std::min(8, room));
    };
    const int w = r.width() - kept(side * across, r.width());
    const int h = r.height() - kept(side * down, r.height());
    apply(QMargins(w / 2, 0, w - w / 2, h), axes->margins(),
          m_scale ? m_scale->margins().bottom() : 0,
          std::clamp(r.height() - 100, 0, h), // the bar: as tall as the map, or 100 px
          r.width() - w >= kMinWidthBesideBar);
    m_plot->layOut();
    if (hasData() && poolTarget() != m_pooledFor)
        scheduleRebuild();
}

void HeatmapView::fitTicks() {
    const QRect r = m_plot->axisRect()->rect();
    const auto fit = [](QCPAxis* axis, int count) {
        // Labelled cells (tokens) are spaced by applyTicks already.
        if (const auto t = axis->ticker().dynamicCast<FittingTicker>()) {
            t->setTickCount(std::clamp(count, 2, 6));
            t->setOneTick(count < 1);
        }
    };
    fit(m_plot->xAxis, r.width() / 50);
    fit(m_plot->yAxis, r.height() / 28);
}

int HeatmapView::mapsColoured() const {
    return m_map->colourings();
}

QString HeatmapView::titleText() const {
    return m_subtitle ? m_info.title : m_title->text(); // unbroken
}

QString HeatmapView::describeCell(int i, int j) const {
    if (i < 0 || j < 0 || i >= m_rows || j >= m_cols)
        return {};
    auto label = [](const QStringList& l, int k) {
        return k < l.size() ? QStringLiteral(" \u201c%1\u201d").arg(l.at(k)) : QString();
    };
    auto index = [this](int k, int bin) {
        if (m_sourceRows > 0 && hasData()) { // pooled cells: the positions they cover
            const int a = binStart(k, m_sourceRows, m_rows);
            const int b = binStart(k + 1, m_sourceRows, m_rows) - 1;
            return a == b ? QString::number(a) : QStringLiteral("%1\u2013%2").arg(a).arg(b);
        }
        return bin <= 1 ? QString::number(k)
                        : QStringLiteral("%1\u2013%2").arg(k * bin).arg((k + 1) * bin - 1);
    };
    const QString ri = m_info.affineRows()
                           ? QString::number(m_info.rowStart + i * m_info.rowStep, 'g', 6)
                           : index(i, m_info.binRows);
    const QString cj = m_info.affineCols()
                           ? QString::number(m_info.colStart + j * m_info.colStep, 'g', 6)
                           : index(j, m_info.binCols);
    return QStringLiteral("%1   i = %2%3   j = %4%5   value = %6")
        .arg(m_info.title, ri, label(m_info.rowLabels, i), cj, label(m_info.colLabels, j))
        .arg(cell(i, j), 0, 'g', 6);
}

void HeatmapView::onMouseMove(QMouseEvent* e) {
    const double x = m_plot->xAxis->pixelToCoord(e->position().x());
    const double y = m_plot->yAxis->pixelToCoord(e->position().y());
    const int j = static_cast<int>(std::lround(x));
    const int i = static_cast<int>(std::lround(y));
    QString text = describeCell(i, j);
    if (hasTile() && hasData()) { // inside the tile: its position and value
        const int si = static_cast<int>(std::floor((y + 0.5) * m_sourceRows / m_rows));
        const int sj = static_cast<int>(std::floor((x + 0.5) * m_sourceCols / m_cols));
        const PoolRegion& t = m_tileRegion;
        if (si >= t.r0 && si < t.r1 && sj >= t.c0 && sj < t.c1) {
            const int r =
                static_cast<int>(static_cast<std::int64_t>(si - t.r0) * m_tile.rows / t.rows());
            const int c =
                static_cast<int>(static_cast<std::int64_t>(sj - t.c0) * m_tile.cols / t.cols());
            text = QStringLiteral("%1 (tile)   i = %2   j = %3   value = %4")
                       .arg(m_info.title)
                       .arg(si)
                       .arg(sj)
                       .arg(m_tile.at(r, c), 0, 'g', 6);
        }
    }
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
    if (i >= 0 && i < m_rows && e->button() == Qt::RightButton)
        Q_EMIT rowClicked(i);
}

QCustomPlot* HeatmapView::plot() const {
    return m_plot;
}

} // namespace pe
