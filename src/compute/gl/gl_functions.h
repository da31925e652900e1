// SPDX-License-Identifier: MIT
#pragma once

/**
 * The OpenGL 4.3 core entry points the compute backend uses, loaded once per context through the
 * context's own lookup (eglGetProcAddress with EGL_KHR_client_get_all_proc_addresses, or
 * QOpenGLContext::getProcAddress), so no GL loader library is needed.
 */

#include <GL/glcorearb.h>

#include <string>

namespace pe::gl {

// X(type, name): one entry point, stored as a member named after the GL function minus "gl".
#define PE_GL_FUNCTIONS(X)                                                                         \
    X(PFNGLGETERRORPROC, GetError)                                                                 \
    X(PFNGLGETSTRINGPROC, GetString)                                                               \
    X(PFNGLGETINTEGERVPROC, GetIntegerv)                                                           \
    X(PFNGLGETINTEGER64VPROC, GetInteger64v)                                                       \
    X(PFNGLGETINTEGERI_VPROC, GetIntegeri_v)                                                       \
    X(PFNGLCREATESHADERPROC, CreateShader)                                                         \
    X(PFNGLSHADERSOURCEPROC, ShaderSource)                                                         \
    X(PFNGLCOMPILESHADERPROC, CompileShader)                                                       \
    X(PFNGLGETSHADERIVPROC, GetShaderiv)                                                           \
    X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)                                                 \
    X(PFNGLDELETESHADERPROC, DeleteShader)                                                         \
    X(PFNGLCREATEPROGRAMPROC, CreateProgram)                                                       \
    X(PFNGLATTACHSHADERPROC, AttachShader)                                                         \
    X(PFNGLLINKPROGRAMPROC, LinkProgram)                                                           \
    X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                                                         \
    X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)                                               \
    X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                                                       \
    X(PFNGLUSEPROGRAMPROC, UseProgram)                                                             \
    X(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)                                             \
    X(PFNGLUNIFORM1IPROC, Uniform1i)                                                               \
    X(PFNGLUNIFORM1FPROC, Uniform1f)                                                               \
    X(PFNGLGENBUFFERSPROC, GenBuffers)                                                             \
    X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                                                       \
    X(PFNGLBINDBUFFERPROC, BindBuffer)                                                             \
    X(PFNGLBINDBUFFERBASEPROC, BindBufferBase)                                                     \
    X(PFNGLBUFFERDATAPROC, BufferData)                                                             \
    X(PFNGLBUFFERSUBDATAPROC, BufferSubData)                                                       \
    X(PFNGLGETBUFFERSUBDATAPROC, GetBufferSubData)                                                 \
    X(PFNGLCOPYBUFFERSUBDATAPROC, CopyBufferSubData)                                               \
    X(PFNGLMAPBUFFERRANGEPROC, MapBufferRange)                                                     \
    X(PFNGLUNMAPBUFFERPROC, UnmapBuffer)                                                           \
    X(PFNGLCLEARBUFFERDATAPROC, ClearBufferData)                                                   \
    X(PFNGLDISPATCHCOMPUTEPROC, DispatchCompute)                                                   \
    X(PFNGLMEMORYBARRIERPROC, MemoryBarrier)                                                       \
    X(PFNGLFINISHPROC, Finish)

struct Functions {
#define PE_GL_MEMBER(type, name) type name = nullptr;
    PE_GL_FUNCTIONS(PE_GL_MEMBER)
#undef PE_GL_MEMBER

    /** Looks up one entry point ("glGetError") in the current context; nullptr if absent. */
    using Loader = void* (*)(const char* name, const void* context);

    /** Loads every entry point; on failure returns false and names the first missing one. */
    bool load(Loader loader, const void* context, std::string* missing);
};

} // namespace pe::gl
