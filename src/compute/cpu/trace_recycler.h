// SPDX-License-Identifier: MIT
#pragma once

/**
 * Lends traces out as shared_ptr<const Trace> and takes them back when their last owner lets
 * go, on whatever thread that happens: the worker then hands the buffers to
 * CpuFastBackend::recycle, so the next computation of the same shapes reuses them instead of
 * paying page faults and zero-fill for fresh h × n × n tensors (and the GUI thread never frees
 * hundreds of megabytes). Traces above a size limit are freed rather than kept, and at most one
 * returned trace waits here. Outlives neither side's use: the deleters hold a weak reference.
 */

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "trace.h"

namespace pe {

class TraceRecycler : public std::enable_shared_from_this<TraceRecycler> {
public:
    /** Traces holding more bytes than this are freed, not kept. */
    static constexpr std::uint64_t kMaxKeptBytes = std::uint64_t{1} << 30;

    static std::shared_ptr<TraceRecycler> create() {
        return std::shared_ptr<TraceRecycler>(new TraceRecycler);
    }

    /** A shared trace that comes back here when its last owner releases it. */
    std::shared_ptr<const Trace> share(Trace&& trace) {
        std::weak_ptr<TraceRecycler> home = weak_from_this();
        return std::shared_ptr<const Trace>(new Trace(std::move(trace)), [home](const Trace* t) {
            std::unique_ptr<Trace> owned(const_cast<Trace*>(t));
            if (const auto r = home.lock())
                r->giveBack(std::move(owned));
        });
    }

    /** The traces returned since the last call (at most one). */
    std::vector<Trace> take() {
        std::unique_ptr<Trace> t;
        {
            const std::lock_guard lock(m_mutex);
            t = std::move(m_returned);
        }
        std::vector<Trace> out;
        if (t)
            out.push_back(std::move(*t));
        return out;
    }

private:
    TraceRecycler() = default;

    void giveBack(std::unique_ptr<Trace> t) {
        std::uint64_t bytes = 0;
        for (const auto& [name, tensor] : t->tensors)
            bytes += tensor.byteSize();
        if (bytes > kMaxKeptBytes)
            return;                   // freed here
        std::unique_ptr<Trace> older; // destroyed after the lock is released
        {
            const std::lock_guard lock(m_mutex);
            older = std::move(m_returned);
            m_returned = std::move(t);
        }
    }

    std::mutex m_mutex;
    std::unique_ptr<Trace> m_returned;
};

} // namespace pe
