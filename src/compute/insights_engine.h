// SPDX-License-Identifier: MIT
#pragma once

/**
 * The insights pages (core's insights.h) on an engine: a LayerForward that runs a Backend (the
 * fast CPU engine by default), and the cost page's measurement of this machine's attention layer.
 */

#include <QString>

#include <atomic>
#include <vector>

#include "backend.h"
#include "insights.h"

namespace pe {

/** A LayerForward that calls `backend.compute` (the backend must outlive the function). */
LayerForward backendLayerForward(Backend& backend);

struct CostMeasureOptions {
    int nMin = 128;            ///< first n (powers of two from here)
    int nMax = 16384;          ///< last n
    int pooledAbove = 2048;    ///< n > this: computePooled (no n×n held), like the window's worker
    int poolResolution = 1024; ///< cells per side when pooled
    int repeats = 3;           ///< each n is timed this many times; the fastest counts
    double fitFrom = 1024;     ///< the exponent is fitted over n ≥ fitFrom
    int threads = 0;           ///< fast engine threads; 0 = one per hardware thread
};

/**
 * One attention layer of p's scheme (p.n replaced by each n, p.d, p.heads, weights from p.seed,
 * E generated) timed on the fast CPU engine for n = nMin, 2·nMin, …, nMax; the weights are made
 * before the clock starts. exponent = fitPowerLawExponent(n, ms, fitFrom): quadratic attention
 * gives about 2 once the n² pass dominates.
 */
struct CostMeasurement {
    std::vector<int> n;
    std::vector<double> ms;   ///< fastest of `repeats` wall-clock runs, milliseconds
    std::vector<bool> pooled; ///< whether that n ran pooled
    double exponent = 0;      ///< fitted over n ≥ fitFrom (NaN if fewer than two points)
    double fitFrom = 0;
    QString engine; ///< Backend::device() of the engine that ran
    int threads = 0;
};

/**
 * Measures. Errors: "--n-max N must be at least 128", memory not available for an n (names
 * --n-max). `progress` counts n values; a set `cancel` returns Error{"cancelled"}.
 */
Expected<CostMeasurement> measureAttentionCost(const Params& p, const CostMeasureOptions& o,
                                               const InsightProgress& progress = {},
                                               const std::atomic<bool>* cancel = nullptr);

} // namespace pe
