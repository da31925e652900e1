// SPDX-License-Identifier: MIT
// The fast CPU engine's pooled path: the n² pass streams row blocks of every head into
// PoolAccumulators, so no h × n × n buffer ever exists.
#include "cpu_fast_backend.h"

#include <algorithm>

namespace pe {

Expected<PooledTrace> CpuFastBackend::computePooled(const Params& p, const Weights& w,
                                                    const PoolRequest& request,
                                                    const std::atomic<bool>* cancel) {
    if (Status s = validate(p); !s)
        return s.error();
    const int N = p.seqLen();
    if (Status s = validatePoolRequest(request, N); !s)
        return s.error();
    if (p.precision != Precision::Float32) // float64 runs the reference path in full
        return Backend::computePooled(p, w, request, cancel);

    PooledTrace pt;
    pt.region = poolRegion(request, N);
    pt.mode = request.mode;
    pt.resolution = std::min(request.resolution, std::max(pt.region.rows(), pt.region.cols()));
    PoolAccumulator logits(p.heads, pt.region, request.resolution, request.mode);
    PoolAccumulator weights(p.heads, pt.region, request.resolution, request.mode);
    cpu::RowSink sink;
    sink.rowBegin = pt.region.r0;
    sink.rowEnd = pt.region.r1;
    sink.rows = [&](int h, int i0, int rows, const float* lg, const float* wt) {
        logits.addRows(h, i0, rows, lg, N);
        weights.addRows(h, i0, rows, wt, N);
    };
    Expected<Trace> t = run(p, w, cancel, &sink);
    if (!t)
        return t.error();
    pt.logits = logits.result();
    pt.weights = weights.result();
    pt.trace.params = p;
    pt.trace.tokens = t->tokens;
    if (!request.hasTile) { // a tile computes only its rows: its head_out and out are partial
        const std::vector<std::string> keep = pooledTraceTensorNames(p);
        for (auto& [name, x] : t->tensors)
            if (std::find(keep.begin(), keep.end(), name) != keep.end())
                pt.trace.tensors.emplace_back(name, std::move(x));
        if (const Tensor* o = pt.trace.find("out"))
            pt.out = *o;
    }
    return pt;
}

} // namespace pe
