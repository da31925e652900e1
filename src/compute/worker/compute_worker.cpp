// SPDX-License-Identifier: MIT
#include "compute_worker.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QMetaObject>
#include <QOffscreenSurface>
#include <QScopeGuard>
#include <QSurfaceFormat>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <thread>
#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "relative_tables.h"
#include "trace_recycler.h"
#include "weight_cache.h"
#include "weights.h"

#ifdef PE_HAVE_FAST_CPU
#include "cpu_fast_backend.h"
#endif

Q_LOGGING_CATEGORY(lcWorker, "pe.worker")

namespace pe {

namespace {
/**
 * How far below the GUI thread the compute thread runs, in nice levels (Linux; the engine's
 * pool threads, which it starts, inherit it). The window draws a change's early part (P and
 * P·Pᵀ, the relative maps) while the forward pass runs: at equal priority the scheduler shared
 * the cores between them, and the drawing, which is all the Encoding and Relative tabs wait
 * for, took half as long again as its CPU time (a base change: 70 ms of CPU, 90 of wall time).
 * Five levels give the GUI thread three quarters of a core the two share and leave the compute
 * thread all of an idle one. Measured on 2 cores (bench_interactive --latency, d = 256,
 * 8 heads; sgemm peak 136.5 GFLOP/s), old against new, two rounds: Encoding tab, sinusoid,
 * n = 2,048 p50 93.2/109.0 → 67.5/81.1 ms (an earlier pair of rounds: 94.2/85.8 → 70.9/65.2);
 * Relative tab p50 55.0/63.3 → 39.3/41.3; the tabs that wait for the forward pass unchanged
 * within the host's noise (Attention, three rounds, p50 96.2/88.1/82.2 against
 * 89.8/91.0/89.2).
 */
constexpr int kComputeNiceSteps = 5;

/** Lowers the calling thread's priority by `steps` nice levels (nothing off Linux, and nothing
 *  where the system refuses). */
void lowerCallingThreadPriority(int steps) {
#ifdef __linux__
    const auto tid = static_cast<id_t>(gettid());
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && setpriority(PRIO_PROCESS, tid, std::min(19, now + steps)) != 0)
        qCDebug(lcWorker, "could not lower the compute thread's priority");
#else
    (void)steps;
#endif
}
} // namespace

bool traceCovers(const Trace& t, TraceExtent wanted) {
    switch (wanted) {
    case TraceExtent::Whole:
        return t.find("out") != nullptr;
    case TraceExtent::Weights: // the logits come with the position terms (setWeightsAlone)
        return t.find("logits") != nullptr;
    case TraceExtent::WeightsAlone:
        return t.find("weights") != nullptr;
    }
    return false;
}

ComputeWorker::ComputeWorker(BackendKind kind, QObject* parent)
    : QObject(parent)
    , m_requested(static_cast<int>(kind))
    , m_budget(MemoryBudget::process())
    , m_holder(kDefaultMemoryHolder)
    , m_recycler(TraceRecycler::create())
    , m_weights(std::make_unique<WeightCache>()) {
    qRegisterMetaType<pe::ComputeRequest>();
    qRegisterMetaType<pe::ComputeResult>();
    // A trace the views let go of after the idle release is freed as one returned before it
    // (by name: no data in the queued call; see the header).
    m_recycler->setOnReturnWhileIdle(
        [this] { QMetaObject::invokeMethod(this, "releaseReturned", Qt::QueuedConnection); });
}

ComputeWorker::~ComputeWorker() {
    // Traces still shown may come back to the recycler (which they keep alive) later: they
    // call nothing here any more.
    m_recycler->setOnReturnWhileIdle({});
    // Runs in the worker's thread after the controller's last post/supersede/takeResults; Qt's
    // thread quit orders them already, and taking the mailbox lock shows that order to
    // ThreadSanitizer too.
    const std::lock_guard lock(m_mailbox);
}

void ComputeWorker::releaseReturned() {
    releaseWhenIdle(m_latest.load());
}

std::uint64_t ComputeWorker::recycledBytes() const {
    return m_recycler->heldBytes();
}

int ComputeWorker::hardwareThreads() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void ComputeWorker::setMemoryBudget(std::shared_ptr<MemoryBudget> budget, std::string holder) {
    const std::lock_guard lock(m_mailbox);
    m_budget = std::move(budget);
    m_holder = std::move(holder);
}

void ComputeWorker::setMemoryBudget(std::uint64_t bytes) {
    const std::lock_guard lock(m_mailbox);
    m_budget = std::make_shared<MemoryBudget>(bytes);
}

QString PoolInfo::describe() const {
    if (!pooled)
        return {};
    const QString how =
        fullResolution() ? QStringLiteral("full resolution")
                         : (mode == PoolMode::Max ? QStringLiteral("max") : QStringLiteral("mean"));
    if (tile)
        return QStringLiteral("tile i %1\u2013%2 \u00d7 j %3\u2013%4, %5")
            .arg(region.r0)
            .arg(region.r1 - 1)
            .arg(region.c0)
            .arg(region.c1 - 1)
            .arg(fullResolution() ? how : QStringLiteral("pooled to %1, %2").arg(rows).arg(how));
    return QStringLiteral("pooled %1\u2192%2, %3").arg(seqLen).arg(rows).arg(how);
}

PoolInfo PoolInfo::whole(int seqLen, int cells, PoolMode mode) {
    PoolInfo info;
    info.pooled = true;
    info.mode = mode;
    info.region = PoolRegion{0, seqLen, 0, seqLen};
    info.seqLen = seqLen;
    info.rows = info.cols = cells;
    return info;
}

std::shared_ptr<const PositionView> positionsFor(const Params& p, const Weights& w) {
    PositionView view = positionView(p, w);
    // The Relative tab's maps come from the tables, O(heads · n): in pooled mode, which computes
    // no n × n relative matrix, and before the forward pass (the early part holds none).
    view.relative = std::make_shared<const RelativeTables>(relativeTables(p, w));
    return std::make_shared<const PositionView>(std::move(view));
}

void ComputeWorker::setPooling(int positions, int resolution, PoolMode mode) {
    m_poolThreshold.store(positions);
    m_poolResolution.store(std::clamp(resolution, 1, kMaxPoolResolution));
    m_poolMode.store(static_cast<int>(mode));
}

void ComputeWorker::supersede(quint64 generation) {
    // Order matters: the worker clears the flag before it compares generations, so a request
    // posted in between still cancels the run that follows the comparison.
    const std::lock_guard lock(m_mailbox); // (for ThreadSanitizer: see ~ComputeWorker)
    m_latest.store(generation);
    m_cancel.store(true);
}

void ComputeWorker::ensureBackend() {
    const auto want = static_cast<BackendKind>(m_requested.load());
    if (m_backend && m_createdFor == want)
        return;
    m_backend.reset(); // a GL backend releases its context before the next one is made
    m_backend = createBackend(want, &m_note, m_glSurface.load());
    m_createdFor = want;
    if (!m_note.isEmpty())
        qCInfo(lcWorker) << "backend fallback:" << m_note;
}

void ComputeWorker::post(const ComputeRequest& request) {
    {
        const std::lock_guard lock(m_mailbox);
        m_posted.push_back(request);
    }
    // By name: the queued call is made inside Qt, with none of our data in it (see the header).
    QMetaObject::invokeMethod(this, "processPosted", Qt::QueuedConnection);
}

void ComputeWorker::processPosted() {
    std::optional<ComputeRequest> request;
    {
        const std::lock_guard lock(m_mailbox);
        if (m_posted.empty())
            return;
        request = std::move(m_posted.front());
        m_posted.pop_front();
    }
    process(*request);
}

void ComputeWorker::deliver(ComputeResult result) {
    {
        const std::lock_guard lock(m_mailbox);
        m_done.push_back(std::move(result));
    }
    Q_EMIT resultsReady();
}

std::vector<ComputeResult> ComputeWorker::takeResults() {
    const std::lock_guard lock(m_mailbox);
    return std::exchange(m_done, {});
}

void ComputeWorker::process(const ComputeRequest& request) {
    m_cancel.store(false);
    if (request.generation != m_latest.load())
        return; // a newer request is queued behind this one
    if (QThread::currentThread()->isInterruptionRequested())
        return;
    Q_EMIT started(request.generation);
    // Whatever becomes of the request (a result, an error, a refusal), an idle worker frees what
    // it keeps: after a refused change the last result's timer, which sees a newer request,
    // left the engines' buffers and the recycled traces held until the next computation.
    const auto releaseLater =
        qScopeGuard([this, generation = request.generation] { releaseWhenIdle(generation); });

    QElapsedTimer timer;
    timer.start();
    ComputeResult result;
    result.generation = request.generation;
    result.params = request.params;
    result.weights = describeWeights(request.input, request.params.seed);

    const Params& p = request.params;
    if (Status st = validate(p); !st) {
        result.error = QString::fromStdString(st.error().message);
        result.computeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        deliver(std::move(result));
        return;
    }
    // Pooled mode: long sequences, traces beyond the budget, and tiles.
    PoolRequest pool;
    pool.resolution = m_poolResolution.load();
    pool.mode = static_cast<PoolMode>(m_poolMode.load());
    pool.hasTile = request.tile;
    pool.tile = request.region;
    // Reserved before anything is allocated, in the budget the other workers share; the
    // reservation lives as long as the result's trace.
    std::shared_ptr<MemoryBudget> budget;
    std::string holder;
    {
        const std::lock_guard lock(m_mailbox);
        budget = m_budget;
        holder = m_holder;
    }
    // The weights count too: the learned table is drawn at its full P_max rows whatever n is.
    const std::uint64_t weightBytes = estimateWeightBytes(p);
    const std::uint64_t fullBytes = estimateTraceBytes(p) + weightBytes;
    const std::uint64_t pooledBytes =
        estimatePooledBytes(p, pool.resolution, hardwareThreads()) + weightBytes;
    // A full trace that does not fit is pooled where that needs less (not for short n).
    const bool pooled = request.tile || p.seqLen() > m_poolThreshold.load() ||
                        (fullBytes > budget->availableTo(holder) && pooledBytes < fullBytes);
    const std::uint64_t need = pooled ? pooledBytes : fullBytes;
    Expected<MemoryBudget::Reservation> reserved = budget->reserve(holder, need);
    if (!reserved) {
        result.error = QStringLiteral("n = %1 with %2 heads needs about %3 for the trace and its "
                                      "weights, %4: lower n or the number of heads (or d, or the "
                                      "learned table's rows)")
                           .arg(p.seqLen())
                           .arg(p.heads)
                           .arg(QString::fromStdString(formatGigabytes(need)))
                           .arg(QString::fromStdString(reserved.error().message));
        result.refusedBytes = need;
        deliver(std::move(result));
        return;
    }
    ensureBackend();
    if (m_backend)
        m_backend->setThreads(m_threads.load());
#ifdef PE_HAVE_FAST_CPU
    if (auto* fast = dynamic_cast<CpuFastBackend*>(m_backend.get())) {
        // With an early part (deliverEarly), the window draws it while the forward pass runs,
        // and that part is all its tab shows: a short pass leaves it a core (on two cores, three
        // threads slowed the drawing by half); the early part itself runs on all of them. A long
        // pass (pooled mode, n = 2048 at d = 256) keeps every core: its drawing is a small part
        // of its time, and on two cores one thread fewer delayed the whole result by 100 ms.
        const bool leaveACore = request.early != EarlyPart::None && !request.tile && !pooled &&
                                p.precision == Precision::Float32 &&
                                CpuFastBackend::forwardFlops(p) < kShortPassFlops;
        fast->setForwardThreads(leaveACore ? std::max(1, fast->threads() - 1) : 0);
        fast->setStopAtWeights(request.extent != TraceExtent::Whole);
        fast->setWeightsAlone(request.extent == TraceExtent::WeightsAlone);
        fast->setOnlyHead(request.head); // the engine makes every head of a whole pass
    }
#endif
    result.backend = m_backend ? m_backend->name() : QString();
    result.device = m_backend ? m_backend->device() : QString();
    result.backendNote = m_note;
    if (!m_backend) {
        result.error = QStringLiteral("no compute backend available");
        deliver(std::move(result));
        return;
    }

    // Traces the views have let go of lend their buffers to this computation.
    for (Trace& old : m_recycler->take()) {
#ifdef PE_HAVE_FAST_CPU
        if (auto* fast = dynamic_cast<CpuFastBackend*>(m_backend.get()))
            fast->recycle(std::move(old));
#endif
        (void)old;
    }
    const std::vector<std::string> tokens = inputTokens(request.input, p.n);
    Weights w;
    if (m_embedded.tokens != tokens || m_embedded.d != p.d || m_embedded.seed != p.seed ||
        m_embedded.E.size() == 0)
        m_embedded = {tokens, p.d, p.seed, inputEmbeddings(p, tokens)};
    const bool trained =
        request.input.weights == WeightsKind::Trained && request.input.trained != nullptr;
    if (trained) {
        // A trained layer: its tensors as given (completeWeights keeps them); its E, the layer's
        // input, only where it has one row per input token.
        w = *request.input.trained;
        if (w.E.rows() != m_embedded.E.rows() || w.E.cols() != m_embedded.E.cols())
            w.E = m_embedded.E;
    } else {
        // Lent to this computation, taken back after it (as the cached weights are): an
        // [n, d] copy per change saved.
        w.E = std::move(m_embedded.E);
    }
    if (request.input.weights == WeightsKind::Identity) {
        // Given tensors are kept by completeWeights and never cached: the random ones stay
        // keyed on (name, seed, width) alone.
        for (Eigen::MatrixXd* m : {&w.W_q, &w.W_k, &w.W_v, &w.W_o})
            *m = Eigen::MatrixXd::Identity(p.d, p.d);
    }
    m_weights->complete(p, w);
    // What the Encoding tab shows in place of P (small: O(n + tables)); computed once, for the
    // early result and the whole one.
    std::shared_ptr<const PositionView> positions;
    if (!request.tile)
        positions = positionsFor(p, w);
    if (request.early != EarlyPart::None && !request.tile)
        deliverEarly(request, w, tokens, pooled, positions, result);
    Expected<Trace> t = Error{"not computed"};
    const qint64 engineStart = timer.nsecsElapsed();
    bool pooledByFastEngine = false; // a whole pooled trace with Q and K a tile may borrow
    if (pooled) {
        // The reference engine would build the full trace first: stream on the fast one.
        Backend* engine = m_backend.get();
        if (engine->kind() == BackendKind::CpuReference) {
            if (!m_streaming)
                m_streaming = createBackend(BackendKind::CpuFast);
            m_streaming->setThreads(m_threads.load());
            engine = m_streaming.get();
            result.device = engine->device();
        }
        // A zoom tile of the shown pooled trace borrows its Q and K: the same parameters and
        // input give the same weights (WeightCache, m_embedded), so the tile computes no inputs
        // and projects no key again (at n = 16,384, half of its time).
        std::shared_ptr<const Trace> lent;
#ifdef PE_HAVE_FAST_CPU
        auto* fastEngine = dynamic_cast<CpuFastBackend*>(engine);
        pooledByFastEngine = fastEngine != nullptr && !request.tile;
        if (fastEngine && request.tile && m_pooledShown.input == request.input &&
            (lent = m_pooledShown.trace.lock()) && lent->params == p) {
            fastEngine->lendProjections(lent);
            ++m_tilesBorrowing;
        }
#endif
        Expected<PooledTrace> pt = engine->computePooled(p, w, pool, &m_cancel);
        if (pt) {
            Trace trace = std::move(pt->trace);
            trace.params = p;
            if (!request.tile && !trace.find("out") && !pt->out.empty())
                trace.tensors.emplace_back("out", std::move(pt->out));
            result.pool.pooled = true;
            result.pool.tile = request.tile;
            result.pool.mode = pt->mode;
            result.pool.region = pt->region;
            result.pool.seqLen = p.seqLen();
            result.pool.rows = static_cast<int>(pt->logits.dim(1));
            result.pool.cols = static_cast<int>(pt->logits.dim(2));
            trace.tensors.emplace_back("logits", std::move(pt->logits));
            trace.tensors.emplace_back("weights", std::move(pt->weights));
            t = std::move(trace);
        } else {
            t = pt.error();
        }
    } else {
        t = m_backend->compute(p, w, &m_cancel);
        if (QString why = m_backend->lastFallbackReason(); !why.isEmpty()) {
            result.backend = QStringLiteral("cpu"); // what actually ran (float64 on GL, say)
            result.device.clear();
            result.backendNote = why;
        }
    }
    result.computeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    result.engineMs = static_cast<double>(timer.nsecsElapsed() - engineStart) / 1e6;
    const bool splitsTerms = isAbsolute(p.scheme) && !pooled;
    if (!t || !splitsTerms)
        m_queryKey = {}; // kept for the next absolute request, not beyond (2·d² doubles)
    if (!t) {
        result.error = QString::fromStdString(t.error().message);
    } else {
        Trace trace = std::move(t).value();
        trace.tokens = sequenceLabels(p, tokens);
        // W_q and W_k, which split an absolute scheme's logits into its four terms (the Logit
        // terms tab and the stepper); not for pooled traces, whose terms are not shown.
        if (splitsTerms)
            trace.queryKey =
                queryKeyOf(p, w, !trained && request.input.weights == WeightsKind::Random);
        // The trace owns the reservation: the bytes return to the budget when the views let
        // go of it.
        struct Held {
            MemoryBudget::Reservation reservation;
            std::shared_ptr<const Trace> trace;
        };
        auto held = std::make_shared<Held>(
            Held{std::move(reserved).value(), m_recycler->share(std::move(trace))});
        result.trace = std::shared_ptr<const Trace>(held, held->trace.get());
        result.positions = positions;
        if (pooledByFastEngine)
            m_pooledShown = {result.trace, request.input};
    }
    if (!request.tile && !pooledByFastEngine)
        m_pooledShown = {}; // the views show another trace now (or will)
    m_weights->giveBack(w);
    if (!trained)
        m_embedded.E = std::move(w.E);
    noteEngineHeld();
    const bool ok = result.error.isEmpty();
    deliver(std::move(result));
    if (ok)
        prepareNeighbourSeeds(p, request.generation);
}

void ComputeWorker::deliverEarly(const ComputeRequest& request, const Weights& w,
                                 const std::vector<std::string>& tokens, bool pooled,
                                 const std::shared_ptr<const PositionView>& positions,
                                 const ComputeResult& whole) {
    const Params& p = request.params;
    // No n × n relative matrix: the Relative tab draws its maps from the tables by offset
    // (PositionView::relative); the forward pass computes the trace's own.
    std::optional<Trace> inputs = m_backend->computeInputs(p, w);
    if (!inputs)
        return;
    inputs->tokens = sequenceLabels(p, tokens);
    ComputeResult early;
    early.generation = request.generation;
    early.early = request.early;
    early.params = p;
    early.trace = m_recycler->share(std::move(*inputs)); // its buffers come back, too
    early.positions = positions;
    early.weights = whole.weights;
    early.backend = whole.backend;
    early.device = whole.device;
    early.backendNote = whole.backendNote;
    if (pooled) // what the whole result will be: its views say so
        early.pool = PoolInfo::whole(p.seqLen(), std::min(p.seqLen(), m_poolResolution.load()),
                                     static_cast<PoolMode>(m_poolMode.load()));
    deliver(std::move(early));
}

std::shared_ptr<const QueryKeyWeights> ComputeWorker::queryKeyOf(const Params& p, const Weights& w,
                                                                 bool seeded) {
    QueryKeyKept& kept = m_queryKey;
    if (seeded && kept.weights && kept.seeded && kept.seed == p.seed &&
        kept.weights->wq.rows() == p.d)
        return kept.weights; // the same draw: no 2·d² copy per change
    kept.weights = std::make_shared<const QueryKeyWeights>(QueryKeyWeights{w.W_q, w.W_k});
    kept.seeded = seeded;
    kept.seed = p.seed;
    return kept.weights;
}

void ComputeWorker::noteEngineHeld() {
    std::uint64_t bytes = 0;
    for (const Backend* b : {m_backend.get(), m_streaming.get()})
        if (b)
            bytes += b->heldBytes();
    m_engineHeld.store(bytes);
}

void ComputeWorker::releaseWhenIdle(quint64 generation) {
    QTimer::singleShot(kIdleReleaseMs, this, [this, generation] {
        if (m_latest.load() != generation)
            return;             // a newer request came: its own timer decides
        m_recycler->takeIdle(); // freed here
        for (Backend* b : {m_backend.get(), m_streaming.get()})
            if (b)
                b->releaseIdleMemory();
        noteEngineHeld();
    });
}

void ComputeWorker::prepareNeighbourSeeds(const Params& p, quint64 generation) {
    // Tensors up to a d = 512 weight matrix (about 3 ms: a newer request waits at most for the
    // one being drawn). After 30 ms, so as not to compete with the window drawing the result.
    constexpr int kDelayMs = 30;
    QTimer::singleShot(kDelayMs, this, [this, p, generation] {
        const auto superseded = [this, generation] {
            return m_latest.load() != generation || m_cancel.load();
        };
        if (!superseded())
            m_weights->prepareNeighbourSeeds(p, superseded);
    });
}

ComputeController::ComputeController(BackendKind kind, QObject* parent)
    : QObject(parent)
    , m_worker(new ComputeWorker(kind)) {
    m_thread.setObjectName(QStringLiteral("pe-compute"));
    if (kind == BackendKind::OpenGL)
        prepareGlSurface();
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Below the GUI thread, from its first instruction (on the new thread: started() is emitted
    // there), so that every thread it starts inherits that.
    connect(
        &m_thread, &QThread::started, m_worker,
        [] { lowerCallingThreadPriority(kComputeNiceSteps); }, Qt::DirectConnection);
    connect(
        m_worker, &ComputeWorker::resultsReady, this,
        [this] {
            for (const ComputeResult& r : m_worker->takeResults())
                onFinished(r);
        },
        Qt::QueuedConnection);
    m_thread.start();
}

ComputeController::~ComputeController() {
    m_worker->supersede(++m_generation); // cancel the running computation
    m_thread.requestInterruption();
    m_thread.quit();
    m_thread.wait();
}

quint64 ComputeController::submitTile(const Params& p, const InputChoice& in, PoolRegion region) {
    return post(ComputeRequest{++m_generation, p, in, true, region});
}

quint64 ComputeController::submit(const Params& p, const InputChoice& in, EarlyPart early,
                                  TraceExtent extent, int head) {
    return post(ComputeRequest{++m_generation, p, in, false, {}, early, extent, head});
}

quint64 ComputeController::post(const ComputeRequest& req) {
    m_tile = req.tile;
    m_worker->supersede(req.generation);
    m_worker->post(req);
    setBusy(true);
    return req.generation;
}

void ComputeController::setBackendKind(BackendKind kind) {
    if (kind == BackendKind::OpenGL)
        prepareGlSurface();
    m_worker->setBackendKind(kind);
}

void ComputeController::prepareGlSurface() {
    if (m_glSurface)
        return;
    // Only a GUI thread with a real window system can make the surface; headless processes (and
    // the offscreen platform, which has no GL) use the backend's raw EGL context instead.
    auto* app = qobject_cast<QGuiApplication*>(QCoreApplication::instance());
    if (!app || QThread::currentThread() != app->thread())
        return;
    const QString platform = QGuiApplication::platformName();
    if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
        return;
    auto surface = std::make_unique<QOffscreenSurface>();
    surface->setFormat(openGlComputeFormat());
    surface->create();
    if (!surface->isValid())
        return;
    m_glSurface = std::move(surface);
    m_worker->setGlSurface(m_glSurface.get());
}

void ComputeController::cancel() {
    m_worker->supersede(++m_generation);
    setBusy(false);
}

void ComputeController::onFinished(const ComputeResult& r) {
    if (r.generation != m_generation) {
        ++m_dropped;
        return;
    }
    if (r.early != EarlyPart::None) { // still busy: the whole result follows
        Q_EMIT earlyResultReady(r);
        return;
    }
    setBusy(false);
    if (!r.error.isEmpty())
        Q_EMIT computeFailed(r.error);
    Q_EMIT resultReady(r);
}

void ComputeController::setBusy(bool b) {
    if (b == m_busy)
        return;
    m_busy = b;
    Q_EMIT busyChanged(b);
}

} // namespace pe
