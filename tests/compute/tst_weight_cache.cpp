// SPDX-License-Identifier: MIT
// The worker's weight cache gives exactly completeWeights' tensors through a sequence of
// parameter changes (same seed, new seed, new width, other scheme, learned rows), keeps tensors
// the caller gave, and lends its tensors rather than copying them.

#include <QTest>

#include "weight_cache.h"

using namespace pe;

namespace {

bool sameWeights(const Params& p, const Weights& a, const Weights& b) {
    for (const WeightSpec& spec : weightSpecs(p))
        if (spec.used && a.*(spec.member) != b.*(spec.member))
            return false;
    return true;
}

/** A small Shaw configuration (its own tables besides the W matrices). */
Params smallShaw() {
    Params p;
    p.scheme = Scheme::Shaw;
    p.n = 12;
    p.d = 16;
    p.heads = 2;
    p.clip = 3;
    return p;
}

} // namespace

class TestWeightCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void equalsCompleteWeightsThroughChanges();
    void keepsGivenTensors();
    void neighbourSeedsDrawnAhead();
    void lendsItsTensorsAndTakesThemBack();
};

void TestWeightCache::equalsCompleteWeightsThroughChanges() {
    Params p = smallShaw();
    std::vector<Params> steps;
    steps.push_back(p);
    p.clip = 5; // a Shaw table of another shape
    steps.push_back(p);
    p.seed = 11;
    steps.push_back(p);
    p.d = 32;
    steps.push_back(p);
    p.scheme = Scheme::T5;
    steps.push_back(p);
    p.scheme = Scheme::Learned;
    p.learnedRows = 20;
    steps.push_back(p);
    p.learnedRows = 30;
    steps.push_back(p);
    p.scheme = Scheme::DeBERTa;
    steps.push_back(p);
    steps.push_back(p); // the same again: everything from the cache
    // mlp.w1's scale follows F, mlp.w2's follows H: both are in the shapes the cache keys on.
    p.scheme = Scheme::Mlp;
    steps.push_back(p);
    p.mlpFeatures = 3;
    steps.push_back(p);
    p.mlpHidden = 17;
    steps.push_back(p);
    p.mlpFeatures = 8;
    steps.push_back(p);
    WeightCache cache;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        Weights cached, fresh;
        cache.complete(steps[k], cached);
        completeWeights(steps[k], fresh);
        QVERIFY2(sameWeights(steps[k], cached, fresh), qPrintable(QString::number(k)));
        QVERIFY(checkWeights(steps[k], cached));
        cache.giveBack(cached); // as the worker does after the forward pass
    }
}

void TestWeightCache::keepsGivenTensors() {
    Params p;
    p.scheme = Scheme::None;
    p.n = 4;
    p.d = 8;
    p.heads = 2;
    WeightCache cache;
    Weights first;
    cache.complete(p, first);
    Weights given;
    given.W_q = Eigen::MatrixXd::Constant(8, 8, 0.5);
    cache.complete(p, given);
    QCOMPARE(given.W_q(0, 0), 0.5);
    QVERIFY(given.W_k == first.W_k);
}

// The cache lends its tensors to the forward pass instead of copying them: given back, they are
// gone from the caller's weights and the next request gets them again, unchanged; a request
// whose tensors were not given back draws them afresh, with the same values.
void TestWeightCache::lendsItsTensorsAndTakesThemBack() {
    const Params p = smallShaw();
    Weights fresh;
    completeWeights(p, fresh);
    WeightCache cache;
    Weights first;
    cache.complete(p, first);
    QVERIFY(sameWeights(p, first, fresh));
    const double* lent = first.W_q.data();
    cache.giveBack(first);
    QCOMPARE(first.W_q.size(), Eigen::Index(0));
    QCOMPARE(first.shawWk.size(), Eigen::Index(0));
    Weights second;
    cache.complete(p, second);
    QCOMPARE(second.W_q.data(), lent); // the same buffer: moved, not copied
    QVERIFY(sameWeights(p, second, fresh));
    Weights third; // `second` kept its tensors: drawn again
    cache.complete(p, third);
    QVERIFY(sameWeights(p, third, fresh));
    QVERIFY(second.W_q.data() != third.W_q.data());
    cache.giveBack(third);
    Weights fourth;
    cache.complete(p, fourth);
    QVERIFY(sameWeights(p, fourth, fresh));
}

// The worker draws the weights of seed ± 1 while idle: they must be exactly what those seeds
// give, be kept (a second preparation draws nothing), and a stop request must draw nothing.
void TestWeightCache::neighbourSeedsDrawnAhead() {
    Params p = smallShaw();
    p.seed = 0; // seed − 1 wraps to 2^64 − 1
    WeightCache cache;
    int asked = 0;
    cache.prepareNeighbourSeeds(p, [&asked] { return ++asked > 0; }); // stops at once
    QCOMPARE(asked, 1);
    asked = 0;
    cache.prepareNeighbourSeeds(p, [&asked] {
        ++asked;
        return false;
    });
    // W_q, W_k, W_v, W_o, shaw.w_k, shaw.w_v for each of the two seeds (E is the caller's).
    QCOMPARE(asked, 12);
    asked = 0;
    cache.prepareNeighbourSeeds(p, [&asked] {
        ++asked;
        return false;
    });
    QCOMPARE(asked, 0); // all kept from the first time
    // Tensors above a d = 512 weight matrix are not drawn ahead (a large learned table).
    Params wide = p;
    wide.scheme = Scheme::Learned;
    wide.d = 640;
    wide.heads = 2;
    asked = 0;
    cache.prepareNeighbourSeeds(wide, [&asked] {
        ++asked;
        return false;
    });
    QCOMPARE(asked, 0);
    for (const std::uint64_t seed : {std::uint64_t{1}, ~std::uint64_t{0}}) {
        Params q = p;
        q.seed = seed;
        Weights cached, fresh;
        cache.complete(q, cached);
        completeWeights(q, fresh);
        QVERIFY(sameWeights(q, cached, fresh));
    }
}

QTEST_GUILESS_MAIN(TestWeightCache)
#include "tst_weight_cache.moc"
