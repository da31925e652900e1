// SPDX-License-Identifier: MIT
#pragma once

/**
 * The window's way to OpenGL: a QOpenGLContext (4.3 core) made current on a QOffscreenSurface
 * that the GUI thread created (Qt allows using such a surface from a worker thread). Kept apart
 * from gl_context.cpp so that Qt's GL headers and <GL/glcorearb.h> never meet in one unit.
 */

#include <memory>
#include <string>

class QOpenGLContext;
class QSurface;

namespace pe::gl {

class QtContextHandle {
public:
    /** Creates a 4.3 core context on the calling thread for `surface`, or nullptr and *why. */
    static std::unique_ptr<QtContextHandle> create(QSurface* surface, std::string* why);
    ~QtContextHandle();
    QtContextHandle(const QtContextHandle&) = delete;
    QtContextHandle& operator=(const QtContextHandle&) = delete;

    bool makeCurrent();
    void doneCurrent();
    /** The entry point `name` ("glGetError", …) of the current context, or nullptr. */
    void* procAddress(const char* name) const;

private:
    QtContextHandle() = default;
    std::unique_ptr<QOpenGLContext> m_context;
    QSurface* m_surface = nullptr;
};

} // namespace pe::gl
