// SPDX-License-Identifier: MIT
// libFuzzer harness: decodeSafetensors on arbitrary bytes. Tensors that decode must survive a
// round trip (encode, decode again) with the same names, dtypes, shapes and data.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto tensors = pe::decodeSafetensors(bytes, "fuzz.safetensors");
    if (!tensors)
        return 0;
    const auto encoded = pe::encodeSafetensors(*tensors);
    if (!encoded)
        __builtin_trap(); // a decoded set of tensors must be encodable
    const auto again = pe::decodeSafetensors(*encoded, "round trip");
    if (!again || again->size() != tensors->size())
        __builtin_trap();
    for (std::size_t i = 0; i < tensors->size(); ++i) {
        const auto& [name, t] = (*tensors)[i];
        const auto& [name2, t2] = (*again)[i];
        if (name != name2 || t.dtype() != t2.dtype() || t.shape() != t2.shape() ||
            t.byteSize() != t2.byteSize() ||
            (t.byteSize() && std::memcmp(t.raw(), t2.raw(), t.byteSize()) != 0))
            __builtin_trap();
    }
    return 0;
}
