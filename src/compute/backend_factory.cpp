// SPDX-License-Identifier: MIT
#include "backend.h"

#ifdef PE_HAVE_FAST_CPU
#include "cpu_fast_backend.h"
#endif
#ifdef PE_HAVE_GL_BACKEND
#include "gl_backend.h"
#endif

#include <QSurfaceFormat>

namespace pe {

QSurfaceFormat openGlComputeFormat() {
    QSurfaceFormat fmt;
    fmt.setRenderableType(QSurfaceFormat::OpenGL);
    fmt.setVersion(4, 3);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    return fmt;
}

namespace {

/** The best CPU engine built: the fast one where present, else the reference. */
std::unique_ptr<Backend> bestCpuBackend() {
#ifdef PE_HAVE_FAST_CPU
    return std::make_unique<CpuFastBackend>();
#else
    return std::make_unique<CpuReferenceBackend>();
#endif
}

} // namespace

std::unique_ptr<Backend> createBackend(BackendKind kind, QString* fallbackReason,
                                       QSurface* qtSurface) {
    if (fallbackReason)
        fallbackReason->clear();
    switch (kind) {
    case BackendKind::CpuReference:
        return std::make_unique<CpuReferenceBackend>();
    case BackendKind::CpuFast:
        return bestCpuBackend();
    case BackendKind::OpenGL: {
#ifdef PE_HAVE_GL_BACKEND
        QString why;
        if (auto gl = GlBackend::create(&why, qtSurface))
            return gl;
        if (fallbackReason)
            *fallbackReason = why + QStringLiteral("; using the CPU");
#else
        Q_UNUSED(qtSurface);
        if (fallbackReason)
            *fallbackReason = QStringLiteral("the OpenGL backend is not built; using the CPU");
#endif
        return bestCpuBackend();
    }
    }
    return bestCpuBackend();
}

} // namespace pe
