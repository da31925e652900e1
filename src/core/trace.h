// SPDX-License-Identifier: MIT
#pragma once

/**
 * The reference forward pass: one multi-head self-attention layer with a position scheme,
 * returning every named stage of SPEC-trace.md ("E", "P", "X", "Q", "K", "V", "logits",
 * "weights", "head_out", "out", and the scheme's component tensors).
 *
 * Shapes: n = sequence length with special tokens; per-head tensors are [heads, n, ·].
 * Row-vector convention, Q = X W_q; head h takes columns [h d_h, (h+1) d_h).
 * Computes in float32 or float64 (Params::precision); index tensors are int32.
 */

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expected.h"
#include "params.h"
#include "tensor.h"
#include "weights.h"

namespace pe {

/**
 * W_q and W_k as a computation used them ([d, d], Q = X·W_q): what splits an absolute scheme's
 * logits into their content and position terms (e·e, e·p, p·e, p·p). The window's worker and
 * `render` attach them to traces of absolute schemes; they are not tensors of the trace and are
 * never written.
 */
struct QueryKeyWeights {
    Eigen::MatrixXd wq, wk;
};

struct Trace {
    Params params;
    std::vector<std::pair<std::string, Tensor>> tensors; ///< in the contract's order
    std::vector<std::string> tokens;                     ///< one label per position
    std::shared_ptr<const QueryKeyWeights> queryKey;     ///< absolute schemes, where attached
    /**
     * −1: every head. Else the [heads, n, n] tensors (logits, weights, the position terms) hold
     * this head alone, shaped [1, n, n]: a pass for a view that shows one head (the fast CPU
     * engine's setOnlyHead). Not the trace contract's shape: such a trace is never exported.
     */
    int onlyHead = -1;

    /** Whether the n × n tensors hold head `head` (onlyHead); index it as head 0 if onlyHead. */
    bool holdsHead(int head) const { return onlyHead < 0 || onlyHead == head; }

    const Tensor* find(std::string_view name) const;
    Tensor* find(std::string_view name);
};

/** Names of the tensors a trace of these parameters produces, in order. */
std::vector<std::string> traceTensorNames(const Params& p);

/** The dtype and shape of one tensor of a trace. */
struct TensorSpec {
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
};

/**
 * The dtype and shape of a named tensor of a (whole, not pooled) trace of these parameters:
 * [n, d] for E, P, X, out; [heads, n, d_h] for Q, K, V, head_out, shaw_v_term; int32 [n, n] for
 * rel_index; [heads, n, n] for the others. Floats are float64 under Precision::Float64.
 */
TensorSpec traceTensorSpec(const Params& p, std::string_view name);

/** Bytes a trace of these parameters holds at its peak (outputs plus working buffers). */
std::uint64_t estimateTraceBytes(const Params& p);

/**
 * Runs the forward pass. `w` must be complete (completeWeights) and E must hold the input
 * tokens. `cancel`, if given, is polled between heads; a cancelled run returns an Error
 * "cancelled". Errors name the option or tensor at fault.
 */
Expected<Trace> computeTrace(const Params& p, const Weights& w,
                             const std::atomic<bool>* cancel = nullptr);

/** The sequence attention sees, [seqLen, d]: the [CLS] row, the input tokens E, the [SEP] row. */
Eigen::MatrixXd assembleSequence(const Params& p, const Weights& w);

/**
 * The absolute encoding P [seqLen, d] an absolute scheme adds (isAbsolute): the sinusoid, the
 * first rows of learned.table (checked by checkWeights), or the mlp encoding; in double.
 * Empty for other schemes.
 */
Eigen::MatrixXd absoluteEncoding(const Params& p, const Weights& w);

/** Default token labels: "t0".."t{n-1}" with "[CLS]"/"[SEP]" where present. */
std::vector<std::string> defaultTokens(const Params& p);

} // namespace pe
