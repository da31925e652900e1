// SPDX-License-Identifier: MIT
#include "compute_worker.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QMetaObject>

#include <unistd.h>

#include "trace_recycler.h"
#include "weight_cache.h"
#include "weights.h"

#ifdef PE_HAVE_FAST_CPU
#include "cpu_fast_backend.h"
#endif

Q_LOGGING_CATEGORY(lcWorker, "pe.worker")

namespace pe {

ComputeWorker::ComputeWorker(BackendKind kind, QObject* parent)
    : QObject(parent)
    , m_requested(static_cast<int>(kind))
    , m_recycler(TraceRecycler::create())
    , m_weights(std::make_unique<WeightCache>()) {
    qRegisterMetaType<pe::ComputeRequest>();
    qRegisterMetaType<pe::ComputeResult>();
}

ComputeWorker::~ComputeWorker() = default;

std::uint64_t ComputeWorker::defaultMemoryBudget() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0)
        return std::uint64_t{4} << 30;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 3;
}

void ComputeWorker::supersede(quint64 generation) {
    // Order matters: the worker clears the flag before it compares generations, so a request
    // posted in between still cancels the run that follows the comparison.
    m_latest.store(generation);
    m_cancel.store(true);
}

void ComputeWorker::ensureBackend() {
    const auto want = static_cast<BackendKind>(m_requested.load());
    if (m_backend && m_createdFor == want)
        return;
    m_backend.reset(); // a GL backend releases its context before the next one is made
    m_backend = createBackend(want, &m_note);
    m_createdFor = want;
    if (!m_note.isEmpty())
        qCInfo(lcWorker) << "backend fallback:" << m_note;
}

void ComputeWorker::process(const ComputeRequest& request) {
    m_cancel.store(false);
    if (request.generation != m_latest.load())
        return; // a newer request is queued behind this one
    if (QThread::currentThread()->isInterruptionRequested())
        return;
    Q_EMIT started(request.generation);

    QElapsedTimer timer;
    timer.start();
    ComputeResult result;
    result.generation = request.generation;

    const Params& p = request.params;
    if (Status st = validate(p); !st) {
        result.error = QString::fromStdString(st.error().message);
        result.computeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        Q_EMIT finished(result);
        return;
    }
    if (const std::uint64_t need = estimateTraceBytes(p); need > m_budget.load()) {
        result.error = QStringLiteral("n = %1 with %2 heads needs about %3 GB for the trace, more "
                                      "than the %4 GB allowed: lower n or the number of heads")
                           .arg(p.seqLen())
                           .arg(p.heads)
                           .arg(static_cast<double>(need) / 1e9, 0, 'f', 1)
                           .arg(static_cast<double>(m_budget.load()) / 1e9, 0, 'f', 1);
        Q_EMIT finished(result);
        return;
    }
    ensureBackend();
    result.backend = m_backend ? m_backend->name() : QString();
    result.backendNote = m_note;
    if (!m_backend) {
        result.error = QStringLiteral("no compute backend available");
        Q_EMIT finished(result);
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
    w.E = inputEmbeddings(p, tokens);
    m_weights->complete(p, w);
    Expected<Trace> t = m_backend->compute(p, w, &m_cancel);
    result.computeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    if (!t) {
        result.error = QString::fromStdString(t.error().message);
    } else {
        Trace trace = std::move(t).value();
        trace.tokens = sequenceLabels(p, tokens);
        result.trace = m_recycler->share(std::move(trace));
    }
    Q_EMIT finished(result);
}

ComputeController::ComputeController(BackendKind kind, QObject* parent)
    : QObject(parent)
    , m_worker(new ComputeWorker(kind)) {
    m_thread.setObjectName(QStringLiteral("pe-compute"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ComputeWorker::finished, this, &ComputeController::onFinished,
            Qt::QueuedConnection);
    m_thread.start();
}

ComputeController::~ComputeController() {
    m_worker->supersede(++m_generation); // cancel the running computation
    m_thread.requestInterruption();
    m_thread.quit();
    m_thread.wait();
}

quint64 ComputeController::submit(const Params& p, const InputChoice& in) {
    ComputeRequest req{++m_generation, p, in};
    m_worker->supersede(req.generation);
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, req] { w->process(req); }, Qt::QueuedConnection);
    setBusy(true);
    return req.generation;
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
