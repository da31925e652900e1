// SPDX-License-Identifier: MIT
#pragma once

/**
 * Lends traces out as shared_ptr<const Trace> and takes them back when their last owner lets
 * go, on whatever thread that happens: the worker then hands the buffers to
 * CpuFastBackend::recycle, so the next computation of the same shapes reuses them instead of
 * paying page faults and zero-fill for fresh h × n × n tensors (and the GUI thread never frees
 * hundreds of megabytes). Traces above a size limit are freed rather than kept, and at most two
 * returned traces wait here (a change's early part and its whole trace: ComputeResult::early).
 * Outlives neither side's use: the deleters hold a weak reference.
 */

#include <cstdint>
#include <functional>
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

    /** At most this many returned traces wait to be taken; older ones are freed. */
    static constexpr std::size_t kMaxWaiting = 2;

    /** The traces returned since the last call (at most kMaxWaiting), oldest first. */
    std::vector<Trace> take() { return takeAll(false); }
    /**
     * take() for a worker that has gone idle and frees what it kept: a trace returned after it
     * (and before the next take()) calls the hook set below once. A view can let go of a trace
     * long after the worker's last result (the Compare tab's B when A's new trace replaced it
     * and B's scheme was A's), and it waited here for the worker's next computation: 813 MB
     * of an n = 1,024, 48-head trace at the end of a soak run.
     */
    std::vector<Trace> takeIdle() { return takeAll(true); }
    /** Called, on the thread that returned the trace, for a trace returned after takeIdle().
     *  Set to nothing before the worker goes. */
    void setOnReturnWhileIdle(std::function<void()> hook) {
        const std::lock_guard lock(m_mutex);
        m_onReturnWhileIdle = std::move(hook);
    }
    /** Bytes of the traces waiting to be taken. */
    std::uint64_t heldBytes() const {
        const std::lock_guard lock(m_mutex);
        std::uint64_t bytes = 0;
        for (const auto& t : m_returned)
            bytes += bytesOf(*t);
        return bytes;
    }

private:
    TraceRecycler() = default;

    static std::uint64_t bytesOf(const Trace& t) {
        std::uint64_t bytes = 0;
        for (const auto& [name, tensor] : t.tensors)
            bytes += tensor.byteSize();
        return bytes;
    }

    std::vector<Trace> takeAll(bool idle) {
        std::vector<std::unique_ptr<Trace>> returned;
        {
            const std::lock_guard lock(m_mutex);
            returned.swap(m_returned);
            m_idle = idle;
        }
        std::vector<Trace> out;
        for (auto& t : returned)
            out.push_back(std::move(*t));
        return out;
    }

    void giveBack(std::unique_ptr<Trace> t) {
        if (bytesOf(*t) > kMaxKeptBytes)
            return; // freed here
        // Only the tensors' buffers are reused: what else the trace shared (W_q and W_k, 2·d²
        // doubles) goes with its last owner, not with the recycler's next take().
        t->queryKey.reset();
        t->tokens = {};
        std::unique_ptr<Trace> older; // destroyed after the lock is released
        {
            const std::lock_guard lock(m_mutex);
            if (m_returned.size() == kMaxWaiting) {
                older = std::move(m_returned.front());
                m_returned.erase(m_returned.begin());
            }
            m_returned.push_back(std::move(t));
            if (m_idle && m_onReturnWhileIdle) {
                m_idle = false; // once: the release it schedules takes idle again
                m_onReturnWhileIdle();
            }
        }
    }

    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Trace>> m_returned; ///< oldest first
    bool m_idle = false;                            ///< takeIdle() came last
    std::function<void()> m_onReturnWhileIdle;
};

} // namespace pe
