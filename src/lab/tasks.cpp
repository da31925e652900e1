// SPDX-License-Identifier: MIT
// The lab's synthetic tasks: names, descriptions and batches (the same numbers on every platform).
#include "lab.h"

#include <algorithm>
#include <array>

namespace pe::lab {

namespace {

constexpr std::array<std::pair<Task, std::string_view>, 5> kTaskNames{{
    {Task::Shift, "shift"},
    {Task::Copy, "copy"},
    {Task::Reverse, "reverse"},
    {Task::FirstToken, "first-token"},
    {Task::Sort, "sort"},
}};

/** splitmix64: the batch generator (small, and the same numbers on every platform). */
struct SplitMix {
    std::uint64_t x;
    std::uint64_t next() {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /** Uniform in [0, n) (n ≤ 2^20: the modulo bias is below 1e-13). */
    std::int64_t below(int n) {
        return static_cast<std::int64_t>(next() % static_cast<unsigned>(n));
    }
};

/** splitmix64's finaliser: a bijective 64-bit mix. */
std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

std::string_view toString(Task t) {
    for (const auto& [task, name] : kTaskNames)
        if (task == t)
            return name;
    return "shift";
}

std::optional<Task> taskFromString(std::string_view s) {
    for (const auto& [task, name] : kTaskNames)
        if (name == s)
            return task;
    return std::nullopt;
}

const std::vector<Task>& allTasks() {
    static const std::vector<Task> all{Task::Shift, Task::Copy, Task::Reverse, Task::FirstToken,
                                       Task::Sort};
    return all;
}

std::string describeTask(Task t) {
    switch (t) {
    case Task::Shift:
        return "shift-k: random tokens; at every position i >= k output the token at i - k";
    case Task::Copy:
        return "copy: the first half random, the second half blanks; output the first half again";
    case Task::Reverse:
        return "reverse: the first half random, the second half blanks; output the first half "
               "reversed";
    case Task::FirstToken:
        return "first-token: random tokens; at every position output the token at position 0";
    case Task::Sort:
        return "sort: the first half random, the second half blanks; output the first half sorted";
    }
    return {};
}

Batch makeBatch(const Options& o, int length, int batch, std::uint64_t stream,
                std::uint64_t index) {
    Batch b;
    b.batch = batch;
    b.length = length;
    const std::size_t total = static_cast<std::size_t>(batch) * static_cast<std::size_t>(length);
    b.tokens.assign(total, 0);
    b.targets.assign(total, -1);
    // Every (seed, stream, index) starts far from every other: states that differ by a few
    // golden-ratio steps would make consecutive batches shifted copies of one another.
    SplitMix rng{mix64(o.seed ^ mix64(stream * 0xD1B54A32D192ED03ull ^ mix64(index)))};
    const int half = length / 2;
    std::vector<std::int64_t> first(static_cast<std::size_t>(half));
    for (int r = 0; r < batch; ++r) {
        std::int64_t* x = b.tokens.data() + static_cast<std::ptrdiff_t>(r) * length;
        std::int64_t* y = b.targets.data() + static_cast<std::ptrdiff_t>(r) * length;
        switch (o.task) {
        case Task::Shift:
        case Task::FirstToken:
            for (int i = 0; i < length; ++i)
                x[i] = rng.below(o.vocab);
            for (int i = 0; i < length; ++i)
                if (o.task == Task::FirstToken)
                    y[i] = i >= 1 ? x[0] : -1;
                else
                    y[i] = i >= o.shift ? x[i - o.shift] : -1;
            break;
        case Task::Copy:
        case Task::Reverse:
        case Task::Sort:
            for (int i = 0; i < half; ++i)
                first[static_cast<std::size_t>(i)] = x[i] = rng.below(o.vocab);
            for (int i = half; i < length; ++i)
                x[i] = blankToken(o);
            if (o.task == Task::Sort)
                std::sort(first.begin(), first.end());
            for (int i = half; i < 2 * half; ++i)
                y[i] = o.task == Task::Reverse ? first[static_cast<std::size_t>(2 * half - 1 - i)]
                                               : first[static_cast<std::size_t>(i - half)];
            break;
        }
    }
    return b;
}

std::string tokensText(const Options& o, const std::vector<std::int64_t>& tokens) {
    std::string s;
    for (std::int64_t t : tokens) {
        if (!s.empty())
            s += ' ';
        s += t == blankToken(o) ? std::string("_") : std::to_string(t);
    }
    return s;
}

} // namespace pe::lab
