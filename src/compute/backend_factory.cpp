// SPDX-License-Identifier: MIT
#include "backend.h"

namespace pe {

std::unique_ptr<Backend> createBackend(BackendKind kind, QString* fallbackReason) {
    if (fallbackReason)
        fallbackReason->clear();
    switch (kind) {
    case BackendKind::CpuReference:
    case BackendKind::CpuFast:
        return std::make_unique<CpuReferenceBackend>();
    case BackendKind::OpenGL:
        if (fallbackReason)
            *fallbackReason = QStringLiteral("the OpenGL backend is not built; using the CPU");
        return std::make_unique<CpuReferenceBackend>();
    }
    return std::make_unique<CpuReferenceBackend>();
}

} // namespace pe
