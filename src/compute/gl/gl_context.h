// SPDX-License-Identifier: MIT
#pragma once

/**
 * A headless OpenGL 4.3+ core context on raw EGL, with no window system and no surface.
 * Platforms tried in order: EGL_PLATFORM_DEVICE_EXT (first device), EGL_PLATFORM_SURFACELESS_MESA,
 * then eglGetDisplay(EGL_DEFAULT_DISPLAY). The context is made current with no surface
 * (EGL_KHR_surfaceless_context), so it works in the CLI, tests, servers and inside the window
 * alike. A context is current on one thread at a time: call makeCurrent() on the thread that
 * dispatches, and doneCurrent() when finished.
 */

#include <memory>
#include <string>

#include "expected.h"
#include "gl_functions.h"

namespace pe::gl {

class Context {
public:
    /** Creates the context, or an Error with one line saying why none could be made. */
    static Expected<std::unique_ptr<Context>> create();
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
    /** Which EGL platform worked: "device", "surfaceless" or "default". */
    const std::string& platform() const { return m_platform; }

private:
    Context() = default;
    void* m_display = nullptr;
    void* m_context = nullptr;
    Functions m_f;
    std::string m_renderer, m_version, m_platform;
};

} // namespace pe::gl
