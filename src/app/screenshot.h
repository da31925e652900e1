// SPDX-License-Identifier: MIT
#pragma once

#include <QSize>
#include <QString>

class QApplication;

namespace pe {

struct ScreenshotOptions {
    QString output;  ///< non-empty: grab the window to this PNG after the first frame and exit
    QString session; ///< session file to start from
    QString scheme;  ///< scheme to start with (overrides the session's)
    int tab = 0;
    int stage = 0;            ///< stage of the stepper tab
    QSize size{1500, 900};    ///< window size of the screenshot
    QString labModel;         ///< a lab model (model.safetensors) to load into the Lab tab
    int labLayer = 0;         ///< > 0: open that layer of the loaded model in the views
    QString insight;          ///< an insights page to open (binary, offset, cost, distance, depth)
    bool measure = false;     ///< with insight = cost: press Measure first
    bool squareCells = false; ///< turn View → Square cells on
    /** Interface language ("en", "zh_CN"); empty: View → Language, else the system's (a
     *  screenshot: English). */
    QString language;
};

/** Opens the explorer (or renders one screenshot); returns the process exit status. */
int runExplorer(QApplication& app, const ScreenshotOptions& opts);

} // namespace pe
