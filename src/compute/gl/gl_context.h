// SPDX-License-Identifier: MIT
#pragma once

/**
 * An OpenGL 4.3+ core context for compute, made one of two ways:
 *  - in the window, given a QOffscreenSurface that the GUI thread created: a QOpenGLContext on it
 *    (gl_qt_context.h), made on the calling thread;
 *  - headless (CLI, tests, servers), or where the Qt way fails: raw EGL with no window system and
 *    no surface. Platforms tried in order: EGL_PLATFORM_DEVICE_EXT (first device),
 *    EGL_PLATFORM_SURFACELESS_MESA, then eglGetDisplay(EGL_DEFAULT_DISPLAY); the context is made
 *    current with no surface (EGL_KHR_surfaceless_context).
 * Setting PE_GL_UNAVAILABLE in the environment makes create() fail as a driver without GL 4.3
 * would (fault injection: the callers' CPU fallback is tested with it).
 * A context is current on one thread at a time: call makeCurrent() on the thread that
 * dispatches, and doneCurrent() when finished. A Qt context stays on the thread that made it.
 */

#include <memory>
#include <string>

#include "expected.h"
#include "gl_functions.h"

class QSurface;

namespace pe::gl {

class QtContextHandle;

class Context {
public:
    /**
     * Creates the context, or an Error with one line saying why none could be made. With a
     * `qtSurface`, Qt's way is tried first and EGL after it.
     */
    static Expected<std::unique_ptr<Context>> create(QSurface* qtSurface = nullptr);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    bool makeCurrent();
    void doneCurrent();
    const Functions& f() const { return m_f; }
    /** GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)". */
    const std::string& renderer() const { return m_renderer; }
    /** GL_VERSION. */
    const std::string& version() const { return m_version; }
    /** Which way worked: "Qt", or the EGL platform "device", "surfaceless" or "default". */
    const std::string& platform() const { return m_platform; }

private:
    Context();
    static Expected<std::unique_ptr<Context>> createEgl();
    /** With the new context current: loads the entry points, reads the strings, checks 4.3. */
    Status init(Functions::Loader loader, const void* handle);

    std::unique_ptr<QtContextHandle> m_qt;
    void* m_display = nullptr;
    void* m_context = nullptr;
    Functions m_f;
    std::string m_renderer, m_version, m_platform;
};

} // namespace pe::gl
