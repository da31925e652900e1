// SPDX-License-Identifier: MIT
// The learning lab's engine (src/lab): its forward is the engine's forward, training lowers the
// loss on every task and scheme, runs repeat exactly, saved models load back, lengths a scheme
// cannot reach are reported, and bad options are refused by name.
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "lab.h"
#include "memory_budget.h"
#include "safetensors.h"
#include "trace.h"

using namespace pe;

namespace {

lab::Options small(Scheme s, lab::Task task = lab::Task::Shift) {
    lab::Options o;
    o.task = task;
    o.shift = 2;
    o.vocab = 8;
    o.scheme = s;
    o.layers = 1;
    o.d = 16;
    o.heads = 2;
    o.trainLength = 8;
    o.steps = 20;
    o.batch = 8;
    o.clip = 4;
    o.evalSamples = 32;
    o.logEvery = 5;
    return o;
}

/** max |a − b| / max |b| over the finite entries; infinities must sit in the same places. */
double relativeDifference(const std::vector<float>& a, const Tensor& b, bool* samePattern) {
    double num = 0, den = 0;
    *samePattern = static_cast<std::int64_t>(a.size()) == b.size();
    for (std::size_t k = 0; *samePattern && k < a.size(); ++k) {
        const double x = a[k], y = b.at(static_cast<std::int64_t>(k));
        if (std::isinf(x) || std::isinf(y)) {
            *samePattern = *samePattern && x == y;
            continue;
        }
        num = std::max(num, std::abs(x - y));
        den = std::max(den, std::abs(y));
    }
    return den > 0 ? num / den : num;
}

} // namespace

class TestLab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void labForwardIsEngineForward_data();
    void labForwardIsEngineForward();
    void secondLayerIsEngineForward();
    void lossFalls_data();
    void lossFalls();
    void reproducible();
    void saveLoadRoundTrip();
    void learnedTableHasNoPositionsPastL();
    void ropeStretchRows();
    void stopsEarlyAtTheTarget();
    void tasksKnownAnswers();
    void badOptions_data();
    void badOptions();
    void memoryEstimateBoundsARun();
};

void TestLab::labForwardIsEngineForward_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << static_cast<int>(s);
}

// A trained one-layer model of every scheme through the lab and through computeTrace: the
// logits and weights agree to float32 round-off (≤ 1e-5 relative).
void TestLab::labForwardIsEngineForward() {
    QFETCH(int, scheme);
    lab::Options o = small(static_cast<Scheme>(scheme));
    auto model = lab::Model::create(o);
    QVERIFY2(model, model ? "" : model.error().message.c_str());
    QVERIFY(model->train());
    const std::vector<std::int64_t> tokens = lab::makeBatch(o, o.trainLength, 1, 3, 0).tokens;
    const auto views = model->layerViews(tokens);
    QCOMPARE(views.size(), std::size_t{1});
    auto trace = computeTrace(views[0].params, views[0].weights);
    QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
    bool same = false;
    const double dl =
        relativeDifference(model->attentionLogits(tokens, 0), *trace->find("logits"), &same);
    QVERIFY2(same, "masked logits differ in place");
    QVERIFY2(dl <= 1e-5, QByteArray::number(dl).constData());
    const double dw =
        relativeDifference(model->attentionWeights(tokens, 0), *trace->find("weights"), &same);
    QVERIFY(same);
    QVERIFY2(dw <= 1e-5, QByteArray::number(dw).constData());
    // Not a vacuous comparison: the weights are a causal distribution per row.
    const Tensor& w = *trace->find("weights");
    QCOMPARE(w.at(1), 0.0); // row 0 sees key 0 only
}

void TestLab::secondLayerIsEngineForward() {
    for (Scheme s : {Scheme::T5, Scheme::Learned, Scheme::Shaw}) {
        lab::Options o = small(s);
        o.layers = 2;
        auto model = lab::Model::create(o);
        QVERIFY(model);
        QVERIFY(model->train());
        const auto tokens = lab::makeBatch(o, o.trainLength, 1, 3, 0).tokens;
        const auto views = model->layerViews(tokens);
        QCOMPARE(views.size(), std::size_t{2});
        // An absolute encoding enters at layer 1 only.
        QVERIFY(views[1].params.scheme == (s == Scheme::Learned ? Scheme::None : s));
        auto trace = computeTrace(views[1].params, views[1].weights);
        QVERIFY(trace);
        bool same = false;
        const double dw =
            relativeDifference(model->attentionWeights(tokens, 1), *trace->find("weights"), &same);
        QVERIFY(same);
        QVERIFY2(dw <= 1e-5, QByteArray::number(dw).constData());
    }
}

void TestLab::lossFalls_data() {
    QTest::addColumn<int>("task");
    QTest::addColumn<int>("scheme");
    for (lab::Task t : lab::allTasks())
        for (Scheme s : allSchemes())
            QTest::newRow((std::string(lab::toString(t)) + "/" + std::string(toString(s))).c_str())
                << static_cast<int>(t) << static_cast<int>(s);
}

// At a tiny budget every task × scheme learns something: the mean loss of the last five logged
// steps is below that of the first.
void TestLab::lossFalls() {
    QFETCH(int, task);
    QFETCH(int, scheme);
    lab::Options o = small(static_cast<Scheme>(scheme), static_cast<lab::Task>(task));
    o.steps = 60;
    o.logEvery = 10;
    o.batch = 16;
    auto model = lab::Model::create(o);
    QVERIFY(model);
    auto curve = model->train();
    QVERIFY2(curve, curve ? "" : curve.error().message.c_str());
    QCOMPARE(curve->size(), std::size_t{6});
    QVERIFY2(
        curve->back().loss < 0.9 * curve->front().loss,
        (QByteArray::number(curve->front().loss) + " -> " + QByteArray::number(curve->back().loss))
            .constData());
}

void TestLab::reproducible() {
    lab::Options o = small(Scheme::RoPE);
    auto a = lab::runExperiment(o, {8, 16});
    auto b = lab::runExperiment(o, {8, 16});
    QVERIFY(a && b);
    QCOMPARE(a->record.curves.size(), b->record.curves.size());
    for (std::size_t k = 0; k < a->record.curves.size(); ++k)
        QCOMPARE(a->record.curves[k].loss, b->record.curves[k].loss);
    const auto tokens = a->sample;
    QCOMPARE(a->model->outputLogits(tokens), b->model->outputLogits(tokens));
    o.seed = 1; // and another seed is another run
    auto c = lab::runExperiment(o, {8});
    QVERIFY(c);
    QVERIFY(c->record.curves.front().loss != a->record.curves.front().loss);
}

void TestLab::saveLoadRoundTrip() {
    QTemporaryDir dir;
    for (Scheme s : {Scheme::DeBERTa, Scheme::Mlp, Scheme::URPE}) {
        for (int layers : {1, 2}) {
            lab::Options o = small(s);
            o.layers = layers;
            auto run = lab::runExperiment(o, {8});
            QVERIFY(run);
            const std::string path = dir.filePath(QStringLiteral("m.safetensors")).toStdString();
            QVERIFY(run->model->save(path, run->sample));
            auto back = lab::Model::load(path);
            QVERIFY2(back, back ? "" : back.error().message.c_str());
            QCOMPARE(back->options().layers, layers);
            QVERIFY(back->options().scheme == s);
            QCOMPARE(back->outputLogits(run->sample), run->model->outputLogits(run->sample));
            QCOMPARE(back->predict(run->sample), run->model->predict(run->sample));
        }
    }
    // Not a lab model: a clear error.
    const std::string other = dir.filePath(QStringLiteral("x.safetensors")).toStdString();
    QVERIFY(writeSafetensors(other, {{"W_q", Tensor(DType::F32, {2, 2})}}));
    auto bad = lab::Model::load(other);
    QVERIFY(!bad);
    QVERIFY(bad.error().message.find("not a pe-explorer lab model") != std::string::npos);
}

void TestLab::learnedTableHasNoPositionsPastL() {
    lab::Options o = small(Scheme::Learned);
    auto run = lab::runExperiment(o, lab::defaultEvalLengths(o.trainLength));
    QVERIFY(run);
    const auto& pts = run->record.eval.at(0).points;
    QCOMPARE(pts.size(), std::size_t{4});
    QCOMPARE(pts[0].length, 8);
    QVERIFY(pts[0].accuracy.has_value());
    QCOMPARE(pts[1].length, 12);
    QVERIFY(!pts[1].accuracy.has_value());
    QVERIFY(!pts[3].accuracy.has_value());
    const std::string json = lab::runJson(run->record);
    QVERIFY(json.find("\"12\": null") != std::string::npos);
    QVERIFY(json.find("\"8\": ") != std::string::npos);
}

void TestLab::ropeStretchRows() {
    lab::Options o = small(Scheme::RoPE);
    o.d = 32;
    o.heads = 2;
    auto run = lab::runExperiment(o, {8, 16});
    QVERIFY(run);
    QCOMPARE(run->record.eval.size(), std::size_t{3});
    QCOMPARE(run->record.eval[1].name, std::string("rope + pi"));
    QCOMPARE(run->record.eval[2].name, std::string("rope + ntk"));
    // At L no stretch applies: all three rows agree; past L every row has a value.
    QCOMPARE(run->record.eval[1].points[0].accuracy, run->record.eval[0].points[0].accuracy);
    QCOMPARE(run->record.eval[2].points[0].accuracy, run->record.eval[0].points[0].accuracy);
    for (const auto& row : run->record.eval)
        QVERIFY(row.points[1].accuracy.has_value());
}

// --until: a target already met at the first check ends training there; the curve ends at that
// step and the record says so. Without a target every step runs.
void TestLab::stopsEarlyAtTheTarget() {
    lab::Options o = small(Scheme::T5);
    o.steps = 100;
    o.checkEvery = 10;
    o.evalSamples = 8;
    o.stopAccuracy = 1e-9;
    auto run = lab::runExperiment(o, {8});
    QVERIFY(run);
    QCOMPARE(run->record.stepsDone, 10);
    QVERIFY(run->record.stoppedEarly);
    QCOMPARE(run->record.curves.back().step, 10);
    QVERIFY(lab::runJson(run->record).find("\"stopped_early\": true") != std::string::npos);
    o.stopAccuracy = 0;
    o.steps = 30;
    auto full = lab::runExperiment(o, {8});
    QVERIFY(full);
    QCOMPARE(full->record.stepsDone, 30);
    QVERIFY(!full->record.stoppedEarly);
}

void TestLab::tasksKnownAnswers() {
    lab::Options o = small(Scheme::None);
    o.vocab = 50;
    o.shift = 3;
    const lab::Batch s = lab::makeBatch(o, 10, 2, 1, 7);
    QCOMPARE(s.tokens.size(), std::size_t{20});
    for (int r = 0; r < 2; ++r)
        for (int i = 0; i < 10; ++i)
            QCOMPARE(s.targets[r * 10 + i], i >= 3 ? s.tokens[r * 10 + i - 3] : -1);
    QVERIFY(s.tokens != lab::makeBatch(o, 10, 2, 1, 8).tokens); // the next batch is new data
    o.task = lab::Task::Reverse;
    const lab::Batch rv = lab::makeBatch(o, 8, 1, 1, 0);
    for (int i = 4; i < 8; ++i) {
        QCOMPARE(rv.tokens[i], std::int64_t{lab::blankToken(o)});
        QCOMPARE(rv.targets[i], rv.tokens[7 - i]);
    }
    o.task = lab::Task::Sort;
    const lab::Batch so = lab::makeBatch(o, 8, 1, 1, 0);
    std::vector<std::int64_t> first(so.tokens.begin(), so.tokens.begin() + 4);
    std::sort(first.begin(), first.end());
    for (int i = 4; i < 8; ++i)
        QCOMPARE(so.targets[i], first[static_cast<std::size_t>(i - 4)]);
    o.task = lab::Task::FirstToken;
    const lab::Batch ft = lab::makeBatch(o, 6, 1, 1, 0);
    QCOMPARE(ft.targets[0], std::int64_t{-1});
    for (int i = 1; i < 6; ++i)
        QCOMPARE(ft.targets[i], ft.tokens[0]);
    QCOMPARE(lab::tokensText(o, {3, 12, 50}), std::string("3 12 _"));
}

void TestLab::badOptions_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("L < 2") << "L"
                           << "--train-len";
    QTest::newRow("k >= L") << "k"
                            << "--shift";
    QTest::newRow("heads") << "heads"
                           << "--heads";
    QTest::newRow("layers") << "layers"
                            << "--layers";
}

void TestLab::badOptions() {
    QFETCH(QString, field);
    QFETCH(QString, message);
    lab::Options o = small(Scheme::T5);
    if (field == QLatin1String("L"))
        o.trainLength = 1;
    else if (field == QLatin1String("k"))
        o.shift = 8;
    else if (field == QLatin1String("heads"))
        o.heads = 3;
    else
        o.layers = 5;
    const Status s = lab::validate(o);
    QVERIFY(!s);
    QVERIFY2(s.error().message.rfind(message.toStdString(), 0) == 0, s.error().message.c_str());
    QVERIFY(!lab::Model::create(o));
}

namespace {
/** RssAnon: what this process allocated, not the pages of the libraries it maps (libtorch's
 *  are hundreds of MB). */
std::uint64_t anonymousResident() {
    return procFieldBytes("/proc/self/status", "RssAnon:").value_or(0);
}
} // namespace

// The estimate that the window and `train` check a run against before it starts: it grows as
// the attention tensors do (batch · heads · L² · layers, and the longest evaluation length's
// square), refuses the window's largest settings, and is not below what a real run adds to the
// resident set (sampled every 2 ms while it trains and evaluates).
void TestLab::memoryEstimateBoundsARun() {
    lab::Options o = small(Scheme::T5);
    const std::vector<int> lengths = lab::defaultEvalLengths(o.trainLength);
    const std::uint64_t base = lab::estimateTrainingBytes(o, lengths);
    QVERIFY(base < std::uint64_t{200} << 20); // a small run: the library's 64 MB and little more
    lab::Options wide = o;
    wide.batch = 4096;
    wide.trainLength = 512;
    wide.d = 512;
    wide.heads = 16;
    wide.layers = 4; // the window's largest settings: 6 · 4096 · 16 · 512² · 4 floats per layer
    QVERIFY(lab::estimateTrainingBytes(wide, lab::defaultEvalLengths(512)) > std::uint64_t{1}
                                                                                 << 40);
    QVERIFY(lab::estimateTrainingBytes(o, {o.trainLength, 8192}) >
            std::uint64_t{64} * o.heads * 8192 * 8192 * 4); // one evaluation chunk's weights

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("the sanitizer's allocator (quarantine, shadow) makes the resident set meaningless");
#endif
    lab::Options run = o;
    run.batch = 64;
    run.trainLength = 128;
    run.d = 64;
    run.heads = 4;
    run.layers = 2;
    run.steps = 3;
    run.evalSamples = 64;
    const std::vector<int> evalAt{128, 256};
    const std::uint64_t estimate = lab::estimateTrainingBytes(run, evalAt);
    QVERIFY(lab::runExperiment(o, lengths, {}, nullptr)); // the library loaded and set up
    const std::uint64_t before = anonymousResident();
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> peak{before};
    std::thread sampler([&] {
        while (!done) {
            peak = std::max(peak.load(), anonymousResident());
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    });
    auto result = lab::runExperiment(run, evalAt, {}, nullptr);
    done = true;
    sampler.join();
    QVERIFY2(result, result ? "" : result.error().message.c_str());
    const std::uint64_t grew = peak - before;
    qInfo("estimate %.1f MB, resident set grew %.1f MB", static_cast<double>(estimate) / 1e6,
          static_cast<double>(grew) / 1e6);
    QVERIFY(grew > 0);
    QVERIFY(estimate >= grew);
}

QTEST_GUILESS_MAIN(TestLab)
#include "tst_lab.moc"
