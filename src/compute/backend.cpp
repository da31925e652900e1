// SPDX-License-Identifier: MIT
#include "backend.h"

#include <QSysInfo>

namespace pe {

QString CpuReferenceBackend::device() const {
    return QStringLiteral("%1 (reference, 1 thread)").arg(QSysInfo::currentCpuArchitecture());
}

Expected<Trace> CpuReferenceBackend::compute(const Params& p, const Weights& w,
                                             const std::atomic<bool>* cancel) {
    return computeTrace(p, w, cancel);
}

} // namespace pe
