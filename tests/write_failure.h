// SPDX-License-Identifier: MIT
#pragma once

/**
 * Write failures for tests, without root or mounts:
 * - FileSizeLimit: while alive, no file may grow past `bytes` (RLIMIT_FSIZE), so write() fails
 *   with EFBIG exactly where a full disk fails with ENOSPC. SIGXFSZ is ignored meanwhile, so the
 *   write returns an error instead of killing the process.
 * - readOnlyFolder(): a folder this process cannot create files in. chmod 0555 stops an
 *   ordinary user; root ignores permission bits, so then /proc (no regular files can be
 *   created there by anyone) stands in.
 * - limitFileSizeInChild(): the same limit for a child process (QProcess's child modifier).
 */

#include <QDir>
#include <QFile>
#include <QString>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        m_saved = ::getrlimit(RLIMIT_FSIZE, &m_old) == 0;
        rlimit l = m_old;
        l.rlim_cur = bytes;
        m_ok = m_saved && ::setrlimit(RLIMIT_FSIZE, &l) == 0;
    }
    ~FileSizeLimit() {
        if (m_saved)
            ::setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool ok() const { return m_ok; }

private:
    rlimit m_old{};
    bool m_saved = false;
    bool m_ok = false;
    void (*m_oldHandler)(int) = SIG_DFL;
};

/** In a forked child before exec: async-signal-safe calls only; both settings survive exec. */
inline void limitFileSizeInChild(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit l{};
    if (::getrlimit(RLIMIT_FSIZE, &l) == 0) {
        l.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &l);
    }
}

/** A read-only folder inside `scratch` (made 0555), or /proc when permissions do not bind us. */
inline QString readOnlyFolder(const QString& scratch) {
    const QString dir = QDir(scratch).filePath(QStringLiteral("read-only"));
    QDir().mkpath(dir);
    QFile::setPermissions(dir, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup |
                                   QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
    if (::access(QFile::encodeName(dir).constData(), W_OK) != 0)
        return dir;
    return QStringLiteral("/proc");
}

/** Every entry of `dir`, hidden ones (a stray temporary file) included. */
inline QStringList everyEntry(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System |
                               QDir::NoDotAndDotDot);
}
