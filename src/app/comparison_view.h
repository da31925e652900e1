// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "compute_worker.h"
#include "heatmap_view.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QSpinBox;
class QPushButton;
class QTimer;

namespace pe {

/**
 * The same inputs under other schemes, side by side with the current one: scheme B and the
 * difference A − B on the top row, and below them any number of further schemes (a gallery of
 * the same tensor and head). The other traces come one after another from this view's own
 * worker, and only while the view is shown, so the main views never wait on them. Every map's
 * zoom is linked.
 */
class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);

    /**
     * From this many positions the other schemes' passes for weights or logits make the shown
     * head's alone (an eighth of the n² work with 8 heads); another head is then computed
     * when chosen. Shorter passes make every head: a new head is drawn at once.
     */
    static constexpr int kOneHeadFrom = 1024;

    /** The current trace (scheme A) and its input; B is recomputed with A's other parameters. */
    void setReference(std::shared_ptr<const Trace> a, const InputChoice& in);
    /**
     * The reference about to come: its parameters and input were just submitted to the
     * window's worker. Shown, the view asks for B's trace for them now, computed beside A's
     * rather than after it has come, and setReference takes it if A comes with those (not
     * for a pooled sequence, whose A would come only with B).
     */
    void prepare(const Params& a, const InputChoice& in);
    /** The reference prepare() announced will not come (its computation failed, was cancelled
     *  or gave way to a zoom tile): the view goes on with the current one. */
    void cancelPrepared();
    void setColorMap(ColorMapKind k);
    void setPoolMode(PoolMode m);
    void setOtherScheme(Scheme s);
    /** Further schemes shown below A, B and A − B (the gallery), in this order. */
    void setGallerySchemes(const std::vector<Scheme>& schemes);
    std::vector<Scheme> gallerySchemes() const;
    /** The compared tensor: "weights", "logits" or "out"; false if the name is not offered. */
    bool setTensor(const QString& name);
    /** How far the passes of the compared schemes go, the reference's too (the window asks for
     *  it: tensorChanged): the weights alone, as far as the weights (logits, position term) or
     *  the whole pass (the output). */
    TraceExtent extentNeeded() const;
    void setHead(int h);
    /**
     * Headless figures: every map is drawn before the call that changed it returns. Shown in a
     * window (the default), a long position term (positionPartTakesLong: an absolute scheme's
     * products at n = 2,048 took the GUI thread 16–190 ms a trace) is computed on Qt's pool
     * and the maps drawn when it comes.
     */
    void setBlocking(bool on) { m_blocking = on; }
    /** Whether a position term is being computed off the GUI thread (setBlocking). */
    bool computingPositionTerms() const { return !m_positionJobs.empty(); }
    /**
     * Takes the trace of a compared scheme, as if this view's worker had computed it (headless
     * figures compute synchronously); kept only if it is for the current reference.
     */
    void addTrace(std::shared_ptr<const Trace> t);
    /** Scheme B's trace, once computed for the current reference: as far as the compared
     *  tensor needs (without V, head_out and out unless the output is compared). */
    const Trace* other() const { return traceOf(schemeB()); }
    /** The trace of any compared scheme, once computed for the current reference; else null. */
    const Trace* traceOf(Scheme s) const;
    /** The gallery map of scheme `s`, or null if it is not in the gallery. */
    HeatmapView* galleryView(Scheme s) const;
    HeatmapView* difference() const { return m_diff; }
    HeatmapView* left() const { return m_left; }
    HeatmapView* right() const { return m_right; }
    QCheckBox* sameScaleBox() const { return m_sameScale; }

Q_SIGNALS:
    void hovered(const QString& text);
    void updated();
    /** Another tensor is compared (the reference may need the rest of its pass). */
    void tensorChanged();

protected:
    void showEvent(QShowEvent* e) override;
    void hideEvent(QHideEvent* e) override;

private:
    Scheme schemeB() const;
    /** Submits the first scheme whose trace is missing (B first, then the gallery's). */
    void request();
    /** Asks this view's worker for scheme `s` under reference parameters `a` (m_requested),
     *  as far as the compared tensor needs (TraceExtent). */
    void ask(Scheme s, const Params& a, const InputChoice& in);
    /** Whether trace `t` holds what the compared tensor is shown from (extentNeeded: a trace
     *  computed for the weights has no logits, one for the logits no output; a trace of one
     *  head, the shown head: headNeeded). */
    bool covers(const Trace& t) const;
    /** Whether the compared tensor is one head's slice of a trace tensor (weights, logits),
     *  which a trace of that head alone holds. */
    bool comparesHeadSlices() const;
    /** The head whose n² work alone a pass under `a` makes (ComputeRequest::head), −1 for
     *  every head: from kOneHeadFrom positions where weights or logits are shown. */
    int headNeeded(const Params& a) const;
    /** Whether the shown head can be read from `t`: the weights and logits of the shown head
     *  (Trace::holdsHead); the position term and the output from a trace of every head. */
    bool holdsShownHead(const Trace& t) const;
    void redraw();
    void rebuildGallery();
    /** Keeps trace t if it is for the current reference (what this view can show of it). */
    void keep(std::shared_ptr<const Trace> t);
    /** The maps of each grid row given one header height: their axes start level. */
    void alignHeaders();
    /** What one map shows: a tensor read in place (the chosen tensor of a trace, or the
     *  position term computed from it), or a grid (a tensor past TraceViews::kMaxCells rows or
     *  columns, binned). Empty without the trace or the tensor. */
    struct Source {
        std::shared_ptr<const Trace> trace;
        std::shared_ptr<const void> owner; ///< keeps `tensor` alive on the map
        const Tensor* tensor = nullptr;
        int head = 0; ///< of `tensor`
        Grid grid;
        int rows = 0, cols = 0;
        int binRows = 1, binCols = 1; ///< positions per grid cell (a tensor past kMaxCells)
        bool empty() const { return rows == 0 || cols == 0; }
    };
    Source sourceOf(std::shared_ptr<const Trace> t) const;
    /**
     * The position terms of the shown schemes' traces for the current head that are not at
     * hand, into m_positionTerms: computed side by side now, or, where one takes long
     * (positionPartTakesLong) and the view does not block, started on Qt's pool. False while
     * one of them is still coming: the maps keep what they show until positionTermDone draws.
     */
    bool positionTermsReady();
    /** Starts the position term of trace `of`'s head `head` (scheme s's) on Qt's pool. */
    void startPositionTerm(Scheme s, std::shared_ptr<const Trace> of, int head);
    /** The term of job `job` (scheme s's) came: kept if its trace is still the scheme's. */
    void positionTermDone(Scheme s, QObject* job);
    /** A's scheme, B's and the gallery's (repeats possible). */
    std::vector<Scheme> shownSchemes() const;
    /** The trace of a compared scheme (A's own for A's scheme), shared; else null. */
    std::shared_ptr<const Trace> heldTrace(Scheme s) const;

    ComputeController* m_controller;
    QComboBox* m_scheme;
    QPushButton* m_galleryButton; ///< a push button: its menu arrow has room of its own
    QGridLayout* m_galleryGrid;
    QWidget* m_gallery; ///< the grid of every map: A, B, A − B, then the gallery
    std::vector<std::pair<Scheme, HeatmapView*>> m_galleryViews;
    std::vector<Scheme> m_galleryOrder; ///< the gallery's schemes, in the order they were chosen
    /** The position term of each scheme's trace for one head (tensor "position"), [1, n, n]
     *  doubles (null where the trace has none): computed once, not again on each trace's
     *  arrival; dropped with the trace or another tensor. */
    mutable std::map<Scheme, std::pair<int, std::shared_ptr<const Tensor>>> m_positionTerms;
    /** A position term on Qt's pool (one per scheme at a time): its trace, held until it is
     *  done, its head and its QFutureWatcher. */
    struct PositionJob {
        std::shared_ptr<const Trace> of;
        int head = 0;
        QObject* watcher = nullptr;
    };
    std::map<Scheme, PositionJob> m_positionJobs;
    bool m_blocking = false; ///< setBlocking
    /** A − B of the slices A's and B's maps show ([1, rows, cols] doubles): made again only
     *  when one of them changes. */
    struct Difference {
        std::shared_ptr<Tensor> tensor;
        std::shared_ptr<Tensor> spare; ///< the one before, reused once the map lets go of it
    } m_difference;
    std::map<Scheme, std::shared_ptr<const Trace>> m_traces; ///< for the current reference
    /** Why a scheme's trace could not be computed for the current reference (a learned table
     *  shorter than the sequence, too little memory): not asked for again until A changes,
     *  unless it waits for memory. */
    struct Failure {
        QString why;
        /**
         * Refused for memory that other holders keep (the window's trace that the new
         * reference replaces, still held while the views change over): the bytes it asked
         * for, and it is asked for again once the budget has room (m_memoryPoll, while the
         * tab is shown). 0 for every other failure.
         */
        std::uint64_t waitsForBytes = 0;
    };
    std::map<Scheme, Failure> m_failed;
    QTimer* m_memoryPoll;
    /** Whether a failure in m_failed waits for memory. */
    bool waitsForMemory() const;
    /** Forgets every failure (a new reference, another pooling). */
    void forgetFailures();
    /** Asks again for the schemes waiting for memory that fit in the budget now. */
    void retryWhereMemoryFits();
    /** The scheme and parameters of the last request, to know what a failure was for. */
    std::optional<std::pair<Scheme, Params>> m_requested;
    /** The reference prepare() announced, and B's trace for it once computed. */
    struct Ahead {
        Params a;
        InputChoice input;
        std::shared_ptr<const Trace> trace;
    };
    std::optional<Ahead> m_ahead;
    bool m_requestInFlight = false;
    QComboBox* m_tensor;
    QSpinBox* m_head;
    QCheckBox* m_sameScale; ///< A, B and the gallery share one colour range
    HeatmapView* m_left;
    HeatmapView* m_right;
    HeatmapView* m_diff;
    std::shared_ptr<const Trace> m_a;
    InputChoice m_input;
    bool m_stale = true;
    PoolMode m_poolMode = PoolMode::Mean; ///< what the worker pools long sequences with
};

/** A's parameters under scheme `s`, as the comparison computes them. */
Params paramsUnder(const Params& a, Scheme s);

} // namespace pe
