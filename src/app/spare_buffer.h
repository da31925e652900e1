// SPDX-License-Identifier: MIT
#pragma once
#include <memory>
#include <utility>

namespace pe {

/**
 * The buffer a view drew from before its current one, taken to be written over when no map
 * holds it any more (its pages already faulted in: a fresh n × n buffer at n = 2,048 is 16–32 MB
 * of new pages), else a new one. `spare` is left empty either way.
 */
template <typename T> std::shared_ptr<T> takeSpare(std::shared_ptr<T>& spare) {
    std::shared_ptr<T> taken = std::exchange(spare, nullptr);
    return taken && taken.use_count() == 1 ? taken : std::make_shared<T>();
}

} // namespace pe
