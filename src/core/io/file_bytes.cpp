// SPDX-License-Identifier: MIT
#include "file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace pe {

Expected<std::string> readFileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open (" + std::strerror(errno) + ")"};
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0)
        return Error{path + ": cannot read (not a regular file?)"};
    in.seekg(0, std::ios::beg);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (size > 0 && !in.read(bytes.data(), size))
        return Error{path + ": read error"};
    return bytes;
}

Status writeFileBytes(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        return Error{path + ": cannot create (" + std::strerror(errno) + ")"};
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out)
        return Error{path + ": write failed (disk full?)"};
    return Status::success();
}

} // namespace pe
