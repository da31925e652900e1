// SPDX-License-Identifier: MIT
#pragma once

/**
 * The seeded weights of the last request, for the next one. completeWeights draws each tensor
 * from (seed, name) at its shape (and scales W_* by 1/√d): a tensor of the same name, shape, seed
 * and width is the same matrix, so an interactive change of anything else (clip distance,
 * normaliser, mask, ...) need not draw hundreds of thousands of normal variates again.
 */

#include <future>
#include <string>
#include <vector>

#include "weights.h"

namespace pe {

class WeightCache {
public:
    /** completeWeights(p, w), taking the tensors it would draw from the cache when they match. */
    void complete(const Params& p, Weights& w) {
        const std::vector<WeightSpec> specs = weightSpecs(p);
        std::vector<const WeightSpec*> drawn;
        for (const WeightSpec& spec : specs) {
            Eigen::MatrixXd& m = w.*(spec.member);
            if (!spec.used || m.size() > 0)
                continue; // not needed, or given by the caller
            drawn.push_back(&spec);
            const Eigen::Index rows = spec.shape.size() == 1 ? 1
                                      : spec.shape[0] < 0    ? p.learnedRows
                                                             : spec.shape[0];
            const Eigen::Index cols = spec.shape.back();
            for (const Entry& e : m_entries)
                if (e.name == spec.name && e.seed == p.seed && e.d == p.d &&
                    e.matrix.rows() == rows && e.matrix.cols() == cols) {
                    m = e.matrix;
                    break;
                }
        }
        drawConcurrently(p, specs, w);
        completeWeights(p, w);
        std::vector<Entry> next;
        for (const WeightSpec* spec : drawn)
            next.push_back({spec->name, p.seed, p.d, w.*(spec->member)});
        m_entries = std::move(next);
    }

private:
    /**
     * Draws the tensors still missing on all cores, one completeWeights per tensor (every other
     * used tensor gets a 1×1 placeholder, which completeWeights keeps as given): the same
     * matrices, in a fraction of the time when the seed or the width changes.
     */
    static void drawConcurrently(const Params& p, const std::vector<WeightSpec>& specs,
                                 Weights& w) {
        std::vector<const WeightSpec*> missing;
        for (const WeightSpec& spec : specs)
            if (spec.used && (w.*(spec.member)).size() == 0)
                missing.push_back(&spec);
        if (missing.size() < 2)
            return;
        std::vector<std::future<Eigen::MatrixXd>> drawn;
        for (const WeightSpec* spec : missing)
            drawn.push_back(std::async(std::launch::async, [&p, &specs, spec] {
                Weights one;
                for (const WeightSpec& other : specs)
                    if (other.used && &other != spec)
                        one.*(other.member) = Eigen::MatrixXd::Zero(1, 1);
                completeWeights(p, one);
                return Eigen::MatrixXd(std::move(one.*(spec->member)));
            }));
        for (std::size_t k = 0; k < missing.size(); ++k)
            w.*(missing[k]->member) = drawn[k].get();
    }

    struct Entry {
        std::string name;
        std::uint64_t seed;
        int d;
        Eigen::MatrixXd matrix;
    };
    std::vector<Entry> m_entries;
};

} // namespace pe
