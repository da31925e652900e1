// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pe::testing {

/** RssAnon of this process in bytes: what it allocated and touched, not the pages of the
 *  libraries it maps (libtorch's are hundreds of MB). 0 where unreadable. */
inline std::uint64_t anonymousResidentBytes() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "RssAnon:", 8) == 0 && std::sscanf(line + 8, "%llu", &kb) == 1)
            break;
    std::fclose(f);
    return kb * 1024;
}

} // namespace pe::testing
