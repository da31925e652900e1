// SPDX-License-Identifier: MIT
#pragma once

/**
 * A compute engine behind one interface: the reference CPU path (core), the fast CPU engine and
 * the OpenGL compute backend all return the same Trace for the same Params and Weights.
 */

#include <QString>

#include <atomic>
#include <memory>

#include "trace.h"

class QSurface;
class QSurfaceFormat;

namespace pe {

enum class BackendKind { CpuReference, CpuFast, OpenGL };

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
    /** Why the last compute() ran on the CPU instead (float64, shader error, …); empty if not. */
    virtual QString lastFallbackReason() const { return {}; }
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
