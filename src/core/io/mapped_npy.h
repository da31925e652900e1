// SPDX-License-Identifier: MIT
#pragma once

/**
 * A .npy file created at its final size and mapped into memory, so that an engine computes
 * straight into the file: numpy's header (npyHeader) is written at creation, tensor() is a
 * Tensor whose elements are the file's data bytes, and nothing is copied at write time.
 *
 * The file's blocks are reserved up front (fallocate), so a full disk or a file size limit
 * is an Error at create(), never a SIGBUS while computing. Where the file system cannot
 * reserve blocks or map the file, create() returns an unmapped MappedNpy (mapped() false) and
 * removes the file: the caller writes the tensor with writeNpy instead. Linux only; elsewhere
 * create() always returns an unmapped one.
 *
 * prefault() populates the mapping's page tables for writing (MADV_POPULATE_WRITE): the page
 * cache pages are allocated and zeroed there, on the calling thread, instead of on first touch
 * by the engine. The bytes are those writeNpy writes for the same tensor (tests check).
 */

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "expected.h"
#include "tensor.h"

namespace pe {

class MappedNpy {
public:
    MappedNpy() = default;

    static Expected<MappedNpy> create(const std::string& path, DType dtype,
                                      std::vector<std::int64_t> shape);

    bool mapped() const { return m_mapping != nullptr; }
    DType dtype() const { return m_dtype; }
    const std::vector<std::int64_t>& shape() const { return m_shape; }
    /** The tensor over the file's data (zeros until written); empty when not mapped. */
    Tensor tensor() const;
    /** Start of the data bytes; null when not mapped. */
    void* data() const;
    /** Whether `t` holds these very bytes (an engine computed into tensor()). */
    bool holds(const Tensor& t) const { return mapped() && t.raw() == data(); }
    /** Copies `t` into the file: same dtype and shape required (false otherwise). */
    bool copyFrom(const Tensor& t) const;
    /** Populates the pages for writing; best effort (a no-op on kernels before 5.14). */
    void prefault() const { prefault(0, fileBytes()); }
    /** The same for bytes [from, from + bytes) of the file (clipped to it). */
    void prefault(std::size_t from, std::size_t bytes) const;
    /** The file's size: header and data; 0 when not mapped. */
    std::size_t fileBytes() const;
    /** Unmaps (the file keeps its contents); tensors from tensor() must be gone by then. */
    void release() { m_mapping.reset(); }

private:
    struct Mapping;
    std::shared_ptr<Mapping> m_mapping;
    DType m_dtype = DType::F32;
    std::vector<std::int64_t> m_shape;
    std::size_t m_dataOffset = 0;
};

} // namespace pe
