// SPDX-License-Identifier: MIT
// libFuzzer harness: the tokenizer on arbitrary bytes (typed text and --text are UTF-8 from
// outside). Invariants: no token is empty, tokens hold no ASCII whitespace, their bytes appear in
// the input in order, and the embedding of the first tokens is finite and deterministic.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto tokens = pe::tokenize(text);
    std::size_t at = 0;
    for (const std::string& t : tokens) {
        if (t.empty() || t.find_first_of(" \t\n\r\f\v") != std::string::npos)
            __builtin_trap();
        const std::size_t found = text.find(t, at);
        if (found == std::string_view::npos)
            __builtin_trap();
        at = found + t.size();
    }
    if (tokens.size() > 16)
        tokens.resize(16);
    const Eigen::MatrixXd e = pe::embedTokens(tokens, 4, 7);
    if (!e.allFinite() || !(e == pe::embedTokens(tokens, 4, 7)))
        __builtin_trap();
    return 0;
}
