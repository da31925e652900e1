// SPDX-License-Identifier: MIT
#pragma once

/**
 * The insights pages (core's insights.h) off the GUI thread: a sibling of ComputeWorker with the
 * same contract. The newest request wins (posting raises the cancel flag the running page polls,
 * queued older requests are skipped, stale results are dropped); progress (layers, heads, measured
 * n) is published through atomics and a wake-up signal; results travel through a mutex mailbox.
 */

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "insights.h"
#include "insights_engine.h"
#include "memory_budget.h"
#include "params.h"
#include "sample_input.h"

namespace pe {

class Backend;

/** The options of the pages besides the parameters (the page controls). */
struct InsightSettings {
    int delta = 1;        ///< offset: δ
    int kernel = 3;       ///< cost: the CNN's kernel k
    int costNMax = 16384; ///< cost: rows n = 1, 2, 4, … up to this
    bool measure = false; ///< cost: time this machine's attention layer
    int measureNMax = 16384;
    DepthOptions depth; ///< depth: L, residual, norm, MLP

    bool operator==(const InsightSettings& o) const {
        return delta == o.delta && kernel == o.kernel && costNMax == o.costNMax &&
               measure == o.measure && measureNMax == o.measureNMax &&
               depth.layers == o.depth.layers && depth.residual == o.depth.residual &&
               depth.norm == o.depth.norm && depth.mlp == o.depth.mlp;
    }
};

/** What one page needs: the page, the parameters, the page options. */
struct InsightRequest {
    quint64 generation = 0;
    InsightPage page = InsightPage::Binary;
    Params params;
    InputChoice input;
    InsightSettings settings;
};

/** One page's numbers (exactly the member of `page` is set), or an error. */
struct InsightResult {
    quint64 generation = 0;
    InsightPage page = InsightPage::Binary;
    Params params;
    InsightSettings settings;
    QString error;        ///< empty on success
    double computeMs = 0; ///< wall-clock time of the page
    std::shared_ptr<const BinaryInsight> binary;
    std::shared_ptr<const OffsetInsight> offset;
    std::shared_ptr<const CostInsight> cost;
    std::shared_ptr<const CostMeasurement> measured; ///< cost with settings.measure
    std::shared_ptr<const DistanceInsight> distance;
    /** Distance page: the same profile for every scheme (same sizes, input and projections, n
     *  at most kEveryHeadsPositions), for the overlay; schemes these options exclude are absent. */
    std::vector<std::shared_ptr<const DistanceInsight>> distanceEveryScheme;
    std::shared_ptr<const DepthInsight> depth;
    bool ok() const { return error.isEmpty(); }
};

/** Input tokens of the distance page's every-scheme overlay, at most (a full trace each). */
inline constexpr int kEverySchemePositions = 256;

/** The name the Insights tab's computations hold their memory under (MemoryBudget). */
inline constexpr const char* kInsightsMemoryHolder = "the Insights tab's computation";

/**
 * Weights [E from the input's tokens, W as InputChoice says] before completeWeights, for the
 * pages that compute with them (offset, distance, depth). The binary and cost pages use none:
 * they get no E (at n = 16,384 and d = 4,096 it would be 512 MB of normal variates, drawn and
 * held for nothing while the page computes).
 */
Weights insightWeights(InsightPage page, const Params& p, const InputChoice& in);

/**
 * Computes one page synchronously (the worker's thread, or pe-explorer-cli render). `w` holds
 * the given tensors (missing ones come from p.seed); `engine` runs the layers of distance and
 * depth (null: the core's reference computeTrace). Pages that hold full [heads, N, N] traces
 * (distance, depth) first reserve estimateTraceBytes in `budget` as `holder`, for as long as
 * the page computes, and are refused with a message naming what holds the memory when that
 * does not fit (null: no budget).
 */
InsightResult computeInsight(const InsightRequest& request, Weights w, Backend* engine,
                             const InsightProgress& progress = {},
                             const std::atomic<bool>* cancel = nullptr,
                             MemoryBudget* budget = nullptr,
                             const std::string& holder = kInsightsMemoryHolder);

class InsightsWorker : public QObject {
    Q_OBJECT
public:
    InsightsWorker();
    ~InsightsWorker() override;

    /** Thread-safe: marks `generation` as the newest and cancels whatever runs now. */
    void supersede(quint64 generation);
    /** Thread-safe: queues `request` for the worker's thread (see ComputeWorker::post). */
    void post(const InsightRequest& request);
    /** Thread-safe: the results finished since the last call, oldest first. */
    std::vector<InsightResult> takeResults();
    /** Thread-safe: the running request's progress (generation, steps done, steps in all). */
    void progress(quint64* generation, int* done, int* total) const;
    /** Thread-safe: the budget the pages reserve in (by default the process's MemoryBudget). */
    void setMemoryBudget(std::shared_ptr<MemoryBudget> budget);
    /** Thread-safe: a budget of `bytes` of this worker's own, shared with no other (tests). */
    void setMemoryBudget(std::uint64_t bytes);

Q_SIGNALS:
    void resultsReady();
    void progressed();

private:
    Q_INVOKABLE void processPosted();
    void process(const InsightRequest& request);

    std::mutex m_mailbox;
    std::deque<InsightRequest> m_posted;
    std::vector<InsightResult> m_done;
    std::atomic<quint64> m_latest{0};
    std::atomic<bool> m_cancel{false};
    std::atomic<quint64> m_progressGeneration{0};
    std::atomic<int> m_progressDone{0};
    std::atomic<int> m_progressTotal{0};
    std::shared_ptr<MemoryBudget> m_budget; ///< guarded by m_mailbox
    std::unique_ptr<Backend> m_engine;      ///< the fast CPU engine, made in the worker's thread
};

/**
 * Owns an InsightsWorker and its thread; lives in the GUI thread. submit() never blocks; only the
 * newest result reaches resultReady().
 */
class InsightsController : public QObject {
    Q_OBJECT
public:
    explicit InsightsController(QObject* parent = nullptr);
    ~InsightsController() override;

    quint64 submit(InsightPage page, const Params& p, const InputChoice& in,
                   const InsightSettings& s);
    /** Cancels the running page (its result is dropped). */
    void cancel();
    bool busy() const { return m_busy; }
    quint64 generation() const { return m_generation; }
    void setMemoryBudget(std::shared_ptr<MemoryBudget> budget) {
        m_worker->setMemoryBudget(std::move(budget));
    }
    void setMemoryBudget(std::uint64_t bytes) { m_worker->setMemoryBudget(bytes); }

Q_SIGNALS:
    void busyChanged(bool busy);
    /** Steps of the newest request: layers (depth), heads (distance), n values (measure). */
    void progressChanged(int done, int total);
    void resultReady(const pe::InsightResult& result);

private:
    void setBusy(bool b);

    QThread m_thread;
    InsightsWorker* m_worker; ///< owned by m_thread's finished() → deleteLater
    quint64 m_generation = 0;
    bool m_busy = false;
};

} // namespace pe

Q_DECLARE_METATYPE(pe::InsightResult)
