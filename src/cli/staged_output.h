// SPDX-License-Identifier: MIT
#pragma once

/**
 * All-or-nothing output folder: files are written into a fresh temporary sibling of the
 * target, then the folder is renamed into place (or, when the target already exists, its files
 * are moved in one by one after all were written). The destructor removes the temporary folder
 * unless commit() succeeded, so an error leaves nothing half-written.
 */

#include <filesystem>
#include <memory>
#include <string>

#include "expected.h"

namespace pe {

class StagedOutput {
public:
    /** Checks `target` (it may exist only as a folder); creates nothing yet. */
    static Expected<std::unique_ptr<StagedOutput>> prepare(const std::string& target);
    ~StagedOutput();
    StagedOutput(const StagedOutput&) = delete;
    StagedOutput& operator=(const StagedOutput&) = delete;

    /** Creates the parent folders if needed and the temporary folder. */
    Status begin();
    /** Path of a file inside the temporary folder. */
    std::string filePath(const std::string& name) const;
    /** Moves the files into place. */
    Status commit();

    const std::filesystem::path& target() const { return m_target; }

private:
    explicit StagedOutput(std::filesystem::path target)
        : m_target(std::move(target)) {}
    std::filesystem::path m_target;
    std::filesystem::path m_staging;
    bool m_committed = false;
};

} // namespace pe
