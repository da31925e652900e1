// SPDX-License-Identifier: MIT
#pragma once

/**
 * The fast CPU engine: the same Trace as pe::computeTrace (same names, shapes, dtypes; values
 * within float32 rounding), computed with
 *  - GEMMs on OpenBLAS (or Eigen built for AVX-512 / AVX2 / SSE2 and picked at run time when
 *    OpenBLAS is absent; cpu_gemm.h): projections, Q·Kᵀ and A·V per head and row block;
 *  - one fused Highway pass per row (scale + bias/position term + mask + normaliser) over each
 *    row block's dots in per-worker scratch that stays in cache; logits, weights and component
 *    tensors reach the trace with streaming stores (cpu::streamCopy);
 *  - position terms through per-offset tables: T5/ALiBi/URPE are contiguous slices of a
 *    2N−1 table per head, Shaw uses q·w_kᵀ (N×(2k+1)) and per-offset weight sums,
 *    Transformer-XL a banded (q+v)·rᵀ per row block, DeBERTa q·K_rᵀ and k·Q_rᵀ tables;
 *  - a fork-join pool (task_pool.h) across heads × row blocks.
 * Float64 requests run the reference path. One compute() at a time per instance.
 */

#include "backend.h"
#include "tensor.h"

#include <memory>
#include <string_view>
#include <vector>

namespace pe {

namespace cpu {
class TaskPool;

/**
 * Streaming mode of the n² pass (cpu_pooled.cpp): only query rows [rowBegin, rowEnd) are
 * computed, by the fused tile pass (cpu_attention_tiles.h), which folds their logits and weights
 * into the two accumulators from any worker thread: no n×n tensor and no row of n logits is
 * ever materialised.
 */
struct RowSink {
    int rowBegin = 0;
    int rowEnd = 0;
    PoolAccumulator* logitsPool = nullptr;
    PoolAccumulator* weightsPool = nullptr;
};
} // namespace cpu

class CpuFastBackend final : public Backend {
public:
    /** threads <= 0: one per hardware thread. */
    explicit CpuFastBackend(int threads = 0);
    ~CpuFastBackend() override;

    BackendKind kind() const override { return BackendKind::CpuFast; }
    // The trace contract names backends "cpu" and "gl"; device() says which CPU engine.
    QString name() const override { return QStringLiteral("cpu"); }
    QString device() const override;
    Expected<Trace> compute(const Params& p, const Weights& w,
                            const std::atomic<bool>* cancel = nullptr) override;

    /**
     * Pooled logits and weights streamed from row blocks of every head (never h × n × n):
     * memory O(h·R² + n·d + threads·block·R): the fused tile pass never holds a row of n
     * logits. Float64 requests pool a full reference trace.
     */
    Expected<PooledTrace> computePooled(const Params& p, const Weights& w,
                                        const PoolRequest& request,
                                        const std::atomic<bool>* cancel = nullptr) override;

    void setThreads(int threads) override;
    int threads() const { return m_threads; }
    /**
     * Each worker sizes and touches its scratch of the n² pass (not for `pooled`: that pass
     * keeps its own) and runs a product of the projections' shape, which sets up the GEMM's
     * packing buffers in that thread's memory. A fresh `trace` process took 1.6× the warm
     * engine's time at n = 2,048 on 16 threads, in page faults the threads took there.
     */
    void prepare(const Params& p, bool pooled) override;
    /**
     * Threads the forward pass (compute(), computePooled()) runs on, at most threads(); 0 (the
     * default): threads(). computeInputs runs on threads(). The window leaves its GUI thread a
     * core this way while it draws an early part (ComputeResult::early).
     */
    void setForwardThreads(int threads) { m_forwardThreads = threads; }
    /**
     * The next compute()s stop once the attention weights are made (true) or give the whole
     * trace (false, the default): stopped, the trace has no V, head_out, out or shaw_v_term,
     * and the pass skips their products (the value projection, A·V and the output projection:
     * half a short pass's flops; in a pooled computation the value product of the fused tile
     * pass too, half its flops). For a view that shows logits or weights and no more (the
     * Compare tab's other schemes); a tile (PoolRequest::hasTile), which carries nothing past
     * them, always stops there. Float64 computations give the whole trace.
     */
    void setStopAtWeights(bool on) { m_stopAtWeights = on; }
    /** The tensors a pass stopped at the weights leaves out (setStopAtWeights). */
    static bool pastWeights(std::string_view tensor);
    /**
     * With setStopAtWeights, the next compute()s keep one n × n tensor only, the weights: no
     * logits and none of the scheme's n × n position terms (rel_index, T5's and ALiBi's bias,
     * Shaw's k-term, Transformer-XL's, DeBERTa's and URPE's; termsBeforeWeights), which the
     * pass still adds to the logits from its tables. For a view that shows the weights and no
     * more (the Attention tab): at n = 2,048 and 8 heads each of those tensors is 134 MB
     * written. Pooled computations keep no n × n tensor anyway.
     */
    void setWeightsAlone(bool on) { m_weightsAlone = on; }
    /** The n × n tensors before the weights that setWeightsAlone leaves out. */
    static bool termsBeforeWeights(std::string_view tensor);
    /**
     * With setStopAtWeights, the next compute()s do the n² work of head `head` alone: each
     * [heads, n, n] tensor (the logits, the weights and the scheme's position terms) holds that
     * head only, shaped [1, n, n], and the trace says so (Trace::onlyHead). Q and K keep every
     * head. A pooled computation stopped at the weights pools that head alone: its cells are
     * [1, cells, cells]. For a view that shows one head's weights or logits (the Compare tab's
     * other schemes): at n = 2,048 and 8 heads, an eighth of the pass's time. −1 (the
     * default), a head out of range or a whole pass: every head.
     */
    void setOnlyHead(int head) { m_onlyHead = head; }
    /**
     * The next pooled computation that stops at the weights (a zoom tile) takes its queries and
     * keys from `from`: a trace this engine computed for the same parameters and weights (the
     * shown pooled trace: its Q and K, after RoPE's rotation, [heads, n, d_h]). It then makes
     * no inputs and projects nothing, which at n = 16,384 was half of a tile's time: every key
     * projected again for a few hundred query rows. Used by that computation only (any next
     * one lets it go); ignored where the parameters differ or the tensors do not fit. The
     * caller vouches for the weights: the same parameters and input give the same weights.
     */
    void lendProjections(std::shared_ptr<const Trace> from) { m_lent = std::move(from); }
    /** The forward pass's flops, about: 8·n·d² (projections) + 4·n²·d (the two n² products). */
    static double forwardFlops(const Params& p);

    /**
     * E, P and X and, with `relative`, rel_index, bias and urpe_C, each the very floats
     * compute() gives for them (the same code makes both): what the Encoding and Relative views
     * show, in a few milliseconds, before the forward pass. Its tensors come from the pool of
     * recycled ones, as compute()'s do. Nothing for float64 or parameters compute() refuses.
     */
    std::optional<Trace> computeInputs(const Params& p, const Weights& w) override;

    /**
     * Hands a trace back once the caller is done with it: its tensors are reused by the next
     * compute() with the same shapes, which saves the page faults and zero-fill of fresh
     * h × n × n buffers. Pooled tensors the next compute() does not use are freed at its end.
     * The worker returns shown traces through TraceRecycler (trace_recycler.h).
     */
    void recycle(Trace&& trace);
    /** Frees the pooled tensors (the kept tables stay: they are the current parameters' own). */
    void releasePool() { m_pool = {}; }
    /** Frees the pooled tensors and the kept tables (an idle window's engine). */
    void releaseIdleMemory() override;
    /** Bytes the engine keeps between computations: its tables, scratch and pool of tensors. */
    std::uint64_t heldBytes() const override;
    /** Of those, the last computation's scratch (float weights, packed keys and values). */
    std::uint64_t scratchBytes() const { return m_scratch.bytes(); }
    /** Output tensors named here are computed in place (see Backend); used by one compute(). */
    void provideOutputStorage(std::vector<std::pair<std::string, Tensor>> storage) override;

    /** Rows per block of the n² pass; 0 = chosen from n (tests force small blocks). */
    void setRowBlock(int rows) { m_rowBlock = rows; }
    /** Keys per tile of the fused pooled pass; 0 = the default (tests force small tiles). */
    void setTileColumns(int cols) { m_tileCols = cols; }
    /** Problems under this many flops run on one thread (default 4e8; tests set 0). */
    void setMinParallelWork(double flops) { m_minParallelWork = flops; }

    /**
     * Where the time of the last compute() went (benchmarks). Phase times are wall-clock; the
     * n² pass time is summed over the threads that ran it (everything in the attention phase
     * except its GEMMs: the fused row passes and the streaming stores of the n² tensors), and
     * npassBytes counts the bytes of the n² tensors that phase wrote.
     */
    struct Profile {
        double inputsMs = 0.0, projectionsMs = 0.0, tablesMs = 0.0, attentionMs = 0.0,
               outputMs = 0.0;
        double npassThreadSeconds = 0.0;
        double npassBytes = 0.0;
    };
    /** Collects a Profile on every compute() while on (reads the clock around every block). */
    void setProfiling(bool on) { m_profiling = on; }
    const Profile& lastProfile() const { return m_profile; }

private:
    /** E (special rows included), P (null for non-absolute schemes) and X = E + P, row-major. */
    Status fillInputs(const Params& p, const Weights& w, int threads, float* e, float* pp,
                      float* x);
    /** The threads a computation of these sizes runs on (small ones: one; the forward pass:
     *  at most setForwardThreads'). */
    int threadsFor(const Params& p, bool forward) const;
    /** The forward pass; with `toWeights`, only as far as the weights (setStopAtWeights);
     *  Q and K from `lent` where it qualifies (lendProjections). */
    Expected<Trace> run(const Params& p, const Weights& w, const std::atomic<bool>* cancel,
                        const cpu::RowSink* sink, bool toWeights, const Trace* lent);
    /** The head a pass (`toWeights` as run's) makes alone (setOnlyHead), −1 for every head. */
    int headAlone(const Params& p, bool toWeights) const {
        return toWeights && m_onlyHead >= 0 && m_onlyHead < p.heads ? m_onlyHead : -1;
    }
    /** The provided storage of that name if it fits, else a pooled tensor, else a fresh one. */
    Tensor acquire(const std::string& name, DType type, std::vector<std::int64_t> shape);
    /** A pooled tensor of that type and shape, else a fresh one. */
    Tensor fromPool(DType type, std::vector<std::int64_t> shape);

    int m_threads = 0;
    int m_forwardThreads = 0;
    bool m_stopAtWeights = false;
    bool m_weightsAlone = false;
    int m_onlyHead = -1;
    std::shared_ptr<const Trace> m_lent; ///< lendProjections, for the next computation
    std::unique_ptr<cpu::TaskPool> m_workers;
    int m_rowBlock = 0;
    int m_tileCols = 0;
    double m_minParallelWork = 4e8;
    std::vector<Tensor> m_pool;
    std::vector<std::pair<std::string, Tensor>> m_provided; ///< for the next compute() only
    /**
     * Scratch of one computation kept for the next: the float weights (Wᵀ), the packed keys and
     * value chunks. Allocated afresh, each came from new zero-filled pages on every change in
     * the window, whose allocator maps the largest blocks (4 MB and more since 2026-11-26;
     * allocator.h). Storage more than twice a computation's need is dropped, and releaseIdleMemory
     * frees it all.
     */
    struct Scratch {
        TensorBuffer<float> wq, wk, wv, wo, keyPanels, valueChunks;
        /** [n, d] row-major staging: the full-width projections, then the heads' concat. */
        TensorBuffer<float> wide;
        /**
         * One worker's buffers of the n² pass (not the pooled one), sized and first touched by
         * the thread that works on them: the block's dots and weights [rows, n], the TXL band
         * or DeBERTa's row terms, Shaw's key row and per-offset sums, the scaled queries, the
         * padded head output. Every entry is written before it is read.
         */
        struct Worker {
            TensorBuffer<float> block, rowTerms, rowAdd, offsetSums, scaledQ, outPad;
        };
        std::vector<Worker> workers;
        /** v holding n floats; its storage is kept unless that is more than twice n. */
        static float* fit(TensorBuffer<float>& v, std::size_t n);
        /** The floats run() fits the shared buffers to for a computation of `p` (prepare()
         *  fits them ahead): each of W_q…W_o transposed, `wide`, the packed keys and values. */
        struct Sizes {
            std::size_t weights = 0, wide = 0, keyPanels = 0, valueChunks = 0;
        };
        static Sizes sizesFor(const Params& p);
        std::uint64_t bytes() const;
    };
    Scratch m_scratch;
    /**
     * A table that depends on a few parameters only, kept until they change: the sinusoid
     * [n, d], Transformer-XL's relative sinusoid [2n − 1, d], RoPE's cos then sin [2, n, pairs].
     * A computation that does not use a table frees it (releaseUnused), and a table of new
     * parameters gets storage of its own size: a kept table never holds the memory of a larger
     * n or of a scheme no longer shown (each one can reach hundreds of MB at n = 16384).
     */
    struct KeptTable {
        struct Key {
            int n = -1, d = -1;
            double parameter = 0.0;  ///< base or clamp length
            int variant = 0;         ///< layout, RoPE scaling
            double parameter2 = 0.0; ///< RoPE stretch s
            bool operator==(const Key&) const = default;
        };
        Key key;
        std::vector<float> values;
        bool used = false; ///< by the computation under way
        /** True if the values are those of `k`; else sizes them for `k` (the caller fills them). */
        bool holds(const Key& k, std::size_t size) {
            used = true;
            if (key == k && values.size() == size)
                return true;
            key = k;
            values = std::vector<float>(size); // not resize(): that keeps a larger capacity
            return false;
        }
        void releaseUnused() {
            if (!used)
                *this = KeptTable{};
            used = false;
        }
        std::size_t bytes() const { return values.capacity() * sizeof(float); }
    };
    KeptTable m_sinusoid, m_txlSinusoid, m_ropeAngles;
    bool m_profiling = false;
    Profile m_profile;
};

} // namespace pe
