// SPDX-License-Identifier: MIT
#include "screenshot.h"

#include <QAction>
#include <QApplication>
#include <QPixmap>
#include <QSaveFile>
#include <QTimer>

#include <cstdio>

#include <QPushButton>
#include <QSpinBox>

#include "comparison_view.h"
#include "insights_panel.h"
#include "lab_panel.h"
#include "main_window.h"
#include "stepper_panel.h"
#include "trace_views.h"
#include "translation.h"

namespace pe {

int runExplorer(QApplication& app, const ScreenshotOptions& opts) {
    const bool shot = !opts.output.isEmpty();
    Settings settings;
    // A screenshot is English unless --language says otherwise (the docs' pictures do not depend
    // on the machine that made them); the window: View → Language, else the system's.
    installTranslations(!opts.language.isEmpty() ? opts.language
                        : shot                   ? QStringLiteral("en")
                                                 : settings.language());
    Session start = shot ? Settings::defaultSession() : settings.lastSession();
    if (!opts.session.isEmpty()) {
        const Expected<Session> s = loadSession(opts.session);
        if (!s) {
            std::fprintf(stderr, "pe-explorer: %s\n", s.error().message.c_str());
            return 2;
        }
        start = s.value();
    }
    if (!opts.scheme.isEmpty()) {
        const auto sc = schemeFromString(opts.scheme.toStdString());
        if (!sc) {
            std::fprintf(stderr, "pe-explorer: unknown scheme \"%s\"\n", qPrintable(opts.scheme));
            return 2;
        }
        start.params.scheme = *sc;
    }
    MainWindow w(start, !shot);
    if (shot)
        w.resize(opts.size);
    if (!opts.labModel.isEmpty()) {
        const QString error = w.lab()->loadModel(opts.labModel);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "pe-explorer: --lab-model: %s\n", qPrintable(error));
            return 2;
        }
        if (opts.labLayer > 0) {
            if (opts.labLayer > w.lab()->layerBox()->maximum()) {
                std::fprintf(stderr, "pe-explorer: --lab-layer: the model has %d layer(s)\n",
                             w.lab()->layerBox()->maximum());
                return 2;
            }
            w.lab()->layerBox()->setValue(opts.labLayer);
            w.lab()->openButton()->click();
        }
    }
    if (opts.squareCells)
        w.squareCellsAction()->setChecked(true);
    w.views()->setCurrentIndex(opts.tab);
    w.stepper()->setStage(opts.stage);
    if (!opts.insight.isEmpty()) {
        const auto page = insightPageFromString(opts.insight.toStdString());
        if (!page) {
            std::fprintf(stderr, "pe-explorer: unknown insights page \"%s\"\n",
                         qPrintable(opts.insight));
            return 2;
        }
        w.insights()->setPage(*page);
        w.views()->setCurrentWidget(w.insights());
    }
    w.show();
    if (shot && w.size() != opts.size)
        std::fprintf(stderr, "pe-explorer: the window is %dx%d, not %dx%d (its minimum size)\n",
                     w.width(), w.height(), opts.size.width(), opts.size.height());
    if (opts.measure && w.insights()->page() == InsightPage::Cost)
        w.insights()->measureButton()->click(); // supersedes the unmeasured page
    if (!shot)
        return app.exec();

    int status = 1;
    auto grab = [&] {
        // Let the queued replots and the re-pooling timers run, then grab.
        QTimer::singleShot(400, &w, [&] {
            QSaveFile f(opts.output);
            const QPixmap pm = w.grab();
            if (f.open(QIODevice::WriteOnly) && pm.save(&f, "PNG") && f.commit()) {
                status = 0;
            } else {
                std::fprintf(stderr, "pe-explorer: cannot write %s: %s\n", qPrintable(opts.output),
                             qPrintable(f.errorString()));
            }
            app.quit();
        });
    };
    // An insights page and the Compare tab's second trace arrive from their own workers, after
    // the window's trace: grabbed at the window's first frame, the Compare tab showed empty axes.
    if (!opts.insight.isEmpty())
        QObject::connect(w.insights(), &InsightsPanel::resultShown, &w, grab);
    else if (w.views()->currentWidget() == w.comparison())
        QObject::connect(w.comparison(), &ComparisonView::updated, &w, grab);
    else
        QObject::connect(&w, &MainWindow::frameShown, &w, grab);
    QTimer::singleShot(60000, &app, [&] {
        std::fprintf(stderr, "pe-explorer: no result within 60 s\n");
        app.quit();
    });
    app.exec();
    return status;
}

} // namespace pe
