// SPDX-License-Identifier: MIT
#pragma once

/**
 * The OpenGL 4.3 compute backend. Same Trace as pe::computeTrace (float32), computed as:
 *  - CPU (O(n·d) and smaller): E with special rows, P, X, RoPE rotation, per-offset index and
 *    bias tables (T5 buckets, ALiBi, Shaw/DeBERTa indices, URPE c), DeBERTa's K^r/Q^r, TXL's R_t;
 *  - GPU (fp32): Q/K/V projections, q·kᵀ per head, per-offset tables q·w_kᵀ, (q+v)·r_tᵀ,
 *    q·K^rᵀ, k·Q^rᵀ, the gathers that turn them into n×n terms, masks, the five normalisers,
 *    ⊙C, weights·V (+ Shaw's bucketed value term), TXL's R·W_r and the output projection.
 * Offsets o = (j − i) + n − 1 index every per-offset table, so each relative term is one gather.
 *
 * Whole-matrix mean pooling (computePooled) runs fused where it can: see setFusedPooling().
 *
 * The n×n stages run over chunks of heads and of query rows, each buffer at most 1 GiB (and
 * within 32-bit indexing and GL_MAX_SHADER_STORAGE_BLOCK_SIZE), so n is limited by time and by
 * host memory for a full read-back, not by GPU buffer limits.
 *
 * float64 requests, and any GL failure (shader compile/link error, out of memory, sizes beyond
 * 32-bit indexing), fall back to the CPU reference; lastFallbackReason() says why, and the
 * reason is logged under the category "pe.gl".
 *
 * The backend owns a headless EGL context; compute() makes it current on the calling thread and
 * releases it before returning, so one backend may move between threads (one call at a time).
 */

#include <map>
#include <memory>
#include <string>

#include "backend.h"

namespace pe {

namespace gl {
class Context;
}

class GlBackend final : public Backend {
public:
    /**
     * Makes the backend, or nullptr with the one-line reason in *why. With a `qtSurface` (a
     * QOffscreenSurface made by the GUI thread) the context is a QOpenGLContext on it, made on
     * the calling thread, which must then be the only one to call compute(); without, raw EGL.
     */
    static std::unique_ptr<GlBackend> create(QString* why = nullptr, QSurface* qtSurface = nullptr);
    ~GlBackend() override;

    BackendKind kind() const override { return BackendKind::OpenGL; }
    QString name() const override { return QStringLiteral("gl"); }
    /**
     * The GL renderer, version and context path, e.g.
     * "llvmpipe (LLVM 15.0.6, 256 bits) (OpenGL 4.5 through EGL surfaceless)".
     */
    QString device() const override;
    Expected<Trace> compute(const Params& p, const Weights& w,
                            const std::atomic<bool>* cancel = nullptr) override;

    /**
     * Runs the forward pass on the GPU and reads back only the logits and weights mean-pooled
     * to at most R×R per head (plus `out`): the path for n too large to read n×n matrices back.
     * No CPU fallback: errors are returned.
     */
    Expected<PooledTrace> computePooled(const Params& p, const Weights& w, int resolution,
                                        const std::atomic<bool>* cancel = nullptr);
    /**
     * The Backend interface: whole-matrix mean pooling runs on the GPU (above); max pooling,
     * tiles and float64 run on the fast CPU engine's streamed path.
     */
    Expected<PooledTrace> computePooled(const Params& p, const Weights& w,
                                        const PoolRequest& request,
                                        const std::atomic<bool>* cancel = nullptr) override;

    /**
     * Makes the GL call after the `calls`-th checked one report GL_CONTEXT_LOST (fault injection;
     * −1: off). The environment variable PE_GL_LOSE_CONTEXT_AFTER sets it for a whole process.
     */
    void loseContextAfterForTesting(int calls) {
        m_loseAfter = calls;
        m_calls = 0;
    }
    /** Whether the context was lost: every later computation runs on the CPU. */
    bool contextLost() const { return m_lost; }

    /** Why the last compute() used the CPU reference; empty when it ran on the GPU. */
    QString lastFallbackReason() const override { return m_lastFallback; }
    /** The CPU engine that computes the requests the GPU path does not cover lets go of its
     *  buffers and tables. */
    void releaseIdleMemory() override {
        if (m_cpu)
            m_cpu->releaseIdleMemory();
    }
    std::uint64_t heldBytes() const override { return m_cpu ? m_cpu->heldBytes() : 0; }

    /** Replaces a shader's source (by file stem, e.g. "gemm") before its first use: for tests. */
    void overrideShaderForTesting(const std::string& name, const std::string& source);

    /** Caps the heads per GPU chunk (0 = as many as fit): lets tests exercise chunking. */
    void setMaxHeadsPerChunkForTesting(int heads) { m_maxHeadsPerChunk = heads; }
    /** Caps the query rows per GPU chunk (0 = as many as fit): lets tests exercise chunking. */
    void setMaxRowsPerChunkForTesting(int rows) { m_maxRowsPerChunk = rows; }

    /** Treats every GPU allocation above `bytes` as GL_OUT_OF_MEMORY (0 = off): for tests. */
    void simulateOutOfMemoryAboveForTesting(std::size_t bytes) { m_oomAboveForTesting = bytes; }

    /**
     * The matrix-product kernel: Tiled (shared-memory tiles, register blocking, vec4 loads) or
     * Direct (no shared memory; faster on CPU rasterisers). Auto picks Direct on llvmpipe.
     */
    enum class GemmKernel { Auto, Tiled, Direct };
    void setGemmKernel(GemmKernel k) { m_gemmKernel = k; }

    /**
     * Whole-matrix mean pooling at a head width up to 128 runs fused (pool_fused.comp: key
     * tiles in shared memory, no n × n buffer) for every scheme but Transformer-XL. Shaw reads
     * its key term from a [heads, rows, 2k + 1] table of the chunk's rows and collects the weight
     * per clipped index for its value term; DeBERTa gathers c2p from the chunk's rows and p2c
     * from a [heads, n, 2s] table of every key, which must fit one buffer (1 GiB).
     * Transformer-XL runs fused only when PE_GL_TXL_SHAPE asks (auto or BRxLANESxTK: each lane
     * loads its window of r rows with the keys, which measured slower than the chunked passes
     * on an H200). Otherwise, or with this off, the pass runs as chunks of n × n buffers pooled
     * afterwards. PE_GL_FUSED_POOL=0 turns it off for a process.
     */
    void setFusedPooling(bool on) { m_fusedPool = on; }
    bool fusedPooling() const { return m_fusedPool; }
    /**
     * Transfers of at least this many bytes go through a host-mappable staging buffer (4 MiB;
     * 0: never; PE_GL_STAGING=0 turns staging off for a process): for tests.
     */
    void setStagingThresholdForTesting(std::size_t bytes) { m_stagingMin = bytes; }
    /** Whether the last GPU computePooled() ran fused. */
    bool lastPoolFused() const { return m_lastPoolFused; }

    struct Impl;

private:
    GlBackend() = default;
    std::unique_ptr<gl::Context> m_ctx;
    std::unique_ptr<Backend> m_cpu; ///< for the pooled requests the GPU path does not cover
    std::map<std::string, unsigned> m_programs;
    std::map<std::string, std::string> m_overrides;
    QString m_lastFallback;
    int m_maxHeadsPerChunk = 0;
    int m_maxRowsPerChunk = 0;
    std::size_t m_oomAboveForTesting = 0;
    GemmKernel m_gemmKernel = GemmKernel::Auto;
    int m_loseAfter = loseAfterFromEnvironment();
    int m_calls = 0;
    bool m_lost = false;
    bool m_fusedPool = fusedPoolFromEnvironment();
    bool m_lastPoolFused = false;
    std::size_t m_stagingMin = std::size_t{4} << 20;
    static int loseAfterFromEnvironment();
    static bool fusedPoolFromEnvironment();
};

} // namespace pe
