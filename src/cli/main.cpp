// SPDX-License-Identifier: MIT
#include <CLI/CLI.hpp>

#include <iostream>

#include "insight_command.h"
#include "render_command.h"
#include "trace_command.h"
#ifdef PE_HAVE_FAST_CPU
#include "cpu_gemm.h"
#endif
#ifdef PE_HAVE_LAB
#include "train_command.h"
#endif

int main(int argc, char** argv) {
#ifdef PE_HAVE_FAST_CPU
    // Before anything computes: OpenBLAS's kernels for this CPU where it does not know the
    // model (it would run SSE3 ones), and its idle threads ended, which spin for a tenth of a
    // second after the library loads, when a trace computes (cpu_gemm.h).
    pe::cpu::chooseGemmLibraryKernels();
    pe::cpu::stopGemmLibraryThreads();
#endif
    CLI::App app{"pe-explorer: positional encodings and self-attention, headless.\n"
                 "The trace command writes every stage of one attention layer as .npy files;\n"
                 "render draws the window's figures as PNG, SVG or PDF;\n"
                 "insight writes the numbers behind the insights pages (why the schemes work);\n"
                 "train trains a small model with one scheme and tests it past its length.\n"
                 "Documentation: docs/trace-format.md and docs/encodings.md (installed under\n"
                 "share/doc/pe-explorer); man pe-explorer-cli.",
                 "pe-explorer-cli"};
    app.set_version_flag("--version", std::string("pe-explorer-cli ") + PE_VERSION);
    app.require_subcommand(1);
    pe::TraceOptions options;
    CLI::App* trace = pe::addTraceCommand(app, options);
    pe::RenderOptions renderOptions;
    CLI::App* render = pe::addRenderCommand(app, renderOptions);
    pe::InsightOptions insightOptions;
    CLI::App* insight = pe::addInsightCommand(app, insightOptions);
#ifdef PE_HAVE_LAB
    pe::TrainOptions trainOptions;
    CLI::App* train = pe::addTrainCommand(app, trainOptions);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e); // --help, --version
        std::cerr << "pe-explorer-cli: error: " << e.what() << "\n";
        return pe::kExitUsage;
    }
    if (trace->parsed())
        return pe::runTrace(options, argc, argv);
    if (render->parsed())
        return pe::runRender(renderOptions);
    if (insight->parsed())
        return pe::runInsight(insightOptions, insight);
#ifdef PE_HAVE_LAB
    if (train->parsed())
        return pe::runTrain(trainOptions);
#endif
    return pe::kExitUsage;
}
