// SPDX-License-Identifier: MIT
#include "insights_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace pe {

LayerForward backendLayerForward(Backend& backend) {
    return [&backend](const Params& p, const Weights& w, const std::atomic<bool>* cancel) {
        return backend.compute(p, w, cancel);
    };
}

Expected<CostMeasurement> measureAttentionCost(const Params& p, const CostMeasureOptions& o,
                                               const InsightProgress& progress,
                                               const std::atomic<bool>* cancel) {
    constexpr int kMaxMeasuredN = 65536;
    if (o.nMin < 2 || o.nMax < o.nMin || o.nMax > kMaxMeasuredN)
        return Error{"--n-max " + std::to_string(o.nMax) + " must be between " +
                     std::to_string(std::max(o.nMin, 2)) + " and " + std::to_string(kMaxMeasuredN) +
                     " for --measure"};
    if (o.repeats < 1)
        return Error{"repeats must be at least 1"};
    if (Status st = validate(p); !st)
        return st.error();

    std::vector<int> ns;
    for (int n = o.nMin; n <= o.nMax; n *= 2)
        ns.push_back(n);

    auto backend = createBackend(BackendKind::CpuFast);
    if (o.threads > 0)
        backend->setThreads(o.threads);
    CostMeasurement m;
    m.engine = backend->device();
    m.threads = o.threads;
    m.fitFrom = o.fitFrom;
    const int total = static_cast<int>(ns.size());
    for (int step = 0; step < total; ++step) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Error{"cancelled"};
        Params q = p;
        q.n = ns[static_cast<std::size_t>(step)];
        q.learnedRows = std::max(q.learnedRows, q.seqLen());
        if (q.validLen > q.seqLen())
            q.validLen = -1;
        if (Status st = validate(q); !st)
            return Error{"--n-max " + std::to_string(o.nMax) + ": at n = " + std::to_string(q.n) +
                         ", " + st.error().message};
        Weights w;
        completeWeights(q, w); // before the clock starts
        const bool pooled = q.seqLen() > o.pooledAbove;
        PoolRequest request;
        request.resolution = std::min(o.poolResolution, q.seqLen());
        double best = std::numeric_limits<double>::infinity();
        for (int rep = 0; rep < o.repeats; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            Status ok;
            if (pooled) {
                auto r = backend->computePooled(q, w, request, cancel);
                if (!r)
                    ok = r.error();
            } else {
                auto r = backend->compute(q, w, cancel);
                if (!r)
                    ok = r.error();
            }
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (!ok)
                return ok.error();
            best = std::min(best, ms);
        }
        m.n.push_back(q.n);
        m.ms.push_back(best);
        m.pooled.push_back(pooled);
        if (progress)
            progress(step + 1, total);
    }
    std::vector<double> x(m.n.begin(), m.n.end());
    m.exponent = fitPowerLawExponent(x, m.ms, o.fitFrom);
    return m;
}

} // namespace pe
