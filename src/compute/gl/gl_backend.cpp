// SPDX-License-Identifier: MIT
#include "gl_backend.h"

#include "encodings.h"
#include "gl_context.h"
#include "gl_functions.h"
#include "gl_shaders.h"
#include "relative_tables.h"

#include <QLoggingCategory>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

// Debug messages (context creation) are off unless QT_LOGGING_RULES="pe.gl.debug=true".
Q_LOGGING_CATEGORY(lcGl, "pe.gl", QtInfoMsg)

namespace pe {

namespace {

std::vector<float> toFloatRowMajor(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    std::vector<float> out(static_cast<std::size_t>(m.size()));
    // Bands of 32 rows: each column's 32 entries are read in a row (column-major source), and
    // the band's 32 output rows stay in cache while they fill.
    constexpr Eigen::Index kBand = 32;
    for (Eigen::Index r0 = 0; r0 < m.rows(); r0 += kBand) {
        const Eigen::Index r1 = std::min(m.rows(), r0 + kBand);
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            for (Eigen::Index r = r0; r < r1; ++r)
                out[static_cast<std::size_t>(r * m.cols() + c)] = static_cast<float>(m(r, c));
    }
    return out;
}

Tensor matrixTensor(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    return Tensor::fromVector<float>({m.rows(), m.cols()}, toFloatRowMajor(m));
}

/**
 * Rows [r0, r1) of the input X = E + P ([CLS], the tokens' rows, [SEP]; P where given, or the
 * sinusoid's rows made here where `sinusoid`), summed in double and stored in float, row-major,
 * into out. Bands of 32 rows: each column's entries are read in a row (column-major sources).
 */
void inputRows(const Params& p, const Weights& w, const Eigen::MatrixXd* P, bool sinusoid, int r0,
               int r1, float* out) {
    constexpr int kBand = 32;
    const int L = p.seqLen(), d = p.d;
    const double* base[kBand];
    Eigen::Index stride[kBand];
    Eigen::MatrixXd band;
    for (int b0 = r0; b0 < r1; b0 += kBand) {
        const int rows = std::min(r1, b0 + kBand) - b0;
        for (int k = 0; k < rows; ++k) {
            const int r = b0 + k;
            const Eigen::MatrixXd& m = p.cls && r == 0 ? w.cls : p.sep && r == L - 1 ? w.sep : w.E;
            base[k] = m.data() + (&m == &w.E ? r - (p.cls ? 1 : 0) : 0);
            stride[k] = m.rows();
        }
        if (sinusoid) {
            band.resize(rows, d);
            sinusoidalInto(band, p.base, p.layout, b0);
        }
        for (int c = 0; c < d; ++c)
            for (int k = 0; k < rows; ++k) {
                double x = base[k][c * stride[k]];
                if (P)
                    x += (*P)(b0 + k, c);
                else if (sinusoid)
                    x += band(k, c);
                out[static_cast<std::size_t>(b0 - r0 + k) * d + c] = static_cast<float>(x);
            }
    }
}

struct GemmDesc {
    int M = 0, N = 0, K = 0, batch = 1;
    int aOff = 0, aBatch = 0, aRow = 0, aCol = 1;
    int bOff = 0, bBatch = 0, bRow = 0, bCol = 1;
    int cOff = 0, cBatch = 0, cRow = 0, cCol = 1;
    int cSplit = 0, cSplitStride = 0; ///< see gemm.comp
    float alpha = 1.0f, beta = 0.0f;
};

/** C[M, N] = A[M, K] · B[K, N], all three dense and row-major. */
GemmDesc denseGemm(int M, int N, int K) {
    GemmDesc g;
    g.M = M;
    g.N = N;
    g.K = K;
    g.aRow = K;
    g.bRow = N;
    g.cRow = N;
    return g;
}

int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
}

/** Mesa's llvmpipe and softpipe, SwiftShader: "GPUs" that run on the CPU. */
bool isCpuRasteriser(const std::string& renderer) {
    return renderer.find("llvmpipe") != std::string::npos ||
           renderer.find("softpipe") != std::string::npos ||
           renderer.find("SwiftShader") != std::string::npos;
}

bool useDirectGemm(const std::string& renderer) {
    const QByteArray forced = qgetenv("PE_GL_GEMM");
    if (forced == "tiled")
        return false;
    if (forced == "direct")
        return true;
    return isCpuRasteriser(renderer);
}

/**
 * The most work (query rows × keys × heads × head width) one chunk of the n² pass does on a CPU
 * rasteriser. A cancelled computation returns once the chunk in flight is done: on llvmpipe
 * (two cores) a chunk sized by memory alone, 7,812 query rows at n = 16,384, d = 512, 8 heads,
 * kept a superseded computation running 15–23 s; with this bound (16 rows there) it returned
 * within 0.3 s, and a whole computation at n = 4,096 took as long as before (24 s). GPUs keep
 * their chunks.
 */
constexpr std::int64_t kCpuRasteriserChunkWork = std::int64_t{1} << 28;

/** Elements per n×n chunk buffer (1 GiB of floats): heads are processed in groups this fits. */
constexpr std::int64_t kChunkElems = std::int64_t{1} << 28;

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load();
}

} // namespace

/** GL_CONTEXT_LOST (GL 4.5 / KHR_robustness), spelled out for older headers. */
constexpr GLenum kGlContextLost = 0x0507;
const char* const kLostNote = "the GL context was lost (a driver reset); the CPU computes from now "
                              "on (View \u2192 Compute backend \u2192 GL tries a new context)";

/** One forward pass on the GPU: owns its buffers; the first error stops every later step. */
struct GlBackend::Impl {
    GlBackend& be;
    const gl::Functions& f;
    std::vector<GLuint> buffers;
    std::string error;
    GLint64 maxSsbo = 0;
    GLint maxShared = 0; ///< GL_MAX_COMPUTE_SHARED_MEMORY_SIZE (at least 32 KiB in GL 4.3)
    // PE_GL_PROFILE=1: finish after every dispatch and log the time per shader (pe.gl).
    bool profile = qEnvironmentVariableIsSet("PE_GL_PROFILE");
    std::map<std::string, double> profileMs;
    std::string currentProgram;
    // PE_GL_NO_VEC4=1: scalar panel loads only (to compare the two load paths).
    bool noVec = qEnvironmentVariableIsSet("PE_GL_NO_VEC4");
    // Tiled products on GPUs; the untiled kernel on CPU rasterisers (PE_GL_GEMM=tiled|direct
    // overrides the choice).
    bool directGemm = be.m_gemmKernel == GemmKernel::Auto ? useDirectGemm(be.m_ctx->renderer())
                                                          : be.m_gemmKernel == GemmKernel::Direct;
    /** Rows per chunk of the n² pass bounded by kCpuRasteriserChunkWork (1 where a row alone
     *  is more), on a CPU rasteriser; `rows` unchanged on a GPU. */
    int boundChunkRows(int rows, std::int64_t workPerRow) const {
        if (!cpuRasteriser || workPerRow <= 0)
            return rows;
        return static_cast<int>(
            std::clamp<std::int64_t>(kCpuRasteriserChunkWork / workPerRow, 1, std::max(rows, 1)));
    }
    bool cpuRasteriser = isCpuRasteriser(be.m_ctx->renderer());
    const std::atomic<bool>* cancel =
        nullptr; ///< the computation's (runForward), for gemm's chunks

    explicit Impl(GlBackend& b)
        : be(b)
        , f(b.m_ctx->f()) {
        f.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxSsbo);
        f.GetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &maxShared);
        drainErrors();
    }
    /**
     * Clears pending GL errors (a few at most: one flag per kind). A lost context is kept as
     * such: a driver may report it on every call, so this never loops until "no error".
     */
    void drainErrors() {
        for (int k = 0; k < 16; ++k) {
            const GLenum e = f.GetError();
            if (e == GL_NO_ERROR)
                return;
            if (e == kGlContextLost) {
                be.m_lost = true;
                error = "the GL context was lost (GL_CONTEXT_LOST)";
                return;
            }
        }
    }
    ~Impl() {
        for (const auto& [name, ms] : profileMs)
            qCInfo(lcGl).noquote() << QString::fromStdString(name) << ms << "ms";
        if (!buffers.empty())
            f.DeleteBuffers(static_cast<GLsizei>(buffers.size()), buffers.data());
    }
    bool ok() const { return error.empty(); }

    /** PE_GL_PROFILE: the wall time since the last phase (GPU work finished) goes to `name`. */
    void phase(const char* name) {
        if (!profile)
            return;
        f.Finish();
        const auto now = std::chrono::steady_clock::now();
        if (name)
            profileMs[std::string("phase: ") + name] +=
                std::chrono::duration<double, std::milli>(now - phaseStart).count();
        phaseStart = now;
    }
    std::chrono::steady_clock::time_point phaseStart;

    /**
     * A GL error after a call; GL_CONTEXT_LOST (a reset: driver crash, GPU hang, TDR) marks the
     * backend lost for good. PE_GL_LOSE_CONTEXT_AFTER=k (or loseContextAfterForTesting) makes
     * the call after the k-th one report a lost context: the fault injection of the tests.
     */
    GLenum check() {
        GLenum e = f.GetError();
        if (be.m_loseAfter >= 0 && ++be.m_calls > be.m_loseAfter)
            e = kGlContextLost;
        if (e == kGlContextLost) {
            be.m_lost = true;
            error = "the GL context was lost (GL_CONTEXT_LOST)";
        }
        return e;
    }

    GLuint buffer(std::size_t bytes, const void* data = nullptr) {
        if (!ok())
            return 0;
        // At least 16 bytes (an empty storage block is not portable); a shorter source is
        // copied into zeroed padding rather than read past its end.
        std::array<unsigned char, 16> padded{};
        if (bytes < padded.size()) {
            if (data && bytes > 0)
                std::memcpy(padded.data(), data, bytes);
            data = data ? padded.data() : nullptr;
            bytes = padded.size();
        }
        if (maxSsbo > 0 && bytes > static_cast<std::size_t>(maxSsbo)) {
            error = "a " + std::to_string(bytes >> 20) + " MiB buffer exceeds the GL storage " +
                    "block limit of " + std::to_string(maxSsbo >> 20) + " MiB";
            return 0;
        }
        const auto t0 = std::chrono::steady_clock::now();
        GLuint id = 0;
        f.GenBuffers(1, &id);
        buffers.push_back(id);
        f.BindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        const bool staged = data && useStaging(bytes);
        f.BufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes),
                     staged ? nullptr : data, GL_DYNAMIC_COPY);
        GLenum e = check();
        if (e == GL_NO_ERROR && staged &&
            !stagedCopy(id, 0, bytes, const_cast<void*>(data), true)) {
            f.BindBuffer(GL_SHADER_STORAGE_BUFFER, id);
            f.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
            e = check();
        }
        if (profile) {
            f.Finish();
            profileMs[data ? "host: upload" : "host: allocate"] +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
        }
        if (e == kGlContextLost)
            return id;
        const bool simulated = be.m_oomAboveForTesting > 0 && bytes > be.m_oomAboveForTesting;
        if (e == GL_OUT_OF_MEMORY || simulated)
            error = "out of GPU memory allocating " +
                    std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
        else if (e != GL_NO_ERROR)
            error = "glBufferData failed (GL error " + std::to_string(e) + ")";
        return id;
    }
    /** A buffer of `floats` zeros, cleared on the GPU (nothing to allocate or send from here). */
    GLuint zeros(std::size_t floats) {
        const GLuint id = buffer(floats * sizeof(float));
        clear(id);
        return id;
    }
    /** Sets every float of buffer `id` to zero, on the GPU. */
    void clear(GLuint id) {
        if (!ok())
            return;
        f.BindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        const float zero = 0.0f;
        f.ClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32F, GL_RED, GL_FLOAT, &zero);
        if (const GLenum e = check(); e != GL_NO_ERROR && e != kGlContextLost)
            error = "glClearBufferData failed (GL error " + std::to_string(e) + ")";
    }
    GLuint upload(const std::vector<float>& v) {
        return buffer(v.size() * sizeof(float), v.data());
    }
    GLuint upload(const std::vector<int>& v) { return buffer(v.size() * sizeof(int), v.data()); }

    /**
     * Large transfers go through a staging buffer in memory the host can map (GL_STREAM_DRAW
     * or GL_STREAM_READ), copied on the GPU to or from the device buffer: glBufferData and
     * glGetBufferSubData on a device buffer moved 1.2–1.3 GB/s on an H200 with NVIDIA's driver.
     * PE_GL_STAGING=0 turns it off.
     */
    bool staging = qgetenv("PE_GL_STAGING") != "0";
    bool useStaging(std::size_t bytes) const {
        return staging && be.m_stagingMin > 0 && bytes >= be.m_stagingMin;
    }
    /** Copies `bytes` between host memory and buffer `id` at `offset`; false: not done. */
    bool stagedCopy(GLuint id, std::size_t offset, std::size_t bytes, void* host, bool toGpu) {
        GLuint st = 0;
        f.GenBuffers(1, &st);
        const GLenum target = toGpu ? GL_COPY_READ_BUFFER : GL_COPY_WRITE_BUFFER;
        f.BindBuffer(target, st);
        f.BufferData(target, static_cast<GLsizeiptr>(bytes), nullptr,
                     toGpu ? GL_STREAM_DRAW : GL_STREAM_READ);
        bool done = f.GetError() == GL_NO_ERROR;
        if (done && toGpu) {
            void* m = f.MapBufferRange(target, 0, static_cast<GLsizeiptr>(bytes),
                                       GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
            if (m) {
                std::memcpy(m, host, bytes);
                done = f.UnmapBuffer(target) == GL_TRUE;
                if (done) {
                    f.BindBuffer(GL_COPY_WRITE_BUFFER, id);
                    f.CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0,
                                        static_cast<GLintptr>(offset),
                                        static_cast<GLsizeiptr>(bytes));
                }
            } else {
                done = false;
            }
        } else if (done) {
            f.BindBuffer(GL_COPY_READ_BUFFER, id);
            f.CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                                static_cast<GLintptr>(offset), 0, static_cast<GLsizeiptr>(bytes));
            const void* m =
                f.MapBufferRange(target, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
            if (m) {
                std::memcpy(host, m, bytes);
                done = f.UnmapBuffer(target) == GL_TRUE;
            } else {
                done = false;
            }
        }
        done = done && f.GetError() == GL_NO_ERROR;
        f.DeleteBuffers(1, &st);
        drainErrors();
        return done;
    }

    template <typename T>
    void readInto(GLuint id, std::size_t count, T* dst, std::size_t offset = 0) {
        if (!ok())
            return;
        if (profile)
            f.Finish(); // the dispatches before count as theirs
        const auto t0 = std::chrono::steady_clock::now();
        f.MemoryBarrier(GL_ALL_BARRIER_BITS);
        const bool staged = useStaging(count * sizeof(T)) &&
                            stagedCopy(id, offset * sizeof(T), count * sizeof(T), dst, false);
        f.BindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        if (!staged)
            f.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset * sizeof(T)),
                               static_cast<GLsizeiptr>(count * sizeof(T)), dst);
        if (profile)
            profileMs["host: read back"] +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
        const GLenum e = check();
        if (e == kGlContextLost)
            return;
        if (e == GL_OUT_OF_MEMORY)
            error = "out of memory reading a GPU buffer back";
        else if (e != GL_NO_ERROR)
            error = "reading a GPU buffer back failed (GL error " + std::to_string(e) + ")";
    }
    template <typename T> std::vector<T> read(GLuint id, std::size_t count) {
        std::vector<T> out(count);
        readInto(id, count, out.data());
        return out;
    }
    /**
     * A float tensor read straight into tensor storage: not zero-filled first, huge pages when
     * large, and no second copy (read() then Tensor::fromVector touched every page twice).
     */
    Tensor readTensor(GLuint id, std::vector<std::int64_t> shape) {
        std::size_t count = 1;
        for (std::int64_t e : shape)
            count *= static_cast<std::size_t>(e);
        TensorBuffer<float> out(count);
        readInto(id, count, out.data());
        return Tensor::fromVector<float>(std::move(shape), std::move(out));
    }

    /**
     * The program of resources/shaders/<name>.comp, compiled once per backend. `defines`
     * ("#define X 4\n" lines) go after the #version line and make a variant of their own.
     */
    GLuint program(const std::string& name, const std::string& defines = {}) {
        if (!ok())
            return 0;
        currentProgram = name;
        const std::string key = defines.empty() ? name : name + "|" + defines;
        if (auto it = be.m_programs.find(key); it != be.m_programs.end())
            return it->second;
        std::string src;
        if (auto o = be.m_overrides.find(name); o != be.m_overrides.end())
            src = o->second;
        else
            src = std::string(gl::embeddedShader(name));
        if (src.empty()) {
            error = "shader " + name + ".comp is not embedded";
            return 0;
        }
        if (!defines.empty()) {
            const std::size_t version = src.find("#version");
            const std::size_t eol =
                version == std::string::npos ? std::string::npos : src.find('\n', version);
            src.insert(eol == std::string::npos ? 0 : eol + 1, defines);
        }
        const GLuint sh = f.CreateShader(GL_COMPUTE_SHADER);
        const char* text = src.c_str();
        f.ShaderSource(sh, 1, &text, nullptr);
        f.CompileShader(sh);
        GLint okFlag = 0;
        f.GetShaderiv(sh, GL_COMPILE_STATUS, &okFlag);
        if (!okFlag) {
            error = "shader " + name + ".comp failed to compile: " + infoLog(sh, false);
            f.DeleteShader(sh);
            return 0;
        }
        const GLuint prog = f.CreateProgram();
        f.AttachShader(prog, sh);
        f.LinkProgram(prog);
        f.DeleteShader(sh);
        f.GetProgramiv(prog, GL_LINK_STATUS, &okFlag);
        if (!okFlag) {
            error = "shader " + name + ".comp failed to link: " + infoLog(prog, true);
            f.DeleteProgram(prog);
            return 0;
        }
        be.m_programs[key] = prog;
        return prog;
    }

    std::string infoLog(GLuint obj, bool isProgram) {
        GLint len = 0;
        if (isProgram)
            f.GetProgramiv(obj, GL_INFO_LOG_LENGTH, &len);
        else
            f.GetShaderiv(obj, GL_INFO_LOG_LENGTH, &len);
        std::string log(static_cast<std::size_t>(std::max(len, 1)), '\0');
        if (isProgram)
            f.GetProgramInfoLog(obj, len, nullptr, log.data());
        else
            f.GetShaderInfoLog(obj, len, nullptr, log.data());
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
            log.pop_back();
        std::replace(log.begin(), log.end(), '\n', ' ');
        return log;
    }

    void seti(GLuint prog, const char* name, int v) {
        f.Uniform1i(f.GetUniformLocation(prog, name), v);
    }
    void setf(GLuint prog, const char* name, float v) {
        f.Uniform1f(f.GetUniformLocation(prog, name), v);
    }

    void dispatch(int x, int y, int z) {
        if (!ok())
            return;
        const auto t0 = std::chrono::steady_clock::now();
        f.DispatchCompute(static_cast<GLuint>(x), static_cast<GLuint>(y), static_cast<GLuint>(z));
        if (profile) {
            f.Finish();
            profileMs[currentProgram] +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
        }
        f.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        const GLenum e = check();
        if (e == kGlContextLost)
            return;
        if (e == GL_OUT_OF_MEMORY)
            error = "out of GPU memory in a dispatch";
        else if (e != GL_NO_ERROR)
            error = "glDispatchCompute failed (GL error " + std::to_string(e) + ")";
    }

    void bind(std::initializer_list<GLuint> ids) {
        GLuint slot = 0;
        for (GLuint id : ids)
            f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, slot++, id);
    }

    /**
     * C = alpha·A·B + beta·C as `g` describes. On a CPU rasteriser a product of more work than
     * kCpuRasteriserChunkWork runs in chunks of rows (the same values: each element is summed
     * as before), the computation's cancel checked before each: at n = 16,384, d = 512 one
     * projection took llvmpipe about 2.3 s in a single dispatch. A cancel sets error to
     * "cancelled".
     */
    void gemm(GLuint A, GLuint B, GLuint C, const GemmDesc& g) {
        const int rows = boundChunkRows(g.M, std::int64_t{g.N} * g.K * g.batch);
        if (rows >= g.M || !cancel) {
            gemmOnce(A, B, C, g);
            return;
        }
        for (int m0 = 0; m0 < g.M && ok(); m0 += rows) {
            if (cancelled(cancel)) {
                error = "cancelled";
                return;
            }
            GemmDesc part = g;
            part.M = std::min(rows, g.M - m0);
            part.aOff += m0 * g.aRow;
            part.cOff += m0 * g.cRow;
            gemmOnce(A, B, C, part);
            f.Finish(); // done before the next check
        }
    }
    void gemmOnce(GLuint A, GLuint B, GLuint C, const GemmDesc& g) {
        const GLuint prog = program(directGemm ? "gemm_direct" : "gemm");
        if (!ok())
            return;
        f.UseProgram(prog);
        bind({A, B, C});
        seti(prog, "M", g.M);
        seti(prog, "N", g.N);
        seti(prog, "K", g.K);
        seti(prog, "aOff", g.aOff);
        seti(prog, "aBatch", g.aBatch);
        seti(prog, "aRow", g.aRow);
        seti(prog, "aCol", g.aCol);
        seti(prog, "bOff", g.bOff);
        seti(prog, "bBatch", g.bBatch);
        seti(prog, "bRow", g.bRow);
        seti(prog, "bCol", g.bCol);
        seti(prog, "cOff", g.cOff);
        seti(prog, "cBatch", g.cBatch);
        seti(prog, "cRow", g.cRow);
        seti(prog, "cCol", g.cCol);
        auto aligned = [](std::initializer_list<int> v) {
            return std::all_of(v.begin(), v.end(), [](int x) { return x % 4 == 0; });
        };
        const bool aVecK = !noVec && g.aCol == 1 && aligned({g.K, g.aOff, g.aBatch, g.aRow});
        const bool bVecK = !noVec && g.bRow == 1 && aligned({g.K, g.bOff, g.bBatch, g.bCol});
        const bool bVecJ = !noVec && g.bCol == 1 && aligned({g.N, g.bOff, g.bBatch, g.bRow});
        seti(prog, "aVecK", aVecK ? 1 : 0);
        seti(prog, "bVecK", bVecK ? 1 : 0);
        seti(prog, "bVecJ", bVecJ ? 1 : 0);
        seti(prog, "cSplit", g.cSplit);
        seti(prog, "cSplitStride", g.cSplitStride);
        setf(prog, "alpha", g.alpha);
        setf(prog, "beta", g.beta);
        if (profile)
            currentProgram = "gemm " + std::to_string(g.batch) + "x" + std::to_string(g.M) + "x" +
                             std::to_string(g.N) + "x" + std::to_string(g.K);
        dispatch(ceilDiv(g.N, 64), ceilDiv(g.M, 64), g.batch);
    }

    /**
     * `items` invocations of a one-dimensional shader with a grid-stride loop (pool_mean,
     * rope): at most 65535 work groups of `local`, the loop covers the rest.
     */
    void dispatchStrided(int items, int local) {
        dispatch(std::min(ceilDiv(items, local), 65535), 1, 1);
    }

    /** out[h,i,j] = tab[h*tBatch + row*tRow + col]; see gather.comp for the modes. */
    void gather(GLuint tab, GLuint idx, GLuint out, int n, int m, int iOff, int heads, int hOff,
                int tBatch, int tRow, int rowMode, int colMode) {
        const GLuint prog = program("gather");
        if (!ok())
            return;
        f.UseProgram(prog);
        bind({tab, idx, out});
        seti(prog, "n", n);
        seti(prog, "m", m);
        seti(prog, "iOff", iOff);
        seti(prog, "hOff", hOff);
        seti(prog, "tBatch", tBatch);
        seti(prog, "tRow", tRow);
        seti(prog, "rowMode", rowMode);
        seti(prog, "colMode", colMode);
        dispatch(ceilDiv(n, 16), ceilDiv(m, 16), heads);
    }
};

namespace {

/** What a forward pass leaves after its head chunks: CPU tensors and [L, d] GPU buffers. */
struct Forward {
    int L = 0, d = 0, H = 0, dh = 0;
    std::map<std::string, Tensor> cpu; ///< tensors complete on the CPU
    GLuint shawV = 0;                  ///< [L, d] concat layout, when Shaw
    GLuint concat = 0;                 ///< head outputs [L, d], head h at column h·d_h
    GLuint out = 0;                    ///< [L, d]
};

} // namespace

/**
 * Receives each chunk's [count, m, n] buffers (heads [h0, h0 + count), query rows
 * [i0, i0 + m)) before they are reused.
 */
using ChunkSink = std::function<void(int h0, int count, int i0, int m,
                                     const std::map<std::string, GLuint>& buffers)>;

/**
 * Calls fn(r0, r1) on contiguous ranges covering [0, rows), one per hardware thread (on this
 * thread alone where no thread can be started, or where rows × rowEntries is under 2^20: then
 * starting threads costs more than they save).
 */
template <class Fn> static void parallelRanges(int rows, std::int64_t rowEntries, const Fn& fn) {
    if (std::int64_t{rows} * rowEntries < (std::int64_t{1} << 20)) {
        fn(0, rows);
        return;
    }
    const int parts = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 64);
    const int step = std::max(1, (rows + parts - 1) / parts);
    std::vector<std::thread> threads;
    for (int r0 = step; r0 < rows; r0 += step) {
        const int r1 = std::min(rows, r0 + step);
        try {
            threads.emplace_back([&fn, r0, r1] { fn(r0, r1); });
        } catch (const std::system_error&) {
            fn(r0, r1);
        }
    }
    fn(0, std::min(rows, step));
    for (std::thread& t : threads)
        t.join();
}

/** A work group of pool_fused.comp: BR query rows × LANES key runs, TK keys of each per tile. */
struct FusedShape {
    int rows = 64, lanes = 4, keys = 8;
};

/** The pooled cells' sums and counts [H, R, R] that the fused pass adds to (pool_fused.comp). */
struct FusedPool {
    int R = 0;
    FusedShape shape;
    GLuint logitSum = 0, logitCount = 0, weightSum = 0, weightCount = 0;
};

/** pool_fused.comp's shared memory: key tile, TXL's r windows, weights, reductions. */
static std::int64_t fusedSharedBytes(const FusedShape& s, int dh, bool band) {
    const std::int64_t row = 16 * std::int64_t{(dh + 3) / 4 + 1}; // a padded row of vec4
    const std::int64_t tile = std::int64_t{s.lanes} * s.keys;
    const std::int64_t windows = band ? std::int64_t{s.lanes} * (s.rows + s.keys - 1) : 0;
    return row * (tile + windows) + 4 * std::int64_t{s.rows} * (tile + 1) +
           12 * std::int64_t{s.rows} * s.lanes;
}

/**
 * The work group pool_fused.comp runs this forward pass with, or none (the chunked path): the
 * head width must be at most 128 (q and the output accumulators live in registers), DeBERTa's
 * p2c table for every head ([H, L, 2s]) must fit one buffer, and the shape must fit the shared
 * memory. Transformer-XL pools through the chunked passes unless PE_GL_TXL_SHAPE asks for the
 * fused one: its band term reads a distinct r row per logit from shared memory, and on an H200
 * the fused pass took 1.6–1.85 s at n = 16,384 (1.2 s with its best shape, 32x4x4) against
 * 1.14–1.16 s chunked, both with a host-side table that took about 0.55 s then; since, 32x4x4
 * measured 550–579 ms against 547–644 chunked: no gain to make it the default. PE_GL_TXL_SHAPE=auto
 * takes the first of a few shapes that fits (each lane holds its window of r rows too, so they are
 * smaller than the others' 64x4x8); PE_GL_TXL_SHAPE=BRxLANESxTK (e.g. 16x4x8) asks for one, where
 * it fits.
 */
static std::optional<FusedShape> fusedPoolShape(const Params& p, std::int64_t maxSsbo,
                                                std::int64_t maxShared) {
    const int dh = p.headDim();
    if (dh > 128)
        return std::nullopt;
    if (p.scheme == Scheme::DeBERTa && p.debertaP2C) {
        std::int64_t limit = kChunkElems;
        if (maxSsbo > 0)
            limit = std::min(limit, maxSsbo / 4);
        if (std::int64_t{p.heads} * p.seqLen() * 2 * p.debertaSpan() > limit)
            return std::nullopt;
    }
    const bool band = p.scheme == Scheme::TransformerXL;
    std::vector<FusedShape> shapes{FusedShape{}};
    if (band) {
        const QByteArray asked = qgetenv("PE_GL_TXL_SHAPE");
        if (asked.isEmpty())
            return std::nullopt;
        shapes = {{32, 4, 4}, {16, 4, 8}, {16, 4, 4}, {16, 2, 8}, {8, 4, 4}, {8, 2, 4}};
        const QList<QByteArray> dims = asked.split('x');
        if (dims.size() == 3) {
            const FusedShape s{dims[0].toInt(), dims[1].toInt(), dims[2].toInt()};
            if (s.rows > 0 && s.lanes > 0 && s.keys > 0 && s.rows * s.lanes <= 1024)
                shapes.insert(shapes.begin(), s);
        }
    }
    for (const FusedShape& s : shapes)
        if (fusedSharedBytes(s, dh, band) <= maxShared)
            return s;
    return std::nullopt;
}

/** Scratch of the fused pass: three planes of [H, rows, R] floats, at most this many bytes. */
constexpr std::int64_t kFusedScratchBytes = std::int64_t{768} << 20;

static Expected<Forward> runForward(GlBackend::Impl& g, const Params& p, const Weights& w,
                                    const std::atomic<bool>* cancel, int maxHeadsPerChunk,
                                    int maxRowsPerChunk, const ChunkSink& sink, bool keep,
                                    const FusedPool* fused = nullptr) {
    Forward fw;
    g.cancel = cancel;
    g.phase(nullptr); // PE_GL_PROFILE: wall time per phase of the forward pass
    const int L = p.seqLen(), d = p.d, H = p.heads, dh = p.headDim();
    fw.L = L;
    fw.d = d;
    fw.H = H;
    fw.dh = dh;
    const int nOff = 2 * L - 1; // number of offsets o = (j − i) + L − 1
    int widestCols = L;         // widest per-head table or matrix, in columns
    if (p.scheme == Scheme::TransformerXL)
        widestCols = nOff;
    else if (p.scheme == Scheme::Shaw)
        widestCols = std::max(L, 2 * p.clip + 1);
    else if (p.scheme == Scheme::DeBERTa)
        widestCols = std::max(L, 2 * p.debertaSpan());
    // Row chunks keep n×n buffers small; what must still fit 32-bit offsets is [2n − 1, d].
    if (std::int64_t{nOff} * std::max(d, 16) > INT_MAX)
        return Error{"n = " + std::to_string(L) + " needs more than 32-bit indexing on the GPU"};

    // --- Inputs on the CPU (O(n·d)) ---------------------------------------------------------
    // The GPU takes X alone, in float, made in one pass over row ranges on every thread (made
    // in double, then E + P, then cast, on one thread, it took 252–297 ms at n = 65536 on the
    // H100 machine). keep: the CPU tensors the trace returns as well. The pooled path returns
    // none and skips them and their copies (a Firecracker VM's page faults made them most of a
    // pooled forward at n = 16384 on an H100).
    const bool absolute = isAbsolute(p.scheme);
    const bool sinusoid = p.scheme == Scheme::Sinusoidal;
    if (p.scheme == Scheme::Learned && w.learnedTable.rows() < L)
        return Error{"learned.table has " + std::to_string(w.learnedTable.rows()) +
                     " rows, fewer than the " + std::to_string(L) + " positions"};
    // P: table rows or the mlp encoding here (O(n·d), mlp O(n·H·(2F + d))); the sinusoid's
    // rows as the ranges below need them, or (keep) here on every thread, each range the table
    // from its first position (the same values: row p is position start + p).
    Eigen::MatrixXd P;
    if (absolute && (!sinusoid || keep)) {
        if (sinusoid) {
            P.resize(L, d);
            parallelRanges(L, d, [&](int r0, int r1) {
                sinusoidalInto(P.middleRows(r0, r1 - r0), p.base, p.layout, r0);
            });
        } else {
            P = absoluteEncoding(p, w);
        }
    }
    // X = E + P in float, row-major, on every thread.
    const Eigen::MatrixXd* rowsP = P.size() > 0 ? &P : nullptr;
    const bool sinusoidHere = sinusoid && !rowsP;
    std::vector<float> xRows(static_cast<std::size_t>(L) * d);
    parallelRanges(L, d, [&](int r0, int r1) {
        inputRows(p, w, rowsP, sinusoidHere, r0, r1,
                  xRows.data() + static_cast<std::size_t>(r0) * d);
    });
    if (keep) {
        fw.cpu["E"] = matrixTensor(assembleSequence(p, w));
        if (absolute)
            fw.cpu["P"] = matrixTensor(P);
        fw.cpu["X"] = Tensor::fromVector<float>({L, d}, xRows);
    }

    g.phase("inputs (CPU)");
    // --- Projections on the GPU, straight into [H, L, d_h] ---------------------------------
    const GLuint bufX = g.upload(xRows);
    xRows = {};
    const GLuint bufWq = g.upload(toFloatRowMajor(w.W_q));
    const GLuint bufWk = g.upload(toFloatRowMajor(w.W_k));
    const GLuint bufWv = g.upload(toFloatRowMajor(w.W_v));
    const std::size_t headElems = static_cast<std::size_t>(H) * L * dh;
    GLuint bufQ = g.buffer(headElems * sizeof(float));
    GLuint bufK = g.buffer(headElems * sizeof(float));
    const GLuint bufV = g.buffer(headElems * sizeof(float));
    GemmDesc proj = denseGemm(L, d, d); // one [L, d] · [d, d] product, split into heads
    proj.cRow = dh;
    proj.cSplit = dh;
    proj.cSplitStride = L * dh;
    g.gemm(bufX, bufWq, bufQ, proj);
    g.gemm(bufX, bufWk, bufK, proj);
    g.gemm(bufX, bufWv, bufV, proj);
    if (p.scheme == Scheme::RoPE) {
        // Rotated on the GPU, in place; the angles' cos and sin come from here, in float64.
        const RopeFrequencies freq = ropeFrequencies(p);
        const int halfRot = static_cast<int>(freq.theta.size());
        std::vector<float> cs(2 * static_cast<std::size_t>(L) * halfRot);
        parallelRanges(L, 2 * std::int64_t{halfRot}, [&](int r0, int r1) {
            for (int i = r0; i < r1; ++i)
                for (int m = 0; m < halfRot; ++m) {
                    const double ang = freq.angle(i, m);
                    const std::size_t e = 2 * (static_cast<std::size_t>(i) * halfRot + m);
                    cs[e] = static_cast<float>(std::cos(ang));
                    cs[e + 1] = static_cast<float>(std::sin(ang));
                }
        });
        const GLuint bufCs = g.upload(cs);
        const std::int64_t total = std::int64_t{H} * L * halfRot;
        if (total > INT_MAX)
            return Error{"RoPE: more than 2³¹ rotated pairs for the GPU"};
        for (GLuint b : {bufQ, bufK}) {
            const GLuint prog = g.program("rope");
            if (!g.ok() || halfRot == 0)
                break;
            g.f.UseProgram(prog);
            g.bind({b, bufCs});
            g.seti(prog, "L", L);
            g.seti(prog, "dh", dh);
            g.seti(prog, "halfRot", halfRot);
            g.seti(prog, "interleaved", p.ropeConvention == RopeConvention::Interleaved ? 1 : 0);
            g.seti(prog, "total", static_cast<int>(total));
            g.dispatchStrided(static_cast<int>(total), 64);
        }
    }
    // On the CPU: what the trace returns, and q for TXL's q + u and q + v.
    const bool needQ = keep || p.scheme == Scheme::TransformerXL;
    std::vector<float> q = needQ ? g.read<float>(bufQ, headElems) : std::vector<float>{};
    std::vector<float> k = keep ? g.read<float>(bufK, headElems) : std::vector<float>{};
    std::vector<float> v = keep ? g.read<float>(bufV, headElems) : std::vector<float>{};
    if (!g.ok())
        return Error{g.error};
    if (cancelled(cancel))
        return Error{"cancelled"};

    const std::vector<std::int64_t> headShape{H, L, dh};
    if (keep) {
        fw.cpu["Q"] = Tensor::fromVector<float>(headShape, q);
        fw.cpu["K"] = Tensor::fromVector<float>(headShape, k);
        fw.cpu["V"] = Tensor::fromVector<float>(headShape, std::move(v));
    }

    g.phase("projections");
    // --- Tables shared by every head chunk ---------------------------------------------------
    double scale = 1.0 / std::sqrt(static_cast<double>(dh));
    if (p.scheme == Scheme::T5)
        scale = 1.0;
    else if (p.scheme == Scheme::DeBERTa)
        scale = 1.0 / std::sqrt(static_cast<double>(dh) * (1 + p.debertaTerms()));

    GLuint queryBuf = bufQ; // rows of the content product: q, or q + u for TXL
    GLuint bufQv = 0;
    if (p.scheme == Scheme::TransformerXL) {
        // The fused pass needs no q + v: it adds (v − u)·r_o to (q + u)·r_o instead.
        std::vector<float> qu = q, qv = fused ? std::vector<float>{} : q;
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < L; ++i)
                for (int c = 0; c < dh; ++c) {
                    const std::size_t e = (static_cast<std::size_t>(h) * L + i) * dh + c;
                    qu[e] += static_cast<float>(w.txlU(h, c));
                    if (!fused)
                        qv[e] += static_cast<float>(w.txlV(h, c));
                }
        queryBuf = g.upload(qu);
        if (!fused)
            bufQv = g.upload(qv);
    }
    auto relIndexTensor = [&](const std::vector<int>& idx) {
        if (!keep || idx.empty())
            return; // n × n: never built for the pooled path
        std::vector<std::int32_t> ri(static_cast<std::size_t>(L) * L);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j)
                ri[static_cast<std::size_t>(i) * L + j] =
                    idx[static_cast<std::size_t>(j - i + L - 1)];
        fw.cpu["rel_index"] = Tensor::fromVector<std::int32_t>({L, L}, std::move(ri));
    };
    const GLuint dummyIdx = g.upload(std::vector<int>{0});
    // The index, the additive bias (T5 buckets or ALiBi distances) and URPE's C per (head,
    // offset j − i), as the CPU engine and the window's pooled maps have them.
    const RelativeTables tables = relativeTables(p, w);
    relIndexTensor(tables.index);
    const GLuint biasTab = tables.bias.empty() ? 0 : g.upload(roundedToFloat(tables.bias));
    const GLuint urpeTab = tables.urpeC.empty() ? 0 : g.upload(roundedToFloat(tables.urpeC));
    GLuint shawIdxBuf = 0, shawWk = 0, shawWv = 0;
    const int shawR = 2 * p.clip + 1;
    if (p.scheme == Scheme::Shaw) {
        shawIdxBuf = g.upload(tables.index);
        shawWk = g.upload(toFloatRowMajor(w.shawWk));
        shawWv = g.upload(toFloatRowMajor(w.shawWv));
    }
    GLuint txlr = 0; // r_t = R_t W_r for every offset, [2L − 1, d]
    if (p.scheme == Scheme::TransformerXL) {
        // Row o is t = i − j = L − 1 − o. Built a row at a time in double, each with its own
        // d/2 powers, and converted, the table took 1.05 s at n = 16,384, d = 512 on one core of
        // a 2-core EPYC (Transformer-XL's GPU pass takes 1.1 s on an H200): now 0.45 s there on
        // one thread, and its rows are split across the host's threads.
        std::vector<float> R(static_cast<std::size_t>(nOff) * d);
        parallelRanges(nOff, d, [&](int r0, int r1) {
            txlRelativeSinusoidRows(L, d, p.txlClampLen, r0, r1,
                                    R.data() + static_cast<std::size_t>(r0) * d);
        });
        const GLuint bufR = g.upload(R);
        const GLuint bufWr = g.upload(toFloatRowMajor(w.txlWr));
        txlr = g.buffer(static_cast<std::size_t>(nOff) * d * sizeof(float));
        g.gemm(bufR, bufWr, txlr, denseGemm(nOff, d, d));
    }
    GLuint debIdx = 0, debKr = 0, debQr = 0;
    const int debR = 2 * p.debertaSpan();
    if (p.scheme == Scheme::DeBERTa) {
        debIdx = g.upload(tables.index);
        if (p.debertaC2P)
            debKr = g.upload(toFloatRowMajor(w.debertaRel * w.debertaWkr));
        if (p.debertaP2C)
            debQr = g.upload(toFloatRowMajor(w.debertaRel * w.debertaWqr));
    }
    if (!g.ok())
        return Error{g.error};
    if (cancelled(cancel))
        return Error{"cancelled"};

    g.phase("tables");
    // --- Output projection, after the heads ---------------------------------------------------
    auto project = [&]() -> Expected<Forward> {
        const GLuint bufWo = g.upload(toFloatRowMajor(w.W_o));
        fw.out = g.buffer(static_cast<std::size_t>(L) * d * sizeof(float));
        g.gemm(fw.concat, bufWo, fw.out, denseGemm(L, d, d));
        if (!g.ok())
            return Error{g.error};
        g.phase("output projection");
        return std::move(fw);
    };

    // Shaw's value term for rows [i0, i0 + m) of heads [h0, h0 + hn): their [hn, m, 2k + 1]
    // weights per clipped index times w^V, into those rows' head slices of an [L, d] buffer.
    auto shawValueGemm = [&](int h0, int hn, int i0, int m) {
        GemmDesc sv;
        sv.M = m;
        sv.N = dh;
        sv.K = shawR;
        sv.batch = hn;
        sv.aBatch = m * shawR;
        sv.aRow = shawR;
        sv.bRow = dh;
        sv.cOff = h0 * dh + i0 * d;
        sv.cBatch = dh;
        sv.cRow = d;
        return sv;
    };

    // A [m, cols] table per head of the chunk: rows [i0, i0 + m) of [H, L, d_h] · colsᵀ, with
    // cols either shared [cols, d_h] or a head slice of [cols, d].
    auto rowTable = [&](GLuint rows, int h0, int hn, int i0, int m, GLuint colsBuf, int cols,
                        bool perHeadCols, GLuint out) {
        GemmDesc t;
        t.M = m;
        t.N = cols;
        t.K = dh;
        t.batch = hn;
        t.aOff = h0 * L * dh + i0 * dh;
        t.aBatch = L * dh;
        t.aRow = dh;
        t.bOff = perHeadCols ? h0 * dh : 0;
        t.bBatch = perHeadCols ? dh : 0;
        t.bRow = 1;
        t.bCol = perHeadCols ? d : dh;
        t.cBatch = m * cols;
        t.cRow = cols;
        t.alpha = static_cast<float>(scale);
        g.gemm(rows, colsBuf, out, t);
    };

    if (fused) {
        // --- Fused pooling: key tiles in shared memory, rows of cells to a scratch ----------
        const int R = fused->R;
        const FusedShape& shape = fused->shape;
        const bool shaw = p.scheme == Scheme::Shaw, txl = p.scheme == Scheme::TransformerXL;
        const bool deberta = p.scheme == Scheme::DeBERTa;
        // Per query row and head: three planes of R cells, and the chunk's own table rows.
        std::int64_t rowFloats = 3 * std::int64_t{R};
        if (shaw)
            rowFloats += 2 * std::int64_t{shawR}; // the key term and the weight per index
        if (deberta && p.debertaC2P)
            rowFloats += debR;
        std::int64_t budget = kFusedScratchBytes / 4;
        if (g.maxSsbo > 0)
            budget = std::min<std::int64_t>(budget, g.maxSsbo / 4);
        budget = std::min<std::int64_t>(budget, INT_MAX);
        int rc = static_cast<int>(
            std::clamp<std::int64_t>(budget / (std::int64_t{H} * rowFloats), 1, L));
        if (maxRowsPerChunk > 0)
            rc = std::min(rc, maxRowsPerChunk);
        rc = g.boundChunkRows(rc, std::int64_t{L} * H * dh);
        rc = std::min(rc, 65535 * shape.rows); // work groups per dispatch dimension
        const int plane = H * rc * R;
        const GLuint rowSums = g.buffer(3 * static_cast<std::size_t>(plane) * sizeof(float));
        fw.concat = g.buffer(static_cast<std::size_t>(L) * d * sizeof(float));
        auto chunkTable = [&](int cols) {
            return g.buffer(static_cast<std::size_t>(H) * rc * cols * sizeof(float));
        };
        // Bindings 3 and 4 (and 7) of the variant; see pool_fused.comp.
        GLuint slot3 = biasTab ? biasTab : dummyIdx, slot4 = urpeTab ? urpeTab : dummyIdx;
        GLuint slot7 = dummyIdx;
        std::string defines = "#define DH4 " + std::to_string((dh + 3) / 4) + "\n#define BR " +
                              std::to_string(shape.rows) + "\n#define LANES " +
                              std::to_string(shape.lanes) + "\n#define TK " +
                              std::to_string(shape.keys) + "\n#define GROUP " +
                              std::to_string(shape.rows * shape.lanes) + "\n";
        if (shaw) {
            defines += "#define SHAW 1\n";
            slot3 = chunkTable(shawR); // q_i · w^K_t, scaled
            slot4 = chunkTable(shawR); // the weight row i puts on index t
        } else if (deberta) {
            defines += "#define DEBERTA 1\n";
            if (p.debertaC2P)
                slot3 = chunkTable(debR);
            if (p.debertaP2C) {
                slot4 = g.buffer(static_cast<std::size_t>(H) * L * debR * sizeof(float));
                rowTable(bufK, 0, H, 0, L, debQr, debR, true, slot4);
            }
            slot7 = debIdx;
        } else if (txl) {
            // (q + v)·r = (q + u)·r + (v − u)·r: the shader adds r to the key of the content's
            // dot product and the second term, one per head and offset, as a bias.
            defines += "#define TXL 1\n";
            std::vector<float> vu(static_cast<std::size_t>(H) * dh);
            for (int h = 0; h < H; ++h)
                for (int c = 0; c < dh; ++c)
                    vu[static_cast<std::size_t>(h) * dh + c] =
                        static_cast<float>(w.txlV(h, c) - w.txlU(h, c));
            const GLuint bufVu = g.upload(vu);
            slot3 = g.buffer(static_cast<std::size_t>(H) * nOff * sizeof(float));
            slot4 = txlr;
            GemmDesc vr; // [H] rows of 1 × d_h against the head's slice of r
            vr.M = 1;
            vr.N = nOff;
            vr.K = dh;
            vr.batch = H;
            vr.aBatch = dh;
            vr.aRow = dh;
            vr.bBatch = dh;
            vr.bRow = 1;
            vr.bCol = d;
            vr.cBatch = nOff;
            vr.cRow = nOff;
            vr.alpha = static_cast<float>(scale);
            g.gemm(bufVu, txlr, slot3, vr);
        }
        const GLuint prog = g.program("pool_fused", defines);
        const GLuint rows = g.program("pool_rows");
        if (!g.ok())
            return Error{g.error};
        // The cell row holding query row i: the last u with ⌊u·L/R⌋ ≤ i, i.e. u·L < (i + 1)·R.
        auto cellRowOf = [&](int i) {
            return static_cast<int>(((std::int64_t{i} + 1) * R - 1) / L);
        };
        for (int i0 = 0; i0 < L; i0 += rc) {
            if (cancelled(cancel))
                return Error{"cancelled"};
            const int m = std::min(rc, L - i0);
            if (shaw) {
                rowTable(bufQ, 0, H, i0, m, shawWk, shawR, false, slot3);
                g.clear(slot4); // indices without a key (j outside [0, L)) stay 0
            }
            if (deberta && p.debertaC2P)
                rowTable(bufQ, 0, H, i0, m, debKr, debR, true, slot3);
            g.program("pool_fused", defines); // PE_GL_PROFILE counts the dispatch as its
            g.f.UseProgram(prog);
            g.bind({queryBuf, bufK, bufV, slot3, slot4, fw.concat, rowSums, slot7});
            g.seti(prog, "L", L);
            g.seti(prog, "dh", dh);
            g.seti(prog, "d", d);
            g.seti(prog, "iOff", i0);
            g.seti(prog, "m", m);
            g.seti(prog, "R", R);
            g.seti(prog, "plane", plane);
            g.setf(prog, "scale", static_cast<float>(scale));
            g.seti(prog, "kind", static_cast<int>(p.norm));
            g.seti(prog, "causal", p.mask == MaskKind::Causal ? 1 : 0);
            g.seti(prog, "validLen", p.validLen < 0 ? L : p.validLen);
            g.seti(prog, "hasBias", biasTab ? 1 : 0);
            g.seti(prog, "hasC", urpeTab ? 1 : 0);
            g.seti(prog, "shawK", p.clip);
            g.seti(prog, "debSpan2", debR);
            g.seti(prog, "hasC2P", p.debertaC2P ? 1 : 0);
            g.seti(prog, "hasP2C", p.debertaP2C ? 1 : 0);
            g.seti(prog, "p2cPaper", p.p2cConvention == P2CConvention::Paper ? 1 : 0);
            g.dispatch(ceilDiv(m, shape.rows), H, 1);
            if (shaw) {
                // Shaw's value term: the weight per index times w^V_t, added to the head output.
                GemmDesc sv = shawValueGemm(0, H, i0, m);
                sv.beta = 1.0f;
                g.gemm(slot4, shawWv, fw.concat, sv);
            }

            const int uLo = cellRowOf(i0), uHi = cellRowOf(i0 + m - 1);
            g.program("pool_rows");
            g.f.UseProgram(rows);
            g.bind({rowSums, fused->logitSum, fused->logitCount, fused->weightSum,
                    fused->weightCount});
            g.seti(rows, "L", L);
            g.seti(rows, "R", R);
            g.seti(rows, "iOff", i0);
            g.seti(rows, "m", m);
            g.seti(rows, "uLo", uLo);
            g.seti(rows, "plane", plane);
            g.dispatch(ceilDiv(R, 64), uHi - uLo + 1, H);
            if (!g.ok())
                return Error{g.error};
        }
        g.phase("fused pool");
        return project();
    }

    // --- Chunks: each n×n buffer holds `hc` heads × `rc` query rows (1 GiB, 32-bit indexing,
    // the storage-block limit), so large n runs head by head and, beyond that, rows at a time.
    const std::int64_t perHead = std::int64_t{L} * widestCols;
    std::int64_t limitElems = INT_MAX;
    if (g.maxSsbo > 0)
        limitElems = std::min<std::int64_t>(limitElems, g.maxSsbo / 4);
    limitElems = std::min<std::int64_t>(limitElems, kChunkElems);
    int hc = static_cast<int>(std::clamp<std::int64_t>(limitElems / perHead, 1, H));
    int rc = perHead <= limitElems
                 ? L
                 : static_cast<int>(std::clamp<std::int64_t>(limitElems / widestCols, 1, L));
    if (maxHeadsPerChunk > 0)
        hc = std::min(hc, maxHeadsPerChunk);
    if (maxRowsPerChunk > 0)
        rc = std::min(rc, maxRowsPerChunk);
    rc = g.boundChunkRows(rc, std::int64_t{hc} * L * dh);
    const std::size_t chunkNN = static_cast<std::size_t>(hc) * rc * L * sizeof(float);
    auto tableBuf = [&](int rows, int cols) {
        return g.buffer(static_cast<std::size_t>(hc) * rows * cols * sizeof(float));
    };
    std::map<std::string, GLuint> nn;
    const GLuint content = g.buffer(chunkNN);
    std::vector<GLuint> terms;
    auto nnTerm = [&](const std::string& name) {
        const GLuint b = g.buffer(chunkNN);
        nn[name] = b;
        return b;
    };
    if (biasTab)
        terms.push_back(nnTerm("bias"));
    const GLuint urpeC = urpeTab ? nnTerm("urpe_C") : 0;
    GLuint shawTab = 0, txlTab = 0, c2pTab = 0, p2cTab = 0;
    if (p.scheme == Scheme::Shaw) {
        shawTab = tableBuf(rc, shawR);
        terms.push_back(nnTerm("shaw_k_term"));
    }
    if (p.scheme == Scheme::TransformerXL) {
        nn["txl_ac"] = content;
        txlTab = tableBuf(rc, nOff);
        terms.push_back(nnTerm("txl_bd"));
    }
    if (p.scheme == Scheme::DeBERTa) {
        nn["c2c"] = content;
        if (p.debertaC2P) {
            c2pTab = tableBuf(rc, debR);
            terms.push_back(nnTerm("c2p"));
        }
        if (p.debertaP2C) {
            p2cTab = tableBuf(L, debR); // rows are keys: all of them
            terms.push_back(nnTerm("p2c"));
        }
    }
    const GLuint logits = nnTerm("logits");
    const GLuint weights = nnTerm("weights");
    const GLuint shawBuckets = p.scheme == Scheme::Shaw ? tableBuf(rc, shawR) : 0;
    fw.concat = g.buffer(static_cast<std::size_t>(L) * d * sizeof(float));
    if (p.scheme == Scheme::Shaw)
        fw.shawV = g.buffer(static_cast<std::size_t>(L) * d * sizeof(float));
    if (!g.ok())
        return Error{g.error};

    for (int h0 = 0; h0 < H; h0 += hc) {
        if (cancelled(cancel))
            return Error{"cancelled"};
        const int hn = std::min(hc, H - h0); // heads in this chunk
        if (p2cTab)
            rowTable(bufK, h0, hn, 0, L, debQr, debR, true, p2cTab);
        for (int i0 = 0; i0 < L; i0 += rc) {
            if (cancelled(cancel))
                return Error{"cancelled"};
            const int m = std::min(rc, L - i0); // query rows in this chunk
            GemmDesc qk;
            qk.M = m;
            qk.N = L;
            qk.K = dh;
            qk.batch = hn;
            qk.aOff = h0 * L * dh + i0 * dh;
            qk.aBatch = L * dh;
            qk.aRow = dh;
            qk.bOff = h0 * L * dh;
            qk.bBatch = L * dh;
            qk.bRow = 1;
            qk.bCol = dh;
            qk.cBatch = m * L;
            qk.cRow = L;
            qk.alpha = static_cast<float>(scale);
            g.gemm(queryBuf, bufK, content, qk);

            std::size_t t = 0;
            if (biasTab)
                g.gather(biasTab, dummyIdx, terms[t++], L, m, i0, hn, h0, nOff, 0, 2, 0);
            if (urpeC)
                g.gather(urpeTab, dummyIdx, urpeC, L, m, i0, hn, h0, nOff, 0, 2, 0);
            if (shawTab) {
                rowTable(bufQ, h0, hn, i0, m, shawWk, shawR, false, shawTab);
                g.gather(shawTab, shawIdxBuf, terms[t++], L, m, i0, hn, 0, m * shawR, shawR, 0, 1);
            }
            if (txlTab) {
                rowTable(bufQv, h0, hn, i0, m, txlr, nOff, true, txlTab);
                g.gather(txlTab, dummyIdx, terms[t++], L, m, i0, hn, 0, m * nOff, nOff, 0, 0);
            }
            if (c2pTab) {
                rowTable(bufQ, h0, hn, i0, m, debKr, debR, true, c2pTab);
                g.gather(c2pTab, debIdx, terms[t++], L, m, i0, hn, 0, m * debR, debR, 0, 1);
            }
            if (p2cTab)
                g.gather(p2cTab, debIdx, terms[t++], L, m, i0, hn, 0, L * debR, debR, 1,
                         p.p2cConvention == P2CConvention::Code ? 1 : 2);

            // Logits (terms + mask), normaliser, ⊙C.
            const GLuint comb = g.program("combine");
            if (!g.ok())
                return Error{g.error};
            g.f.UseProgram(comb);
            g.bind({content, terms.size() > 0 ? terms[0] : content,
                    terms.size() > 1 ? terms[1] : content, logits});
            g.seti(comb, "n", L);
            g.seti(comb, "m", m);
            g.seti(comb, "iOff", i0);
            g.seti(comb, "terms", static_cast<int>(terms.size()));
            g.seti(comb, "causal", p.mask == MaskKind::Causal ? 1 : 0);
            g.seti(comb, "validLen", p.validLen < 0 ? L : p.validLen);
            g.dispatch(ceilDiv(L, 16), ceilDiv(m, 16), hn);
            const GLuint norm = g.program("normalise");
            if (!g.ok())
                return Error{g.error};
            g.f.UseProgram(norm);
            g.bind({logits, weights, urpeC ? urpeC : logits});
            g.seti(norm, "n", L);
            g.seti(norm, "m", m);
            g.seti(norm, "kind", static_cast<int>(p.norm));
            g.seti(norm, "hasC", urpeC ? 1 : 0);
            g.dispatch(m, hn, 1);

            // weights · V (+ Shaw's value term) into the chunk's rows and heads of concat.
            GemmDesc av;
            av.M = m;
            av.N = dh;
            av.K = L;
            av.batch = hn;
            av.aBatch = m * L;
            av.aRow = L;
            av.bOff = h0 * L * dh;
            av.bBatch = L * dh;
            av.bRow = dh;
            av.cOff = h0 * dh + i0 * d;
            av.cBatch = dh;
            av.cRow = d;
            if (shawBuckets) {
                const GLuint sp = g.program("shaw_value");
                if (!g.ok())
                    return Error{g.error};
                g.f.UseProgram(sp);
                g.bind({weights, shawBuckets});
                g.seti(sp, "n", L);
                g.seti(sp, "m", m);
                g.seti(sp, "iOff", i0);
                g.seti(sp, "k", p.clip);
                g.dispatch(ceilDiv(shawR, 16), ceilDiv(m, 16), hn);
                const GemmDesc sv = shawValueGemm(h0, hn, i0, m);
                g.gemm(shawBuckets, shawWv, fw.shawV, sv);  // the term itself, for the trace
                g.gemm(shawBuckets, shawWv, fw.concat, sv); // and the start of head_out
                av.beta = 1.0f;
            }
            g.gemm(weights, bufV, fw.concat, av);
            if (!g.ok())
                return Error{g.error};
            sink(h0, hn, i0, m, nn);
            if (!g.ok())
                return Error{g.error};
        }
    }

    g.phase("chunks");
    return project();
}

/** [L, d] concat layout → [H, L, d_h]. */
static Tensor headTensor(const std::vector<float>& concat, int L, int H, int dh) {
    std::vector<float> out(static_cast<std::size_t>(H) * L * dh);
    const int d = H * dh;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < L; ++i)
            for (int c = 0; c < dh; ++c)
                out[(static_cast<std::size_t>(h) * L + i) * dh + c] =
                    concat[static_cast<std::size_t>(i) * d + h * dh + c];
    return Tensor::fromVector<float>({H, L, dh}, std::move(out));
}

std::unique_ptr<GlBackend> GlBackend::create(QString* why, QSurface* qtSurface) {
    auto ctx = gl::Context::create(qtSurface);
    if (!ctx) {
        if (why)
            *why = QString::fromStdString(ctx.error().message);
        qCDebug(lcGl).noquote() << QString::fromStdString(ctx.error().message);
        return nullptr;
    }
    std::unique_ptr<GlBackend> be(new GlBackend);
    be->m_ctx = std::move(ctx.value());
    qCDebug(lcGl).noquote() << "OpenGL context through"
                            << QString::fromStdString(be->m_ctx->platform()) << ":"
                            << QString::fromStdString(be->m_ctx->renderer()) << "/"
                            << QString::fromStdString(be->m_ctx->version());
    return be;
}

int GlBackend::loseAfterFromEnvironment() {
    bool ok = false;
    const int k = qEnvironmentVariableIntValue("PE_GL_LOSE_CONTEXT_AFTER", &ok);
    return ok && k >= 0 ? k : -1;
}

GlBackend::~GlBackend() {
    if (m_ctx && !m_programs.empty() && m_ctx->makeCurrent()) {
        for (const auto& [name, prog] : m_programs)
            m_ctx->f().DeleteProgram(prog);
        m_ctx->doneCurrent();
    }
}

QString GlBackend::device() const {
    return QStringLiteral("%1 (OpenGL %2 through %3)")
        .arg(QString::fromStdString(m_ctx->renderer()),
             QString::fromStdString(m_ctx->version()).section(QLatin1Char(' '), 0, 0),
             m_ctx->platform() == "Qt"
                 ? QStringLiteral("Qt")
                 : QStringLiteral("EGL %1").arg(QString::fromStdString(m_ctx->platform())));
}

void GlBackend::overrideShaderForTesting(const std::string& name, const std::string& source) {
    m_overrides[name] = source;
    // The program and its variants (keys "name|defines").
    for (auto it = m_programs.begin(); it != m_programs.end();) {
        if (it->first != name && it->first.rfind(name + "|", 0) != 0) {
            ++it;
            continue;
        }
        if (m_ctx->makeCurrent()) {
            m_ctx->f().DeleteProgram(it->second);
            m_ctx->doneCurrent();
        }
        it = m_programs.erase(it);
    }
}

bool GlBackend::fusedPoolFromEnvironment() {
    return qgetenv("PE_GL_FUSED_POOL") != "0";
}

Expected<Trace> GlBackend::compute(const Params& p, const Weights& w,
                                   const std::atomic<bool>* cancel) {
    m_lastFallback.clear();
    if (Status s = validate(p); !s)
        return s.error();
    if (Status s = checkWeights(p, w); !s)
        return s.error();
    auto fallback = [&](const std::string& reason) {
        m_lastFallback = QString::fromStdString(reason);
        qCWarning(lcGl).noquote() << m_lastFallback;
        return computeTrace(p, w, cancel);
    };
    if (p.precision == Precision::Float64)
        return fallback("float64 requested: the GL backend computes in float32, so the CPU "
                        "reference computes this trace");
    if (m_lost)
        return fallback(kLostNote);
    if (!m_ctx->makeCurrent())
        return fallback("the GL context could not be made current on this thread; using the CPU");

    Expected<Trace> result = Error{"unreachable"};
    {
        Impl g(*this);
        const int L = p.seqLen(), H = p.heads;
        const std::size_t perHead = static_cast<std::size_t>(L) * L;
        std::map<std::string, TensorBuffer<float>> nnData;
        auto sink = [&](int h0, int count, int i0, int m,
                        const std::map<std::string, GLuint>& bufs) {
            const std::size_t rows = static_cast<std::size_t>(m) * L;
            for (const auto& [name, buf] : bufs) {
                TensorBuffer<float>& v = nnData[name];
                v.resize(perHead * static_cast<std::size_t>(H));
                for (int hl = 0; hl < count; ++hl)
                    g.readInto(buf, rows,
                               v.data() + perHead * static_cast<std::size_t>(h0 + hl) +
                                   static_cast<std::size_t>(i0) * L,
                               rows * static_cast<std::size_t>(hl));
            }
        };
        Expected<Forward> fw =
            runForward(g, p, w, cancel, m_maxHeadsPerChunk, m_maxRowsPerChunk, sink, true);
        if (fw) {
            const int dh = fw->dh, d = fw->d;
            std::map<std::string, Tensor> all = std::move(fw->cpu);
            for (auto& [name, v] : nnData)
                all[name] = Tensor::fromVector<float>({H, L, L}, std::move(v));
            all["head_out"] =
                headTensor(g.read<float>(fw->concat, static_cast<std::size_t>(L) * d), L, H, dh);
            if (fw->shawV)
                all["shaw_v_term"] =
                    headTensor(g.read<float>(fw->shawV, static_cast<std::size_t>(L) * d), L, H, dh);
            all["out"] = g.readTensor(fw->out, {L, d});
            if (!g.ok()) {
                result = Error{g.error};
            } else {
                Trace t;
                t.params = p;
                t.tokens = defaultTokens(p);
                std::string missing;
                for (const std::string& name : traceTensorNames(p)) {
                    auto it = all.find(name);
                    if (it == all.end()) {
                        missing = name;
                        break;
                    }
                    t.tensors.emplace_back(name, std::move(it->second));
                }
                if (!missing.empty())
                    result = Error{"the GL backend does not produce tensor " + missing};
                else
                    result = std::move(t);
            }
        } else {
            result = fw.error();
        }
    }
    m_ctx->doneCurrent();
    if (!result && m_lost)
        return fallback(kLostNote); // the same words every time: the window says it once
    if (!result && result.error().message != "cancelled")
        return fallback("GL backend failed (" + result.error().message + "); using the CPU");
    return result;
}

Expected<PooledTrace> GlBackend::computePooled(const Params& p, const Weights& w, int resolution,
                                               const std::atomic<bool>* cancel) {
    if (Status s = validate(p); !s)
        return s.error();
    if (Status s = checkWeights(p, w); !s)
        return s.error();
    if (resolution < 1 || resolution > 8192)
        return Error{"pooled resolution must be between 1 and 8192"};
    if (p.precision == Precision::Float64)
        return Error{"the GL backend computes in float32 only"};
    if (m_lost)
        return Error{kLostNote};
    if (!m_ctx->makeCurrent())
        return Error{"the GL context could not be made current on this thread"};
    Expected<PooledTrace> result = Error{"unreachable"};
    {
        Impl g(*this);
        const int L = p.seqLen(), H = p.heads, R = std::min(resolution, L);
        PooledTrace pt;
        pt.resolution = R;
        pt.region = PoolRegion{0, L, 0, L};
        const std::size_t cells = static_cast<std::size_t>(R) * R * static_cast<std::size_t>(H);
        const std::map<std::string, std::pair<GLuint, GLuint>> acc{
            {"logits", {g.zeros(cells), g.zeros(cells)}},
            {"weights", {g.zeros(cells), g.zeros(cells)}}};
        const std::optional<FusedShape> shape =
            m_fusedPool ? fusedPoolShape(p, g.maxSsbo, g.maxShared) : std::nullopt;
        m_lastPoolFused = shape.has_value();
        FusedPool fused;
        fused.R = R;
        fused.shape = shape.value_or(FusedShape{});
        fused.logitSum = acc.at("logits").first;
        fused.logitCount = acc.at("logits").second;
        fused.weightSum = acc.at("weights").first;
        fused.weightCount = acc.at("weights").second;
        auto sink = [&](int h0, int count, int i0, int m,
                        const std::map<std::string, GLuint>& bufs) {
            for (const auto& [name, sums] : acc) {
                const GLuint prog = g.program("pool");
                if (!g.ok())
                    return;
                g.f.UseProgram(prog);
                g.bind({bufs.at(name), sums.first, sums.second});
                g.seti(prog, "n", L);
                g.seti(prog, "m", m);
                g.seti(prog, "iOff", i0);
                g.seti(prog, "hOff", h0);
                g.seti(prog, "R", R);
                g.dispatch(ceilDiv(R, 16), ceilDiv(R, 16), count);
            }
        };
        Expected<Forward> fw = runForward(g, p, w, cancel, m_maxHeadsPerChunk, m_maxRowsPerChunk,
                                          sink, false, m_lastPoolFused ? &fused : nullptr);
        if (fw) {
            g.phase(nullptr);
            for (const auto& [name, sums] : acc) {
                // The means on the GPU: half the read-back (no counts), no pass here.
                const GLuint prog = g.program("pool_mean");
                if (!g.ok())
                    break;
                g.f.UseProgram(prog);
                g.bind({sums.first, sums.second});
                if (cells > static_cast<std::size_t>(INT_MAX)) {
                    g.error = "more than 2³¹ pooled cells";
                    break;
                }
                g.seti(prog, "cells", static_cast<int>(cells));
                g.dispatchStrided(static_cast<int>(cells), 256);
                (name == "logits" ? pt.logits : pt.weights) = g.readTensor(sums.first, {H, R, R});
            }
            pt.out = g.readTensor(fw->out, {L, fw->d});
            g.phase("pooled read-back");
            if (g.ok())
                result = std::move(pt);
            else
                result = Error{g.error};
        } else {
            result = fw.error();
        }
    }
    m_ctx->doneCurrent();
    if (!result && result.error().message != "cancelled")
        qCWarning(lcGl).noquote() << QString::fromStdString(result.error().message);
    return result;
}

Expected<PooledTrace> GlBackend::computePooled(const Params& p, const Weights& w,
                                               const PoolRequest& request,
                                               const std::atomic<bool>* cancel) {
    if (Status s = validatePoolRequest(request, p.seqLen()); !s)
        return s.error();
    if (!request.hasTile && request.mode == PoolMode::Mean && p.precision == Precision::Float32 &&
        !m_lost) {
        Expected<PooledTrace> r = computePooled(p, w, request.resolution, cancel);
        if (r || !m_lost)
            return r;
        // The context was lost in this computation: the CPU's streamed path computes it.
    }
    if (!m_cpu)
        m_cpu = createBackend(BackendKind::CpuFast);
    return m_cpu->computePooled(p, w, request, cancel);
}

} // namespace pe
