// SPDX-License-Identifier: MIT
#include "lab_engine.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <fstream>

#include "lab.h"
#include "memory_budget.h"

namespace pe {

namespace {

lab::Options toOptions(const LabConfig& c) {
    lab::Options o;
    o.task = lab::taskFromString(c.task.toStdString()).value_or(lab::Task::Shift);
    o.shift = c.shift;
    o.vocab = c.vocab;
    o.scheme = c.scheme;
    o.layers = c.layers;
    o.d = c.width;
    o.heads = c.heads;
    o.trainLength = c.trainLength;
    o.steps = c.steps;
    o.batch = c.batch;
    o.learningRate = c.learningRate;
    o.seed = c.seed;
    return o;
}

LabConfig toConfig(const lab::Options& o) {
    LabConfig c;
    c.task = QString::fromUtf8(std::string(lab::toString(o.task)));
    c.shift = o.shift;
    c.vocab = o.vocab;
    c.scheme = o.scheme;
    c.layers = o.layers;
    c.width = o.d;
    c.heads = o.heads;
    c.trainLength = o.trainLength;
    c.steps = o.steps;
    c.batch = o.batch;
    c.learningRate = o.learningRate;
    c.seed = o.seed;
    return c;
}

std::vector<LabEval> toEvals(const lab::EvalRow& row) {
    std::vector<LabEval> out;
    for (const lab::EvalPoint& p : row.points)
        out.push_back({p.length, p.accuracy.value_or(0.0), !p.accuracy.has_value()});
    return out;
}

/** The panel's view of a trained or loaded run: evaluations, layers, and a saver. */
LabRunResult toResult(std::shared_ptr<lab::Run> run) {
    LabRunResult r;
    const lab::Options& o = run->model->options();
    r.config = toConfig(o);
    if (!run->record.eval.empty())
        r.evals = toEvals(run->record.eval.front());
    for (std::size_t k = 1; k < run->record.eval.size(); ++k)
        r.variants.emplace_back(QString::fromStdString(run->record.eval[k].name),
                                toEvals(run->record.eval[k]));
    const QString tokens = QString::fromStdString(lab::tokensText(o, run->sample));
    std::vector<lab::LayerView> views = run->model->layerViews(run->sample);
    for (std::size_t l = 0; l < views.size(); ++l) {
        LabLayerView v;
        v.params = views[l].params;
        v.weights = std::make_shared<const Weights>(std::move(views[l].weights));
        v.tokens = tokens;
        v.name = QStringLiteral("%1, layer %2 of %3")
                     .arg(describeLabRun(r.config).section(QLatin1Char(','), 0, 1))
                     .arg(l + 1)
                     .arg(views.size());
        r.layers.push_back(std::move(v));
    }
    r.save = [run](const QString& folder) -> QString {
        const std::string dir = QDir(folder).absolutePath().toStdString();
        if (Status s = run->model->save(dir + "/model.safetensors", run->sample); !s)
            return QString::fromStdString(s.error().message);
        if (run->record.curves.empty() && run->record.eval.empty())
            return {}; // a loaded model has no run to write
        std::ofstream f(dir + "/run.json", std::ios::binary);
        f << lab::runJson(run->record);
        if (!f.flush())
            return QStringLiteral("cannot write run.json in %1").arg(folder);
        return {};
    };
    return r;
}

} // namespace

LabTrainer labEngineTrainer() {
    return [](const LabConfig& config, const std::vector<int>& lengths,
              const std::function<void(const LabProgress&)>& progress,
              const std::atomic<bool>& cancel) -> LabRunResult {
        const lab::Options o = toOptions(config);
        // Held for the run: the window's traces and the lab share the process's budget, and a
        // run too large for it is refused before libtorch allocates anything.
        const std::uint64_t need = lab::estimateTrainingBytes(o, lengths);
        auto reserved = MemoryBudget::process()->reserve("the Lab's training", need);
        if (!reserved)
            return {QStringLiteral("this run needs about %1 of memory, %2: lower the batch, "
                                   "the length L or the width")
                        .arg(QString::fromStdString(formatGigabytes(need)),
                             QString::fromStdString(reserved.error().message)),
                    {}};
        auto report = [&progress](const lab::CurvePoint& c) {
            progress({c.step, c.loss, c.accuracy});
        };
        try {
            auto run = lab::runExperiment(o, lengths, report, &cancel);
            if (!run)
                return {QString::fromStdString(run.error().message), {}};
            return toResult(std::make_shared<lab::Run>(std::move(*run)));
        } catch (const std::exception& e) { // e.g. torch's c10::Error, out of memory
            return {QString::fromStdString(e.what()).section(QLatin1Char('\n'), 0, 0), {}};
        }
    };
}

bool labEngineAvailable() {
    return lab::engineAvailable();
}

std::thread preloadLabEngine() {
    return lab::preloadEngine();
}

LabLoader labEngineLoader() {
    return [](const QString& path) -> LabRunResult {
        try {
            auto model = lab::Model::load(path.toStdString());
            if (!model)
                return {QString::fromStdString(model.error().message), {}};
            auto run = std::make_shared<lab::Run>();
            const lab::Options o = model->options();
            run->record.options = o;
            run->sample = lab::makeBatch(o, o.trainLength, 1, 3, 0).tokens;
            // The run.json beside the model, when there is one: its curve and evaluation (no
            // recomputation on the GUI thread); else the evaluation is computed here.
            QFile runFile(QFileInfo(path).dir().filePath(QStringLiteral("run.json")));
            std::vector<LabProgress> curve;
            if (runFile.open(QIODevice::ReadOnly)) {
                const QJsonObject j = QJsonDocument::fromJson(runFile.readAll()).object();
                const QJsonObject opts = j[QStringLiteral("options")].toObject();
                const bool same =
                    opts[QStringLiteral("scheme")].toString().toStdString() ==
                        std::string(toString(o.scheme)) &&
                    opts[QStringLiteral("seed")].toInteger() == static_cast<qint64>(o.seed) &&
                    opts[QStringLiteral("steps")].toInt() == o.steps;
                if (same) {
                    for (const auto& c : j[QStringLiteral("curves")].toArray()) {
                        const QJsonObject p = c.toObject();
                        curve.push_back({p[QStringLiteral("step")].toInt(),
                                         p[QStringLiteral("loss")].toDouble(),
                                         p[QStringLiteral("accuracy")].toDouble()});
                    }
                    auto rowOf = [](const std::string& name, const QJsonObject& e) {
                        lab::EvalRow row{name, {}};
                        for (const QString& k : e.keys())
                            row.points.push_back({k.toInt(), e[k].isNull() ? std::nullopt
                                                                           : std::optional<double>(
                                                                                 e[k].toDouble())});
                        std::sort(row.points.begin(), row.points.end(),
                                  [](const auto& a, const auto& b) { return a.length < b.length; });
                        return row;
                    };
                    run->record.eval.push_back(rowOf(std::string(toString(o.scheme)),
                                                     j[QStringLiteral("eval")].toObject()));
                    const QJsonObject variants = j[QStringLiteral("eval_variants")].toObject();
                    for (const QString& name : variants.keys())
                        run->record.eval.push_back(
                            rowOf(name.toStdString(), variants[name].toObject()));
                }
            }
            // The table's columns are L, 1.5L, 2L, 4L: a run evaluated elsewhere is redone.
            std::vector<int> lens;
            if (!run->record.eval.empty())
                for (const auto& pt : run->record.eval.front().points)
                    lens.push_back(pt.length);
            if (lens != lab::defaultEvalLengths(o.trainLength))
                run->record.eval = model->evaluateAll(lab::defaultEvalLengths(o.trainLength));
            run->model.emplace(std::move(*model));
            LabRunResult r = toResult(run);
            r.curve = std::move(curve);
            return r;
        } catch (const std::exception& e) {
            return {QString::fromStdString(e.what()).section(QLatin1Char('\n'), 0, 0), {}};
        }
    };
}

} // namespace pe
