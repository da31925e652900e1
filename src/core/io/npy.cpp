// SPDX-License-Identifier: MIT
#include "npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "file_bytes.h"

namespace pe {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kAlign = 64;
/** numpy leaves room for the first axis to grow to this many digits (GROWTH_AXIS_MAX_DIGITS). */
constexpr std::size_t kGrowthDigits = 21;

std::string pythonShape(const std::vector<std::int64_t>& shape) {
    if (shape.empty())
        return "()";
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + (shape.size() == 1 ? ",)" : ")");
}

/**
 * Rewrites numpy's header, a Python dict literal, as JSON: '…' strings become "…", tuples become
 * arrays, True/False/None become true/false/null, trailing commas go. Everything else is passed
 * through for the JSON parser to judge.
 */
Expected<std::string> pythonLiteralToJson(std::string_view in) {
    std::string out;
    out.reserve(in.size() + 8);
    auto dropTrailingComma = [&out]() {
        std::size_t k = out.size();
        while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '\t' || out[k - 1] == '\n'))
            --k;
        if (k > 0 && out[k - 1] == ',')
            out.erase(k - 1, 1);
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '\'' || c == '"') {
            const char quote = c;
            out += '"';
            ++i;
            for (; i < in.size() && in[i] != quote; ++i) {
                if (in[i] == '\\') {
                    if (i + 1 >= in.size())
                        return Error{"unterminated string in header"};
                    out += in[i];
                    out += in[++i];
                } else if (in[i] == '"') {
                    out += "\\\"";
                } else {
                    out += in[i];
                }
            }
            if (i >= in.size())
                return Error{"unterminated string in header"};
            out += '"';
        } else if (c == '(') {
            out += '[';
        } else if (c == ')' || c == ']' || c == '}') {
            dropTrailingComma();
            out += c == ')' ? ']' : c;
        } else if (in.substr(i, 4) == "True") {
            out += "true";
            i += 3;
        } else if (in.substr(i, 5) == "False") {
            out += "false";
            i += 4;
        } else if (in.substr(i, 4) == "None") {
            out += "null";
            i += 3;
        } else if (c == 'L' && i > 0 && std::isdigit(static_cast<unsigned char>(in[i - 1]))) {
            // Python 2 long suffix (2L) in very old files.
        } else {
            out += c;
        }
    }
    return out;
}

std::uint32_t readLe(std::string_view b, std::size_t at, std::size_t len) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < len; ++i)
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
    return v;
}

/** Reorders Fortran-order data (C order of the reversed shape) into C order. */
Tensor fromFortran(const Tensor& f, const std::vector<std::int64_t>& shape) {
    Tensor c(f.dtype(), shape);
    const std::size_t rank = shape.size();
    const std::size_t elem = dtypeSize(f.dtype());
    // Fortran strides: axis 0 fastest.
    std::vector<std::int64_t> fStride(rank, 1);
    for (std::size_t a = 1; a < rank; ++a)
        fStride[a] = fStride[a - 1] * shape[a - 1];
    std::vector<std::int64_t> idx(rank, 0);
    const auto* src = static_cast<const unsigned char*>(f.raw());
    auto* dst = static_cast<unsigned char*>(c.raw());
    const std::int64_t total = shapeElements(shape);
    for (std::int64_t flat = 0; flat < total; ++flat) {
        std::int64_t off = 0;
        for (std::size_t a = 0; a < rank; ++a)
            off += idx[a] * fStride[a];
        std::memcpy(dst + static_cast<std::size_t>(flat) * elem,
                    src + static_cast<std::size_t>(off) * elem, elem);
        for (std::size_t a = rank; a-- > 0;) {
            if (++idx[a] < shape[a])
                break;
            idx[a] = 0;
        }
    }
    return c;
}

} // namespace

std::string npyHeader(const Tensor& t) {
    return npyHeader(t.dtype(), t.shape());
}

std::string npyHeader(DType dtype, const std::vector<std::int64_t>& shape) {
    std::string dict = std::string("{'descr': '") + npyDescr(dtype) +
                       "', 'fortran_order': False, 'shape': " + pythonShape(shape) + ", }";
    if (!shape.empty()) {
        const std::size_t firstDigits = std::to_string(shape.front()).size();
        if (firstDigits < kGrowthDigits)
            dict.append(kGrowthDigits - firstDigits, ' ');
    }
    const std::size_t prefix = kMagicLen + 2 + 2;
    const std::size_t total = (prefix + dict.size() + 1 + kAlign - 1) / kAlign * kAlign;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';
    std::string h(kMagic, kMagicLen);
    h += '\x01';
    h += '\x00';
    h += static_cast<char>(dict.size() & 0xff);
    h += static_cast<char>((dict.size() >> 8) & 0xff);
    return h + dict;
}

std::string encodeNpy(const Tensor& t) {
    std::string out = npyHeader(t);
    out.append(static_cast<const char*>(t.raw()), t.byteSize());
    return out;
}

Status writeNpy(const std::string& path, const Tensor& t) {
    const std::string header = npyHeader(t);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        return Error{path + ": cannot create (" + std::strerror(errno) + ")"};
    errno = 0;
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.byteSize()));
    out.flush();
    if (!out)
        return Error{path + ": write failed (" + (errno ? std::strerror(errno) : "disk full?") +
                     ")"};
    return Status::success();
}

Expected<Tensor> decodeNpy(std::string_view b, std::string_view source) {
    const std::string src(source);
    auto fail = [&src](const std::string& what) -> Expected<Tensor> {
        return Error{src + ": not a valid .npy file: " + what};
    };
    if (b.size() < kMagicLen + 2 || b.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
        return fail("bad magic (expected \\x93NUMPY)");
    const int major = static_cast<unsigned char>(b[6]);
    const int minor = static_cast<unsigned char>(b[7]);
    if (major < 1 || major > 3 || minor != 0)
        return fail("unsupported version " + std::to_string(major) + "." + std::to_string(minor));
    const std::size_t lenBytes = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicLen + 2 + lenBytes;
    if (b.size() < prefix)
        return fail("truncated header");
    const std::size_t headerLen = readLe(b, kMagicLen + 2, lenBytes);
    if (headerLen > b.size() - prefix)
        return fail("header length " + std::to_string(headerLen) + " exceeds the file size " +
                    std::to_string(b.size()));

    // Version 3 headers are UTF-8; versions 1 and 2 latin-1. Our keys are ASCII either way.
    auto json = pythonLiteralToJson(b.substr(prefix, headerLen));
    if (!json)
        return fail(json.error().message);
    const auto dict = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
    if (dict.is_discarded() || !dict.is_object())
        return fail("header is not a dict literal");
    for (const char* key : {"descr", "fortran_order", "shape"})
        if (!dict.contains(key))
            return fail(std::string("header lacks '") + key + "'");
    if (!dict["descr"].is_string())
        return fail("'descr' is not a string (structured dtypes are not supported)");
    const std::string descr = dict["descr"].get<std::string>();
    DType dtype = DType::F32;
    if (descr == "<f4")
        dtype = DType::F32;
    else if (descr == "<f8")
        dtype = DType::F64;
    else if (descr == "<i4")
        dtype = DType::I32;
    else
        return Error{src + ": unsupported dtype '" + descr + "' (supported: <f4, <f8, <i4)"};
    if (!dict["fortran_order"].is_boolean())
        return fail("'fortran_order' is not True/False");
    const bool fortran = dict["fortran_order"].get<bool>();
    if (!dict["shape"].is_array())
        return fail("'shape' is not a tuple");
    std::vector<std::int64_t> shape;
    std::uint64_t elements = 1;
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 8;
    for (const auto& dim : dict["shape"]) {
        if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0)
            return fail("'shape' holds a value that is not a non-negative integer");
        const auto v = dim.get<std::uint64_t>();
        if (v != 0 && elements > limit / v)
            return fail("shape " + dict["shape"].dump() + " is too large");
        elements *= v;
        shape.push_back(static_cast<std::int64_t>(v));
    }
    const std::uint64_t need = elements * dtypeSize(dtype);
    const std::uint64_t have = b.size() - prefix - headerLen;
    if (have != need)
        return Error{src + ": " + (have < need ? "truncated" : "trailing bytes") + ": shape " +
                     pythonShape(shape) + " " + descr + " needs " + std::to_string(need) +
                     " data bytes, the file holds " + std::to_string(have)};

    std::vector<std::int64_t> storedShape = shape;
    if (fortran)
        std::reverse(storedShape.begin(), storedShape.end());
    Tensor t(dtype, storedShape);
    if (need)
        std::memcpy(t.raw(), b.data() + prefix + headerLen, need);
    if (fortran && shape.size() > 1)
        return fromFortran(t, shape);
    return t;
}

Expected<Tensor> readNpy(const std::string& path) {
    auto bytes = readFileBytes(path);
    if (!bytes)
        return bytes.error();
    return decodeNpy(*bytes, path);
}

} // namespace pe
