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
#include <utility>
#include <vector>

#include "weights.h"

namespace pe {

class WeightCache {
public:
    /**
     * completeWeights(p, w), taking the tensors it would draw from the cache when they match.
     * The tensors of this call are lent to `w`, not copied (four d×d matrices and the scheme's
     * tables on every change): giveBack(w) returns them once the forward pass is done. Without
     * it the next call draws them again (the same values, more slowly).
     */
    void complete(const Params& p, Weights& w) {
        const std::vector<WeightSpec> specs = weightSpecs(p);
        std::vector<const WeightSpec*> drawn;
        for (const WeightSpec& spec : specs) {
            Eigen::MatrixXd& m = w.*(spec.member);
            if (!spec.used || m.size() > 0)
                continue; // not needed, or given by the caller
            drawn.push_back(&spec);
            for (std::vector<Entry>* from : {&m_entries, &m_ahead})
                if (Entry* e = find(*from, spec, p)) {
                    m = std::move(e->matrix); // the emptied entry matches nothing any more
                    break;
                }
        }
        drawConcurrently(p, specs, w);
        completeWeights(p, w);
        std::vector<Entry> next;
        m_lent.clear();
        for (const WeightSpec* spec : drawn) {
            m_lent.push_back(spec->member);
            next.push_back({spec->name, p.seed, p.d, Eigen::MatrixXd()});
        }
        m_entries = std::move(next);
    }

    /** Takes back the tensors the last complete() lent to `w` (they are empty in `w` after). */
    void giveBack(Weights& w) {
        for (std::size_t k = 0; k < m_lent.size() && k < m_entries.size(); ++k)
            m_entries[k].matrix = std::move(w.*(m_lent[k]));
        m_lent.clear();
    }

    /**
     * Draws, ahead of time, the tensors that `p` would draw with the neighbouring seeds
     * p.seed ± 1 (a seed spin box steps by one), so that such a change finds them here. Stops
     * between tensors once `stop()` is true; keeps only the neighbours of the latest p. Tensors
     * above kMaxAheadElements (a large learned table) are left to be drawn when asked for: a
     * request arriving meanwhile would wait for one.
     */
    template <typename Stop> void prepareNeighbourSeeds(const Params& p, const Stop& stop) {
        std::vector<Entry> ahead;
        for (const std::uint64_t seed : {p.seed + 1, p.seed - 1}) {
            Params q = p;
            q.seed = seed;
            const std::vector<WeightSpec> specs = weightSpecs(q);
            for (const WeightSpec& spec : specs) {
                if (!spec.used || spec.name == "E") // E: the caller's token embeddings
                    continue;
                const auto [rows, cols] = shapeOf(spec, q);
                if (rows * cols > kMaxAheadElements)
                    continue;
                if (const Entry* e = find(m_ahead, spec, q)) {
                    ahead.push_back(*e);
                    continue;
                }
                if (stop())
                    return; // keep what was there: a newer request is waiting
                ahead.push_back({spec.name, seed, q.d, drawOne(q, specs, spec)});
            }
        }
        m_ahead = std::move(ahead);
    }

    /** The largest tensor drawn ahead: a d = 512 weight matrix (about 3 ms). */
    static constexpr Eigen::Index kMaxAheadElements = Eigen::Index{512} * 512;

private:
    /** The [rows, cols] that completeWeights draws a tensor at. */
    static std::pair<Eigen::Index, Eigen::Index> shapeOf(const WeightSpec& spec, const Params& p) {
        const Eigen::Index rows = spec.shape.size() == 1 ? 1
                                  : spec.shape[0] < 0    ? p.learnedRows
                                                         : spec.shape[0];
        return {rows, spec.shape.back()};
    }

    /**
     * The one tensor `spec` as completeWeights(p) draws it: every other used tensor of `specs`
     * gets a 1×1 placeholder, which completeWeights keeps as given.
     */
    static Eigen::MatrixXd drawOne(const Params& p, const std::vector<WeightSpec>& specs,
                                   const WeightSpec& spec) {
        Weights one;
        for (const WeightSpec& other : specs)
            if (other.used && other.name != spec.name)
                one.*(other.member) = Eigen::MatrixXd::Zero(1, 1);
        completeWeights(p, one);
        return std::move(one.*(spec.member));
    }

    /**
     * Draws the tensors still missing on all cores, one drawOne per tensor: the same matrices,
     * in a fraction of the time when the seed or the width changes.
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
            drawn.push_back(std::async(std::launch::async,
                                       [&p, &specs, spec] { return drawOne(p, specs, *spec); }));
        for (std::size_t k = 0; k < missing.size(); ++k)
            w.*(missing[k]->member) = drawn[k].get();
    }

    struct Entry {
        std::string name;
        std::uint64_t seed;
        int d;
        Eigen::MatrixXd matrix;
    };
    /** The entry holding tensor `spec` as `p` draws it (name, seed, width, shape), if any. */
    template <typename Entries>
    static auto find(Entries& in, const WeightSpec& spec, const Params& p) -> decltype(&in[0]) {
        const auto [rows, cols] = shapeOf(spec, p);
        for (auto& e : in)
            if (e.name == spec.name && e.seed == p.seed && e.d == p.d && e.matrix.rows() == rows &&
                e.matrix.cols() == cols)
                return &e;
        return nullptr;
    }

    std::vector<Entry>
        m_entries; ///< what the last request drew or took (lent out until given back)
    std::vector<Eigen::MatrixXd Weights::*> m_lent; ///< where m_entries' tensors are, in order
    std::vector<Entry> m_ahead;                     ///< drawn ahead for the neighbouring seeds
};

} // namespace pe
