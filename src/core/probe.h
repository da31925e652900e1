// SPDX-License-Identifier: MIT
#pragma once

/**
 * The probe experiment of SPEC §12: n identical input tokens through a small pre-RMSNorm stack
 * (x += Attn(RMSNorm(x)); x += FFN(RMSNorm(x))), in float64. If every input row comes out
 * identical the configuration cannot tell positions apart.
 */

#include <atomic>
#include <cstdint>

#include "params.h"

namespace pe {

struct ProbeResult {
    double spread = 0;         ///< max over input rows i and features of |o_i − o_first|
    bool canTellApart = false; ///< spread > kProbeBrokenThreshold
};

/** Spreads at or below this are "identical rows" (SPEC §12 suggests 1e-12 and 1e-9). */
inline constexpr double kProbeIdenticalThreshold = 1e-12;
inline constexpr double kProbeBrokenThreshold = 1e-9;

/**
 * Runs the probe with p's scheme, normaliser, mask and special tokens (p.n identical tokens).
 * `shawValues = false` gives Shaw "keys only" (w_v = 0). Seeded by p.seed. It draws about
 * 22·d² normal variates (seconds at d = 4096): `cancel`, when set, stops it between its steps
 * and the result is then meaningless (the caller knows it cancelled).
 */
ProbeResult runProbe(const Params& p, int layers = 2, bool shawValues = true,
                     const std::atomic<bool>* cancel = nullptr);

/**
 * The normal variates runProbe(p, layers) draws, which its time follows (about 30 ns each on a
 * clean thread here, vector_state.h): 22·d² at two layers (the projections, the key noise, the
 * FFN), plus the scheme's tables (an MLP encoding of F = 256 features and 3,138 hidden units
 * draws 2 million for the input alone).
 */
std::int64_t probeDrawCount(const Params& p, int layers = 2);

} // namespace pe
