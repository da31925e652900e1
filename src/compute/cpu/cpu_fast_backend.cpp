// SPDX-License-Identifier: MIT
#include "cpu_fast_backend.h"

#include "cpu_attention_tiles.h"
#include "cpu_gemm.h"
#include "cpu_kernels.h"
#include "encodings.h"
#include "relative_tables.h"
#include "task_pool.h"

#include <QSysInfo>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/resource.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define PE_HAVE_MXCSR 1
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <thread>

namespace pe {

namespace {

using Shape = std::vector<std::int64_t>;

/** Row-major float copy of a column-major double matrix. */
std::vector<float> toRowMajorFloat(const Eigen::MatrixXd& m) {
    std::vector<float> out(static_cast<std::size_t>(m.size()));
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        out.data(), m.rows(), m.cols()) = m.cast<float>();
    return out;
}

/**
 * Rows [r0, r1) of a column-major double matrix into row-major floats at dst. 16 rows at a time:
 * their 16 output lines stay in L1 while the columns pass (64 rows of a power-of-two width share
 * two L1 sets and evict each other, 4x slower).
 */
void toRowMajorRows(const Eigen::MatrixXd& m, int r0, int r1, float* dst) {
    const auto cols = m.cols();
    for (int s0 = r0; s0 < r1; s0 += 16) {
        const int s1 = std::min(r1, s0 + 16);
        for (Eigen::Index c = 0; c < cols; ++c) {
            const double* col = m.data() + c * m.rows();
            for (int r = s0; r < s1; ++r)
                dst[static_cast<std::int64_t>(r - r0) * cols + c] = static_cast<float>(col[r]);
        }
    }
}

/**
 * Rows per block of the n² pass. Each GEMM call packs all n keys (K for the dots, V for A·V), so
 * more rows per block spend less of the GEMM time on packing (it was a fifth of it at 64 rows);
 * fewer rows keep the block's dots and weights (2 · rows · n floats) in L2. Measured at d=512,
 * h=8: 128 rows beat 64 (GEMM at 73-79% of the sgemm peak instead of 58-70%) and matched 256.
 */
int rowBlockSize(int n) {
    if (n >= 1024)
        return 128;
    return std::clamp(65536 / std::max(n, 1), 8, 64);
}

/**
 * Rows per block of the projections: two blocks per thread, at least 128 rows. Each call packs
 * the whole of W, so larger blocks pack less per flop (n=4096: 24 ms instead of 27 with 128-row
 * blocks).
 */
int projectionBlockRows(int n, int threads) {
    return std::max(128, (n + 2 * threads - 1) / (2 * threads));
}

/** Sum of a[lo..hi] (inclusive, clipped to [0, n)). */
float rangeSum(const float* a, int lo, int hi, int n) {
    lo = std::max(lo, 0);
    hi = std::min(hi, n - 1);
    return hi < lo ? 0.0f : cpu::sum(a + lo, static_cast<std::size_t>(hi - lo + 1));
}

/**
 * Flush-to-zero and denormals-are-zero for this thread while alive. Far-off keys under ALiBi or
 * T5 give weights below 1e-38; as denormals they make every product that touches them ~100×
 * slower. As zeros they change no result beyond float32 rounding (they are < 1e-38).
 */
class DenormalGuard {
public:
    DenormalGuard() {
#ifdef PE_HAVE_MXCSR
        m_saved = _mm_getcsr();
        _mm_setcsr(m_saved | 0x8040u); // FTZ | DAZ
#endif
    }
    ~DenormalGuard() {
#ifdef PE_HAVE_MXCSR
        _mm_setcsr(m_saved);
#endif
    }
    DenormalGuard(const DenormalGuard&) = delete;
    DenormalGuard& operator=(const DenormalGuard&) = delete;

private:
    unsigned m_saved = 0;
};

/**
 * The mlp encoding P [N, d] row-major in float: blocks of positions in parallel, each
 * φ·W1 + b1 (φ's angles in double), exact GELU, then ·W2 + b2 with the engine's GEMMs.
 */
void mlpEncodingFloat(const Params& p, const Weights& w, cpu::TaskPool& pool, int threads,
                      float* P) {
    const int N = p.seqLen(), D = p.d, F = p.mlpFeatures, Hd = p.mlpHidden;
    const std::vector<float> W1 = toRowMajorFloat(w.mlpW1), W2 = toRowMajorFloat(w.mlpW2);
    const std::vector<float> b1 = toRowMajorFloat(w.mlpB1), b2 = toRowMajorFloat(w.mlpB2);
    constexpr int kRows = 128;
    pool.run((N + kRows - 1) / kRows,
             [&](int b, int) {
                 const int r0 = b * kRows, rows = std::min(N, r0 + kRows) - r0;
                 // φ's angles in double (mlpFourierFeatures), rounded to float for the GEMM.
                 const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> phi =
                     mlpFourierFeatures(rows, F, p.base, r0).cast<float>();
                 std::vector<float> hidden(static_cast<std::size_t>(rows) * Hd);
                 for (int r = 0; r < rows; ++r)
                     std::memcpy(hidden.data() + static_cast<std::size_t>(r) * Hd, b1.data(),
                                 sizeof(float) * static_cast<std::size_t>(Hd));
                 cpu::gemmAB(rows, Hd, 2 * F, 1.0f, phi.data(), 2 * F, W1.data(), Hd, 1.0f,
                             hidden.data(), Hd);
                 for (float& v : hidden)
                     v = 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
                 float* out = P + static_cast<std::size_t>(r0) * D;
                 for (int r = 0; r < rows; ++r)
                     std::memcpy(out + static_cast<std::size_t>(r) * D, b2.data(),
                                 sizeof(float) * static_cast<std::size_t>(D));
                 cpu::gemmAB(rows, D, Hd, 1.0f, hidden.data(), Hd, W2.data(), D, 1.0f, out, D);
             },
             threads);
}

/**
 * What the scheme adds per offset, indexed by (j − i) + N − 1 unless stated: the n×n relative
 * index, bias and URPE matrices are these rows, shifted (Toeplitz). relativeTables' doubles
 * rounded to float once, as every engine holds them (roundedToFloat).
 */
struct RelativeOffsets {
    std::vector<int> idxOff;    ///< rel_index per offset (T5, Shaw, DeBERTa)
    bool idxReversed = false;   ///< DeBERTa: indexed by (i − j) + N − 1
    std::vector<float> biasOff; ///< [H][offs] (T5 and URPE's T5 bias, ALiBi)
    std::vector<float> postOff; ///< [H][offs] (URPE's C)

    /** Row i of rel_index: n entries. */
    void indexRow(int i, int n, std::int32_t* row) const {
        if (idxReversed)
            for (int j = 0; j < n; ++j)
                row[j] = idxOff[static_cast<std::size_t>(i - j + n - 1)];
        else
            cpu::streamCopy(row, idxOff.data() + (n - 1 - i), static_cast<std::size_t>(n));
    }
};

RelativeOffsets relativeOffsets(const Params& p, const Weights& w) {
    const RelativeTables tables = relativeTables(p, w);
    RelativeOffsets r;
    r.biasOff = roundedToFloat(tables.bias);
    r.postOff = roundedToFloat(tables.urpeC);
    if (p.scheme == Scheme::DeBERTa) { // its rows are read by i − j
        r.idxReversed = true;
        r.idxOff.assign(tables.index.rbegin(), tables.index.rend());
    } else {
        r.idxOff = tables.index;
    }
    return r;
}

} // namespace

CpuFastBackend::CpuFastBackend(int threads) {
    setThreads(threads);
}

CpuFastBackend::~CpuFastBackend() = default;

void CpuFastBackend::setThreads(int threads) {
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (threads != m_threads || !m_workers)
        m_workers = std::make_unique<cpu::TaskPool>(threads);
    m_threads = threads;
}

void CpuFastBackend::prepare(const Params& p, bool pooled) {
    if (p.precision != Precision::Float32 || !validate(p))
        return;
    const int threads = threadsFor(p, true);
    if (threads <= 1)
        return;
    const int N = p.seqLen(), D = p.d;
    const int bs = m_rowBlock > 0 ? m_rowBlock : rowBlockSize(N);
    const std::size_t blockElems = pooled ? 0 : static_cast<std::size_t>(bs) * N;
    const int pblk = std::min(N, projectionBlockRows(N, m_threads));
    const std::size_t productElems = static_cast<std::size_t>(pblk) * D;
    // The rows × D of X and the D × D of Wᵀ, both read from one buffer of zeros.
    const std::vector<float> zeros(static_cast<std::size_t>(std::max(pblk, D)) * D);
    m_scratch.workers.resize(static_cast<std::size_t>(std::min(threads, m_workers->threads())));
    m_workers->runOnEach(
        [&](int worker) {
            if (worker == 0) { // the computation's own scratch, sized as run() sizes it
                const Scratch::Sizes sizes = Scratch::sizesFor(p);
                for (TensorBuffer<float>* v :
                     {&m_scratch.wq, &m_scratch.wk, &m_scratch.wv, &m_scratch.wo})
                    Scratch::fit(*v, sizes.weights);
                Scratch::fit(m_scratch.wide, sizes.wide);
                Scratch::fit(m_scratch.keyPanels, sizes.keyPanels);
                Scratch::fit(m_scratch.valueChunks, sizes.valueChunks);
            }
            Scratch::Worker& mine = m_scratch.workers[static_cast<std::size_t>(worker)];
            if (blockElems > 0)
                Scratch::fit(mine.block, blockElems); // zero-filled: every page touched here
            std::vector<float> own; // where the block is smaller than the product (or absent)
            float* out = mine.block.data();
            if (mine.block.size() < productElems) {
                own.resize(productElems);
                out = own.data();
            }
            cpu::gemmABt(pblk, D, D, 1.0f, zeros.data(), D, zeros.data(), D, 0.0f, out, D);
        },
        threads);
}

QString CpuFastBackend::device() const {
    return QStringLiteral("%1 fast SIMD engine (%2), GEMM %3, %4 thread%5")
        .arg(QSysInfo::currentCpuArchitecture(), QLatin1String(cpu::simdTarget()),
             QLatin1String(cpu::gemmTarget()))
        .arg(m_threads)
        .arg(m_threads == 1 ? QString() : QStringLiteral("s"));
}

void CpuFastBackend::recycle(Trace&& trace) {
    std::uint64_t incoming = 0;
    for (auto& [name, t] : trace.tensors)
        // Not a view of memory the engine does not own (provideOutputStorage's mapped files).
        if (!t.empty() && !t.isExternal()) {
            incoming += t.byteSize();
            m_pool.push_back(std::move(t));
        }
    trace.tensors.clear();
    // Keep the pool bounded: the newest tensors up to a byte limit, never less than the trace
    // just handed back (compute() frees what it does not reuse).
    const std::uint64_t limit = std::max<std::uint64_t>(std::uint64_t{3} << 29, incoming);
    std::uint64_t bytes = 0;
    std::size_t keep = 0;
    for (auto it = m_pool.rbegin(); it != m_pool.rend(); ++it, ++keep) {
        bytes += it->byteSize();
        if (bytes > limit)
            break;
    }
    m_pool.erase(m_pool.begin(), m_pool.end() - static_cast<std::ptrdiff_t>(keep));
}

CpuFastBackend::Scratch::Sizes CpuFastBackend::Scratch::sizesFor(const Params& p) {
    const auto N = static_cast<std::size_t>(p.seqLen()), D = static_cast<std::size_t>(p.d),
               H = static_cast<std::size_t>(p.heads);
    Sizes s;
    s.weights = D * D;
    s.wide = N * D;
    s.keyPanels = H * static_cast<std::size_t>(cpu::panelFloats(p.seqLen(), p.headDim()));
    s.valueChunks = H * static_cast<std::size_t>(cpu::valueChunkFloats(p.seqLen(), p.headDim()));
    return s;
}

float* CpuFastBackend::Scratch::fit(TensorBuffer<float>& v, std::size_t n) {
    if (v.capacity() > 2 * n)
        TensorBuffer<float>().swap(v);
    v.resize(n, 0.0f); // new entries zeroed, as std::vector did (TensorBuffer default-initialises)
    return v.data();
}

std::uint64_t CpuFastBackend::Scratch::bytes() const {
    std::uint64_t floats = 0;
    for (const TensorBuffer<float>* v : {&wq, &wk, &wv, &wo, &keyPanels, &valueChunks, &wide})
        floats += v->capacity();
    for (const Worker& w : workers)
        for (const TensorBuffer<float>* v :
             {&w.block, &w.rowTerms, &w.rowAdd, &w.offsetSums, &w.scaledQ, &w.outPad})
            floats += v->capacity();
    return floats * sizeof(float);
}

void CpuFastBackend::releaseIdleMemory() {
    m_scratch = {};
    releasePool();
    m_sinusoid = {};
    m_txlSinusoid = {};
    m_ropeAngles = {};
}

std::uint64_t CpuFastBackend::heldBytes() const {
    std::uint64_t bytes =
        m_sinusoid.bytes() + m_txlSinusoid.bytes() + m_ropeAngles.bytes() + m_scratch.bytes();
    for (const Tensor& t : m_pool)
        bytes += t.byteSize();
    return bytes;
}

void CpuFastBackend::provideOutputStorage(std::vector<std::pair<std::string, Tensor>> storage) {
    m_provided = std::move(storage);
}

Tensor CpuFastBackend::acquire(const std::string& name, DType type, Shape shape) {
    for (auto it = m_provided.begin(); it != m_provided.end(); ++it) {
        if (it->first == name && it->second.dtype() == type && it->second.shape() == shape) {
            Tensor t = std::move(it->second);
            m_provided.erase(it);
            return t;
        }
    }
    return fromPool(type, std::move(shape));
}

Tensor CpuFastBackend::fromPool(DType type, Shape shape) {
    for (auto it = m_pool.begin(); it != m_pool.end(); ++it) {
        if (it->dtype() == type && it->shape() == shape) {
            Tensor t = std::move(*it);
            m_pool.erase(it);
            return t;
        }
    }
    return Tensor(type, std::move(shape));
}

Status CpuFastBackend::fillInputs(const Params& p, const Weights& w, int threads, float* e,
                                  float* pp, float* x) {
    const int N = p.seqLen(), D = p.d;
    const Scheme scheme = p.scheme;
    const int tokenRow0 = p.cls ? 1 : 0;
    const int tokenRows = static_cast<int>(w.E.rows());
    if (w.E.cols() != D || tokenRow0 + tokenRows + (p.sep ? 1 : 0) != N)
        return Error{"E has " + std::to_string(w.E.rows()) + " rows; n is " + std::to_string(p.n)};
    if (scheme == Scheme::Learned && w.learnedTable.rows() < N)
        return Error{"learned.table has " + std::to_string(w.learnedTable.rows()) +
                     " rows; the sequence needs " + std::to_string(N)};
    cpu::TaskPool& pool = *m_workers;
    auto parallelFor = [&pool, threads](int count, const auto& body) {
        pool.run(
            count, [&body](int task, int) { body(task); }, threads);
    };
    const float* rowsP = nullptr;
    if (scheme == Scheme::Sinusoidal) {
        // The table depends on (n, d, base, layout) only: kept for the next computation.
        if (!m_sinusoid.holds({N, D, p.base, static_cast<int>(p.layout)},
                              static_cast<std::size_t>(N) * D)) {
            constexpr int kRows = 256; // rows in parallel, straight into float
            parallelFor((N + kRows - 1) / kRows, [&](int b) {
                const int r0 = b * kRows, r1 = std::min(N, r0 + kRows);
                sinusoidalRows(D, p.base, p.layout, r0, r1,
                               m_sinusoid.values.data() + static_cast<std::size_t>(r0) * D);
            });
        }
        rowsP = m_sinusoid.values.data();
    }
    if (scheme == Scheme::Mlp) // straight into P; X adds it below
        mlpEncodingFloat(p, w, pool, threads, pp);
    // Blocks of rows in parallel; E arrives column-major in double, so each block reads its rows
    // column by column (contiguous) and writes them row-major.
    auto copyRow = [&](const Eigen::MatrixXd& m, Eigen::Index r, int row) {
        for (int c = 0; c < D; ++c)
            e[static_cast<std::int64_t>(row) * D + c] = static_cast<float>(m(r, c));
    };
    if (p.cls)
        copyRow(w.cls, 0, 0);
    if (p.sep)
        copyRow(w.sep, 0, N - 1);
    constexpr int kRows = 64;
    parallelFor((N + kRows - 1) / kRows, [&](int b) {
        const int r0 = b * kRows, r1 = std::min(N, r0 + kRows);
        const int t0 = std::max(r0, tokenRow0), t1 = std::min(r1, tokenRow0 + tokenRows);
        toRowMajorRows(w.E, t0 - tokenRow0, t1 - tokenRow0, e + static_cast<std::int64_t>(t0) * D);
        const std::int64_t a = static_cast<std::int64_t>(r0) * D;
        const std::int64_t len = static_cast<std::int64_t>(r1 - r0) * D;
        if (rowsP)
            std::memcpy(pp + a, rowsP + a, static_cast<std::size_t>(len) * sizeof(float));
        else if (scheme == Scheme::Learned) // rows of the table
            toRowMajorRows(w.learnedTable, r0, r1, pp + a);
        for (std::int64_t i = a; i < a + len; ++i)
            x[i] = pp ? e[i] + pp[i] : e[i];
    });
    return {};
}

double CpuFastBackend::forwardFlops(const Params& p) {
    const double N = p.seqLen(), D = p.d;
    return 8.0 * N * D * D + 4.0 * N * N * D;
}

bool CpuFastBackend::pastWeights(std::string_view tensor) {
    return tensor == "V" || tensor == "head_out" || tensor == "out" || tensor == "shaw_v_term";
}

bool CpuFastBackend::termsBeforeWeights(std::string_view tensor) {
    for (std::string_view t : {"logits", "rel_index", "bias", "shaw_k_term", "txl_ac", "txl_bd",
                               "c2c", "c2p", "p2c", "urpe_C"})
        if (tensor == t)
            return true;
    return false;
}

int CpuFastBackend::threadsFor(const Params& p, bool forward) const {
    // Small problems run on one thread: the fork/join of each phase costs more than it saves.
    if (forwardFlops(p) < m_minParallelWork)
        return 1;
    return forward && m_forwardThreads > 0 ? std::min(m_forwardThreads, m_threads) : m_threads;
}

std::optional<Trace> CpuFastBackend::computeInputs(const Params& p, const Weights& w) {
    if (p.precision != Precision::Float32 || !validate(p) || !checkWeights(p, w))
        return std::nullopt; // compute() says what is wrong
    const int N = p.seqLen(), D = p.d;
    const int threads = threadsFor(p, false);
    // Recycled tensors where the pool has them (fresh ones cost page faults), not the storage
    // provided for compute().
    std::map<std::string, Tensor, std::less<>> made;
    auto make = [this, &made](const char* name, std::vector<std::int64_t> shape,
                              DType type = DType::F32) -> Tensor& {
        return made[name] = fromPool(type, std::move(shape));
    };
    Tensor& tE = make("E", {N, D});
    Tensor& tX = make("X", {N, D});
    float* pp = isAbsolute(p.scheme) ? make("P", {N, D}).data<float>() : nullptr;
    if (!fillInputs(p, w, threads, tE.data<float>(), pp, tX.data<float>()))
        return std::nullopt;
    Trace trace;
    trace.params = p;
    for (const std::string& name : traceTensorNames(p))
        if (auto it = made.find(name); it != made.end())
            trace.tensors.emplace_back(name, std::move(it->second));
    return trace;
}

Expected<Trace> CpuFastBackend::compute(const Params& p, const Weights& w,
                                        const std::atomic<bool>* cancel) {
    m_lent.reset(); // lent to a pooled computation only (lendProjections)
    return run(p, w, cancel, nullptr, m_stopAtWeights, nullptr);
}

Expected<Trace> CpuFastBackend::run(const Params& p, const Weights& w,
                                    const std::atomic<bool>* cancel, const cpu::RowSink* sink,
                                    bool toWeights, const Trace* lent) {
    // With a sink (pooled mode) no n×n tensor is stored: the fused tile pass folds the logits
    // and weights into the sink's accumulators and the trace keeps its O(n·d) tensors. Stopped
    // at the weights, nothing past them is made (pastWeights).
    const bool streaming = sink != nullptr;
    struct DropUnused { // provided storage serves this computation only; tables it did not use go
        CpuFastBackend& b;
        ~DropUnused() {
            b.m_provided.clear();
            for (KeptTable* t : {&b.m_sinusoid, &b.m_txlSinusoid, &b.m_ropeAngles})
                t->releaseUnused();
        }
    } dropUnused{*this};
    if (p.precision != Precision::Float32)
        return computeTrace(p, w, cancel);
    if (Status s = validate(p); !s)
        return s.error();
    if (Status s = checkWeights(p, w); !s)
        return s.error();

    // PE_CPU_TIMING=1 prints the time of each phase to stderr (for tuning).
    static const bool kTiming = std::getenv("PE_CPU_TIMING") != nullptr;
    auto clockMs = [] {
        return std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    // With the wall time, the calling thread's CPU time and page faults: a phase whose CPU time
    // falls short of its wall time waited (for the pool's other threads, or for a core).
    auto threadCpuMs = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
    };
    auto threadFaults = [] {
        rusage u{};
        getrusage(RUSAGE_THREAD, &u);
        return static_cast<long>(u.ru_minflt + u.ru_majflt);
    };
    double tPhase = clockMs();
    double cpuPhase = kTiming ? threadCpuMs() : 0.0;
    long faultsPhase = kTiming ? threadFaults() : 0;
    m_profile = Profile{};
    auto phase = [&](const char* what, double Profile::*slot) {
        if (!kTiming && !m_profiling)
            return;
        const double t = clockMs();
        if (kTiming) {
            const double cpu = threadCpuMs();
            const long faults = threadFaults();
            std::fprintf(stderr, "  %-12s %8.2f ms (this thread: %.2f ms CPU, %ld page faults)\n",
                         what, t - tPhase, cpu - cpuPhase, faults - faultsPhase);
            cpuPhase = cpu;
            faultsPhase = faults;
        }
        m_profile.*slot = t - tPhase;
        tPhase = t;
    };
    const int N = p.seqLen();
    const int D = p.d;
    const int H = p.heads;
    const int dh = p.headDim();
    const std::int64_t NN = static_cast<std::int64_t>(N) * N;
    const std::int64_t Ndh = static_cast<std::int64_t>(N) * dh;
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    const int threads = threadsFor(p, true);
    cpu::TaskPool& pool = *m_workers;
    // The helpers wake now, while this thread prepares the first section, and spin between
    // sections until the computation returns.
    std::optional<cpu::TaskPool::Busy> busy;
    if (threads > 1)
        busy.emplace(pool);
    auto parallelFor = [&pool, threads](int count, const auto& body) {
        pool.run(
            count, [&body](int task, int) { body(task); }, threads);
    };
    const Scheme scheme = p.scheme;
    const bool useT5Bias =
        scheme == Scheme::T5 || (scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
    const bool isAlibi = scheme == Scheme::ALiBi;
    const bool isShaw = scheme == Scheme::Shaw;
    const bool isTxl = scheme == Scheme::TransformerXL;
    const bool isDeberta = scheme == Scheme::DeBERTa;
    const bool isUrpe = scheme == Scheme::URPE;

    std::map<std::string, Tensor, std::less<>> out;
    auto make = [&](const char* name, Shape shape, DType type = DType::F32) -> Tensor& {
        Tensor& t = out[name];
        t = acquire(name, type, std::move(shape));
        return t;
    };

    // Q and K lent by a trace of the same parameters and weights (lendProjections): a pooled
    // pass stopped at the weights (a zoom tile) then needs neither the inputs nor W_q and W_k.
    const Tensor* lentQ = nullptr;
    const Tensor* lentK = nullptr;
    if (lent && streaming && toWeights && lent->params == p) {
        const Shape qk{H, N, dh};
        const Tensor* q = lent->find("Q");
        const Tensor* k = lent->find("K");
        if (q && k && q->dtype() == DType::F32 && k->dtype() == DType::F32 && q->shape() == qk &&
            k->shape() == qk) {
            lentQ = q;
            lentK = k;
        }
    }
    const bool projected = lentQ != nullptr;

    // ---- Inputs: E (special rows included), P, X ----
    const float* X = nullptr;
    if (!projected) {
        Tensor& tE = make("E", {N, D});
        Tensor& tX = make("X", {N, D});
        float* pp = isAbsolute(scheme) ? make("P", {N, D}).data<float>() : nullptr;
        if (Status s = fillInputs(p, w, threads, tE.data<float>(), pp, tX.data<float>()); !s)
            return s.error();
        X = tX.data<float>();
    }

    // ---- Weights in float, row-major ----
    const Scratch::Sizes sizes = Scratch::sizesFor(p); // what prepare() fits ahead
    // Column-major W in float is Wᵀ row-major: X·W = gemmABt(X, Wᵀ), a plain contiguous cast.
    TensorBuffer<float>& WqT = m_scratch.wq;
    TensorBuffer<float>& WkT = m_scratch.wk;
    TensorBuffer<float>& WvT = m_scratch.wv;
    TensorBuffer<float>& WoT = m_scratch.wo;
    if (!projected) {
        const Eigen::MatrixXd* from[4] = {&w.W_q, &w.W_k, &w.W_v, &w.W_o};
        TensorBuffer<float>* to[4] = {&WqT, &WkT, &WvT, &WoT};
        parallelFor(4, [&](int k) {
            const Eigen::MatrixXd& m = *from[k];
            const double* src = m.data();
            float* dst = Scratch::fit(*to[k], static_cast<std::size_t>(m.size()));
            for (Eigen::Index i = 0; i < m.size(); ++i)
                dst[i] = static_cast<float>(src[i]);
        });
    }

    // Written by the projections (and RoPE's rotation) below, unless lent.
    float* Qmade = projected ? nullptr : make("Q", {H, N, dh}).data<float>();
    float* Kmade = projected ? nullptr : make("K", {H, N, dh}).data<float>();
    const float* Q = projected ? lentQ->data<float>() : Qmade;
    const float* K = projected ? lentK->data<float>() : Kmade;
    // What this pass makes: everything, or what comes before the weights (pastWeights), and
    // of the n × n tensors perhaps the weights alone (setWeightsAlone). The steps test their
    // tensors: V, head_out, out, shaw_v_term; the logits and the position terms.
    const bool weightsAlone = toWeights && m_weightsAlone && !streaming;
    // One head's n² work (setOnlyHead): its [heads, n, n] tensors are [1, n, n].
    const int alone = headAlone(p, toWeights);
    const bool oneHead = alone >= 0;
    const int hFirst = oneHead ? alone : 0;
    const int hCount = oneHead ? 1 : H;
    auto makes = [toWeights, weightsAlone](std::string_view name) {
        return !(toWeights && pastWeights(name)) && !(weightsAlone && termsBeforeWeights(name));
    };
    float* V = makes("V") ? make("V", {H, N, dh}).data<float>() : nullptr;
    float* logits =
        streaming || !makes("logits") ? nullptr : make("logits", {hCount, N, N}).data<float>();
    float* weightsT = streaming ? nullptr : make("weights", {hCount, N, N}).data<float>();
    float* headOut = makes("head_out") ? make("head_out", {H, N, dh}).data<float>() : nullptr;
    float* outT = makes("out") ? make("out", {N, D}).data<float>() : nullptr;

    // ---- Per-offset tables, indexed by (j − i) + N − 1 unless stated ----
    const int offs = 2 * N - 1;
    const RelativeOffsets rel = relativeOffsets(p, w);
    const std::vector<int>& idxOff = rel.idxOff;
    const std::vector<float>& biasOff = rel.biasOff;
    const std::vector<float>& postOff = rel.postOff;
    const int kShaw = p.clip;
    const int shawRows = 2 * kShaw + 1;
    std::vector<float> shawWk, shawWv;
    if (isShaw) {
        shawWk = toRowMajorFloat(w.shawWk);
        shawWv = toRowMajorFloat(w.shawWv);
    }
    const int span = p.debertaSpan();
    const float debScale =
        1.0f / std::sqrt(static_cast<float>(dh) * static_cast<float>(1 + p.debertaTerms()));
    std::vector<float> debRel, debKr, debQr;
    if (isDeberta) {
        debRel = toRowMajorFloat(w.debertaRel);
        debKr.resize(static_cast<std::size_t>(2 * span) * D);
        debQr.resize(static_cast<std::size_t>(2 * span) * D);
        const std::vector<float> wkr = toRowMajorFloat(w.debertaWkr),
                                 wqr = toRowMajorFloat(w.debertaWqr);
        cpu::gemmAB(2 * span, D, D, 1.0f, debRel.data(), D, wkr.data(), D, 0.0f, debKr.data(), D);
        cpu::gemmAB(2 * span, D, D, 1.0f, debRel.data(), D, wqr.data(), D, 0.0f, debQr.data(), D);
    }
    std::vector<float> txlR, txlU, txlV; // txlR: projected r for t = N−1−r, rows r ∈ [0, 2N−1)
    if (isTxl) {
        // The relative sinusoid, rows in parallel, kept: it depends on (n, d, clamp) only.
        if (!m_txlSinusoid.holds({N, D, static_cast<double>(p.txlClampLen), 0},
                                 static_cast<std::size_t>(offs) * D)) {
            constexpr int kRows = 256;
            parallelFor((offs + kRows - 1) / kRows, [&](int b) {
                const int r0 = b * kRows, r1 = std::min(offs, r0 + kRows);
                txlRelativeSinusoidRows(N, D, p.txlClampLen, r0, r1,
                                        m_txlSinusoid.values.data() +
                                            static_cast<std::size_t>(r0) * D);
            });
        }
        const std::vector<float>& R = m_txlSinusoid.values;
        const std::vector<float> wr = toRowMajorFloat(w.txlWr);
        txlR.resize(R.size());
        txlU = toRowMajorFloat(w.txlU);
        txlV = toRowMajorFloat(w.txlV);
        const int blk = 256;
        parallelFor((offs + blk - 1) / blk, [&](int b) {
            const int r0 = b * blk;
            const int rows = std::min(blk, offs - r0);
            cpu::gemmAB(rows, D, D, 1.0f, R.data() + static_cast<std::size_t>(r0) * D, D, wr.data(),
                        D, 0.0f, txlR.data() + static_cast<std::size_t>(r0) * D, D);
        });
    }

    phase("inputs", &Profile::inputsMs);
    // The query rows this computation uses: a tile's own ([rowBegin, rowEnd) of the sink; every
    // key, value and position is still needed), every row otherwise. Q and what is made from it
    // (RoPE's rotation, Shaw's, DeBERTa's and Transformer-XL's query tables) cover these only:
    // a 1,024-row zoom tile at n = 16,384 projected all 16,384 queries.
    const int qBegin = streaming ? sink->rowBegin : 0;
    const int qEnd = streaming ? sink->rowEnd : N;
    // ---- Projections (per head: X · W[:, head columns]) ----
    if (!projected) {
        // Full-width products in row blocks (better GEMM shapes; projectionBlockRows), then
        // split per head. OpenBLAS's own threads on one call per matrix measured no faster and
        // left spinning threads behind.
        // Kept between computations: a fresh 4·n·d bytes was zero-filled and page-faulted on one
        // thread each time (8,193 faults, a few % of a pooled n = 16384 run).
        float* full = Scratch::fit(m_scratch.wide, sizes.wide);
        const int pblk = projectionBlockRows(N, m_threads);
        for (int which = 0; which < (V ? 3 : 2); ++which) {
            const float* Wt = which == 0 ? WqT.data() : (which == 1 ? WkT.data() : WvT.data());
            float* dst = which == 0 ? Qmade : (which == 1 ? Kmade : V);
            const int from = which == 0 ? qBegin : 0, to = which == 0 ? qEnd : N;
            parallelFor((to - from + pblk - 1) / pblk, [&](int b) {
                const int r0 = from + b * pblk, rows = std::min(pblk, to - r0);
                float* f = full + static_cast<std::size_t>(r0) * D;
                cpu::gemmABt(rows, D, D, 1.0f, X + static_cast<std::size_t>(r0) * D, D, Wt, D, 0.0f,
                             f, D);
                for (int h = 0; h < H; ++h)
                    for (int i = r0; i < r0 + rows; ++i)
                        std::memcpy(dst + h * Ndh + static_cast<std::int64_t>(i) * dh,
                                    full + static_cast<std::size_t>(i) * D + h * dh,
                                    sizeof(float) * dh);
            });
        }
    }
    if (scheme == Scheme::RoPE && !projected) { // lent Q and K are rotated already
        const int dRot = p.ropeRotatedDims();
        const int pairs = dRot / 2;
        // cos and sin per position and pair, kept: they depend on (n, rotated dims, base,
        // scaling, stretch) only.
        const std::size_t angles = static_cast<std::size_t>(N) * pairs;
        const double stretch = p.ropeScaling == RopeScaling::None ? 1.0 : p.ropeScale;
        const bool kept = m_ropeAngles.holds(
            {N, dRot, p.base, static_cast<int>(p.ropeScaling), stretch}, 2 * angles);
        float* cs = m_ropeAngles.values.data(); // [N, pairs] each
        float* sn = cs + angles;
        if (!kept) {
            const RopeFrequencies freq = ropeFrequencies(p);
            constexpr int kRows = 256;
            parallelFor((N + kRows - 1) / kRows, [&](int b) {
                for (int i = b * kRows; i < std::min(N, (b + 1) * kRows); ++i)
                    for (int m = 0; m < pairs; ++m) {
                        const double a = freq.angle(static_cast<double>(i), m);
                        const std::size_t at = static_cast<std::size_t>(i) * pairs + m;
                        cs[at] = static_cast<float>(std::cos(a));
                        sn[at] = static_cast<float>(std::sin(a));
                    }
            });
        }
        const bool inter = p.ropeConvention == RopeConvention::Interleaved;
        parallelFor(2 * H, [&](int task) {
            float* base = (task < H ? Qmade : Kmade) + (task % H) * Ndh;
            for (int i = task < H ? qBegin : 0; i < (task < H ? qEnd : N); ++i) {
                float* row = base + static_cast<std::int64_t>(i) * dh;
                for (int m = 0; m < pairs; ++m) {
                    const int ia = inter ? 2 * m : m;
                    const int ib = inter ? 2 * m + 1 : m + pairs;
                    const float c = cs[static_cast<std::size_t>(i) * pairs + m];
                    const float s = sn[static_cast<std::size_t>(i) * pairs + m];
                    const float a = row[ia], b = row[ib];
                    row[ia] = a * c - b * s;
                    row[ib] = b * c + a * s;
                }
            }
        });
    }

    phase("projections", &Profile::projectionsMs);
    // ---- Component tensors ----
    std::int32_t* relIndex = !idxOff.empty() && !streaming && makes("rel_index")
                                 ? make("rel_index", {N, N}, DType::I32).data<std::int32_t>()
                                 : nullptr;
    // The bias is always added; it is written out only where the contract lists it (t5, alibi).
    const bool addBias = useT5Bias || isAlibi;
    float* biasT = addBias && hasBias(p) && !streaming && makes("bias")
                       ? make("bias", {hCount, N, N}).data<float>()
                       : nullptr;
    float* shawK = isShaw && !streaming && makes("shaw_k_term")
                       ? make("shaw_k_term", {hCount, N, N}).data<float>()
                       : nullptr;
    float* shawV =
        isShaw && makes("shaw_v_term") ? make("shaw_v_term", {H, N, dh}).data<float>() : nullptr;
    const bool storeNN = !streaming && !weightsAlone; // the other n × n position terms
    const bool wantC2P = isDeberta && p.debertaC2P;
    const bool wantP2C = isDeberta && p.debertaP2C;
    float* txlAc = isTxl && storeNN ? make("txl_ac", {hCount, N, N}).data<float>() : nullptr;
    float* txlBd = isTxl && storeNN ? make("txl_bd", {hCount, N, N}).data<float>() : nullptr;
    float* c2c = isDeberta && storeNN ? make("c2c", {hCount, N, N}).data<float>() : nullptr;
    float* c2p = wantC2P && storeNN ? make("c2p", {hCount, N, N}).data<float>() : nullptr;
    float* p2c = wantP2C && storeNN ? make("p2c", {hCount, N, N}).data<float>() : nullptr;
    float* urpeC = isUrpe && storeNN ? make("urpe_C", {hCount, N, N}).data<float>() : nullptr;

    if (relIndex)
        parallelFor(
            N, [&](int i) { rel.indexRow(i, N, relIndex + static_cast<std::int64_t>(i) * N); });

    // Per-head position tables: Shaw q·w_kᵀ (scaled), DeBERTa q·K_rᵀ and k·Q_rᵀ (scaled).
    std::vector<float> shawSK, debC2P, debP2C;
    if (isShaw)
        shawSK.resize(static_cast<std::size_t>(H) * N * shawRows);
    if (isDeberta) {
        if (wantC2P)
            debC2P.resize(static_cast<std::size_t>(H) * N * 2 * span);
        if (wantP2C)
            debP2C.resize(static_cast<std::size_t>(H) * N * 2 * span);
    }
    if (isShaw || isDeberta) {
        const int qRows = qEnd - qBegin;
        parallelFor(hCount, [&](int k) {
            const int h = hFirst + k;
            const float* q = Q + h * Ndh + static_cast<std::int64_t>(qBegin) * dh;
            const std::size_t at = static_cast<std::size_t>(h) * N + qBegin; // the first row
            if (isShaw)
                cpu::gemmABt(qRows, shawRows, dh, scale, q, dh, shawWk.data(), dh, 0.0f,
                             shawSK.data() + at * shawRows, shawRows);
            if (wantC2P)
                cpu::gemmABt(qRows, 2 * span, dh, debScale, q, dh, debKr.data() + h * dh, D, 0.0f,
                             debC2P.data() + at * 2 * span, 2 * span);
            if (wantP2C)
                cpu::gemmABt(N, 2 * span, dh, debScale, K + h * Ndh, dh, debQr.data() + h * dh, D,
                             0.0f, debP2C.data() + static_cast<std::size_t>(h) * N * 2 * span,
                             2 * span);
        });
    }
    // DeBERTa, fused pass: where δ saturates, and p2c's two columns there per head (loaded,
    // not gathered, for keys away from the diagonal).
    int debLowRel = 0, debHighRel = 0;
    std::vector<float> debP2CEnds;
    if (isDeberta && streaming) {
        const int offsN = 2 * N - 1;
        int lo = 0, hi = offsN - 1;
        while (lo + 1 < offsN && idxOff[static_cast<std::size_t>(lo + 1)] == idxOff[0])
            ++lo;
        while (hi > 0 && idxOff[static_cast<std::size_t>(hi - 1)] == idxOff.back())
            --hi;
        debLowRel = lo - (N - 1);
        debHighRel = hi - (N - 1);
        if (wantP2C) {
            debP2CEnds.resize(static_cast<std::size_t>(H) * 2 * N);
            parallelFor(H, [&](int h) {
                const float* table = debP2C.data() + static_cast<std::size_t>(h) * N * 2 * span;
                float* low = debP2CEnds.data() + static_cast<std::size_t>(h) * 2 * N;
                for (int j = 0; j < N; ++j) {
                    const float* row = table + static_cast<std::size_t>(j) * 2 * span;
                    low[j] = row[idxOff.front()];
                    low[N + j] = row[idxOff.back()];
                }
            });
        }
    }
    // TXL: q + u and q + v per head.
    std::vector<float> txlQu, txlQv;
    if (isTxl) {
        txlQu.resize(static_cast<std::size_t>(H) * Ndh);
        txlQv.resize(txlQu.size());
        for (int h = 0; h < H; ++h)
            for (int i = qBegin; i < qEnd; ++i)
                for (int c = 0; c < dh; ++c) {
                    const std::size_t at =
                        static_cast<std::size_t>(h) * Ndh + static_cast<std::size_t>(i) * dh + c;
                    txlQu[at] = Q[at] + txlU[static_cast<std::size_t>(h) * dh + c];
                    txlQv[at] = Q[at] + txlV[static_cast<std::size_t>(h) * dh + c];
                }
    }

    phase("tables", &Profile::tablesMs);
    // ---- The n² work: heads × row blocks ----
    const int bs = m_rowBlock > 0 ? m_rowBlock : rowBlockSize(N);
    const int rowBegin = streaming ? sink->rowBegin : 0;
    const int rowEnd = streaming ? sink->rowEnd : N;
    const int blocks = (rowEnd - rowBegin + bs - 1) / bs;
    const int tasks = hCount * blocks;
    const int validLen = p.validLen < 0 ? N : std::min(p.validLen, N);
    const bool causal = p.mask == MaskKind::Causal;
    const int normInt = static_cast<int>(p.norm);
    std::atomic<bool> cancelled{false};
    std::atomic<std::int64_t> npassNs{0};
    const bool profiling = m_profiling;
    using ProfileClock = std::chrono::steady_clock;
    auto sinceNs = [](ProfileClock::time_point a, ProfileClock::time_point b) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
    };

    // Keys packed in panels and values in column chunks once per head (O(n·d), kept for the
    // next computation in m_scratch unless it needs less than half of them, so that a window
    // moved to a small n does not hold the largest n's share; every entry is written). Both
    // paths' products run the tile kernels on them, with none of a GEMM library's per-call
    // packing (at a head width of 32 OpenBLAS reached 62–71 % of the peak on the block's shapes).
    const std::int64_t panelSize = cpu::panelFloats(N, dh);
    const std::int64_t chunkSize = cpu::valueChunkFloats(N, dh);
    TensorBuffer<float>& keyPanels = m_scratch.keyPanels;
    TensorBuffer<float>& vChunks = m_scratch.valueChunks;
    Scratch::fit(keyPanels, sizes.keyPanels); // H × panelSize
    Scratch::fit(vChunks, sizes.valueChunks); // H × chunkSize
    parallelFor(hCount, [&](int k) {
        const int h = hFirst + k;
        cpu::packPanels(K + h * Ndh, N, dh, dh, keyPanels.data() + h * panelSize);
        if (V)
            cpu::packValueChunks(V + h * Ndh, N, dh, dh, vChunks.data() + h * chunkSize);
    });

    if (streaming) {
        // The fused tile pass: keys packed once per head, each head × row block walks the keys
        // in tiles that stay in cache, folding logits and weights into the pooled cells. It has
        // scratch of its own: the full pass's per-worker blocks are let go.
        m_scratch.workers.clear();
        PoolAccumulator& logitAcc = *sink->logitsPool;
        PoolAccumulator& weightAcc = *sink->weightsPool;
        const PoolRegion region = logitAcc.region();
        const std::vector<int>& colStart = logitAcc.columnStarts();
        const int cells = static_cast<int>(colStart.size()) - 1;
        const bool poolMax = logitAcc.mode() == PoolMode::Max;
        // TXL's packed R (O(n·d), freed at the end like the packed keys and values).
        const std::int64_t bandSize = isTxl ? cpu::panelFloats(2 * N - 1, dh) : 0;
        TensorBuffer<float> bandPanels(static_cast<std::size_t>(H * bandSize));
        if (isTxl)
            parallelFor(H, [&](int h) {
                cpu::packPanels(txlR.data() + h * dh, 2 * N - 1, D, dh,
                                bandPanels.data() + h * bandSize);
            });
        auto fusedTask = [&](int task, int) {
            if (cancelled.load(std::memory_order_relaxed))
                return;
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                cancelled.store(true);
                return;
            }
            const DenormalGuard denormals;
            const int h = hFirst + task / blocks;
            const int i0 = rowBegin + (task % blocks) * bs;
            const int i1 = std::min(rowEnd, i0 + bs);
            const int rows = i1 - i0;
            std::vector<int> limit(static_cast<std::size_t>(rows));
            for (int i = i0; i < i1; ++i)
                limit[static_cast<std::size_t>(i - i0)] =
                    causal ? std::min(i + 1, validLen) : validLen;
            const int u0 = cells > 0 ? logitAcc.cellRow(i0 - rowBegin) : 0;
            const int u1 = cells > 0 ? logitAcc.cellRow(i1 - 1 - rowBegin) + 1 : 0;
            std::vector<int> rowCell(static_cast<std::size_t>(rows));
            for (int i = i0; i < i1 && cells > 0; ++i)
                rowCell[static_cast<std::size_t>(i - i0)] = logitAcc.cellRow(i - rowBegin) - u0;
            const std::size_t partSize = static_cast<std::size_t>(u1 - u0) * std::max(cells, 0);
            const float partInit = poolMax ? -std::numeric_limits<float>::infinity() : 0.0f;
            std::vector<float> logitPart(partSize, partInit), weightPart(partSize, partInit);
            std::vector<std::int32_t> logitCount(poolMax ? 0 : partSize, 0);
            std::vector<float> shawSums(isShaw ? static_cast<std::size_t>(rows) * shawRows : 0);

            cpu::TileAttention ta;
            ta.n = N;
            ta.dh = dh;
            ta.row0 = i0;
            ta.rows = rows;
            const float* Qsrc = isTxl ? txlQu.data() : Q;
            ta.q = Qsrc + h * Ndh + static_cast<std::int64_t>(i0) * dh;
            ta.keyPanels = keyPanels.data() + h * panelSize;
            ta.valueChunks = vChunks.data() + h * chunkSize;
            ta.valueChunkKeys = N;
            ta.scale = isDeberta ? debScale : (scheme == Scheme::T5 ? 1.0f : scale);
            ta.norm = normInt;
            ta.limit = limit.data();
            if (addBias)
                ta.addOffsets = biasOff.data() + static_cast<std::size_t>(h) * offs;
            if (isUrpe)
                ta.postOffsets = postOff.data() + static_cast<std::size_t>(h) * offs;
            if (isTxl) {
                ta.bandQ = txlQv.data() + h * Ndh + static_cast<std::int64_t>(i0) * dh;
                ta.bandPanels = bandPanels.data() + h * bandSize;
                ta.bandScale = scale;
            }
            if (isShaw) {
                ta.shawKeyTerms = shawSK.data() + static_cast<std::size_t>(h) * N * shawRows;
                ta.shawK = kShaw;
                ta.shawSums = shawSums.data();
            } else if (isDeberta && (wantC2P || wantP2C)) {
                ta.debertaIndex = idxOff.data();
                ta.debertaStride = 2 * span;
                ta.debertaPaper = p.p2cConvention == P2CConvention::Paper;
                if (wantC2P)
                    ta.debertaC2P = debC2P.data() + static_cast<std::size_t>(h) * N * 2 * span;
                if (wantP2C)
                    ta.debertaP2C = debP2C.data() + static_cast<std::size_t>(h) * N * 2 * span;
                ta.debertaSaturates = true;
                ta.debertaLowRel = debLowRel;
                ta.debertaHighRel = debHighRel;
                if (wantP2C) {
                    ta.debertaP2CLow = debP2CEnds.data() + static_cast<std::size_t>(h) * 2 * N;
                    ta.debertaP2CHigh = ta.debertaP2CLow + N;
                }
            }
            ta.c0 = region.c0;
            ta.c1 = region.c1;
            ta.cells = cells;
            ta.colStart = colStart.data();
            ta.rowCell = rowCell.data();
            ta.poolMax = poolMax;
            ta.logitCells = logitPart.data();
            ta.logitCounts = logitCount.data();
            ta.weightCells = weightPart.data();
            ta.out = headOut ? headOut + h * Ndh + static_cast<std::int64_t>(i0) * dh : nullptr;
            ta.tileCols = m_tileCols > 0 ? m_tileCols : 512;
            // relu2 divides by N, relu2_visible by the row's visible keys.
            std::vector<float> relu2Divisor;
            if (p.norm == Normaliser::Relu2) {
                ta.relu2Denominator = static_cast<float>(N);
            } else if (p.norm == Normaliser::Relu2Visible) {
                relu2Divisor.assign(limit.begin(), limit.end());
                ta.relu2Denominators = relu2Divisor.data();
            }
            cpu::attendTiles(ta);
            if (shawV) {
                float* ho = headOut + h * Ndh + static_cast<std::int64_t>(i0) * dh;
                float* sv = shawV + h * Ndh + static_cast<std::int64_t>(i0) * dh;
                cpu::gemmAB(rows, dh, shawRows, 1.0f, shawSums.data(), shawRows, shawWv.data(), dh,
                            0.0f, sv, dh);
                for (std::int64_t e = 0; e < static_cast<std::int64_t>(rows) * dh; ++e)
                    ho[e] += sv[e];
            }
            if (cells > 0) {
                // The weights' entries are all finite: no counts, each cell counts its area.
                weightAcc.addCells(h - hFirst, i0 - rowBegin, i1 - rowBegin, weightPart.data(),
                                   nullptr);
                logitAcc.addCells(h - hFirst, i0 - rowBegin, i1 - rowBegin, logitPart.data(),
                                  poolMax ? nullptr : logitCount.data());
            }
        };
        pool.run(tasks, fusedTask, threads);
    } else {
        // Per-worker scratch (m_scratch.workers). The block's dots become its weights in place
        // (S), which stay in cache for A·V; the row pass streams the logits and weights to the
        // trace as it makes them (written once, never read back here, so never fetched into the
        // cache). Also: the TXL band or DeBERTa position-sum row, a row of Shaw's k-term, Shaw's
        // per-offset sums.
        const std::size_t blockElems = static_cast<std::size_t>(bs) * N;
        const std::size_t rowTermsElems = isTxl       ? static_cast<std::size_t>(bs) * (N + bs)
                                          : isDeberta ? 3 * static_cast<std::size_t>(N)
                                                      : 0;
        // The workers this computation runs on; the others' scratch (a larger thread count) goes.
        m_scratch.workers.resize(static_cast<std::size_t>(std::min(threads, pool.threads())));
        std::vector<Scratch::Worker>& workerScratch = m_scratch.workers;
        const int lanes = cpu::tileLanes();
        const int dhPad = (dh + lanes - 1) / lanes * lanes;
        // S = alpha · q_block · K_hᵀ (row stride N): whole panels by the kernel, the last keys
        // (fewer than a vector) by GEMM; alpha folded into a copy of the block's queries.
        auto blockDots = [&](int h, int rows, const float* q, float alpha, float* S, int wk) {
            if (alpha != 1.0f) {
                float* sq = Scratch::fit(workerScratch[static_cast<std::size_t>(wk)].scaledQ,
                                         static_cast<std::size_t>(rows) * dh);
                for (std::size_t e = 0; e < static_cast<std::size_t>(rows) * dh; ++e)
                    sq[e] = alpha * q[e];
                q = sq;
            }
            cpu::dotKeys(rows, q, dh, keyPanels.data() + h * panelSize, K + h * Ndh, N, S, N);
        };
        auto blockTask = [&](int task, int worker) {
            if (cancelled.load(std::memory_order_relaxed))
                return;
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                cancelled.store(true);
                return;
            }
            const DenormalGuard denormals;
            // Sized by the worker that owns them, so that their pages are first touched by the
            // thread that works on them (prepare() does it ahead for a fresh engine).
            Scratch::Worker& mine = workerScratch[static_cast<std::size_t>(worker)];
            // (fit keeps storage of the right size: after the first task these do nothing)
            Scratch::fit(mine.block, blockElems);
            Scratch::fit(mine.rowTerms, rowTermsElems);
            if (isShaw) {
                Scratch::fit(mine.rowAdd, static_cast<std::size_t>(N));
                Scratch::fit(mine.offsetSums, static_cast<std::size_t>(bs) * shawRows);
            }
            float* S = mine.block.data();
            const float* A = S; // the block's weights, for A·V
            TensorBuffer<float>& scratch = mine.rowTerms;
            TensorBuffer<float>& wsum = mine.offsetSums;
            const int h = hFirst + task / blocks;
            const int i0 = rowBegin + (task % blocks) * bs;
            const int i1 = std::min(rowEnd, i0 + bs);
            const int rows = i1 - i0;
            const std::size_t elems = static_cast<std::size_t>(rows) * N;
            const std::int64_t headOff = (h - hFirst) * NN; // in the n × n tensors
            const std::int64_t blockOff = headOff + static_cast<std::int64_t>(i0) * N;
            const float* Qh = Q + h * Ndh;

            ProfileClock::time_point tDots, tAv0, tAv1;
            // Dot products of the block, into S.
            float dotScale = 1.0f;
            int bandWidth = 0;
            if (isTxl) {
                blockDots(h, rows, txlQu.data() + h * Ndh + static_cast<std::int64_t>(i0) * dh,
                          scale, S, worker);
                if (txlAc)
                    cpu::streamCopy(txlAc + blockOff, S, elems);
                const int rlo = N - i1;
                bandWidth = N + rows - 1;
                cpu::gemmABt(rows, bandWidth, dh, scale,
                             txlQv.data() + h * Ndh + static_cast<std::int64_t>(i0) * dh, dh,
                             txlR.data() + static_cast<std::size_t>(rlo) * D + h * dh, D, 0.0f,
                             scratch.data(), bandWidth);
            } else if (isDeberta) {
                blockDots(h, rows, Qh + static_cast<std::int64_t>(i0) * dh, debScale, S, worker);
                if (c2c)
                    cpu::streamCopy(c2c + blockOff, S, elems);
            } else {
                blockDots(h, rows, Qh + static_cast<std::int64_t>(i0) * dh, 1.0f, S, worker);
                dotScale = scheme == Scheme::T5 ? 1.0f : scale;
            }

            if (profiling)
                tDots = ProfileClock::now();
            for (int i = i0; i < i1; ++i) {
                const std::int64_t rowOff = headOff + static_cast<std::int64_t>(i) * N;
                float* sRow = S + static_cast<std::size_t>(i - i0) * N;
                cpu::RowPass rp;
                rp.n = N;
                rp.limit = causal ? std::min(i + 1, validLen) : validLen;
                rp.scale = dotScale;
                rp.norm = normInt;
                rp.relu2Denominator = p.norm == Normaliser::Relu2 ? static_cast<float>(N)
                                                                  : static_cast<float>(rp.limit);
                const std::size_t offRow = static_cast<std::size_t>(N - 1 - i);
                if (addBias) {
                    const float* src = biasOff.data() + static_cast<std::size_t>(h) * offs + offRow;
                    if (biasT)
                        cpu::streamCopy(biasT + rowOff, src, static_cast<std::size_t>(N));
                    rp.add = src;
                }
                if (isUrpe) {
                    const float* src = postOff.data() + static_cast<std::size_t>(h) * offs + offRow;
                    if (urpeC)
                        cpu::streamCopy(urpeC + rowOff, src, static_cast<std::size_t>(N));
                    rp.post = src;
                }
                if (isShaw) {
                    float* dst = mine.rowAdd.data();
                    cpu::shawKeyRow(shawSK.data() +
                                        (static_cast<std::size_t>(h) * N + i) * shawRows,
                                    kShaw, i, 0, N, dst);
                    if (shawK)
                        cpu::streamCopy(shawK + rowOff, dst, static_cast<std::size_t>(N));
                    rp.add = dst;
                }
                if (isTxl) {
                    const float* bd = scratch.data() +
                                      static_cast<std::size_t>(i - i0) * bandWidth + (i1 - 1 - i);
                    if (txlBd)
                        cpu::streamCopy(txlBd + rowOff, bd, static_cast<std::size_t>(N));
                    rp.add = bd;
                }
                if (isDeberta) {
                    // The row's c2p and p2c terms gathered into scratch rows (in L1), streamed
                    // to their tensors from there, and their sum handed to the row pass.
                    float* sum = scratch.data();
                    float* rowC2p = sum + N;
                    float* rowP2c = sum + 2 * static_cast<std::size_t>(N);
                    const float* tc2p =
                        wantC2P ? debC2P.data() + (static_cast<std::size_t>(h) * N + i) * 2 * span
                                : nullptr;
                    const float* tp2c =
                        wantP2C ? debP2C.data() + static_cast<std::size_t>(h) * N * 2 * span
                                : nullptr;
                    const bool paper = p.p2cConvention == P2CConvention::Paper;
                    const int* back = idxOff.data() + (i + N - 1); // back[-j]: index of i − j
                    const int* fwd = idxOff.data() + (N - 1 - i);  // fwd[j]: index of j − i
                    if (tc2p)
                        for (int j = 0; j < N; ++j)
                            rowC2p[j] = tc2p[back[-j]];
                    if (tp2c) {
                        const int* dd = paper ? fwd : nullptr;
                        const std::size_t stride = 2 * static_cast<std::size_t>(span);
                        for (int j = 0; j < N; ++j)
                            rowP2c[j] = tp2c[static_cast<std::size_t>(j) * stride +
                                             static_cast<std::size_t>(dd ? dd[j] : back[-j])];
                    }
                    if (tc2p && tp2c)
                        for (int j = 0; j < N; ++j)
                            sum[j] = rowC2p[j] + rowP2c[j];
                    if (c2p)
                        cpu::streamCopy(c2p + rowOff, rowC2p, static_cast<std::size_t>(N));
                    if (p2c)
                        cpu::streamCopy(p2c + rowOff, rowP2c, static_cast<std::size_t>(N));
                    rp.add = tc2p && tp2c ? sum : (tc2p ? rowC2p : rowP2c); // one term: as is
                }
                // Logits and weights streamed to the trace by the row pass itself.
                cpu::fusedRow(rp, sRow, sRow, sRow, logits ? logits + rowOff : nullptr,
                              weightsT + rowOff);
            }
            cpu::streamFence();
            if (!headOut)
                return; // stopped at the weights

            // A · V for the block (weights still in cache).
            float* ho = headOut + h * Ndh + static_cast<std::int64_t>(i0) * dh;
            if (profiling)
                tAv0 = ProfileClock::now();
            if (dhPad == dh) {
                cpu::weighValues(rows, A, N, N, vChunks.data() + h * chunkSize, N, dh, ho, dh);
            } else { // rows of dhPad floats, then the dh columns of each
                float* op = Scratch::fit(mine.outPad, static_cast<std::size_t>(rows) * dhPad);
                cpu::weighValues(rows, A, N, N, vChunks.data() + h * chunkSize, N, dh, op, dhPad);
                for (int r = 0; r < rows; ++r)
                    std::memcpy(ho + static_cast<std::int64_t>(r) * dh,
                                op + static_cast<std::size_t>(r) * dhPad, sizeof(float) * dh);
            }
            if (profiling)
                tAv1 = ProfileClock::now();
            if (isShaw) {
                for (int i = i0; i < i1; ++i) {
                    const float* a = A + static_cast<std::size_t>(i - i0) * N;
                    float* ws = wsum.data() + static_cast<std::size_t>(i - i0) * shawRows;
                    if (kShaw == 0) {
                        ws[0] = rangeSum(a, 0, N - 1, N);
                        continue;
                    }
                    ws[0] = rangeSum(a, 0, i - kShaw, N);
                    ws[2 * kShaw] = rangeSum(a, i + kShaw, N - 1, N);
                    for (int r = 1; r < 2 * kShaw; ++r) {
                        const int j = i + r - kShaw;
                        ws[r] = (j >= 0 && j < N) ? a[j] : 0.0f;
                    }
                }
                float* sv = shawV + h * Ndh + static_cast<std::int64_t>(i0) * dh;
                cpu::gemmAB(rows, dh, shawRows, 1.0f, wsum.data(), shawRows, shawWv.data(), dh,
                            0.0f, sv, dh);
                for (std::int64_t e = 0; e < static_cast<std::int64_t>(rows) * dh; ++e)
                    ho[e] += sv[e];
            }
            if (profiling)
                npassNs.fetch_add(sinceNs(tDots, tAv0) + sinceNs(tAv1, ProfileClock::now()),
                                  std::memory_order_relaxed);
        };
        pool.run(tasks, blockTask, threads);
    }
    if (cancelled.load())
        return Error{"cancelled"};
    if (profiling) {
        int written = streaming ? 0 : 1; // the weights, and the logits where kept
        for (const float* t : {logits, biasT, shawK, txlAc, txlBd, c2c, c2p, p2c, urpeC})
            written += t != nullptr;
        m_profile.npassThreadSeconds = static_cast<double>(npassNs.load()) * 1e-9;
        m_profile.npassBytes = static_cast<double>(written) * static_cast<double>(hCount) *
                               static_cast<double>(NN) * sizeof(float);
    }
    phase("attention", &Profile::attentionMs);

    // ---- Output projection: concat(head_out) · W_o ----
    if (outT) {
        float* concat = Scratch::fit(m_scratch.wide, sizes.wide);
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i)
                std::memcpy(concat + static_cast<std::size_t>(i) * D + h * dh,
                            headOut + h * Ndh + static_cast<std::int64_t>(i) * dh,
                            sizeof(float) * dh);
        float* o = outT;
        const int blk = std::max(256, (N + 2 * m_threads - 1) / (2 * m_threads));
        parallelFor((N + blk - 1) / blk, [&](int b) {
            const int r0 = b * blk;
            const int rows = std::min(blk, N - r0);
            cpu::gemmABt(rows, D, D, 1.0f, concat + static_cast<std::size_t>(r0) * D, D, WoT.data(),
                         D, 0.0f, o + static_cast<std::size_t>(r0) * D, D);
        });
    }

    phase("output", &Profile::outputMs);
    // ---- The trace, in the contract's order ----
    Trace trace;
    trace.params = p;
    trace.tokens = defaultTokens(p);
    trace.onlyHead = oneHead ? hFirst : -1;
    for (const std::string& name : traceTensorNames(p)) {
        auto it = out.find(name);
        if (it == out.end() && (streaming || !makes(name)))
            continue; // pooled mode keeps the O(n·d) tensors only; see setStopAtWeights
        if (it == out.end())
            return Error{"fast CPU engine: tensor " + name + " is not implemented"};
        trace.tensors.emplace_back(name, std::move(it->second));
        out.erase(it);
    }
    // Pooled tensors this computation did not use have other shapes: free them, so the pool
    // never holds more than the last trace handed back.
    m_pool.clear();
    for (auto& [name, t] : out) // computed but not in the contract: back to the pool
        m_pool.push_back(std::move(t));
    return trace;
}

} // namespace pe
