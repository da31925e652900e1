// SPDX-License-Identifier: MIT
#include "gl_qt_context.h"

#include <QOpenGLContext>
#include <QSurface>
#include <QSurfaceFormat>

#include "backend.h"

namespace pe::gl {

std::unique_ptr<QtContextHandle> QtContextHandle::create(QSurface* surface, std::string* why) {
    auto fail = [why](const char* message) {
        if (why)
            *why = message;
        return nullptr;
    };
    if (!surface || !surface->supportsOpenGL())
        return fail("the window system offers no OpenGL surface");
    std::unique_ptr<QtContextHandle> out(new QtContextHandle);
    out->m_context = std::make_unique<QOpenGLContext>();
    out->m_context->setFormat(openGlComputeFormat());
    if (!out->m_context->create())
        return fail("Qt could not create an OpenGL context");
    const QSurfaceFormat got = out->m_context->format();
    if (got.renderableType() != QSurfaceFormat::OpenGL ||
        got.majorVersion() * 10 + got.minorVersion() < 43)
        return fail("Qt's OpenGL context is older than 4.3");
    out->m_surface = surface;
    return out;
}

QtContextHandle::~QtContextHandle() {
    if (m_context && QOpenGLContext::currentContext() == m_context.get())
        m_context->doneCurrent();
}

bool QtContextHandle::makeCurrent() {
    return m_context->makeCurrent(m_surface);
}

void QtContextHandle::doneCurrent() {
    m_context->doneCurrent();
}

void* QtContextHandle::procAddress(const char* name) const {
    return reinterpret_cast<void*>(m_context->getProcAddress(name));
}

} // namespace pe::gl
