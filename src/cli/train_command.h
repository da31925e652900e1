// SPDX-License-Identifier: MIT
#pragma once

/**
 * `pe-explorer-cli train`: the learning lab, headless (src/lab/lab.h, docs/lab.md). Trains one
 * model on a synthetic task and writes into --out, all or nothing:
 *   model.safetensors  the weights (trace names for the attention, "lab." for the rest)
 *   run.json           options, curves, eval (length → accuracy or null), seconds
 */

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace pe {

struct TrainOptions {
    std::string task = "shift-3";
    std::string scheme = "t5";
    int vocab = 16;
    int layers = 2;
    int d = 64;
    int heads = 4;
    int trainLength = 32;
    int steps = 1000;
    int batch = 32;
    double lr = 1e-2;
    std::uint64_t seed = 0;
    int threads = 1;
    int clip = 16;
    int logEvery = 10;
    int evalSamples = 256;
    std::string evalLens;
    double until = 0;
    bool quiet = false;
    std::string out;
};

/** Declares the `train` subcommand and its options on `app`, bound to `o`. */
CLI::App* addTrainCommand(CLI::App& app, TrainOptions& o);

/** Trains, evaluates and writes. One line on stderr for any error; returns the exit status. */
int runTrain(const TrainOptions& o);

} // namespace pe
