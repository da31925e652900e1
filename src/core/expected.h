// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pe {

/** An error as a value: one line that names the option or tensor at fault. */
struct Error {
    std::string message;
};

/**
 * Either a value or an Error (a small stand-in for C++23 std::expected).
 * Errors are values so they cross threads and library boundaries without exceptions.
 */
template <typename T> class Expected {
public:
    Expected(T value)
        : m_v(std::move(value)) {}
    Expected(Error error)
        : m_v(std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

/** Success or an Error, for operations with no result value. */
class Status {
public:
    Status() = default;
    Status(Error error)
        : m_error(std::move(error))
        , m_failed(true) {}
    static Status success() { return {}; }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace pe
