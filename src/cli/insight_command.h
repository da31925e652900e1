// SPDX-License-Identifier: MIT
#pragma once

/**
 * `pe-explorer-cli insight NAME`: the numbers of one insights page (core's insights.h) for the
 * parameter options of `trace`, written into --out all or nothing:
 *   binary   bits.npy [N, B] int32, omega.npy [K], period.npy [K]
 *   offset   M.npy [d, d], residual.json
 *   cost     cost.csv; with --measure also measured.csv (n,ms) and cost.json (the exponent)
 *   distance profile.npy [heads, 2N−1] (mean attention weight), position_profile.npy
 *            [heads, 2N−1] (mean position term), rope_decay.npy [N]
 *   depth    depth.json (the input and one record per layer)
 */

#include <CLI/CLI.hpp>

#include <string>

#include "param_options.h"

namespace pe {

struct InsightOptions {
    std::string page;
    TraceOptions params; ///< the parameter options, as `trace` reads them
    int delta = 1;
    std::string table;
    int kernel = 3;
    int nMax = 16384;
    bool measure = false;
    int layers = 12;
    bool residual = true;
    std::string depthNorm = "none";
    bool mlp = false;
    std::string out;
};

/** Declares the `insight` subcommand and its options on `app`, bound to `o`. */
CLI::App* addInsightCommand(CLI::App& app, InsightOptions& o);

/** Computes and writes the page. One line on stderr for any error; returns the exit status. */
int runInsight(const InsightOptions& o, CLI::App* command);

} // namespace pe
