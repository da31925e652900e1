// SPDX-License-Identifier: MIT
#pragma once

#include <QFutureWatcher>
#include <QTabWidget>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "compute_worker.h"
#include "grid.h"
#include "heatmap_view.h"
#include "trace.h"

class QGridLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTimer;

namespace pe {

class LinePlotView;

/** Title, parameters subtitle, value title and (unbinned) token labels of one trace's heat map. */
HeatmapInfo traceHeatmapInfo(const Trace& trace, const QString& title, const QString& valueTitle,
                             int binR, int binC);

/**
 * The views of one trace, as tabs: the encoding (P, its columns against position, P·Pᵀ), the
 * relative index and bias, the logits split into content and position terms, and the attention
 * weights of every head as small multiples with one enlarged and the selected query's row.
 */
class TraceViews : public QTabWidget {
    Q_OBJECT
public:
    explicit TraceViews(QWidget* parent = nullptr);
    ~TraceViews() override;

    /**
     * Shows a trace. In pooled mode (pool.pooled) its logits and weights are pooled cells: the
     * views say so in their titles, views of n×n tensors that pooled mode does not compute show
     * a note, and zooming the enlarged attention map or the logits past the cells asks for the
     * visible part at full resolution (tileRequested).
     */
    void setTrace(std::shared_ptr<const Trace> trace, const PoolInfo& pool = {},
                  std::shared_ptr<const PositionView> positions = {});
    /**
     * The early part of the next trace (ComputeResult::early: the inputs, or the inputs and the
     * relative matrices): drawn at once where the tab on screen shows nothing else (Encoding;
     * Relative when `part` is Relative), ignored elsewhere. The whole trace's setTrace() then
     * leaves that tab as drawn, for its values are the same; the other tabs wait for it.
     */
    void setEarlyTrace(std::shared_ptr<const Trace> trace, const PoolInfo& pool,
                       std::shared_ptr<const PositionView> positions, EarlyPart part);
    /** The early part the tab on screen can be drawn from (None: it needs the forward pass). */
    EarlyPart earlyPartWanted() const;
    /** Whether the tab on screen shows the logits and their n × n position terms (Logit terms;
     *  Relative where no tables by offset came with the trace, which it draws from otherwise):
     *  a trace of the weights alone (TraceExtent::WeightsAlone) lacks them, and such a tab
     *  keeps what it shows until a trace with them comes. */
    bool showsPositionTerms() const;
    /** The scheme's position tables that came with the trace (the Encoding tab shows them
     *  where there is no P), and the tab's line on where position enters. */
    const PositionView* positions() const { return m_positions.get(); }
    QString encodingNote() const;
    /** The Relative tab's note (empty when it shows both maps). */
    QString relativeNote() const;
    /** The last whole trace (not an early one). */
    const Trace* trace() const { return m_whole.get(); }
    const PoolInfo& poolInfo() const { return m_poolInfo; }
    /** A tile result (logits and weights of a region) for the pooled trace on screen. */
    void setTile(std::shared_ptr<const Trace> tile, const PoolInfo& info);

    void setColorMap(ColorMapKind k);
    void setPoolMode(PoolMode m);

    /** The main heat map of the current tab (for export and hover). */
    HeatmapView* currentHeatmap() const;
    std::vector<HeatmapView*> heatmaps() const;
    int selectedHead() const;
    int selectedQuery() const;
    void selectHead(int h);
    void selectQuery(int i);
    /** Which weights the next traces were computed with (shown in the caption). */
    void setWeightsLabel(const QString& text) { m_weightsLabel = text; }
    QString weightsLabel() const { return m_weightsLabel; }
    /** The parameters line and, after " | ", the weights label (the Attention tab shows it). */
    QString caption() const;
    /** Number of setTrace() calls that reached the views. */
    int updates() const { return m_updates; }
    LinePlotView* columnsPlot() const { return m_pColumns; }
    QLineEdit* columnsEdit() const { return m_columns; }
    // Each view on its own, for figures drawn without the window (pe-explorer-cli render).
    HeatmapView* positionMap() const { return m_p; }
    HeatmapView* similarityMap() const { return m_gram; }
    HeatmapView* relIndexMap() const { return m_relIndex; }
    HeatmapView* biasMap() const { return m_bias; }
    /** The Relative maps' buffers held now: those shown and those kept for the next change. */
    int toeplitzBuffersHeld() const;
    /** Whether a logit split no map shows is kept for the next one (released when idle). */
    bool holdsSpareSplit() const { return m_splitSpare != nullptr; }
    HeatmapView* attentionMap() const { return m_enlarged; }
    LinePlotView* queryRowPlot() const { return m_queryRow; }
    /** One map per logit term present (the first ones; the rest are hidden). */
    const std::vector<HeatmapView*>& termMaps() const { return m_terms; }
    /** The small multiples, one per head (up to 16; the rest are hidden). */
    const std::vector<HeatmapView*>& headMaps() const { return m_heads; }

    /** Largest grid a view keeps; bigger slices are mean-binned on arrival. */
    static constexpr int kMaxCells = 2048;

Q_SIGNALS:
    void hovered(const QString& text);
    /** A pooled view was zoomed past its cells: these positions are wanted at full resolution. */
    void tileRequested(pe::PoolRegion region);

protected:
    bool event(QEvent* e) override;

private:
    void refresh();
    void refreshCurrent();
    void refreshEncoding();
    void refreshRelative();
    void refreshTerms();
    void refreshAttention();
    /** The term maps of each row of the tab's grid start their axes level (alignHeaders). */
    void alignTermHeaders();
    HeatmapView* addHeatmap(QWidget* parent, bool compact = false);
    HeatmapInfo infoFor(const QString& title, const QString& valueTitle, int binR, int binC) const;
    /** The trace's tensor `name`, else the split terms' (m_split). */
    const Tensor* find(const char* name) const;
    Grid slice(const char* name, int head, int* binR, int* binC) const;
    /** The tensor `name` when its slices fit kMaxCells (shown in place, HeatmapView::setSlice);
     *  *binR / *binC as slice() sets them. Null when absent, empty or larger. */
    const Tensor* inPlace(const char* name, int* binR, int* binC) const;
    /** Pooled mode: the relative index, bias and URPE's C by offset (null otherwise). */
    const RelativeTables* pooledTables() const;
    /** The relative index, bias and URPE's C by offset that came with the trace, in either
     *  mode (null when none came: the trace's n × n matrices are shown). */
    const RelativeTables* tablesByOffset() const;
    /** Pooled mode: cells per side of the Relative tab's maps of an n × n matrix. */
    int relativeCells(int n) const;
    /** The index (URPE: C of head 0) or head `head`'s bias over `region`, pooled to at most
     *  `cells` per side from the tables by offset. */
    Grid relativeGrid(const RelativeTables& t, bool index, int head, PoolRegion region,
                      int cells) const;
    /**
     * The Relative tab's maps from the tables by offset: pooled exactly to the logits' cells in
     * pooled mode (and above kMaxCells), else at full resolution, each row of the n × n matrix
     * copied from its table (one head of the bias, not the trace's h × n × n). Either way shown
     * in place from reused buffers; the early part need not carry any n × n matrix.
     */
    void refreshRelativeFromTables(const RelativeTables& t, bool index, bool bias);
    /** A matrix filled from a table by offset (whole or pooled), shown by a Relative map. */
    struct ToeplitzMatrix {
        Tensor matrix;
    };
    /**
     * A rows × cols matrix of `type` for map `map` (0: the Relative tab's index, 1: its bias,
     * 2: the Logit terms tab's bias) that no view holds: two per map, the one shown and the one
     * filled next.
     */
    std::shared_ptr<ToeplitzMatrix> toeplitzBuffer(int map, DType type, int rows, int cols);
    /** A Relative map to fill (`fill`, on any thread) and show in place. */
    struct ToeplitzJob {
        HeatmapView* view;
        std::shared_ptr<ToeplitzMatrix> buffer;
        HeatmapInfo info;
        std::function<void()> fill;
    };
    /** Fills the buffers, pools each to its view's plot (one job each, in parallel) and shows
     *  them in place; `source` > 0: each a pooled view of source × source positions. */
    void showToeplitz(std::vector<ToeplitzJob> jobs, int source);
    /** The visible positions of a pooled Relative map, from the tables, laid over it. */
    void relativeTile(HeatmapView* v, PoolRegion region);
    /** Pooled mode: marks `v` as a view of the n×n `name` and lays the current tile over it. */
    void preparePooled(HeatmapView* v, const char* name, int head);

    /** Sets the trace the views draw from (whole or early) and the spin boxes' ranges. */
    void adopt(std::shared_ptr<const Trace> trace, const PoolInfo& pool,
               std::shared_ptr<const PositionView> positions);

    std::shared_ptr<const Trace> m_trace; ///< what the views draw from
    std::shared_ptr<const Trace> m_whole; ///< the last whole trace (trace())
    /** While an early trace is m_trace: the tabs it can draw (1: Encoding, 2: and Relative). */
    int m_earlyTabs = 0;
    PoolInfo m_poolInfo;
    std::shared_ptr<const Trace> m_tile;
    PoolInfo m_tileInfo;
    /** An absolute scheme's four logit terms of head m_splitHead of the trace m_splitOf. */
    std::shared_ptr<Trace> m_split; ///< reused by the next split (splitLogits' `into`)
    const Trace* m_splitOf = nullptr;
    int m_splitHead = -1;
    /**
     * A split too large for the GUI thread (splitTakesLong: 16 ms at n = 2,048 and d = 256,
     * 190 ms at d = 2,048), running on Qt's pool into a buffer no map shows: the trace (held
     * until it is done) and head it is for. The tab is drawn when it comes (splitDone).
     */
    struct SplitJob {
        std::shared_ptr<const Trace> of;
        int head = -1;
        std::shared_ptr<Trace> into;
    };
    std::optional<SplitJob> m_splitJob;
    std::shared_ptr<Trace> m_splitSpare; ///< the split shown before m_split, for the next job
    QFutureWatcher<void>* m_splitWatcher = nullptr;
    /** Starts splitting the trace's head `head` on Qt's pool, unless a split is running. */
    void startSplit(int head);
    /** The running split is done: shown if still the trace's and head's, else kept as spare. */
    void splitDone();
    QSpinBox* m_head;
    QSpinBox* m_query;
    /** What QTabWidget's own layout depends on, as of its last layout (see event()). */
    struct TabLayoutKey {
        QSize tabBar, corner;
        bool operator==(const TabLayoutKey&) const = default;
    };
    std::optional<TabLayoutKey> m_tabLayoutKey;
    QString m_weightsLabel;
    QString m_traceSubtitle;   ///< describeParams of the trace, every map's subtitle
    QStringList m_traceLabels; ///< the trace's tokens, every unbinned axis's labels
    QLabel* m_weightsCaption;  ///< above the attention maps

    HeatmapView* m_p;
    LinePlotView* m_pColumns;
    QLineEdit* m_columns;
    HeatmapView* m_gram;
    /** P·Pᵀ as m_gram shows it ([1, n, n] doubles, read in place), the P it was made from,
     *  and the one shown before (its buffer reused once the map lets go of it); empty while
     *  m_gram shows something else. */
    struct Similarity {
        std::shared_ptr<Tensor> tensor;
        Grid of;
        std::shared_ptr<Tensor> spare;
    } m_similarity;
    QLabel* m_encodingNote;
    QWidget* m_columnsRow; ///< "columns of P:" and its edit (absolute schemes only)
    std::shared_ptr<const PositionView> m_positions;
    /** toeplitzBuffer's, two per map: the Relative tab's index and bias, the Logit terms tab's
     *  bias (pooled mode). */
    std::array<std::shared_ptr<ToeplitzMatrix>, 6> m_toeplitz;
    QTimer* m_releaseSpares; ///< drops the buffers no view holds, 2 s after the last fill
    HeatmapView* m_relIndex;
    QWidget* m_relMaps; ///< the Relative tab's two maps (hidden, with both maps, for a scheme
                        ///< that has neither: the note then fills the tab)
    QLabel*
        m_relativeNote; ///< what the scheme lacks on the Relative tab, and where position enters
    HeatmapView* m_bias;
    std::vector<HeatmapView*> m_terms;
    int m_termColumns = 2; ///< the terms' grid, as refreshTerms placed them
    QGridLayout* m_termsGrid;
    QWidget* m_termsHost;
    std::vector<HeatmapView*> m_heads;
    QGridLayout* m_headsGrid;
    QWidget* m_headsHost;
    HeatmapView* m_enlarged;
    LinePlotView* m_queryRow;

    ColorMapKind m_colorMap = ColorMapKind::Auto;
    PoolMode m_pool = PoolMode::Mean;
    int m_updates = 0;
    std::array<bool, 4> m_stale{}; ///< per tab: the trace changed since it was last prepared
};

/** The parameters as one line, for figure subtitles. */
QString describeParams(const Params& p);

/** Trace tensors the Logit terms tab shows, in its order (each map's value title is the name). */
std::vector<std::string> logitTermNames();

} // namespace pe
