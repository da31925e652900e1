// SPDX-License-Identifier: MIT
#include "insights_worker.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include <utility>

#include "backend.h"
#include "trace.h"

namespace pe {

Weights insightWeights(InsightPage page, const Params& p, const InputChoice& in) {
    Weights w;
    if (page == InsightPage::Binary || page == InsightPage::Cost)
        return w;
    // As ComputeWorker: the tokens cycled to n and embedded; identity or trained projections.
    w.E = inputEmbeddings(p, inputTokens(in, p.n));
    if (in.weights == WeightsKind::Identity) {
        for (Eigen::MatrixXd* m : {&w.W_q, &w.W_k, &w.W_v, &w.W_o})
            *m = Eigen::MatrixXd::Identity(p.d, p.d);
    } else if (in.weights == WeightsKind::Trained && in.trained) {
        const Eigen::MatrixXd e = std::move(w.E);
        w = *in.trained;
        if (w.E.rows() != e.rows() || w.E.cols() != e.cols())
            w.E = e;
    }
    return w;
}

namespace {

template <typename T> std::shared_ptr<const T> share(T&& value) {
    return std::make_shared<const T>(std::forward<T>(value));
}

QString fromStd(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

InsightResult computeInsight(const InsightRequest& request, Weights w, Backend* engine,
                             const InsightProgress& progress, const std::atomic<bool>* cancel,
                             MemoryBudget* budget, const std::string& holder) {
    QElapsedTimer timer;
    timer.start();
    InsightResult r;
    r.generation = request.generation;
    r.page = request.page;
    r.params = request.params;
    r.settings = request.settings;
    const Params& p = request.params;
    const InsightSettings& s = request.settings;
    const LayerForward forward = engine ? backendLayerForward(*engine) : referenceLayerForward();
    auto fail = [&r](const std::string& message) { r.error = fromStd(message); };

    if (Status st = validate(p); !st) {
        fail(st.error().message);
        return r;
    }
    const bool fullTraces =
        request.page == InsightPage::Distance || request.page == InsightPage::Depth;
    // Held while the page computes: its results are profiles and statistics, O(n).
    MemoryBudget::Reservation reservation;
    if (const std::uint64_t need = estimateTraceBytes(p); fullTraces && budget) {
        Expected<MemoryBudget::Reservation> reserved = budget->reserve(holder, need);
        if (!reserved) {
            r.error = QStringLiteral("the %1 page holds every head's n\u00d7n weights: n = %2 with "
                                     "%3 heads needs about %4, %5; lower n or the number of "
                                     "heads")
                          .arg(fromStd(std::string(toString(request.page))))
                          .arg(p.seqLen())
                          .arg(p.heads)
                          .arg(fromStd(formatGigabytes(need)))
                          .arg(fromStd(reserved.error().message));
            return r;
        }
        reservation = std::move(reserved).value();
    }
    switch (request.page) {
    case InsightPage::Binary: {
        auto b = binaryInsight(p);
        b ? void(r.binary = share(std::move(b).value())) : fail(b.error().message);
        break;
    }
    case InsightPage::Offset: {
        if (!offsetApplies(p)) {
            fail("scheme " + std::string(toString(p.scheme)) +
                 " has no position table P: it puts position into the logits, so there is no "
                 "P[i] to shift. The offset page applies to sinusoidal, learned, mlp and rope.");
            break;
        }
        completeWeights(p, w);
        auto o = offsetInsight(p, OffsetOptions{s.delta, {}}, &w, cancel);
        o ? void(r.offset = share(std::move(o).value())) : fail(o.error().message);
        break;
    }
    case InsightPage::Cost: {
        auto c = costInsight(p, CostOptions{s.kernel, s.costNMax});
        if (!c) {
            fail(c.error().message);
            break;
        }
        r.cost = share(std::move(c).value());
        if (s.measure) {
            CostMeasureOptions mo;
            mo.nMax = s.measureNMax;
            auto m = measureAttentionCost(p, mo, progress, cancel);
            m ? void(r.measured = share(std::move(m).value())) : fail(m.error().message);
        }
        break;
    }
    case InsightPage::Distance: {
        // What the overlay's traces share with the page's (its first kEverySchemePositions
        // tokens, the projections) as given, before completeWeights adds the scheme's own.
        Weights given;
        given.E = w.E.topRows(std::min<Eigen::Index>(w.E.rows(), kEverySchemePositions));
        for (auto m : {&Weights::W_q, &Weights::W_k, &Weights::W_v, &Weights::W_o})
            given.*m = w.*m;
        completeWeights(p, w);
        auto d = distanceInsight(p, &w, forward, progress, cancel);
        if (!d) {
            fail(d.error().message);
            break;
        }
        r.distance = share(std::move(d).value());
        // The overlay: every scheme on the same input and projections, n capped so that eleven
        // traces stay cheap. A scheme these options exclude (ALiBi's causal form without a
        // causal mask, say) is left out.
        for (Scheme s : allSchemes()) {
            Params q = p;
            q.scheme = s;
            q.n = std::min(p.n, kEverySchemePositions);
            if (s == Scheme::ALiBi && q.mask != MaskKind::Causal)
                q.alibiMode = AlibiMode::Symmetric;
            if (!validate(q))
                continue;
            Weights wq;
            if (given.E.rows() >= q.n)
                wq.E = given.E.topRows(q.n);
            for (auto m : {&Weights::W_q, &Weights::W_k, &Weights::W_v, &Weights::W_o})
                wq.*m = given.*m;
            if (s == p.scheme && q.n == p.n)
                wq = w; // the page's own scheme: exactly the main profile
            completeWeights(q, wq);
            if (cancel && cancel->load())
                break;
            auto e = distanceInsight(q, &wq, forward, {}, cancel);
            if (e)
                r.distanceEveryScheme.push_back(share(std::move(e).value()));
        }
        break;
    }
    case InsightPage::Depth: {
        completeWeights(p, w);
        auto d = depthInsight(p, s.depth, &w, forward, progress, cancel);
        d ? void(r.depth = share(std::move(d).value())) : fail(d.error().message);
        break;
    }
    }
    r.computeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return r;
}

InsightsWorker::InsightsWorker()
    : m_budget(MemoryBudget::process()) {
    qRegisterMetaType<pe::InsightResult>();
}

void InsightsWorker::setMemoryBudget(std::shared_ptr<MemoryBudget> budget) {
    const std::lock_guard lock(m_mailbox);
    m_budget = std::move(budget);
}

void InsightsWorker::setMemoryBudget(std::uint64_t bytes) {
    setMemoryBudget(std::make_shared<MemoryBudget>(bytes));
}

InsightsWorker::~InsightsWorker() {
    const std::lock_guard lock(m_mailbox); // orders the last hand-over (see ~ComputeWorker)
}

void InsightsWorker::supersede(quint64 generation) {
    const std::lock_guard lock(m_mailbox);
    m_latest.store(generation);
    m_cancel.store(true);
}

void InsightsWorker::post(const InsightRequest& request) {
    {
        const std::lock_guard lock(m_mailbox);
        m_posted.push_back(request);
    }
    QMetaObject::invokeMethod(this, "processPosted", Qt::QueuedConnection);
}

std::vector<InsightResult> InsightsWorker::takeResults() {
    const std::lock_guard lock(m_mailbox);
    return std::exchange(m_done, {});
}

void InsightsWorker::progress(quint64* generation, int* done, int* total) const {
    *generation = m_progressGeneration.load();
    *done = m_progressDone.load();
    *total = m_progressTotal.load();
}

void InsightsWorker::processPosted() {
    std::optional<InsightRequest> request;
    {
        const std::lock_guard lock(m_mailbox);
        if (m_posted.empty())
            return;
        request = std::move(m_posted.front());
        m_posted.pop_front();
    }
    process(*request);
}

void InsightsWorker::process(const InsightRequest& request) {
    m_cancel.store(false);
    if (request.generation != m_latest.load() ||
        QThread::currentThread()->isInterruptionRequested())
        return; // a newer request is queued behind this one
    if (!m_engine)
        m_engine = createBackend(BackendKind::CpuFast);
    m_progressTotal.store(0);
    m_progressDone.store(0);
    m_progressGeneration.store(request.generation);
    const InsightProgress progress = [this](int done, int total) {
        m_progressTotal.store(total);
        m_progressDone.store(done);
        Q_EMIT progressed();
    };
    std::shared_ptr<MemoryBudget> budget;
    {
        const std::lock_guard lock(m_mailbox);
        budget = m_budget;
    }
    InsightResult r =
        computeInsight(request, insightWeights(request.page, request.params, request.input),
                       m_engine.get(), progress, &m_cancel, budget.get());
    // An insight runs once per click: what the engine kept for a next computation (tables of
    // the longest length measured, recycled buffers) would only sit there until the next one.
    m_engine->releaseIdleMemory();
    {
        const std::lock_guard lock(m_mailbox);
        m_done.push_back(std::move(r));
    }
    Q_EMIT resultsReady();
}

InsightsController::InsightsController(QObject* parent)
    : QObject(parent)
    , m_worker(new InsightsWorker) {
    m_thread.setObjectName(QStringLiteral("pe-insights"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(
        m_worker, &InsightsWorker::resultsReady, this,
        [this] {
            for (const InsightResult& r : m_worker->takeResults()) {
                if (r.generation != m_generation)
                    continue; // stale
                setBusy(false);
                Q_EMIT resultReady(r);
            }
        },
        Qt::QueuedConnection);
    connect(
        m_worker, &InsightsWorker::progressed, this,
        [this] {
            quint64 g = 0;
            int done = 0, total = 0;
            m_worker->progress(&g, &done, &total);
            if (g == m_generation && m_busy)
                Q_EMIT progressChanged(done, total);
        },
        Qt::QueuedConnection);
    m_thread.start();
}

InsightsController::~InsightsController() {
    m_worker->supersede(++m_generation);
    m_thread.requestInterruption();
    m_thread.quit();
    m_thread.wait();
}

quint64 InsightsController::submit(InsightPage page, const Params& p, const InputChoice& in,
                                   const InsightSettings& s) {
    const InsightRequest req{++m_generation, page, p, in, s};
    m_worker->supersede(req.generation);
    m_worker->post(req);
    setBusy(true);
    return req.generation;
}

void InsightsController::cancel() {
    m_worker->supersede(++m_generation);
    setBusy(false);
}

void InsightsController::setBusy(bool b) {
    if (b == m_busy)
        return;
    m_busy = b;
    Q_EMIT busyChanged(b);
}

} // namespace pe
