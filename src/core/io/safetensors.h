// SPDX-License-Identifier: MIT
#pragma once

/**
 * The .safetensors format (https://github.com/huggingface/safetensors): an 8-byte little-endian
 * header length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, …,
 * "__metadata__": {…}}, then the data region; offsets are relative to its start.
 *
 * Reading validates everything before trusting it: the header length (at most kMaxHeaderBytes
 * and inside the file), the JSON, each entry's dtype (F32, F64, I32), shape and offsets (inside
 * the data region, end − begin = elements · size, no overflow, no overlap). `__metadata__`'s
 * string entries go to `metadata` when asked for, and are otherwise ignored. Errors are one line
 * naming the file and what is wrong.
 */

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expected.h"
#include "tensor.h"

namespace pe {

/** Named tensors in file order (the order of the header's keys). */
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/** The largest JSON header we accept (the reference implementation uses the same limit). */
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/** Parses .safetensors contents; `source` names the file in error messages. */
Expected<NamedTensors> decodeSafetensors(std::string_view bytes,
                                         std::string_view source = "safetensors data",
                                         std::map<std::string, std::string>* metadata = nullptr);

/** Reads a .safetensors file. */
Expected<NamedTensors> readSafetensors(const std::string& path,
                                       std::map<std::string, std::string>* metadata = nullptr);

/**
 * Encodes tensors in the given order, data packed back to back, header padded with spaces
 * to a multiple of 8 bytes. Names must be unique and not "__metadata__".
 */
Expected<std::string> encodeSafetensors(const NamedTensors& tensors,
                                        const std::map<std::string, std::string>& metadata = {});

/** Writes tensors to a .safetensors file. */
Status writeSafetensors(const std::string& path, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata = {});

} // namespace pe
