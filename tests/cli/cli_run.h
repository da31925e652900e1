// SPDX-License-Identifier: MIT
#pragma once

/** Runs the built pe-explorer-cli (PE_CLI_PATH) as a process, for the command tests. */

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

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
