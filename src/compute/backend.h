// SPDX-License-Identifier: MIT
#pragma once

/**
 * A compute engine behind one interface: the reference CPU path (core), the fast CPU engine and
 * the OpenGL compute backend all return the same Trace for the same Params and Weights.
 */

#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pooling.h"
#include "trace.h"

class QSurface;
class QSurfaceFormat;

namespace pe {

enum class BackendKind { CpuReference, CpuFast, OpenGL };

/**
 * What a pooled computation returns: the logits and weights of the region (the whole matrix, or
 * a tile) pooled to at most `resolution` cells per side; a tile no larger than that comes at full
 * resolution. The largest accepted resolution is kMaxPoolResolution.
 */
struct PoolRequest {
    int resolution = 1024;
    PoolMode mode = PoolMode::Mean;
    bool hasTile = false; ///< false: the whole [0, n) × [0, n)
    PoolRegion tile;      ///< positions, when hasTile
    bool operator==(const PoolRequest&) const = default;
};
inline constexpr int kMaxPoolResolution = 8192;

/**
 * Logits and weights of one forward pass pooled to [heads, R_r, R_c] (see pooling.h for bins,
 * masked entries and −inf cells), plus, for a whole-matrix request, `out` and, where the engine
 * provides them, the other O(n·d) tensors in `trace` (E, P, X, Q, K, V, head_out, out). A tile
 * carries only logits and weights; its trace has params and tokens but no tensors.
 */
struct PooledTrace {
    int resolution = 0; ///< the cap in force: min(n, requested) for a whole-matrix request
    PoolMode mode = PoolMode::Mean;
    PoolRegion region; ///< the pooled rectangle, in positions
    Tensor logits; ///< masked entries are skipped in a cell's mean; an all-masked cell is −inf
    Tensor weights;
    Tensor out;  ///< [n, d] (whole-matrix requests)
    Trace trace; ///< params, tokens and the O(n·d) tensors (no n×n ones)
};

/** Checks a request against the sequence length; the error names the option. */
Status validatePoolRequest(const PoolRequest& r, int seqLen);
/** The O(n·d) trace tensors a whole-matrix pooled trace carries, in the contract's order. */
std::vector<std::string> pooledTraceTensorNames(const Params& p);
/** A PooledTrace with the region, mode and resolution of a request, tensors still empty. */
PooledTrace startPooledTrace(const PoolRequest& r, int seqLen);
/**
 * Moves params, tokens and (whole-matrix requests) the O(n·d) tensors of a computed trace into
 * a PooledTrace, `out` included.
 */
void adoptPooledTensors(const PoolRequest& r, Trace&& from, PooledTrace& to);
/** The region a request covers for a sequence of seqLen positions. */
PoolRegion poolRegion(const PoolRequest& r, int seqLen);
/**
 * Bytes a pooled computation holds at its peak on the fast CPU engine: the O(n·d) tensors and
 * position tables, per-thread row blocks and the pooled cells; nothing n×n. Float64 requests
 * are pooled from a full reference trace: estimateTraceBytes plus the cells.
 */
std::uint64_t estimatePooledBytes(const Params& p, int resolution, int threads = 16);

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    /** Short name for manifests and the status bar, e.g. "cpu", "gl". */
    virtual QString name() const = 0;
    /** The device, e.g. "x86-64 AVX2, 2 threads" or the GL renderer string. */
    virtual QString device() const = 0;
    /**
     * Computes the trace. `w` must be complete (completeWeights). Errors are values; a set
     * `cancel` flag makes the backend return Error{"cancelled"} soon.
     */
    virtual Expected<Trace> compute(const Params& p, const Weights& w,
                                    const std::atomic<bool>* cancel = nullptr) = 0;
    /**
     * Computes the logits and weights pooled (or a tile of them) without the caller holding
     * every head's n×n. This default computes the whole trace and pools it (fine for small n);
     * the fast CPU engine streams row blocks instead, and the GL backend pools on the GPU.
     */
    virtual Expected<PooledTrace> computePooled(const Params& p, const Weights& w,
                                                const PoolRequest& request,
                                                const std::atomic<bool>* cancel = nullptr);
    /**
     * The input stage alone, ahead of compute() with the same arguments: a trace with E, P
     * (absolute schemes) and X, whose values are exactly those compute() will give. The window
     * shows them while the forward pass runs. Engines that cannot give them apart return
     * nothing (the default).
     */
    virtual std::optional<Trace> computeInputs(const Params& p, const Weights& w) {
        (void)p;
        (void)w;
        return std::nullopt;
    }
    /**
     * Threads the engine may use (threads <= 0: one per hardware thread). Engines that do not
     * thread on the CPU ignore it.
     */
    virtual void setThreads(int threads) { (void)threads; }
    /**
     * Makes ready, ahead of a compute() (or computePooled(), `pooled`) of `p`, what a fresh
     * engine would otherwise set up inside it: the CPU engine's threads touch their scratch and
     * run a product of the projections' shape, so that a fresh process's page faults land here.
     * A fresh `trace` process calls it on a thread of its own while it generates the weights.
     * It changes no result, and may run on another thread than compute(), never beside it. The
     * default does nothing.
     */
    virtual void prepare(const Params& p, bool pooled) {
        (void)p;
        (void)pooled;
    }
    /** Why the last compute() ran on the CPU instead (float64, shader error, …); empty if not. */
    virtual QString lastFallbackReason() const { return {}; }
    /**
     * Storage for the next compute()'s output tensors, by name (the CLI's mapped .npy files,
     * mapped_npy.h). An engine that can compute into them does, and its trace holds these very
     * tensors; the others ignore them (the default) and the caller copies. Entries whose dtype
     * or shape do not match what the engine makes are not used; none outlive that compute().
     */
    virtual void provideOutputStorage(std::vector<std::pair<std::string, Tensor>> storage) {
        (void)storage;
    }
    /**
     * Frees what the engine keeps only to speed up a next computation (recycled buffers, tables
     * of the last parameters): the window calls it once it has been idle a while, so that an
     * idle window holds what it shows and no more. The next computation rebuilds what it needs.
     */
    virtual void releaseIdleMemory() {}
    /** Bytes kept between computations for a next one: what releaseIdleMemory frees. */
    virtual std::uint64_t heldBytes() const { return 0; }
};

/** The core's reference forward pass (exact; single-threaded). */
class CpuReferenceBackend final : public Backend {
public:
    BackendKind kind() const override { return BackendKind::CpuReference; }
    QString name() const override { return QStringLiteral("cpu"); }
    QString device() const override;
    Expected<Trace> compute(const Params& p, const Weights& w,
                            const std::atomic<bool>* cancel) override;
};

/**
 * Makes a backend of the given kind; an OpenGL one uses `qtSurface` (GlBackend::create) if given.
 * Where it cannot be made (no GL 4.3 context, say), returns the best CPU backend and puts the
 * reason in *fallbackReason.
 */
std::unique_ptr<Backend> createBackend(BackendKind kind, QString* fallbackReason = nullptr,
                                       QSurface* qtSurface = nullptr);

/** What the OpenGL backend asks of a Qt surface and context: desktop OpenGL 4.3, core profile. */
QSurfaceFormat openGlComputeFormat();

} // namespace pe
