// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace pe {

namespace detail {
/**
 * Storage for tensors. Every block is aligned to 64 bytes (a cache line, the widest vector), so
 * row-wise streaming stores need no scalar head when rows are a multiple of 16 floats. Blocks of
 * kLargeTensorBytes or more are fresh anonymous mappings aligned to 2 MB and marked for
 * transparent huge pages (Linux): first touch faults 512× fewer pages, and they start zeroed.
 */
void* allocateTensorBytes(std::size_t bytes);
void freeTensorBytes(void* p, std::size_t bytes) noexcept;
inline constexpr std::size_t kLargeTensorBytes = std::size_t{4} << 20;
/**
 * A large block goes back to the system in pieces of at most this many bytes, one munmap each.
 * Each munmap holds the process's address-space lock while the kernel frees its pages; every
 * other thread's mmap or munmap waits meanwhile (a malloc of a few megabytes among them). One
 * call for an 8 GB block of 4 KB pages held it for 770–957 ms on a 2-core Zen 3 (pe-bench-unmap):
 * a GUI thread that allocated then, behind a worker freeing an old trace, stood still as long.
 * A piece of 32 MB is a few ms of it.
 */
inline constexpr std::size_t kUnmapPieceBytes = std::size_t{32} << 20;
/** Calls unmap(offset, length) for consecutive pieces of [0, bytes), each of at most
 *  kUnmapPieceBytes, in order; nothing for 0 bytes. */
template <class F> void forEachUnmapPiece(std::size_t bytes, F&& unmap) {
    for (std::size_t at = 0; at < bytes; at += kUnmapPieceBytes)
        unmap(at, bytes - at < kUnmapPieceBytes ? bytes - at : kUnmapPieceBytes);
}
} // namespace detail

/**
 * The allocator of tensor storage (see detail::allocateTensorBytes). Its construct() without
 * arguments default-initialises (no zero fill): Tensor fills small blocks itself and relies on
 * large ones arriving zeroed, so a large tensor's pages are first touched by whoever writes it.
 */
template <class T> struct TensorAllocator {
    using value_type = T;
    TensorAllocator() noexcept = default;
    template <class U> TensorAllocator(const TensorAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(detail::allocateTensorBytes(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept { detail::freeTensorBytes(p, n * sizeof(T)); }
    template <class U> void construct(U* p) { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U> bool operator==(const TensorAllocator<U>&) const noexcept { return true; }
};

/** Contiguous storage of one tensor. */
template <class T> using TensorBuffer = std::vector<T, TensorAllocator<T>>;

enum class DType { F32, F64, I32 };

/** numpy's descr for a dtype: "<f4", "<f8", "<i4". */
const char* npyDescr(DType t);
/** safetensors' dtype name: "F32", "F64", "I32". */
const char* safetensorsName(DType t);
std::size_t dtypeSize(DType t);

/**
 * Elements that live in memory the tensor does not allocate (a mapped output file, see
 * mapped_npy.h): `owner` keeps that memory valid while any tensor refers to it.
 */
struct ExternalStorage {
    DType dtype = DType::F32;
    void* data = nullptr;
    std::size_t count = 0; ///< elements
    std::shared_ptr<void> owner;
};

/**
 * A dense, row-major (C order) tensor of float, double or int32 with a shape.
 * This is the unit of exchange between the engines, the CLI's .npy/.safetensors files and
 * the views. Element [i0, i1, …] lies at the usual C-order offset.
 *
 * Storage is the tensor's own buffer, or external memory (onExternal). Moving keeps either;
 * copying always gives an owned buffer, so a copy never writes into someone else's file.
 */
class Tensor {
public:
    using Storage = std::variant<TensorBuffer<float>, TensorBuffer<double>,
                                 TensorBuffer<std::int32_t>, ExternalStorage>;

    Tensor() = default;
    /** A zeroed tensor. */
    Tensor(DType dtype, std::vector<std::int64_t> shape);
    Tensor(const Tensor& other);
    Tensor& operator=(const Tensor& other);
    Tensor(Tensor&&) noexcept = default;
    Tensor& operator=(Tensor&&) noexcept = default;
    ~Tensor() = default;

    /**
     * A tensor whose elements are `storage` (its dtype; count must equal the shape's elements).
     * Its contents are whatever the memory holds.
     */
    static Tensor onExternal(std::vector<std::int64_t> shape, ExternalStorage storage);
    /** Whether the elements live in external memory (onExternal). */
    bool isExternal() const { return std::holds_alternative<ExternalStorage>(m_data); }

    /** Takes over a buffer (no copy). */
    template <typename T>
    static Tensor fromVector(std::vector<std::int64_t> shape, TensorBuffer<T> data) {
        Tensor t;
        t.m_shape = std::move(shape);
        t.m_data = std::move(data);
        return t;
    }
    /** Copies a std::vector into tensor storage. */
    template <typename T>
    static Tensor fromVector(std::vector<std::int64_t> shape, const std::vector<T>& data) {
        return fromVector(std::move(shape), TensorBuffer<T>(data.begin(), data.end()));
    }
    template <typename T>
    static Tensor fromVector(std::vector<std::int64_t> shape, std::initializer_list<T> data) {
        return fromVector(std::move(shape), TensorBuffer<T>(data));
    }

    DType dtype() const;
    const std::vector<std::int64_t>& shape() const { return m_shape; }
    std::int64_t dim(std::size_t axis) const { return m_shape.at(axis); }
    std::size_t rank() const { return m_shape.size(); }
    std::int64_t size() const;
    std::size_t byteSize() const { return static_cast<std::size_t>(size()) * dtypeSize(dtype()); }
    bool empty() const { return size() == 0; }

    /** The elements as T; throws std::bad_variant_access when the dtype is not T's. */
    template <typename T> T* data() { return const_cast<T*>(std::as_const(*this).data<T>()); }
    template <typename T> const T* data() const {
        if (const auto* e = std::get_if<ExternalStorage>(&m_data)) {
            if (!holds<T>())
                throw std::bad_variant_access();
            return static_cast<const T*>(e->data);
        }
        return std::get<TensorBuffer<T>>(m_data).data();
    }
    template <typename T> bool holds() const {
        if (const auto* e = std::get_if<ExternalStorage>(&m_data))
            return e->dtype == dtypeOf<T>();
        return std::holds_alternative<TensorBuffer<T>>(m_data);
    }

    /** Raw bytes (little-endian on every platform we build for). */
    const void* raw() const;
    void* raw();

    /** Element at a flat C-order offset, converted to double. */
    double at(std::int64_t flat) const;
    /** A copy converted to another dtype (float↔double; int32 → float). */
    Tensor converted(DType to) const;

    std::string shapeString() const;

private:
    template <typename T> static constexpr DType dtypeOf() {
        if constexpr (std::is_same_v<T, double>)
            return DType::F64;
        else if constexpr (std::is_same_v<T, std::int32_t>)
            return DType::I32;
        else
            return DType::F32;
    }
    /** An owned copy of the storage (external memory copied into a buffer). */
    Storage ownedStorage() const;

    std::vector<std::int64_t> m_shape;
    Storage m_data;
};

/**
 * Number of elements of a shape; an empty shape list is a scalar (1). Any zero axis gives 0,
 * even where the other axes' product would overflow (a header may declare (0, 10⁹, 10⁹, 10⁹));
 * a product past INT64_MAX saturates there instead of overflowing.
 */
inline std::int64_t shapeElements(const std::vector<std::int64_t>& s) {
    if (std::find(s.begin(), s.end(), std::int64_t{0}) != s.end())
        return 0;
    std::int64_t n = 1;
    for (std::int64_t d : s)
        if (__builtin_mul_overflow(n, d, &n))
            return std::numeric_limits<std::int64_t>::max();
    return n;
}

} // namespace pe
