// SPDX-License-Identifier: MIT
#include "atomic_write.h"

#include <QSaveFile>

#include <cerrno>
#include <cstring>

namespace pe {

Error writeError(const QString& path, const QString& why) {
    return Error{QStringLiteral("cannot write %1: %2").arg(path, why).toStdString()};
}

Status writeAtomically(const QString& path,
                       const std::function<bool(QSaveFile& f, QString& why)>& fill) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return writeError(path, f.errorString());
    QString why;
    errno = 0;
    const bool filled = fill(f, why);
    int err = errno; // EFBIG/ENOSPC from the write that failed, before Qt code runs again
    bool complete = false;
    if (filled) {
        errno = 0;
        const bool flushed = f.flush();
        if (!flushed)
            err = errno;
        // size() asks the file system (fstat of the temporary); pos() counts what was handed over.
        complete = flushed && f.error() == QFileDevice::NoError && f.size() == f.pos();
    }
    if (!complete) {
        const QString reason = !why.isEmpty() ? why
                               : err != 0     ? QString::fromLocal8Bit(std::strerror(err))
                               : f.error() != QFileDevice::NoError
                                   ? f.errorString()
                                   : QStringLiteral("the write was cut short (disk full?)");
        f.cancelWriting();
        return writeError(path, reason);
    }
    if (!f.commit())
        return writeError(path, f.errorString());
    return Status::success();
}

Status writeAtomically(const QString& path, const QByteArray& bytes) {
    return writeAtomically(
        path, [&bytes](QSaveFile& f, QString&) { return f.write(bytes) == bytes.size(); });
}

} // namespace pe
