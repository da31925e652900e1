// SPDX-License-Identifier: MIT
#pragma once

/**
 * All-or-nothing file writes for the window (exports, sessions): the bytes go to a QSaveFile
 * and replace `path` only when every one reached the disk. A failure returns
 * "cannot write PATH: REASON" and leaves neither the file nor a temporary beside it.
 *
 * QSaveFile alone is not enough on a full disk: a short write() (some bytes written, then
 * ENOSPC/EFBIG) sets no error in QFileDevice, so commit() would rename a truncated file into
 * place. writeAtomically() flushes first, compares the bytes on disk with the bytes written,
 * and names the failed write's errno (e.g. "File too large", "No space left on device").
 */

#include <QByteArray>
#include <QString>

#include <functional>

#include "expected.h"

class QSaveFile;

namespace pe {

/**
 * Opens `path` as a QSaveFile, lets `fill` write to it (returning false, with `why` set or
 * not, on its own failure) and commits only a complete file.
 */
Status writeAtomically(const QString& path,
                       const std::function<bool(QSaveFile& f, QString& why)>& fill);

/** writeAtomically() of bytes already in memory (encoded figures, sessions, .npy). */
Status writeAtomically(const QString& path, const QByteArray& bytes);

/** The error every write here reports: "cannot write PATH: WHY". */
Error writeError(const QString& path, const QString& why);

} // namespace pe
