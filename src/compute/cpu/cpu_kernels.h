// SPDX-License-Identifier: MIT
#pragma once

/**
 * Highway kernels of the fast CPU engine, compiled for every x86 target Highway knows
 * (AVX-512, AVX2, SSE4, ...) and picked at run time with HWY_DYNAMIC_DISPATCH.
 */

#include <cstddef>
#include <cstdint>

namespace pe::cpu {

/** One fused row pass: scale, additive term, mask, normaliser, post-multiplier. */
struct RowPass {
    int n = 0;                     ///< columns (keys)
    int limit = 0;                 ///< keys [0, limit) are visible; the rest are masked
    float scale = 1.0f;            ///< multiplies the dot products
    const float* add = nullptr;    ///< optional additive term, added after scaling
    const float* post = nullptr;   ///< optional factor on the weights (URPE's C row)
    int norm = 0;                  ///< pe::Normaliser as int
    float relu2Denominator = 1.0f; ///< N for relu2, visible keys for relu2_visible
};

/**
 * logits[j] = dots[j]·scale + add[j] for j < limit and −inf beyond; weights = N(logits) with
 * masked entries exactly 0, then ·post[j]. `dots` may alias `logits`, and `weights` may alias
 * both (in place: the row then ends holding the weights; its masked logits are not written).
 * When given, logitsOut and weightsOut (trace rows, any alignment) receive the logits and
 * weights with streaming (non-temporal) stores in the same passes: no separate copy reads the
 * row again. Call streamFence() before another thread reads what was streamed.
 */
void fusedRow(const RowPass& p, const float* dots, float* logits, float* weights,
              float* logitsOut = nullptr, float* weightsOut = nullptr);
/** Orders the streaming stores of fusedRow before later stores (an sfence on x86). */
void streamFence();

/**
 * dst[0, n) = src[0, n) with non-temporal stores: the destination (a trace tensor written once
 * and read later by someone else) is not read into the cache first and does not evict the
 * working set. Ends with a store fence; `dst` needs no alignment.
 */
void streamCopy(float* dst, const float* src, std::size_t n);
/** The same for 32-bit integers. */
void streamCopy(std::int32_t* dst, const std::int32_t* src, std::size_t n);

/** a[0] + … + a[n−1], with vector partial sums (not in sequential order). */
float sum(const float* a, std::size_t n);

/** The SIMD target the kernels run on, e.g. "AVX3" or "AVX2". */
const char* simdTarget();

} // namespace pe::cpu
