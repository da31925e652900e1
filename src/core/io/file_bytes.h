// SPDX-License-Identifier: MIT
#pragma once

/** Whole-file reads and writes with errors as values (shared by the .npy and .safetensors code). */

#include <string>
#include <string_view>

#include "expected.h"

namespace pe {

/** Reads a whole file; the error names the file and the reason (missing, unreadable). */
Expected<std::string> readFileBytes(const std::string& path);

/** Writes (truncates) a file; the error names the file. */
Status writeFileBytes(const std::string& path, std::string_view bytes);

} // namespace pe
