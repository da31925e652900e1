// SPDX-License-Identifier: MIT
#pragma once

/**
 * One budget of bytes that every background computation of the process shares (the views'
 * trace, the Insights pages, …), so that together they stay within the machine's memory where
 * each alone would. A computation reserves its estimated bytes before it allocates and keeps the
 * Reservation as long as its result lives; destroying the Reservation gives the bytes back. A
 * request that does not fit is refused with a message that names what holds the memory.
 *
 * Each reservation carries its holder's name ("the Insights tab's computation"). A holder's new
 * request does not count the holder's own earlier reservations: the result it replaces is let go
 * when the new one is shown, and each holder alone keeps the limit it had before the budget was
 * shared. Thread-safe; a Reservation may be destroyed on any thread.
 */

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expected.h"

namespace pe {

class MemoryBudget {
    struct State;

public:
    /** Bytes held in the budget until destroyed or release()d; movable, not copyable. */
    class Reservation {
    public:
        Reservation() = default;
        Reservation(Reservation&& o) noexcept;
        Reservation& operator=(Reservation&& o) noexcept;
        Reservation(const Reservation&) = delete;
        Reservation& operator=(const Reservation&) = delete;
        ~Reservation() { release(); }

        /** Gives the bytes back (nothing if already released or empty). */
        void release();
        /** Still held (a default-made or released reservation is not). */
        bool held() const { return m_state != nullptr; }
        std::uint64_t bytes() const { return m_bytes; }

    private:
        friend class MemoryBudget;
        std::shared_ptr<State> m_state;
        std::uint64_t m_id = 0;
        std::uint64_t m_bytes = 0;
    };

    /** What one holder holds now. */
    struct Holding {
        std::string holder;
        std::uint64_t bytes = 0;
    };

    explicit MemoryBudget(std::uint64_t totalBytes);
    ~MemoryBudget();
    MemoryBudget(const MemoryBudget&) = delete;
    MemoryBudget& operator=(const MemoryBudget&) = delete;

    /**
     * The process's budget, made on first use with defaultTotal() bytes. Shared: the workers
     * keep it alive while their results hold reservations.
     */
    static std::shared_ptr<MemoryBudget> process();
    /**
     * PE_MEMORY_BUDGET when set (bytes, or with a suffix K, M, G: "1.5G"), else a third of
     * physical memory, lowered to three quarters of MemAvailable where that is smaller (both read
     * now: call it at start).
     */
    static std::uint64_t defaultTotal();
    /** "1.5G", "512M", "4096" → bytes; nullopt when not a positive size. */
    static std::optional<std::uint64_t> parseSize(const std::string& text);

    /**
     * Reserves `bytes` for `holder` when they fit in the total less what the other holders
     * hold. Otherwise an Error whose message completes "… needs about 3.2 GB" with the reason:
     * "more than the 5.3 GB allowed", or "more than the 1.1 GB left of the 5.3 GB allowed (the
     * Insights tab's computation holds 4.2 GB)".
     */
    Expected<Reservation> reserve(const std::string& holder, std::uint64_t bytes);
    /** Bytes `holder` could reserve now: the total less what the other holders hold. */
    std::uint64_t availableTo(const std::string& holder) const;

    std::uint64_t total() const;
    /** Changes the total (tests, a configured value); held reservations stay. */
    void setTotal(std::uint64_t bytes);
    /** Bytes held by every reservation together. */
    std::uint64_t reserved() const;
    /** Per holder, the largest first. */
    std::vector<Holding> holdings() const;

private:
    std::shared_ptr<State> m_state;
};

/**
 * The value of a "Key:  N kB" line of a /proc file, in bytes: procFieldBytes("/proc/meminfo",
 * "MemAvailable:"), procFieldBytes("/proc/self/status", "RssAnon:"); nullopt where the file or
 * the line cannot be read.
 */
std::optional<std::uint64_t> procFieldBytes(const char* path, std::string_view key);
/** /proc/meminfo's MemAvailable in bytes; nullopt where it cannot be read. */
std::optional<std::uint64_t> memAvailableBytes();
/** "3.1 GB" (decimal, one digit), "12 MB" below a tenth of a gigabyte. */
std::string formatGigabytes(std::uint64_t bytes);

} // namespace pe
