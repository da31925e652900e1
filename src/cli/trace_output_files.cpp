// SPDX-License-Identifier: MIT
#include "trace_output_files.h"

#include <algorithm>
#include <cstdlib>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "npy.h"
#include "staged_output.h"
#include "trace.h"

namespace pe {

TraceOutputFiles::~TraceOutputFiles() {
    close();
}

Status TraceOutputFiles::create(const StagedOutput& out, const Params& p,
                                const std::vector<std::string>& wanted) {
    if (const char* off = std::getenv("PE_TRACE_NO_MAP"); off && *off && *off != '0')
        return Status::success();
#ifdef __GLIBC__
    // One arena for every thread (the engine's workers allocate their scratch too), freed memory
    // kept, and blocks up to 64 MB from the arena rather than fresh mappings: the heap touched
    // below then serves the engine. A short-lived process gives it all back at exit anyway.
    ::mallopt(M_ARENA_MAX, 1);
    ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 512 << 20);
    const std::size_t N = static_cast<std::size_t>(p.seqLen()), d = static_cast<std::size_t>(p.d);
    m_heapBytes = std::min<std::size_t>(8 * N * d + 16 * d * d + (std::size_t{16} << 20),
                                        std::size_t{48} << 20);
#endif
    for (const std::string& name : wanted) {
        const TensorSpec spec = traceTensorSpec(p, name);
        auto npy = MappedNpy::create(out.filePath(name + ".npy"), spec.dtype, spec.shape);
        if (!npy)
            return npy.error();
        if (npy->mapped())
            m_files.push_back({name, std::move(*npy)});
    }
    if (m_files.empty())
        return Status::success();
    // In the order the engine writes them (the contract's order), 32 MB at a time.
    constexpr std::size_t kChunk = std::size_t{32} << 20;
    for (std::size_t i = 0; i < m_files.size(); ++i)
        for (std::size_t from = 0; from < m_files[i].npy.fileBytes(); from += kChunk)
            m_chunks.push_back({i, from, kChunk});
    m_prefault = std::thread([this] {
        touchHeap();
        prefaultChunks();
    });
    return Status::success();
}

void TraceOutputFiles::touchHeap() const {
    if (m_heapBytes == 0)
        return;
    auto* p = static_cast<volatile char*>(std::malloc(m_heapBytes));
    if (!p)
        return;
    for (std::size_t at = 0; at < m_heapBytes; at += 4096)
        p[at] = 0;
    std::free(const_cast<char*>(p));
}

void TraceOutputFiles::prefaultChunks() {
    while (!m_stop.load(std::memory_order_relaxed)) {
        const std::size_t k = m_nextChunk.fetch_add(1);
        if (k >= m_chunks.size())
            return;
        const Chunk& c = m_chunks[k];
        m_files[c.file].npy.prefault(c.from, c.bytes);
    }
}

std::vector<std::pair<std::string, Tensor>> TraceOutputFiles::storage() const {
    std::vector<std::pair<std::string, Tensor>> s;
    for (const File& f : m_files)
        s.emplace_back(f.name, f.npy.tensor());
    return s;
}

Status TraceOutputFiles::write(const std::string& name, const Tensor& t, const std::string& path) {
    stopPrefaulting(); // no populating of a file while it is being rewritten
    for (File& f : m_files) {
        if (f.name != name)
            continue;
        if (f.npy.holds(t)) {
            ++m_inPlace;
            return Status::success();
        }
        if (f.npy.copyFrom(t))
            return Status::success();
        f.npy.release(); // another dtype or shape: writeNpy below truncates and rewrites it
        break;
    }
    return writeNpy(path, t);
}

void TraceOutputFiles::waitForPrefault() {
    if (!m_prefault.joinable())
        return;
    prefaultChunks();
    m_prefault.join();
}

void TraceOutputFiles::stopPrefaulting() {
    m_stop.store(true);
    if (m_prefault.joinable())
        m_prefault.join();
}

void TraceOutputFiles::close() {
    stopPrefaulting();
    for (File& f : m_files)
        f.npy.release();
}

} // namespace pe
