// SPDX-License-Identifier: MIT
// libFuzzer harness: decodeNpy on arbitrary bytes. A file that decodes must survive a round trip
// (encode, decode again) with the same dtype, shape and data.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto t = pe::decodeNpy(bytes, "fuzz.npy");
    if (!t)
        return 0;
    const auto again = pe::decodeNpy(pe::encodeNpy(*t), "round trip");
    if (!again || again->dtype() != t->dtype() || again->shape() != t->shape() ||
        again->byteSize() != t->byteSize() ||
        (t->byteSize() && std::memcmp(again->raw(), t->raw(), t->byteSize()) != 0))
        __builtin_trap();
    return 0;
}
