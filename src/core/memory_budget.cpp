// SPDX-License-Identifier: MIT
#include "memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

namespace pe {

struct MemoryBudget::State {
    struct Entry {
        std::string holder;
        std::uint64_t bytes = 0;
    };
    mutable std::mutex mutex;
    std::uint64_t total = 0;
    std::uint64_t nextId = 1;
    std::map<std::uint64_t, Entry> entries; ///< by reservation id

    /** Bytes held by the holders other than `holder` (every holder: null). */
    std::uint64_t heldByOthers(const std::string* holder) const {
        std::uint64_t sum = 0;
        for (const auto& [id, e] : entries)
            if (!holder || e.holder != *holder)
                sum += e.bytes;
        return sum;
    }
    std::vector<Holding> holdings() const {
        std::vector<Holding> out;
        for (const auto& [id, e] : entries) {
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const Holding& h) { return h.holder == e.holder; });
            if (it == out.end())
                out.push_back({e.holder, e.bytes});
            else
                it->bytes += e.bytes;
        }
        std::stable_sort(out.begin(), out.end(),
                         [](const Holding& a, const Holding& b) { return a.bytes > b.bytes; });
        return out;
    }
};

MemoryBudget::Reservation::Reservation(Reservation&& o) noexcept
    : m_state(std::move(o.m_state))
    , m_id(std::exchange(o.m_id, 0))
    , m_bytes(std::exchange(o.m_bytes, 0)) {}

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& o) noexcept {
    if (this != &o) {
        release();
        m_state = std::move(o.m_state);
        m_id = std::exchange(o.m_id, 0);
        m_bytes = std::exchange(o.m_bytes, 0);
    }
    return *this;
}

void MemoryBudget::Reservation::release() {
    if (!m_state)
        return;
    {
        const std::lock_guard lock(m_state->mutex);
        m_state->entries.erase(m_id);
    }
    m_state.reset();
    m_id = 0;
    m_bytes = 0;
}

MemoryBudget::MemoryBudget(std::uint64_t totalBytes)
    : m_state(std::make_shared<State>()) {
    m_state->total = totalBytes;
}

MemoryBudget::~MemoryBudget() = default;

std::shared_ptr<MemoryBudget> MemoryBudget::process() {
    static const std::shared_ptr<MemoryBudget> budget =
        std::make_shared<MemoryBudget>(defaultTotal());
    return budget;
}

std::optional<std::uint64_t> MemoryBudget::parseSize(const std::string& text) {
    const char* begin = text.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(value) || value <= 0)
        return std::nullopt;
    std::string unit(end);
    std::transform(unit.begin(), unit.end(), unit.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    double scale = 1;
    if (unit == "K" || unit == "KB")
        scale = 1e3;
    else if (unit == "M" || unit == "MB")
        scale = 1e6;
    else if (unit == "G" || unit == "GB")
        scale = 1e9;
    else if (!unit.empty())
        return std::nullopt;
    const double bytes = value * scale;
    if (bytes < 1 || bytes > 1.8e19)
        return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
}

std::uint64_t MemoryBudget::defaultTotal() {
    if (const char* configured = std::getenv("PE_MEMORY_BUDGET"))
        if (const auto bytes = parseSize(configured))
            return *bytes;
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    std::uint64_t total = pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) *
                                                      static_cast<std::uint64_t>(size) / 3
                                                : std::uint64_t{4} << 30;
    // Memory other programs use already is not ours to plan with.
    if (const auto available = memAvailableBytes())
        total = std::min(total, *available / 4 * 3);
    return total;
}

Expected<MemoryBudget::Reservation> MemoryBudget::reserve(const std::string& holder,
                                                          std::uint64_t bytes) {
    const std::lock_guard lock(m_state->mutex);
    const std::uint64_t others = m_state->heldByOthers(&holder);
    const std::uint64_t left = others < m_state->total ? m_state->total - others : 0;
    if (bytes > left) {
        const std::string allowed = formatGigabytes(m_state->total) + " allowed";
        if (bytes > m_state->total || others == 0)
            return Error{"more than the " + allowed};
        std::string why;
        for (const Holding& h : m_state->holdings()) {
            if (h.holder == holder)
                continue;
            why += (why.empty() ? "" : ", ") + h.holder + " holds " + formatGigabytes(h.bytes);
        }
        return Error{"more than the " + formatGigabytes(left) + " left of the " + allowed + " (" +
                     why + ")"};
    }
    Reservation r;
    r.m_state = m_state;
    r.m_id = m_state->nextId++;
    r.m_bytes = bytes;
    m_state->entries.emplace(r.m_id, State::Entry{holder, bytes});
    return r;
}

std::uint64_t MemoryBudget::availableTo(const std::string& holder) const {
    const std::lock_guard lock(m_state->mutex);
    const std::uint64_t others = m_state->heldByOthers(&holder);
    return others < m_state->total ? m_state->total - others : 0;
}

std::uint64_t MemoryBudget::total() const {
    const std::lock_guard lock(m_state->mutex);
    return m_state->total;
}

void MemoryBudget::setTotal(std::uint64_t bytes) {
    const std::lock_guard lock(m_state->mutex);
    m_state->total = bytes;
}

std::uint64_t MemoryBudget::reserved() const {
    const std::lock_guard lock(m_state->mutex);
    return m_state->heldByOthers(nullptr);
}

std::vector<MemoryBudget::Holding> MemoryBudget::holdings() const {
    const std::lock_guard lock(m_state->mutex);
    return m_state->holdings();
}

std::optional<std::uint64_t> procFieldBytes(const char* path, std::string_view key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0)
            continue;
        unsigned long long kb = 0;
        if (std::sscanf(line.c_str() + key.size(), "%llu", &kb) != 1)
            return std::nullopt;
        return static_cast<std::uint64_t>(kb) * 1024;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> memAvailableBytes() {
    return procFieldBytes("/proc/meminfo", "MemAvailable:");
}

std::string formatGigabytes(std::uint64_t bytes) {
    char buf[64];
    if (bytes >= std::uint64_t{100'000'000})
        std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / 1e6);
    return buf;
}

} // namespace pe
