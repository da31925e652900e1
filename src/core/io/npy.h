// SPDX-License-Identifier: MIT
#pragma once

/**
 * numpy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
 *
 * Writing: version 1.0, little-endian, C order, dtype `<f4`, `<f8` or `<i4`; the header is laid
 * out byte for byte as numpy 1.24 writes it (keys sorted, growth padding, data at a multiple
 * of 64).
 * Reading: versions 1.0, 2.0 and 3.0; dtypes `<f4`, `<f8`, `<i4`; fortran_order True is
 * accepted and transposed to C order. The header dict is converted from its Python literal
 * form and parsed with nlohmann-json. Every problem is an Error naming the file.
 */

#include <string>
#include <string_view>

#include "expected.h"
#include "tensor.h"

namespace pe {

/** The header (magic, version, length, dict, padding) numpy writes for this tensor. */
std::string npyHeader(const Tensor& t);
std::string npyHeader(DType dtype, const std::vector<std::int64_t>& shape);

/** The complete file contents: header followed by the raw little-endian data. */
std::string encodeNpy(const Tensor& t);

/** Writes `t` to `path` (streamed, no copy of the data). */
Status writeNpy(const std::string& path, const Tensor& t);

/**
 * Parses .npy file contents. `source` names the file in error messages.
 * The contents must hold exactly the bytes the shape needs.
 */
Expected<Tensor> decodeNpy(std::string_view bytes, std::string_view source = "npy data");

/** Reads a .npy file. */
Expected<Tensor> readNpy(const std::string& path);

} // namespace pe
