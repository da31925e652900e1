// SPDX-License-Identifier: MIT
// The fast CPU engine's pooled path: the n² pass streams row blocks of every head into
// PoolAccumulators, so no h × n × n buffer ever exists.
#include "cpu_fast_backend.h"

#include <utility>

namespace pe {

Expected<PooledTrace> CpuFastBackend::computePooled(const Params& p, const Weights& w,
                                                    const PoolRequest& request,
                                                    const std::atomic<bool>* cancel) {
    // Lent to this computation only, whatever becomes of it (lendProjections).
    const std::shared_ptr<const Trace> lent = std::exchange(m_lent, {});
    if (Status s = validate(p); !s)
        return s.error();
    const int N = p.seqLen();
    if (Status s = validatePoolRequest(request, N); !s)
        return s.error();
    if (p.precision != Precision::Float32) // float64 runs the reference path in full
        return Backend::computePooled(p, w, request, cancel);

    PooledTrace pt = startPooledTrace(request, N);
    // A tile carries its logits and weights alone: the value product would be thrown away.
    const bool toWeights = m_stopAtWeights || request.hasTile;
    const int heads = headAlone(p, toWeights) >= 0 ? 1 : p.heads; // setOnlyHead
    PoolAccumulator logits(heads, pt.region, request.resolution, request.mode);
    PoolAccumulator weights(heads, pt.region, request.resolution, request.mode);
    cpu::RowSink sink;
    sink.rowBegin = pt.region.r0;
    sink.rowEnd = pt.region.r1;
    sink.logitsPool = &logits;
    sink.weightsPool = &weights;
    Expected<Trace> t = run(p, w, cancel, &sink, toWeights, lent.get());
    if (!t)
        return t.error();
    pt.logits = logits.result();
    pt.weights = weights.result();
    adoptPooledTensors(request, std::move(t.value()), pt);
    return pt;
}

} // namespace pe
