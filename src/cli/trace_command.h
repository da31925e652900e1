// SPDX-License-Identifier: MIT
#pragma once

/**
 * `pe-explorer-cli trace`: options exactly as docs/trace-format.md names them, mapped to
 * pe::Params; weights from .safetensors, E from .npy or a sample text; every tensor written as
 * .npy with a manifest.json, all or nothing.
 */

#include <CLI/CLI.hpp>

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

#include "param_options.h"

namespace pe {

/** Declares the `trace` subcommand and its options on `app`, bound to `o`. */
CLI::App* addTraceCommand(CLI::App& app, TraceOptions& o);

/**
 * Runs the trace. Prints one line on stderr for any error and returns the exit status
 * (kExitUsage for a usage or input error).
 */
int runTrace(const TraceOptions& o, int argc, char** argv);

} // namespace pe
