// SPDX-License-Identifier: MIT
#pragma once

/** `--preset NAME` of trace and render: a model's configuration (src/core/presets.h). */

#include <CLI/CLI.hpp>

namespace pe {

struct TraceOptions;

/**
 * Declares --preset on `cmd`, bound to o.preset. Declare it before the other parameter options:
 * CLI11 runs option callbacks in declaration order, so the preset's values are written into `o`
 * first and every option given explicitly overrides them, wherever it stands on the line.
 */
CLI::Option* addPresetOption(CLI::App* cmd, TraceOptions& o);

} // namespace pe
