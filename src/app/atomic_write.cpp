// SPDX-License-Identifier: MIT
#include "atomic_write.h"

#include <QSaveFile>

#include <cerrno>
#include <cstring>

namespace pe {

namespace {

Error writeError(const QString& path, const QString& why) {
    return Error{QStringLiteral("cannot write %1: %2").arg(path, why).toStdString()};
}

} // namespace

Status writeAtomically(const QString& path,
                       const std::function<bool(QSaveFile& f, QString& why)>& fill) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return writeError(path, f.errorString());
    QString why;
    if (!fill(f, why)) {
        f.cancelWriting();
        return writeError(path, why.isEmpty() ? f.errorString() : why);
    }
    errno = 0;
    const bool flushed = f.flush();
    const int flushErrno = errno;
    // size() asks the file system (fstat of the temporary); pos() counts what was handed over.
    if (!flushed || f.error() != QFileDevice::NoError || f.size() != f.pos()) {
        const QString reason = f.error() != QFileDevice::NoError ? f.errorString()
                               : flushErrno != 0
                                   ? QString::fromLocal8Bit(std::strerror(flushErrno))
                                   : QStringLiteral("the write was cut short (disk full?)");
        const QString counts =
            QStringLiteral(" (%1 of %2 bytes written)").arg(f.size()).arg(f.pos());
        f.cancelWriting();
        return writeError(path, reason + counts);
    }
    if (!f.commit())
        return writeError(path, f.errorString());
    return Status::success();
}

} // namespace pe
