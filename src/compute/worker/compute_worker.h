// SPDX-License-Identifier: MIT
#pragma once

/**
 * The background worker: a QObject living on its own QThread. The newest request wins: posting
 * a request raises the cancel flag that the running computation polls, queued older requests are
 * skipped, and a result whose generation is not the newest is dropped. Results travel to the
 * owner's thread by a queued signal, with the compute time.
 */

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backend.h"
#include "memory_budget.h"
#include "params.h"
#include "position_view.h"
#include "sample_input.h"
#include "trace.h"

class QOffscreenSurface;
class QSurface;

namespace pe {

class TraceRecycler;
class WeightCache;

/**
 * What a request wants delivered ahead of its whole result, for a view that shows nothing of the
 * attention: nothing, or the inputs E, P and X with the positions (the Encoding tab; the
 * Relative tab draws from the positions' tables by offset). See ComputeResult::early.
 */
enum class EarlyPart { None, Inputs };

/**
 * How far a request's forward pass goes: the whole trace; as far as the attention weights for a
 * view that shows no more than logits, weights or their position terms (no V, head_out, out or
 * shaw_v_term, and none of their products: CpuFastBackend::setStopAtWeights; pooled
 * computations too); or as far as the weights with no other n × n tensor, for a view that shows
 * the weights and no more (no logits, rel_index or position-term tensors such as T5's bias:
 * CpuFastBackend::setWeightsAlone; pooled computations keep their pooled logits). Engines that
 * cannot stop there give more (the whole trace). Each extent covers those after it.
 */
enum class TraceExtent { Whole, Weights, WeightsAlone };

/** Whether a request of extent `made` gives what one of extent `wanted` would. */
inline bool extentCovers(TraceExtent made, TraceExtent wanted) {
    return static_cast<int>(made) <= static_cast<int>(wanted);
}

/** Whether `t` holds what a request of extent `wanted` makes (its output, or its logits). */
bool traceCovers(const Trace& t, TraceExtent wanted);

struct ComputeRequest {
    quint64 generation = 0;
    Params params;
    InputChoice input;
    bool tile = false; ///< only the logits and weights of `region`, at full resolution if it fits
    PoolRegion region; ///< positions, when `tile`
    EarlyPart early = EarlyPart::None;
    TraceExtent extent = TraceExtent::Whole;
    /** ≥ 0: with an extent short of Whole, the n² work of this head alone where the engine can
     *  (CpuFastBackend::setOnlyHead; see Trace::onlyHead). −1: every head. */
    int head = -1;
};

/**
 * What the logits and weights of a result hold: the full [heads, n, n] (pooled = false), or
 * [heads, rows, cols] cells pooled from `region` of the n×n matrices. A tile result carries only
 * logits and weights; a pooled whole-matrix result also the O(n·d) tensors (E, P, X, Q, K, V,
 * head_out, out) and no other n×n tensor.
 */
struct PoolInfo {
    bool pooled = false;
    bool tile = false;
    PoolMode mode = PoolMode::Mean;
    PoolRegion region;
    int seqLen = 0;
    int rows = 0; ///< cells
    int cols = 0;
    /** At full resolution (each cell one position). */
    bool fullResolution() const { return rows == region.rows() && cols == region.cols(); }
    /** "pooled 16384→1024, mean", "tile i 100–399 × j 0–511, full resolution"; empty if full. */
    QString describe() const;
    /** The whole n × n matrix pooled to cells × cells. */
    static PoolInfo whole(int seqLen, int cells, PoolMode mode);
};

/**
 * What the Encoding tab shows in place of P (positionView) and the relative tables by offset
 * that the Relative tab draws its maps from (PositionView::relative): exactly in pooled mode,
 * which computes no n × n relative matrix, and before the forward pass.
 */
std::shared_ptr<const PositionView> positionsFor(const Params& p, const Weights& w);

struct ComputeResult {
    quint64 generation = 0;
    /**
     * None: the whole result. Else the input stage only (Backend::computeInputs: E, P and X,
     * with the very values the whole trace holds) and the positions, delivered before the
     * forward pass; the whole result of the same generation follows. Only engines that can give
     * it (the fast CPU engine, float32) do.
     */
    EarlyPart early = EarlyPart::None;
    std::shared_ptr<const Trace> trace; ///< null on error
    QString error;                      ///< empty on success
    /** The request's parameters, on success and failure alike (a failed result has no trace to
     *  say which scheme, n, … failed). */
    Params params;
    /**
     * Where the request was refused for memory: the bytes it asked of the budget, else 0. At most
     * the budget's total, the refusal lasts only while other holders keep what they hold (the
     * trace a new one is replacing): the same request fits once they let go.
     */
    std::uint64_t refusedBytes = 0;
    double computeMs = 0; ///< weights + embeddings + forward pass
    double engineMs = 0;  ///< the forward pass alone (Backend::compute / computePooled)
    QString backend;      ///< Backend::name()
    QString device;       ///< Backend::device(), e.g. the GPU's name
    QString backendNote;  ///< why the requested backend was not used, if so
    PoolInfo pool;        ///< pooled mode or a tile: what logits/weights hold
    QString
        weights; ///< which W_q..W_o were used: describeWeights(), e.g. "weights: random, seed 0"
    /** The scheme's position tables from the weights used (positionView); null for tiles. */
    std::shared_ptr<const PositionView> positions;
};

class ComputeWorker : public QObject {
    Q_OBJECT
public:
    explicit ComputeWorker(BackendKind kind = BackendKind::CpuReference, QObject* parent = nullptr);
    ~ComputeWorker() override;

    /** Thread-safe: marks `generation` as the newest and cancels whatever runs now. */
    void supersede(quint64 generation);
    quint64 latestGeneration() const { return m_latest.load(); }
    /** Thread-safe: the next computation uses a backend of this kind (made in the worker). */
    void setBackendKind(BackendKind kind) { m_requested.store(static_cast<int>(kind)); }
    /** Thread-safe: an OpenGL backend made from now on uses this surface (GlBackend::create). */
    void setGlSurface(QSurface* surface) { m_glSurface.store(surface); }
    /** Thread-safe: CPU threads of the next computations (Backend::setThreads; 0 = all). */
    void setThreads(int threads) { m_threads.store(threads); }
    /**
     * Thread-safe: from the next request on, each computation reserves its estimated bytes in
     * `budget` under the name `holder` before it allocates, and its result's trace keeps the
     * reservation until its last owner lets go. A request that does not fit is refused with a
     * message naming what holds the memory. By default the process's MemoryBudget, as
     * kDefaultMemoryHolder.
     */
    void setMemoryBudget(std::shared_ptr<MemoryBudget> budget, std::string holder);
    /** Thread-safe: a budget of `bytes` of this worker's own, shared with no other (tests). */
    void setMemoryBudget(std::uint64_t bytes);
    static constexpr const char* kDefaultMemoryHolder = "the main views' trace";
    /**
     * Pooled mode: sequences longer than `positions` (or whose full trace exceeds what the
     * budget has left)
     * get their logits and weights pooled to `resolution` cells per side, streamed, so no n×n
     * matrix is held. Thread-safe; tests lower the threshold.
     */
    void setPooling(int positions, int resolution, PoolMode mode);
    static constexpr int kDefaultPoolThreshold = 2048;
    static constexpr int kDefaultPoolResolution = 1024;
    /** Threads the fast engine runs (what pooled-mode memory estimates assume). */
    static int hardwareThreads();

    /**
     * Thread-safe: queues `request` for the worker's thread. Requests and results travel through
     * a std::mutex mailbox and Qt carries only a wake-up (a by-name queued call, a signal without
     * arguments): Debian's Qt is not built with ThreadSanitizer, its queued events synchronise
     * through futexes TSan cannot see, and this way TSan sees every hand-over of our data.
     */
    void post(const ComputeRequest& request);
    /** Thread-safe: the results finished since the last call, oldest first. */
    std::vector<ComputeResult> takeResults();
    /**
     * Thread-safe: what the worker's engines held for a next computation (Backend::heldBytes)
     * after its last computation or idle release (releaseWhenIdle).
     */
    std::uint64_t engineHeldBytes() const { return m_engineHeld.load(); }
    /** Thread-safe: bytes of the traces handed back and waiting for the next computation. */
    std::uint64_t recycledBytes() const;
    /** Thread-safe: the tiles that borrowed the shown pooled trace's Q and K (m_pooledShown). */
    int tilesBorrowingProjections() const { return m_tilesBorrowing.load(); }

public Q_SLOTS:
    /** Runs in the worker's thread. Skips the request if it is no longer the newest. */
    void process(const pe::ComputeRequest& request);

Q_SIGNALS:
    void started(quint64 generation);
    /** A result waits in takeResults(). */
    void resultsReady();

public:
    /** How long after a result, with no newer request, recycled buffers are freed. */
    static constexpr int kIdleReleaseMs = 2000;
    /**
     * A forward pass under this many flops (8·n·d² + 4·n²·d: n = 1024 at d = 256) leaves the
     * GUI thread a core while the window draws its early part (ComputeResult::early).
     */
    static constexpr double kShortPassFlops = 2e9;

private:
    /** Runs in the worker's thread: the oldest posted request. */
    Q_INVOKABLE void processPosted();
    /** Runs in the worker's thread: a trace came back after the idle release (releaseWhenIdle
     *  again, for the newest request). */
    Q_INVOKABLE void releaseReturned();
    void deliver(ComputeResult result);

    std::mutex m_mailbox;
    std::deque<ComputeRequest> m_posted;
    std::vector<ComputeResult> m_done;
    void ensureBackend();
    /**
     * Delivers the request's early part (ComputeResult::early) where the engine gives it: the
     * inputs E, P and X, with the positions (the Relative tab draws from their tables by
     * offset). `whole` lends its weights and backend descriptions.
     */
    void deliverEarly(const ComputeRequest& request, const Weights& w,
                      const std::vector<std::string>& tokens, bool pooled,
                      const std::shared_ptr<const PositionView>& positions,
                      const ComputeResult& whole);
    /**
     * Soon after a result, while nothing newer is queued, draws the weights of the neighbouring
     * seeds (WeightCache::prepareNeighbourSeeds): a seed spin box steps by one.
     */
    void prepareNeighbourSeeds(const Params& p, quint64 generation);
    /**
     * Once no request has come for kIdleReleaseMs after this one (whatever came of it: a
     * result, an error, a refusal) or after a trace came back to the idle worker
     * (releaseReturned), frees what only a next computation would reuse: the trace the views let go
     * of (up to TraceRecycler::kMaxKeptBytes), the engines' pools and their tables of the last
     * parameters (Backend::releaseIdleMemory). An idle window holds its shown trace and nothing of
     * earlier ones (the window returns the freed memory to the system: trimMemoryWhenIdle, half a
     * second later).
     */
    void releaseWhenIdle(quint64 generation);

    std::atomic<int> m_requested;
    std::atomic<QSurface*> m_glSurface{nullptr};
    std::atomic<int> m_threads{0};
    BackendKind m_createdFor = BackendKind::CpuReference;
    std::unique_ptr<Backend> m_backend;
    QString m_note;
    std::atomic<quint64> m_latest{0};
    std::atomic<bool> m_cancel{false};
    std::shared_ptr<MemoryBudget> m_budget; ///< guarded by m_mailbox
    std::string m_holder;                   ///< guarded by m_mailbox
    std::atomic<int> m_poolThreshold{kDefaultPoolThreshold};
    std::atomic<int> m_poolResolution{kDefaultPoolResolution};
    std::atomic<int> m_poolMode{static_cast<int>(PoolMode::Mean)};
    std::unique_ptr<Backend> m_streaming; ///< pooled mode when the chosen engine is the reference
    std::shared_ptr<TraceRecycler> m_recycler; ///< shown traces come back to the engine
    std::atomic<std::uint64_t> m_engineHeld{0};
    void noteEngineHeld();
    std::unique_ptr<WeightCache> m_weights; ///< the last request's seeded weights
    /** The last request's input embeddings and what they depend on (tokens, width, seed). */
    struct Embedded {
        std::vector<std::string> tokens;
        int d = 0; ///< no width is 0: none yet
        std::uint64_t seed = 0;
        Eigen::MatrixXd E;
    } m_embedded;
    /** The last W_q and W_k attached to a trace: seeded ones are shared while (seed, d) hold. */
    struct QueryKeyKept {
        std::shared_ptr<const QueryKeyWeights> weights;
        bool seeded = false;
        std::uint64_t seed = 0;
    } m_queryKey;
    /**
     * The last whole pooled trace of the fast CPU engine and the input it was computed from (its
     * parameters are its own): a tile of the same parameters and input borrows its Q and K
     * (CpuFastBackend::lendProjections) while the views hold it. Not kept alive by this: a
     * trace the views let go of is recycled.
     */
    struct PooledShown {
        std::weak_ptr<const Trace> trace;
        InputChoice input;
    } m_pooledShown;
    std::atomic<int> m_tilesBorrowing{0};
    /** W_q and W_k of `w` for a trace (Trace::queryKey); `seeded`: drawn from p.seed. */
    std::shared_ptr<const QueryKeyWeights> queryKeyOf(const Params& p, const Weights& w,
                                                      bool seeded);
};

/**
 * Owns a ComputeWorker and its thread; lives in the GUI thread. submit() never blocks. Only the
 * newest result reaches resultReady(); stale ones are counted and dropped.
 */
class ComputeController : public QObject {
    Q_OBJECT
public:
    explicit ComputeController(BackendKind kind = BackendKind::CpuReference,
                               QObject* parent = nullptr);
    ~ComputeController() override;

    /**
     * Queues a computation; returns its generation number. With `early`, that part comes first
     * through earlyResultReady() where the engine can give it; `extent` says how far it goes,
     * and `head` (≥ 0, short of the whole pass) which head's n × n tensors alone it makes.
     */
    quint64 submit(const Params& p, const InputChoice& in, EarlyPart early = EarlyPart::None,
                   TraceExtent extent = TraceExtent::Whole, int head = -1);
    /**
     * Queues the logits and weights of `region` (positions) at full resolution, or pooled to
     * the pooled-mode resolution when larger; newest wins like submit().
     */
    quint64 submitTile(const Params& p, const InputChoice& in, PoolRegion region);
    /** Cancels the running computation (its result is dropped). */
    void cancel();
    /** See ComputeWorker::setPooling. */
    void setPooling(int positions, int resolution, PoolMode mode) {
        m_worker->setPooling(positions, resolution, mode);
    }
    /** See ComputeWorker::setMemoryBudget. */
    void setMemoryBudget(std::shared_ptr<MemoryBudget> budget, std::string holder) {
        m_worker->setMemoryBudget(std::move(budget), std::move(holder));
    }
    void setMemoryBudget(std::uint64_t bytes) { m_worker->setMemoryBudget(bytes); }
    /**
     * Switches the engine; takes effect from the next request. For OpenGL in a windowed
     * application, the GUI thread first makes the QOffscreenSurface the worker's context uses.
     */
    void setBackendKind(BackendKind kind);
    /** CPU threads of the fast engine from the next request on (0: one per hardware thread). */
    void setThreads(int threads) { m_worker->setThreads(threads); }
    /** See ComputeWorker::engineHeldBytes. */
    std::uint64_t engineHeldBytes() const { return m_worker->engineHeldBytes(); }
    /** See ComputeWorker::recycledBytes. */
    std::uint64_t recycledBytes() const { return m_worker->recycledBytes(); }
    /** See ComputeWorker::tilesBorrowingProjections. */
    int tilesBorrowingProjections() const { return m_worker->tilesBorrowingProjections(); }

    bool busy() const { return m_busy; }
    /** Busy with a tile (which a newer tile or trace may supersede). */
    bool busyWithTile() const { return m_busy && m_tile; }
    quint64 generation() const { return m_generation; }
    int droppedResults() const { return m_dropped; }

Q_SIGNALS:
    void busyChanged(bool busy);
    void resultReady(const pe::ComputeResult& result);
    /** The early part of the newest request (ComputeResult::early); its whole result follows. */
    void earlyResultReady(const pe::ComputeResult& result);
    void computeFailed(const QString& message);

private:
    void onFinished(const pe::ComputeResult& r);
    void setBusy(bool b);
    quint64 post(const ComputeRequest& req);
    void prepareGlSurface();

    std::unique_ptr<QOffscreenSurface> m_glSurface; ///< outlives the worker thread
    QThread m_thread;
    ComputeWorker* m_worker; ///< owned by m_thread's finished() → deleteLater
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_tile = false; ///< the newest request is a tile
    int m_dropped = 0;
};

} // namespace pe

Q_DECLARE_METATYPE(pe::ComputeRequest)
Q_DECLARE_METATYPE(pe::ComputeResult)
