// SPDX-License-Identifier: MIT
#pragma once

/** Small statistics the benchmarks print. */

#include <algorithm>
#include <cstddef>
#include <vector>

namespace pe::bench {

/** The median: the middle value, or the mean of the two middle ones; 0 for none. */
inline double median(std::vector<double> v) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace pe::bench
