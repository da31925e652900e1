// SPDX-License-Identifier: MIT
#pragma once

/** Helpers for the trace's manifest.json (SPEC-trace.md, "Files written to DIR"). */

#include <nlohmann/json.hpp>

#include <string>

#include "expected.h"
#include "tensor.h"

namespace pe {

/** {"name", "file", "shape", "dtype"} for one tensor written as `file`. */
nlohmann::ordered_json manifestTensorEntry(const std::string& name, const std::string& file,
                                           const Tensor& t);

/** Writes JSON pretty-printed (2 spaces) with a trailing newline. */
Status writeJsonFile(const std::string& path, const nlohmann::ordered_json& json);

} // namespace pe
