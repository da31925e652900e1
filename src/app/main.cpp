// SPDX-License-Identifier: MIT
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>
#include <QStringList>
#include <QTimer>

#include <cstdio>

#include "allocator.h"
#include "application.h"
#ifdef PE_HAVE_FAST_CPU
#include "cpu_gemm.h"
#endif
#include "main_window.h"
#include "screenshot.h"

int main(int argc, char** argv) {
    pe::tuneAllocatorForLongSessions();
#ifdef PE_HAVE_FAST_CPU
    pe::cpu::chooseGemmLibraryKernels(); // OpenBLAS's SSE3 fallback on CPUs it does not know
    pe::cpu::stopGemmLibraryThreads();   // idle OpenBLAS threads would spin through the first frame
#endif
    QCoreApplication::setOrganizationName(QStringLiteral("pe-explorer"));
    QCoreApplication::setApplicationName(QStringLiteral("pe-explorer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(
        QStringLiteral("Explore positional encodings and attention.\nThe mathematics of every "
                       "scheme: docs/encodings.md (installed under share/doc/pe-explorer)."));
    const QCommandLineOption help = cli.addHelpOption();
    const QCommandLineOption version = cli.addVersionOption();
    const QCommandLineOption shot(QStringLiteral("screenshot"),
                                  QStringLiteral("Render the window after the first result to "
                                                 "FILE (PNG) and exit."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption session(QStringLiteral("open"), // not "session": Qt takes -session
                                     QStringLiteral("Start from a session file."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption tab(
        QStringLiteral("tab"),
        QStringLiteral("Open this tab (0 encoding, 1 relative, 2 logit "
                       "terms, 3 attention, 4 compare, 5 stepper, 6 lab, 7 insights)."),
        QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption scheme(QStringLiteral("scheme"),
                                    QStringLiteral("Start with this scheme."),
                                    QStringLiteral("NAME"));
    const QCommandLineOption stage(QStringLiteral("stage"),
                                   QStringLiteral("Stage of the stepper tab (0 tokens … 14 "
                                                  "output)."),
                                   QStringLiteral("K"), QStringLiteral("0"));
    const QCommandLineOption labModel(QStringLiteral("lab-model"),
                                      QStringLiteral("Load a lab model (model.safetensors from "
                                                     "the Lab tab or pe-explorer-cli train)."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption labLayer(QStringLiteral("lab-layer"),
                                      QStringLiteral("Show layer N of the --lab-model in every "
                                                     "view (weights: trained)."),
                                      QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Window size of --screenshot, e.g. 1280x720."),
                                  QStringLiteral("WxH"), QStringLiteral("1500x900"));
    const QCommandLineOption insight(QStringLiteral("insight"),
                                     QStringLiteral("Open this page of the Insights tab (binary, "
                                                    "offset, cost, distance, depth)."),
                                     QStringLiteral("PAGE"));
    const QCommandLineOption measure(QStringLiteral("measure"),
                                     QStringLiteral("With --insight cost: press Measure."));
    const QCommandLineOption language(QStringLiteral("language"),
                                      QStringLiteral("Interface language: en or zh_CN (default: "
                                                     "View > Language, else the system's; "
                                                     "--screenshot: en)."),
                                      QStringLiteral("LANG"));
    const QCommandLineOption square(QStringLiteral("square-cells"),
                                    QStringLiteral("Turn View > Square cells on."));
    cli.addOptions({shot, session, tab, scheme, stage, labModel, labLayer, size, insight, measure,
                    language, square});

    // --help and --version answer without a display: QApplication aborts where it finds none
    // (a terminal over ssh, a package check in a chroot), so they get a QCoreApplication. Only a
    // command line that parses as it stands: Qt's own options (-platform, …) and --help-all,
    // which lists them, need QApplication.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (cli.parse(arguments) && (cli.isSet(help) || cli.isSet(version))) {
        const QCoreApplication core(argc, argv);
        cli.process(core); // prints and exits
    }

    pe::Application app(argc, argv); // each event with SSE at full speed (application.h)
    QApplication::setDesktopFileName(QStringLiteral("pe-explorer"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/pe-explorer.svg")));
    cli.process(app);

    pe::ScreenshotOptions opts;
    opts.tab = cli.value(tab).toInt();
    opts.stage = cli.value(stage).toInt();
    opts.scheme = cli.value(scheme);
    opts.session = cli.value(session);
    opts.output = cli.value(shot);
    opts.labModel = cli.value(labModel);
    opts.labLayer = cli.value(labLayer).toInt();
    opts.insight = cli.value(insight);
    opts.measure = cli.isSet(measure);
    opts.squareCells = cli.isSet(square);
    opts.language = cli.value(language);
    const QStringList wh = cli.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2)
        opts.size = QSize(wh.at(0).toInt(), wh.at(1).toInt());
    if (!opts.size.isValid() || opts.size.width() < 100 || opts.size.height() < 100) {
        std::fprintf(stderr, "pe-explorer: --size takes WxH, e.g. 1280x720\n");
        return 2;
    }
    return pe::runExplorer(app, opts);
}
