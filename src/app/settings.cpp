// SPDX-License-Identifier: MIT
#include "settings.h"

#include <QDir>
#include <QJsonDocument>
#include <QSettings>

#include <algorithm>

namespace pe {

namespace {
const QString kSession = QStringLiteral("session/last");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kColorMap = QStringLiteral("view/colorMap");
const QString kSquareCells = QStringLiteral("view/squareCells");
const QString kTourDone = QStringLiteral("help/tourDone");
const QString kLanguage = QStringLiteral("view/language");
const QString kPool = QStringLiteral("view/pool");
const QString kBackend = QStringLiteral("compute/backend");
const QString kCpuThreads = QStringLiteral("compute/cpuThreads");
const QString kDpi = QStringLiteral("export/dpi");
const QString kDir = QStringLiteral("export/lastDirectory");
} // namespace

Session Settings::defaultSession() {
    Session s;
    s.params.scheme = Scheme::Sinusoidal;
    s.params.n = 64;
    s.params.d = 128;
    s.params.heads = 4;
    s.input.kind = InputKind::Sentence;
    return s;
}

Session Settings::lastSession() const {
    const QByteArray json = QSettings().value(kSession).toByteArray();
    if (json.isEmpty())
        return defaultSession();
    const Expected<Session> s = sessionFromJson(QJsonDocument::fromJson(json).object());
    return s ? s.value() : defaultSession();
}

void Settings::setLastSession(const Session& s) {
    QSettings().setValue(kSession, QJsonDocument(toJson(s)).toJson(QJsonDocument::Compact));
}

QByteArray Settings::geometry() const {
    return QSettings().value(kGeometry).toByteArray();
}

void Settings::setGeometry(const QByteArray& g) {
    QSettings().setValue(kGeometry, g);
}

QByteArray Settings::windowState() const {
    return QSettings().value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray& s) {
    QSettings().setValue(kState, s);
}

bool Settings::tourDone() const {
    return QSettings().value(kTourDone, false).toBool();
}

void Settings::setTourDone(bool done) {
    QSettings().setValue(kTourDone, done);
}

QString Settings::language() const {
    return QSettings().value(kLanguage).toString();
}

void Settings::setLanguage(const QString& code) {
    QSettings().setValue(kLanguage, code);
}

ColorMapKind Settings::colorMap() const {
    return colorMapFromString(QSettings().value(kColorMap).toString());
}

void Settings::setColorMap(ColorMapKind k) {
    QSettings().setValue(kColorMap, toString(k));
}

bool Settings::squareCells() const {
    return QSettings().value(kSquareCells, false).toBool();
}

void Settings::setSquareCells(bool on) {
    QSettings().setValue(kSquareCells, on);
}

PoolMode Settings::poolMode() const {
    return QSettings().value(kPool).toString() == QLatin1String("max") ? PoolMode::Max
                                                                       : PoolMode::Mean;
}

void Settings::setPoolMode(PoolMode m) {
    QSettings().setValue(kPool,
                         m == PoolMode::Max ? QStringLiteral("max") : QStringLiteral("mean"));
}

BackendKind Settings::backend() const {
    const QString s = QSettings().value(kBackend).toString();
    if (s == QLatin1String("reference"))
        return BackendKind::CpuReference;
    if (s == QLatin1String("gl"))
        return BackendKind::OpenGL;
    return BackendKind::CpuFast;
}

void Settings::setBackend(BackendKind k) {
    QSettings().setValue(kBackend, k == BackendKind::CpuReference ? QStringLiteral("reference")
                                   : k == BackendKind::OpenGL     ? QStringLiteral("gl")
                                                                  : QStringLiteral("fast"));
}

int Settings::cpuThreads() const {
    return std::max(0, QSettings().value(kCpuThreads, 0).toInt());
}

void Settings::setCpuThreads(int threads) {
    QSettings().setValue(kCpuThreads, std::max(0, threads));
}

int Settings::exportDpi() const {
    return std::clamp(QSettings().value(kDpi, 300).toInt(), 72, 1200);
}

void Settings::setExportDpi(int dpi) {
    QSettings().setValue(kDpi, dpi);
}

QString Settings::lastDirectory() const {
    return QSettings().value(kDir, QDir::homePath()).toString();
}

void Settings::setLastDirectory(const QString& dir) {
    QSettings().setValue(kDir, dir);
}

} // namespace pe
