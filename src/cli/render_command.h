// SPDX-License-Identifier: MIT
#pragma once

/**
 * `pe-explorer-cli render`: the window's figures drawn headlessly, from the parameter options
 * of `trace` or from a session file, as PNG (at a chosen DPI), SVG or PDF. Output is all or
 * nothing: one file (-o) or a folder of files (--out), staged and moved into place at the end.
 */

#include <CLI/CLI.hpp>

#include <string>

#include "param_options.h"

namespace pe {

struct RenderOptions {
    TraceOptions params; ///< the parameter options, as `trace` reads them
    std::string session; ///< a window session file instead of the parameter options
    std::string views = "all";
    std::string format; ///< png, svg or pdf; default: -o's suffix, else png
    int dpi = 300;
    std::string size; ///< WxH; empty: each view's default (defaultFigureSize)
    std::string outDir;
    std::string outFile;
    int head = 0;
    int query = 0;
    std::string columns = "6 7 8 9";
    std::string colormap = "auto";
    std::string pool = "mean";
    bool squareCells = false; ///< --square-cells
    std::string compareScheme = "rope";
    std::string compareTensor = "weights";
    // The insights pages' options (--view binary|offset|cost|distance|depth).
    int delta = 1;
    int kernel = 3;
    int layers = 12;
    bool residual = true;
    std::string depthNorm = "none";
    bool mlp = false;
    bool measure = false;
};

/** Declares the `render` subcommand and its options on `app`, bound to `o`. */
CLI::App* addRenderCommand(CLI::App& app, RenderOptions& o);

/**
 * Draws the figures (making its own QApplication, offscreen unless QT_QPA_PLATFORM says
 * otherwise). Prints one line on stderr for any error; returns the exit status.
 */
int runRender(const RenderOptions& o);

} // namespace pe
