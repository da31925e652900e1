// SPDX-License-Identifier: MIT
#include "tensor.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace pe {

const char* npyDescr(DType t) {
    switch (t) {
    case DType::F32:
        return "<f4";
    case DType::F64:
        return "<f8";
    case DType::I32:
        return "<i4";
    }
    return "?";
}

const char* safetensorsName(DType t) {
    switch (t) {
    case DType::F32:
        return "F32";
    case DType::F64:
        return "F64";
    case DType::I32:
        return "I32";
    }
    return "?";
}

std::size_t dtypeSize(DType t) {
    return t == DType::F64 ? 8 : 4;
}

namespace detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLine = 64;

std::size_t roundUp(std::size_t v, std::size_t to) {
    return (v + to - 1) / to * to;
}
} // namespace

void* allocateTensorBytes(std::size_t bytes) {
#ifdef __linux__
    if (bytes >= kLargeTensorBytes) {
        // Map 2 MB more than needed, keep the 2 MB-aligned part, give the rest back.
        const std::size_t size = roundUp(bytes, kHugePage);
        void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            throw std::bad_alloc();
        const auto base = reinterpret_cast<std::uintptr_t>(raw);
        const std::uintptr_t aligned = roundUp(base, kHugePage);
        if (aligned > base)
            ::munmap(raw, aligned - base);
        if (const std::uintptr_t end = base + size + kHugePage; end > aligned + size)
            ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
        ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE); // a hint only
        return reinterpret_cast<void*>(aligned);
    }
#endif
    void* p = std::aligned_alloc(kLine, roundUp(std::max<std::size_t>(bytes, 1), kLine));
    if (!p)
        throw std::bad_alloc();
    return p;
}

void freeTensorBytes(void* p, std::size_t bytes) noexcept {
    if (!p)
        return;
#ifdef __linux__
    if (bytes >= kLargeTensorBytes) {
        char* const base = static_cast<char*>(p);
        forEachUnmapPiece(roundUp(bytes, kHugePage), [base](std::size_t at, std::size_t length) {
            ::munmap(base + at, length);
        });
        return;
    }
#endif
    std::free(p);
}

} // namespace detail

namespace {
/** n zeroed elements; large blocks are fresh mappings, zero already, and are left untouched. */
template <typename T> TensorBuffer<T> zeroed(std::size_t n) {
#ifdef __linux__
    if (n * sizeof(T) >= detail::kLargeTensorBytes)
        return TensorBuffer<T>(n);
#endif
    return TensorBuffer<T>(n, T{});
}
} // namespace

Tensor::Tensor(DType dtype, std::vector<std::int64_t> shape)
    : m_shape(std::move(shape)) {
    const auto n = static_cast<std::size_t>(shapeElements(m_shape));
    switch (dtype) {
    case DType::F32:
        m_data = zeroed<float>(n);
        break;
    case DType::F64:
        m_data = zeroed<double>(n);
        break;
    case DType::I32:
        m_data = zeroed<std::int32_t>(n);
        break;
    }
}

Tensor::Tensor(const Tensor& other)
    : m_shape(other.m_shape)
    , m_data(other.ownedStorage()) {}

Tensor& Tensor::operator=(const Tensor& other) {
    if (this != &other) {
        m_shape = other.m_shape;
        m_data = other.ownedStorage();
    }
    return *this;
}

Tensor Tensor::onExternal(std::vector<std::int64_t> shape, ExternalStorage storage) {
    if (static_cast<std::int64_t>(storage.count) != shapeElements(shape))
        throw std::invalid_argument("Tensor::onExternal: storage size does not match the shape");
    Tensor t;
    t.m_shape = std::move(shape);
    t.m_data = std::move(storage);
    return t;
}

Tensor::Storage Tensor::ownedStorage() const {
    const auto* e = std::get_if<ExternalStorage>(&m_data);
    if (!e)
        return m_data;
    auto copy = [e](auto tag) -> Storage {
        using T = decltype(tag);
        const T* p = static_cast<const T*>(e->data);
        return TensorBuffer<T>(p, p + e->count);
    };
    switch (e->dtype) {
    case DType::F64:
        return copy(double{});
    case DType::I32:
        return copy(std::int32_t{});
    case DType::F32:
        break;
    }
    return copy(float{});
}

namespace {
/** Calls fn(const T* data, std::size_t count) with the elements as their own type. */
template <typename F> decltype(auto) visitElements(const Tensor::Storage& s, F&& fn) {
    if (const auto* e = std::get_if<ExternalStorage>(&s)) {
        switch (e->dtype) {
        case DType::F64:
            return fn(static_cast<const double*>(e->data), e->count);
        case DType::I32:
            return fn(static_cast<const std::int32_t*>(e->data), e->count);
        case DType::F32:
            break;
        }
        return fn(static_cast<const float*>(e->data), e->count);
    }
    return std::visit(
        [&fn](const auto& v) -> decltype(auto) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, ExternalStorage>)
                return fn(static_cast<const float*>(nullptr), std::size_t{0}); // not reached
            else
                return fn(v.data(), v.size());
        },
        s);
}
} // namespace

DType Tensor::dtype() const {
    switch (m_data.index()) {
    case 0:
        return DType::F32;
    case 1:
        return DType::F64;
    case 2:
        return DType::I32;
    default:
        return std::get<ExternalStorage>(m_data).dtype;
    }
}

std::int64_t Tensor::size() const {
    return visitElements(m_data,
                         [](const auto*, std::size_t n) { return static_cast<std::int64_t>(n); });
}

const void* Tensor::raw() const {
    return visitElements(m_data,
                         [](const auto* p, std::size_t) { return static_cast<const void*>(p); });
}

void* Tensor::raw() {
    return const_cast<void*>(std::as_const(*this).raw());
}

double Tensor::at(std::int64_t flat) const {
    return visitElements(m_data, [flat](const auto* p, std::size_t n) {
        if (flat < 0 || static_cast<std::size_t>(flat) >= n)
            throw std::out_of_range("Tensor::at: index out of range");
        return static_cast<double>(p[flat]);
    });
}

Tensor Tensor::converted(DType to) const {
    Tensor out(to, m_shape);
    visitElements(m_data, [&out, to](const auto* src, std::size_t count) {
        auto copy = [src, count](auto* dst) {
            using D = std::remove_pointer_t<decltype(dst)>;
            for (std::size_t i = 0; i < count; ++i)
                dst[i] = static_cast<D>(src[i]);
        };
        switch (to) {
        case DType::F32:
            copy(out.data<float>());
            break;
        case DType::F64:
            copy(out.data<double>());
            break;
        case DType::I32:
            copy(out.data<std::int32_t>());
            break;
        }
    });
    return out;
}

std::string Tensor::shapeString() const {
    std::string s = "[";
    for (std::size_t i = 0; i < m_shape.size(); ++i) {
        if (i)
            s += ", ";
        s += std::to_string(m_shape[i]);
    }
    return s + "]";
}

} // namespace pe
