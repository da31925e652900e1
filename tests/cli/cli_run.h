// SPDX-License-Identifier: MIT
#pragma once

/**
 * Runs the built pe-explorer-cli (PE_CLI_PATH) as a process, for the command tests, and reads
 * back what it wrote.
 */

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

#include "npy.h"

struct Run {
    int exitCode = -1;
    QString err;
    QString out;
};

/**
 * Runs the CLI with `args` (and `env` when given); a minute at most. `inChild` runs in the child
 * before the CLI starts (to set a resource limit, say).
 */
inline Run runCli(const QStringList& args, const QProcessEnvironment& env = {},
                  const std::function<void()>& inChild = {}) {
    QProcess p;
    if (!env.isEmpty())
        p.setProcessEnvironment(env);
    if (inChild)
        p.setChildProcessModifier(inChild);
    p.start(QStringLiteral(PE_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    return r;
}

/** The entries of a folder (files, folders, hidden ones), sorted: what a command left there. */
inline QStringList filesIn(const QString& dir) {
    QStringList l =
        QDir(dir).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden);
    l.sort();
    return l;
}

/** An .npy file the command wrote; an empty tensor (and a warning) if it cannot be read. */
inline pe::Tensor readTensor(const QString& path) {
    auto t = pe::readNpy(path.toStdString());
    if (!t) {
        qWarning("%s", t.error().message.c_str());
        return {};
    }
    return *t;
}

/** A JSON file the command wrote, as an object; empty if it cannot be read. */
inline QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/** A command line split on spaces (no quoting: the tests' arguments have none). */
inline QStringList args(const QString& line) {
    return line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}
