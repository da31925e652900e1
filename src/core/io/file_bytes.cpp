// SPDX-License-Identifier: MIT
#include "file_bytes.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace pe {

Expected<std::string> readFileBytes(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Error{path + ": is a folder, not a file"};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open (" + std::strerror(errno) + ")"};
    if (std::filesystem::is_regular_file(path, ec)) {
        const auto size = std::filesystem::file_size(path, ec);
        if (ec)
            return Error{path + ": cannot read its size (" + ec.message() + ")"};
        std::string bytes(static_cast<std::size_t>(size), '\0');
        if (size > 0 && !in.read(bytes.data(), static_cast<std::streamsize>(size)))
            return Error{path + ": read error"};
        return bytes;
    }
    // A pipe or device: read until the end.
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad())
        return Error{path + ": read error"};
    return bytes;
}

Status writeFileBytes(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        return Error{path + ": cannot create (" + std::strerror(errno) + ")"};
    errno = 0;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out)
        return Error{path + ": write failed (" + (errno ? std::strerror(errno) : "disk full?") +
                     ")"};
    return Status::success();
}

} // namespace pe
