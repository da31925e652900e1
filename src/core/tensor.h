// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <numeric>
#include <string>
#include <variant>
#include <vector>

namespace pe {

enum class DType { F32, F64, I32 };

/** numpy's descr for a dtype: "<f4", "<f8", "<i4". */
const char* npyDescr(DType t);
/** safetensors' dtype name: "F32", "F64", "I32". */
const char* safetensorsName(DType t);
std::size_t dtypeSize(DType t);

/**
 * A dense, row-major (C order) tensor of float, double or int32 with a shape.
 * This is the unit of exchange between the engines, the CLI's .npy/.safetensors files and
 * the views. Element [i0, i1, …] lies at the usual C-order offset.
 */
class Tensor {
public:
    using Storage =
        std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>>;

    Tensor() = default;
    Tensor(DType dtype, std::vector<std::int64_t> shape);

    template <typename T>
    static Tensor fromVector(std::vector<std::int64_t> shape, std::vector<T> data) {
        Tensor t;
        t.m_shape = std::move(shape);
        t.m_data = std::move(data);
        return t;
    }

    DType dtype() const;
    const std::vector<std::int64_t>& shape() const { return m_shape; }
    std::int64_t dim(std::size_t axis) const { return m_shape.at(axis); }
    std::size_t rank() const { return m_shape.size(); }
    std::int64_t size() const;
    std::size_t byteSize() const { return static_cast<std::size_t>(size()) * dtypeSize(dtype()); }
    bool empty() const { return size() == 0; }

    template <typename T> T* data() { return std::get<std::vector<T>>(m_data).data(); }
    template <typename T> const T* data() const { return std::get<std::vector<T>>(m_data).data(); }
    template <typename T> bool holds() const {
        return std::holds_alternative<std::vector<T>>(m_data);
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
    std::vector<std::int64_t> m_shape;
    Storage m_data;
};

/** Number of elements of a shape; 0 for an empty shape list means a scalar (1). */
inline std::int64_t shapeElements(const std::vector<std::int64_t>& s) {
    return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

} // namespace pe
