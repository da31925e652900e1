// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

#include "backend.h"
#include "heatmap_view.h"
#include "session.h"

namespace pe {

/** Every persisted key of the explorer, in one place (QSettings, organisation "pe-explorer"). */
class Settings {
public:
    Settings() = default;

    Session lastSession() const; ///< falls back to the first view's defaults
    void setLastSession(const Session& s);
    QByteArray geometry() const;
    void setGeometry(const QByteArray& g);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& s);
    ColorMapKind colorMap() const;
    void setColorMap(ColorMapKind k);
    /** View → Square cells (default off: maps fill their boxes). */
    bool squareCells() const;
    void setSquareCells(bool on);
    PoolMode poolMode() const;
    void setPoolMode(PoolMode m);
    BackendKind backend() const; ///< default: the fast CPU engine
    void setBackend(BackendKind k);
    int cpuThreads() const; ///< threads of the fast CPU engine; 0 (default): one per core
    void setCpuThreads(int threads);
    int exportDpi() const;
    void setExportDpi(int dpi);
    QString lastDirectory() const;
    void setLastDirectory(const QString& dir);
    /** Whether the first-run tour of the tabs was dismissed for good. */
    bool tourDone() const;
    void setTourDone(bool done);
    /** Interface language of View → Language: "en", "zh_CN", or "" (default) for the system's. */
    QString language() const;
    void setLanguage(const QString& code);

    /** The first view: sinusoidal, n = 64, d = 128, 4 heads, a sample sentence. */
    static Session defaultSession();
};

} // namespace pe
