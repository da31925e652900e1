// SPDX-License-Identifier: MIT
#include "safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include "file_bytes.h"

namespace pe {

namespace {

constexpr std::size_t kLenBytes = 8;

bool dtypeFromName(const std::string& s, DType* out) {
    if (s == "F32")
        *out = DType::F32;
    else if (s == "F64")
        *out = DType::F64;
    else if (s == "I32")
        *out = DType::I32;
    else
        return false;
    return true;
}

} // namespace

Expected<NamedTensors> decodeSafetensors(std::string_view b, std::string_view source,
                                         std::map<std::string, std::string>* metadata) {
    const std::string src(source);
    auto fail = [&src](const std::string& what) -> Expected<NamedTensors> {
        return Error{src + ": " + what};
    };
    if (b.size() < kLenBytes)
        return fail("truncated: " + std::to_string(b.size()) +
                    " bytes, shorter than the 8-byte header length");
    std::uint64_t headerLen = 0;
    for (std::size_t i = 0; i < kLenBytes; ++i)
        headerLen |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[i])) << (8 * i);
    if (headerLen > kMaxHeaderBytes)
        return fail("header length " + std::to_string(headerLen) + " is absurd (limit " +
                    std::to_string(kMaxHeaderBytes) + "); not a .safetensors file?");
    if (headerLen > b.size() - kLenBytes)
        return fail("truncated: header length " + std::to_string(headerLen) +
                    " exceeds the file size " + std::to_string(b.size()));
    const auto header =
        nlohmann::ordered_json::parse(b.substr(kLenBytes, headerLen), nullptr, false);
    if (header.is_discarded())
        return fail("header is not valid JSON");
    if (!header.is_object())
        return fail("header is not a JSON object");

    const std::string_view data = b.substr(kLenBytes + headerLen);
    NamedTensors out;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (metadata && entry.is_object())
                for (const auto& [key, value] : entry.items())
                    if (value.is_string())
                        (*metadata)[key] = value.get<std::string>();
            continue;
        }
        const std::string what = "tensor '" + name + "': ";
        if (!entry.is_object())
            return fail(what + "entry is not an object");
        if (!entry.contains("dtype") || !entry["dtype"].is_string())
            return fail(what + "missing or non-string 'dtype'");
        const std::string dtypeName = entry["dtype"].get<std::string>();
        DType dtype = DType::F32;
        if (!dtypeFromName(dtypeName, &dtype))
            return fail(what + "unsupported dtype " + dtypeName + " (supported: F32, F64, I32)");
        if (!entry.contains("shape") || !entry["shape"].is_array())
            return fail(what + "missing or non-array 'shape'");
        std::vector<std::int64_t> shape;
        std::uint64_t elements = 1;
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 8;
        for (const auto& dim : entry["shape"]) {
            if (!dim.is_number_unsigned())
                return fail(what + "shape " + entry["shape"].dump() +
                            " holds a value that is not a non-negative integer");
            const auto v = dim.get<std::uint64_t>();
            if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
                (v != 0 && elements > limit / v))
                return fail(what + "shape " + entry["shape"].dump() + " overflows");
            elements *= v;
            shape.push_back(static_cast<std::int64_t>(v));
        }
        if (!entry.contains("data_offsets") || !entry["data_offsets"].is_array() ||
            entry["data_offsets"].size() != 2 || !entry["data_offsets"][0].is_number_unsigned() ||
            !entry["data_offsets"][1].is_number_unsigned())
            return fail(what + "'data_offsets' must be two non-negative integers");
        const auto begin = entry["data_offsets"][0].get<std::uint64_t>();
        const auto end = entry["data_offsets"][1].get<std::uint64_t>();
        const std::string offsets =
            "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
        if (begin > end)
            return fail(what + offsets + " are reversed");
        if (end > data.size())
            return fail(what + offsets + " lie outside the data region of " +
                        std::to_string(data.size()) + " bytes (truncated file?)");
        const std::uint64_t need = elements * dtypeSize(dtype);
        if (end - begin != need)
            return fail(what + offsets + " hold " + std::to_string(end - begin) +
                        " bytes, but shape " + entry["shape"].dump() + " " + dtypeName + " needs " +
                        std::to_string(need));
        if (std::any_of(out.begin(), out.end(),
                        [&key = name](const auto& p) { return p.first == key; }))
            return fail(what + "appears twice");
        Tensor t(dtype, shape);
        if (need)
            std::memcpy(t.raw(), data.data() + begin, need);
        out.emplace_back(name, std::move(t));
        if (need)
            ranges.emplace_back(begin, end);
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].first < ranges[i - 1].second)
            return fail("tensors overlap in the data region at byte " +
                        std::to_string(ranges[i].first));
    return out;
}

Expected<NamedTensors> readSafetensors(const std::string& path,
                                       std::map<std::string, std::string>* metadata) {
    auto bytes = readFileBytes(path);
    if (!bytes)
        return bytes.error();
    return decodeSafetensors(*bytes, path, metadata);
}

Expected<std::string> encodeSafetensors(const NamedTensors& tensors,
                                        const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::set<std::string> seen;
    std::uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        if (name == "__metadata__" || !seen.insert(name).second)
            return Error{"safetensors: duplicate or reserved tensor name '" + name + "'"};
        const std::uint64_t end = offset + t.byteSize();
        header[name] = {{"dtype", safetensorsName(t.dtype())},
                        {"shape", t.shape()},
                        {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string json = header.dump();
    json.append((8 - json.size() % 8) % 8, ' ');
    std::string out(kLenBytes, '\0');
    for (std::size_t i = 0; i < kLenBytes; ++i)
        out[i] = static_cast<char>((static_cast<std::uint64_t>(json.size()) >> (8 * i)) & 0xff);
    out.reserve(kLenBytes + json.size() + offset);
    out += json;
    for (const auto& [name, t] : tensors)
        if (t.byteSize())
            out.append(static_cast<const char*>(t.raw()), t.byteSize());
    return out;
}

Status writeSafetensors(const std::string& path, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata) {
    auto bytes = encodeSafetensors(tensors, metadata);
    if (!bytes)
        return bytes.error();
    return writeFileBytes(path, *bytes);
}

} // namespace pe
