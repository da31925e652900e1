// SPDX-License-Identifier: MIT
#include "mapped_npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "npy.h"

#ifdef __linux__
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif
#endif

namespace pe {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
} // namespace

/** The mapping of a whole file; unmapped with the last tensor or MappedNpy that refers to it. */
struct MappedNpy::Mapping {
    char* base = nullptr;
    std::size_t bytes = 0;
    ~Mapping() {
#ifdef __linux__
        if (base)
            ::munmap(base, bytes);
#endif
    }
};

Expected<MappedNpy> MappedNpy::create(const std::string& path, DType dtype,
                                      std::vector<std::int64_t> shape) {
    MappedNpy m;
    m.m_dtype = dtype;
    m.m_shape = std::move(shape);
#ifdef __linux__
    const std::string header = npyHeader(dtype, m.m_shape);
    const std::size_t dataBytes =
        static_cast<std::size_t>(shapeElements(m.m_shape)) * dtypeSize(dtype);
    if (dataBytes == 0)
        return m; // nothing to map: writeNpy writes the header alone
    const std::size_t bytes = header.size() + dataBytes;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return Error{path + ": cannot create (" + std::strerror(errno) + ")"};
    auto fail = [&](const std::string& what, int err) -> Expected<MappedNpy> {
        ::close(fd);
        ::unlink(path.c_str());
        return Error{path + ": " + what + " (" + std::strerror(err) + ")"};
    };
    // A file system that cannot reserve room or map files: the caller writes it the usual way.
    auto unmapped = [&]() -> Expected<MappedNpy> {
        ::close(fd);
        ::unlink(path.c_str());
        return m;
    };
    if (::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0) {
        const int err = errno;
        if (err == EOPNOTSUPP || err == ENOSYS)
            return unmapped();
        return fail("write failed", err);
    }
    // The file's first byte at a 2 MB boundary, so that the kernel may map large page cache
    // folios whole (one entry per 2 MB instead of 512). Reserve, then map the file over it.
    void* reserved = ::mmap(nullptr, bytes + kHugePage, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED)
        return unmapped();
    const auto start = reinterpret_cast<std::uintptr_t>(reserved);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    void* base = ::mmap(reinterpret_cast<void*>(aligned), bytes, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_FIXED, fd, 0);
    if (base == MAP_FAILED) {
        ::munmap(reserved, bytes + kHugePage);
        return unmapped();
    }
    if (aligned > start)
        ::munmap(reserved, aligned - start);
    const std::uintptr_t end = start + bytes + kHugePage;
    const std::uintptr_t pageEnd =
        (aligned + bytes + std::size_t{4095}) / std::size_t{4096} * std::size_t{4096};
    if (end > pageEnd)
        ::munmap(reinterpret_cast<void*>(pageEnd), end - pageEnd);
    ::close(fd);                           // the mapping keeps the file
    ::madvise(base, bytes, MADV_HUGEPAGE); // a hint only
    m.m_mapping = std::make_shared<Mapping>();
    m.m_mapping->base = static_cast<char*>(base);
    m.m_mapping->bytes = bytes;
    std::memcpy(base, header.data(), header.size());
    m.m_dataOffset = header.size();
#else
    (void)path;
#endif
    return m;
}

void* MappedNpy::data() const {
    return m_mapping ? m_mapping->base + m_dataOffset : nullptr;
}

Tensor MappedNpy::tensor() const {
    if (!m_mapping)
        return {};
    return Tensor::onExternal(
        m_shape, {m_dtype, data(), static_cast<std::size_t>(shapeElements(m_shape)), m_mapping});
}

bool MappedNpy::copyFrom(const Tensor& t) const {
    if (!m_mapping || t.dtype() != m_dtype || t.shape() != m_shape)
        return false;
    if (!holds(t))
        std::memcpy(data(), t.raw(), t.byteSize());
    return true;
}

std::size_t MappedNpy::fileBytes() const {
    return m_mapping ? m_mapping->bytes : 0;
}

void MappedNpy::prefault(std::size_t from, std::size_t bytes) const {
#ifdef __linux__
    if (!m_mapping || from >= m_mapping->bytes)
        return;
    from = from / 4096 * 4096; // madvise wants a page-aligned start
    bytes = std::min(bytes, m_mapping->bytes - from);
    ::madvise(m_mapping->base + from, bytes, MADV_POPULATE_WRITE);
#else
    (void)from;
    (void)bytes;
#endif
}

} // namespace pe
