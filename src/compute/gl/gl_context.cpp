// SPDX-License-Identifier: MIT
#include "gl_context.h"

#include "gl_qt_context.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>
#endif

namespace pe::gl {

bool Functions::load(Loader loader, const void* context, std::string* missing) {
#define PE_GL_LOAD(type, name)                                                                     \
    name = reinterpret_cast<type>(loader("gl" #name, context));                                    \
    if (!name) {                                                                                   \
        if (missing)                                                                               \
            *missing = "gl" #name;                                                                 \
        return false;                                                                              \
    }
    PE_GL_FUNCTIONS(PE_GL_LOAD)
#undef PE_GL_LOAD
    return true;
}

namespace {

std::string eglErrorName(EGLint e) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "EGL error 0x%04x", static_cast<unsigned>(e));
    return buf;
}

bool hasExtension(const char* list, const char* name) {
    if (!list)
        return false;
    const std::size_t len = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += len) {
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    }
    return false;
}

struct Candidate {
    EGLDisplay display;
    std::string platform;
};

std::vector<Candidate> candidateDisplays() {
    std::vector<Candidate> out;
    const char* clientExts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto getPlatformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (getPlatformDisplay && hasExtension(clientExts, "EGL_EXT_platform_device")) {
        auto queryDevices =
            reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (queryDevices && queryDevices(16, devices, &count) && count > 0) {
            for (EGLint i = 0; i < count; ++i) {
                EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                if (d != EGL_NO_DISPLAY)
                    out.push_back({d, "device"});
            }
        }
    }
    if (getPlatformDisplay && hasExtension(clientExts, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d =
            getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (d != EGL_NO_DISPLAY)
            out.push_back({d, "surfaceless"});
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY)
        out.push_back({d, "default"});
    return out;
}

void* eglLoader(const char* name, const void*) {
    return reinterpret_cast<void*>(eglGetProcAddress(name));
}

void* qtLoader(const char* name, const void* handle) {
    return static_cast<const QtContextHandle*>(handle)->procAddress(name);
}

} // namespace

Context::Context() = default;

Expected<std::unique_ptr<Context>> Context::create(QSurface* qtSurface) {
    // Fault injection for tests and bug reports: behave as a driver without GL 4.3 would.
    if (std::getenv("PE_GL_UNAVAILABLE"))
        return Error{"no OpenGL 4.3 context (PE_GL_UNAVAILABLE is set)"};
    std::string qtWhy;
    if (qtSurface) {
        if (auto qt = QtContextHandle::create(qtSurface, &qtWhy); qt && qt->makeCurrent()) {
            std::unique_ptr<Context> out(new Context);
            out->m_qt = std::move(qt);
            out->m_platform = "Qt";
            Status st = out->init(qtLoader, out->m_qt.get());
            out->doneCurrent();
            if (st)
                return out;
            qtWhy = st.error().message;
        }
    }
    auto egl = createEgl();
    if (!egl && !qtWhy.empty())
        return Error{"Qt: " + qtWhy + "; EGL: " + egl.error().message};
    return egl;
}

#if defined(__SANITIZE_ADDRESS__)
/**
 * Under AddressSanitizer only: keeps Mesa's DRI driver mapped until the process ends. Unloaded
 * at exit (after the window used the OpenGL backend), it left 128 bytes that only its own data
 * pointed to, which LeakSanitizer then reported from an "<unknown module>" (tst_main_window,
 * soak_short); mapped, its globals still reach them and there is no report, and no suppression.
 */
void keepDriversMapped() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            if (info->dlpi_name && std::strstr(info->dlpi_name, "_dri.so"))
                (void)dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
            return 0;
        },
        nullptr);
}
#endif

Status Context::init(Functions::Loader loader, const void* handle) {
#if defined(__SANITIZE_ADDRESS__)
    keepDriversMapped();
#endif
    std::string missing;
    if (!m_f.load(loader, handle, &missing))
        return Error{"OpenGL entry point " + missing + " is missing"};
    auto str = [&](GLenum e) {
        const GLubyte* s = m_f.GetString(e);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
    };
    m_renderer = str(GL_RENDERER);
    m_version = str(GL_VERSION);
    GLint glMajor = 0, glMinor = 0;
    m_f.GetIntegerv(GL_MAJOR_VERSION, &glMajor);
    m_f.GetIntegerv(GL_MINOR_VERSION, &glMinor);
    if (glMajor * 10 + glMinor < 43)
        return Error{"OpenGL " + m_version + " is older than 4.3 (no compute shaders)"};
    return {};
}

Expected<std::unique_ptr<Context>> Context::createEgl() {
    std::string why = "no EGL display";
    for (const Candidate& c : candidateDisplays()) {
        EGLint major = 0, minor = 0;
        if (!eglInitialize(c.display, &major, &minor)) {
            why = c.platform + " platform: eglInitialize failed (" + eglErrorName(eglGetError()) +
                  ")";
            continue;
        }
        const char* exts = eglQueryString(c.display, EGL_EXTENSIONS);
        if (!hasExtension(exts, "EGL_KHR_surfaceless_context") ||
            !hasExtension(exts, "EGL_KHR_no_config_context")) {
            why = c.platform + " platform: no EGL_KHR_surfaceless_context/no_config_context";
            eglTerminate(c.display);
            continue;
        }
        if (!eglBindAPI(EGL_OPENGL_API)) {
            why = c.platform + " platform: desktop OpenGL not supported by EGL";
            eglTerminate(c.display);
            continue;
        }
        const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  4,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  3,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_NONE};
        EGLContext ctx = eglCreateContext(c.display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
        if (ctx == EGL_NO_CONTEXT) {
            why = c.platform + " platform: no OpenGL 4.3 core context (" +
                  eglErrorName(eglGetError()) + ")";
            eglTerminate(c.display);
            continue;
        }
        if (!eglMakeCurrent(c.display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
            why = c.platform + " platform: eglMakeCurrent failed (" + eglErrorName(eglGetError()) +
                  ")";
            eglDestroyContext(c.display, ctx);
            eglTerminate(c.display);
            continue;
        }
        std::unique_ptr<Context> out(new Context);
        out->m_display = c.display;
        out->m_context = ctx;
        out->m_platform = c.platform;
        Status st = out->init(eglLoader, nullptr);
        out->doneCurrent();
        if (!st)
            return st.error();
        return out;
    }
    return Error{"no OpenGL 4.3 context could be made: " + why};
}

Context::~Context() {
    if (m_qt) {
        m_qt.reset();
    } else if (m_display) {
        eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (m_context)
            eglDestroyContext(m_display, m_context);
        // The display is shared process-wide by EGL; terminating it would pull it from under
        // any other context on the same display, so it is left initialised.
    }
}

bool Context::makeCurrent() {
    if (m_qt)
        return m_qt->makeCurrent();
    // The bound API is per thread: a worker thread starts with OpenGL ES bound.
    eglBindAPI(EGL_OPENGL_API);
    return eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context) == EGL_TRUE;
}

void Context::doneCurrent() {
    if (m_qt)
        return m_qt->doneCurrent();
    eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

} // namespace pe::gl
