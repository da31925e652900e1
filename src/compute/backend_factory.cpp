// SPDX-License-Identifier: MIT
#include "backend.h"

#ifdef PE_HAVE_GL_BACKEND
#include "gl_backend.h"
#endif

namespace pe {

std::unique_ptr<Backend> createBackend(BackendKind kind, QString* fallbackReason) {
    if (fallbackReason)
        fallbackReason->clear();
    switch (kind) {
    case BackendKind::CpuReference:
    case BackendKind::CpuFast:
        return std::make_unique<CpuReferenceBackend>();
    case BackendKind::OpenGL: {
#ifdef PE_HAVE_GL_BACKEND
        QString why;
        if (auto gl = GlBackend::create(&why))
            return gl;
        if (fallbackReason)
            *fallbackReason = why + QStringLiteral("; using the CPU");
#else
        if (fallbackReason)
            *fallbackReason = QStringLiteral("the OpenGL backend is not built; using the CPU");
#endif
        return std::make_unique<CpuReferenceBackend>();
    }
    }
    return std::make_unique<CpuReferenceBackend>();
}

} // namespace pe
