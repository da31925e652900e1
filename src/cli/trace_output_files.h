// SPDX-License-Identifier: MIT
#pragma once

/**
 * The .npy files of `trace`, created in the staged output folder before the computation and
 * mapped (MappedNpy), so that the engine computes straight into them: no copy at write time,
 * and one set of fresh pages (the page cache's) instead of two (the tensors', then the page
 * cache's). A helper thread prefaults the mappings while the weights are generated, and the
 * main thread joins in once they are done, so the engine's first touch of its outputs costs no
 * page faults.
 *
 * A file that cannot be mapped (no room reserved on this file system, a float64 run the engine
 * hands to the reference, another backend) is written the ordinary way at write(): the bytes
 * are the same either way. PE_TRACE_NO_MAP=1 turns mapping off (benchmarks, tests).
 */

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "expected.h"
#include "mapped_npy.h"
#include "params.h"
#include "tensor.h"

namespace pe {

class StagedOutput;

class TraceOutputFiles {
public:
    TraceOutputFiles() = default;
    ~TraceOutputFiles();
    TraceOutputFiles(const TraceOutputFiles&) = delete;
    TraceOutputFiles& operator=(const TraceOutputFiles&) = delete;

    /**
     * Creates and maps <name>.npy for each name in `wanted` in `out`'s folder (begun), then
     * starts prefaulting them on a helper thread. Errors (disk full, a file size limit) name
     * the file; nothing is left behind once `out` is dropped uncommitted.
     *
     * The helper first touches heap memory for the engine's scratch buffers (weights in float,
     * the concatenated heads, GEMM packing): malloc is set to one arena that keeps freed memory,
     * so those buffers come from pages already touched instead of some 4,000 fresh ones.
     */
    Status create(const StagedOutput& out, const Params& p, const std::vector<std::string>& wanted);
    /**
     * Prefaults what the helper thread has not reached yet, beside it, and waits for it: the
     * engine, which runs on every core, then neither competes with it nor faults the pages.
     */
    void waitForPrefault();
    /** Views of the mapped files, for Backend::provideOutputStorage. */
    std::vector<std::pair<std::string, Tensor>> storage() const;
    /**
     * Writes tensor `name` to `path`: nothing to do when the engine computed into its mapping,
     * a copy into the mapping when dtype and shape match, else writeNpy.
     */
    Status write(const std::string& name, const Tensor& t, const std::string& path);
    /** Stops prefaulting, unmaps the files (tensors viewing them keep their mapping alive). */
    void close();
    /** How many tensors write() found computed in place. */
    int inPlace() const { return m_inPlace; }

private:
    void stopPrefaulting();
    /** Prefaults chunks from the shared queue until it is empty or stopped. */
    void prefaultChunks();
    /** Touches m_heapBytes of heap and frees it (kept by malloc for the engine). */
    void touchHeap() const;

    /** A piece of one file to prefault: a few per large file, so two threads share them. */
    struct Chunk {
        std::size_t file;
        std::size_t from, bytes;
    };

    struct File {
        std::string name;
        MappedNpy npy;
    };
    std::vector<File> m_files;
    std::vector<Chunk> m_chunks;
    std::size_t m_heapBytes = 0; ///< heap to touch before the files
    std::atomic<std::size_t> m_nextChunk{0};
    std::thread m_prefault;
    std::atomic<bool> m_stop{false};
    int m_inPlace = 0;
};

} // namespace pe
