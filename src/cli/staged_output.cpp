// SPDX-License-Identifier: MIT
#include "staged_output.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

namespace pe {

namespace fs = std::filesystem;

Expected<std::unique_ptr<StagedOutput>> StagedOutput::prepare(const std::string& target) {
    std::string t = target;
    while (t.size() > 1 && t.back() == '/')
        t.pop_back();
    if (t.empty())
        return Error{"--out: an output folder is required"};
    fs::path path = fs::absolute(fs::path(t)).lexically_normal();
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_directory(path, ec))
        return Error{"--out: " + target + " exists and is not a folder"};
    if (path.filename().empty() || path.filename() == "." || path.filename() == "..")
        return Error{"--out: " + target + " does not name a folder"};
    return std::unique_ptr<StagedOutput>(new StagedOutput(path));
}

StagedOutput::~StagedOutput() {
    if (!m_staging.empty() && !m_committed) {
        std::error_code ec;
        fs::remove_all(m_staging, ec);
    }
}

Status StagedOutput::begin() {
    std::error_code ec;
    fs::create_directories(m_target.parent_path(), ec);
    if (ec)
        return Error{"--out: cannot create " + m_target.parent_path().string() + " (" +
                     ec.message() + ")"};
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "." + string.
    std::string name = ".";
    name += m_target.filename().string();
    name += ".tmp-XXXXXX";
    const std::string templ = (m_target.parent_path() / name).string();
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
        return Error{"--out: cannot create a temporary folder beside " + m_target.string() + " (" +
                     std::strerror(errno) + ")"};
    m_staging = fs::path(buf.data());
    // mkdtemp makes the folder private; give it the permissions a plain mkdir would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(buf.data(), 0777 & ~mask);
    return Status::success();
}

std::string StagedOutput::filePath(const std::string& name) const {
    return (m_staging / name).string();
}

Status StagedOutput::commit() {
    std::error_code ec;
    if (!fs::exists(m_target, ec)) {
        fs::rename(m_staging, m_target, ec);
        if (!ec) {
            m_committed = true;
            return Status::success();
        }
        // Someone created the target meanwhile: fall through and move file by file.
    }
    if (!fs::is_directory(m_target, ec))
        return Error{"--out: " + m_target.string() + " exists and is not a folder"};
    for (const auto& entry : fs::directory_iterator(m_staging, ec)) {
        const fs::path dest = m_target / entry.path().filename();
        std::error_code mv;
        fs::rename(entry.path(), dest, mv);
        if (mv)
            return Error{"--out: cannot move " + entry.path().filename().string() + " into " +
                         m_target.string() + " (" + mv.message() + ")"};
    }
    if (ec)
        return Error{"--out: cannot list " + m_staging.string() + " (" + ec.message() + ")"};
    fs::remove_all(m_staging, ec);
    m_committed = true;
    return Status::success();
}

} // namespace pe
