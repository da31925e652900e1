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
#include <memory>

#include "backend.h"
#include "params.h"
#include "sample_input.h"
#include "trace.h"

namespace pe {

class TraceRecycler;
class WeightCache;

struct ComputeRequest {
    quint64 generation = 0;
    Params params;
    InputChoice input;
};

struct ComputeResult {
    quint64 generation = 0;
    std::shared_ptr<const Trace> trace; ///< null on error
    QString error;                      ///< empty on success
    double computeMs = 0;               ///< weights + embeddings + forward pass
    QString backend;                    ///< Backend::name()
    QString backendNote;                ///< why the requested backend was not used, if so
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
    /** Requests whose trace would exceed this many bytes are refused with a message. */
    void setMemoryBudget(std::uint64_t bytes) { m_budget.store(bytes); }
    /** A third of physical memory: room for the trace, the views and a comparison trace. */
    static std::uint64_t defaultMemoryBudget();

public Q_SLOTS:
    /** Runs in the worker's thread (queued). Skips the request if it is no longer the newest. */
    void process(const pe::ComputeRequest& request);

Q_SIGNALS:
    void started(quint64 generation);
    void finished(const pe::ComputeResult& result);

private:
    void ensureBackend();

    std::atomic<int> m_requested;
    BackendKind m_createdFor = BackendKind::CpuReference;
    std::unique_ptr<Backend> m_backend;
    QString m_note;
    std::atomic<quint64> m_latest{0};
    std::atomic<bool> m_cancel{false};
    std::atomic<std::uint64_t> m_budget{defaultMemoryBudget()};
    std::shared_ptr<TraceRecycler> m_recycler; ///< shown traces come back to the engine
    std::unique_ptr<WeightCache> m_weights;    ///< the last request's seeded weights
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

    /** Queues a computation; returns its generation number. */
    quint64 submit(const Params& p, const InputChoice& in);
    /** Cancels the running computation (its result is dropped). */
    void cancel();
    void setMemoryBudget(std::uint64_t bytes) { m_worker->setMemoryBudget(bytes); }
    /** Switches the engine; takes effect from the next request. */
    void setBackendKind(BackendKind kind) { m_worker->setBackendKind(kind); }

    bool busy() const { return m_busy; }
    quint64 generation() const { return m_generation; }
    int droppedResults() const { return m_dropped; }

Q_SIGNALS:
    void busyChanged(bool busy);
    void resultReady(const pe::ComputeResult& result);
    void computeFailed(const QString& message);

private:
    void onFinished(const pe::ComputeResult& r);
    void setBusy(bool b);

    QThread m_thread;
    ComputeWorker* m_worker; ///< owned by m_thread's finished() → deleteLater
    quint64 m_generation = 0;
    bool m_busy = false;
    int m_dropped = 0;
};

} // namespace pe

Q_DECLARE_METATYPE(pe::ComputeRequest)
Q_DECLARE_METATYPE(pe::ComputeResult)
