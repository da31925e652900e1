// SPDX-License-Identifier: MIT
#include "backend.h"

#include <QSysInfo>

#include <algorithm>
#include <string>

namespace pe {

QString CpuReferenceBackend::device() const {
    return QStringLiteral("%1 (reference, 1 thread)").arg(QSysInfo::currentCpuArchitecture());
}

Expected<Trace> CpuReferenceBackend::compute(const Params& p, const Weights& w,
                                             const std::atomic<bool>* cancel) {
    return computeTrace(p, w, cancel);
}

Status validatePoolRequest(const PoolRequest& r, int seqLen) {
    if (r.resolution < 1 || r.resolution > kMaxPoolResolution)
        return Error{"--pool must be between 1 and " + std::to_string(kMaxPoolResolution) +
                     ", got " + std::to_string(r.resolution)};
    if (r.hasTile) {
        const PoolRegion& t = r.tile;
        if (t.r0 < 0 || t.c0 < 0 || t.r1 > seqLen || t.c1 > seqLen || t.r0 >= t.r1 || t.c0 >= t.c1)
            return Error{"pooled tile rows [" + std::to_string(t.r0) + ", " + std::to_string(t.r1) +
                         ") x columns [" + std::to_string(t.c0) + ", " + std::to_string(t.c1) +
                         ") is empty or outside [0, " + std::to_string(seqLen) + ")"};
    }
    return Status::success();
}

std::vector<std::string> pooledTraceTensorNames(const Params& p) {
    std::vector<std::string> names;
    for (const std::string& name : traceTensorNames(p))
        for (const char* keep : {"E", "P", "X", "Q", "K", "V", "head_out", "out"})
            if (name == keep)
                names.push_back(name);
    return names;
}

PoolRegion poolRegion(const PoolRequest& r, int seqLen) {
    return r.hasTile ? r.tile : PoolRegion{0, seqLen, 0, seqLen};
}

std::uint64_t estimatePooledBytes(const Params& p, int resolution, int threads) {
    const std::uint64_t N = static_cast<std::uint64_t>(std::max(p.seqLen(), 0));
    const std::uint64_t D = static_cast<std::uint64_t>(std::max(p.d, 0));
    const std::uint64_t H = static_cast<std::uint64_t>(std::max(p.heads, 1));
    const std::uint64_t R = std::min<std::uint64_t>(N, static_cast<std::uint64_t>(resolution));
    // Float64 is not streamed: the reference computes the whole trace, then pools it
    // (CpuFastBackend::computePooled), so the full trace is what must fit.
    if (p.precision == Precision::Float64)
        return estimateTraceBytes(p) + 2 * H * R * R * (8 + 8 + 8);
    const std::uint64_t f = 4;
    std::uint64_t bytes = 10 * N * D * f;   // E, P, X, Q, K, V, head_out, out + scratch
    bytes += 4 * D * D * f + 2 * N * D * 8; // weights (float and the double originals)
    // Per-offset bias / URPE tables, and the doubles they come from (relativeTables; the
    // window keeps them for its pooled Relative maps).
    bytes += 2 * H * (2 * N) * (f + 8);
    if (p.scheme == Scheme::TransformerXL) // R_t projected, q+u, q+v
        bytes += 2 * (2 * N) * D * f + 2 * N * D * f;
    if (p.scheme == Scheme::DeBERTa) // q·K_rᵀ and k·Q_rᵀ tables
        bytes += 2 * H * N * 2 * static_cast<std::uint64_t>(std::max(p.debertaSpan(), 1)) * f;
    if (p.scheme == Scheme::Shaw)
        bytes += H * N * (2 * static_cast<std::uint64_t>(std::max(p.clip, 0)) + 1) * f;
    bytes += static_cast<std::uint64_t>(std::max(threads, 1)) * 64 * (N + 128) * f * 4;
    bytes += 2 * H * R * R * f; // pooled cells: the results, written as their rows complete
    // Cell rows split between two blocks of rows wait as sums and counts (a few per thread).
    bytes += 2 * static_cast<std::uint64_t>(std::max(threads, 1)) * 4 * R * (8 + 4);
    return bytes;
}

Expected<PooledTrace> Backend::computePooled(const Params& p, const Weights& w,
                                             const PoolRequest& request,
                                             const std::atomic<bool>* cancel) {
    if (Status s = validatePoolRequest(request, p.seqLen()); !s)
        return s.error();
    Expected<Trace> full = compute(p, w, cancel);
    if (!full)
        return full.error();
    PooledTrace pt = startPooledTrace(request, p.seqLen());
    Trace& t = full.value();
    for (const char* name : {"logits", "weights"}) {
        const Tensor* x = t.find(name);
        if (!x)
            return Error{std::string("the trace has no ") + name};
        (std::string(name) == "logits" ? pt.logits : pt.weights) =
            poolHeads(*x, pt.region, request.resolution, request.mode);
    }
    adoptPooledTensors(request, std::move(t), pt);
    return pt;
}

PooledTrace startPooledTrace(const PoolRequest& r, int seqLen) {
    PooledTrace pt;
    pt.region = poolRegion(r, seqLen);
    pt.mode = r.mode;
    pt.resolution = std::min(r.resolution, std::max(pt.region.rows(), pt.region.cols()));
    return pt;
}

void adoptPooledTensors(const PoolRequest& r, Trace&& from, PooledTrace& to) {
    to.trace.params = from.params;
    to.trace.tokens = std::move(from.tokens);
    to.trace.onlyHead = from.onlyHead;
    if (r.hasTile) // a tile computes only its rows: its head_out and out are partial
        return;
    const std::vector<std::string> keep = pooledTraceTensorNames(from.params);
    for (auto& [name, x] : from.tensors)
        if (std::find(keep.begin(), keep.end(), name) != keep.end())
            to.trace.tensors.emplace_back(name, std::move(x));
    if (const Tensor* o = to.trace.find("out"))
        to.out = *o;
}

} // namespace pe
