// SPDX-License-Identifier: MIT
#include "trace_output_files.h"

#include <cstdlib>

#include "npy.h"
#include "staged_output.h"
#include "trace.h"

namespace pe {

TraceOutputFiles::~TraceOutputFiles() {
    close();
}

Status TraceOutputFiles::create(const StagedOutput& out, const Params& p,
                                const std::vector<std::string>& wanted) {
    if (const char* off = std::getenv("PE_TRACE_NO_MAP"); off && *off && *off != '0')
        return Status::success();
    for (const std::string& name : wanted) {
        const TensorSpec spec = traceTensorSpec(p, name);
        auto npy = MappedNpy::create(out.filePath(name + ".npy"), spec.dtype, spec.shape);
        if (!npy)
            return npy.error();
        if (npy->mapped())
            m_files.push_back({name, std::move(*npy)});
    }
    if (m_files.empty())
        return Status::success();
    // In the order the engine writes them (the contract's order): the first ones are ready first.
    m_prefault = std::thread([this] {
        for (const File& f : m_files) {
            if (m_stop.load(std::memory_order_relaxed))
                return;
            f.npy.prefault();
        }
    });
    return Status::success();
}

std::vector<std::pair<std::string, Tensor>> TraceOutputFiles::storage() const {
    std::vector<std::pair<std::string, Tensor>> s;
    for (const File& f : m_files)
        s.emplace_back(f.name, f.npy.tensor());
    return s;
}

Status TraceOutputFiles::write(const std::string& name, const Tensor& t, const std::string& path) {
    stopPrefaulting(); // no populating of a file while it is being rewritten
    for (File& f : m_files) {
        if (f.name != name)
            continue;
        if (f.npy.holds(t)) {
            ++m_inPlace;
            return Status::success();
        }
        if (f.npy.copyFrom(t))
            return Status::success();
        f.npy.release(); // another dtype or shape: writeNpy below truncates and rewrites it
        break;
    }
    return writeNpy(path, t);
}

void TraceOutputFiles::waitForPrefault() {
    if (m_prefault.joinable())
        m_prefault.join();
}

void TraceOutputFiles::stopPrefaulting() {
    m_stop.store(true);
    if (m_prefault.joinable())
        m_prefault.join();
}

void TraceOutputFiles::close() {
    stopPrefaulting();
    for (File& f : m_files)
        f.npy.release();
}

} // namespace pe
