// SPDX-License-Identifier: MIT
#include "manifest.h"

#include "file_bytes.h"

namespace pe {

nlohmann::ordered_json manifestTensorEntry(const std::string& name, const std::string& file,
                                           const Tensor& t) {
    return {{"name", name}, {"file", file}, {"shape", t.shape()}, {"dtype", npyDescr(t.dtype())}};
}

Status writeJsonFile(const std::string& path, const nlohmann::ordered_json& json) {
    return writeFileBytes(path, json.dump(2) + "\n");
}

} // namespace pe
