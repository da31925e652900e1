// SPDX-License-Identifier: MIT
#include "insight_command.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "insights.h"
#include "insights_engine.h"
#include "manifest.h"
#include "npy.h"
#include "staged_output.h"

namespace pe {

namespace {

using Failure = CommandFailure;
using Json = nlohmann::ordered_json;

std::string pageList() {
    std::string s;
    for (InsightPage page : allInsightPages())
        s += (s.empty() ? "" : ", ") + std::string(toString(page));
    return s;
}

/** The page options and the pages they belong to. */
const std::map<std::string, InsightPage>& pageOptions() {
    static const std::map<std::string, InsightPage> m{
        {"--delta", InsightPage::Offset},   {"--table", InsightPage::Offset},
        {"--kernel", InsightPage::Cost},    {"--n-max", InsightPage::Cost},
        {"--measure", InsightPage::Cost},   {"--layers", InsightPage::Depth},
        {"--residual", InsightPage::Depth}, {"--depth-norm", InsightPage::Depth},
        {"--mlp", InsightPage::Depth},
    };
    return m;
}

Tensor vectorTensor(const Eigen::VectorXd& v) {
    return Tensor::fromVector<double>({v.size()},
                                      std::vector<double>(v.data(), v.data() + v.size()));
}

Tensor matrixTensor(const Eigen::MatrixXd& m) {
    TensorBuffer<double> data(static_cast<std::size_t>(m.size()));
    std::size_t k = 0;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            data[k++] = m(r, c);
    return Tensor::fromVector<double>({m.rows(), m.cols()}, std::move(data));
}

Eigen::MatrixXd tableFromNpy(const std::string& file) {
    auto t = readNpy(file);
    if (!t)
        throw Failure{"--table: " + t.error().message};
    if (t->rank() != 2 || t->dim(0) < 2 || t->dim(1) < 1)
        throw Failure{"--table " + file + ": shape " + t->shapeString() +
                      ", expected [rows, d] with at least 2 rows"};
    const Eigen::MatrixXd m = toMatrix(*t);
    if (!m.allFinite())
        throw Failure{"--table " + file + ": holds a value that is not finite"};
    return m;
}

/** A JSON number, or null for NaN and infinities. */
Json number(double v) {
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

/** The files of a page, written into the staged folder by `write`. */
struct Files {
    std::vector<std::pair<std::string, Tensor>> npy;
    std::vector<std::pair<std::string, Json>> json;
    std::vector<std::pair<std::string, std::string>> text;
};

void writeFiles(StagedOutput& out, const Files& f) {
    for (const auto& [name, t] : f.npy)
        if (Status st = writeNpy(out.filePath(name), t); !st)
            throw Failure{st.error().message, kExitFailure};
    for (const auto& [name, j] : f.json)
        if (Status st = writeJsonFile(out.filePath(name), j); !st)
            throw Failure{st.error().message, kExitFailure};
    for (const auto& [name, s] : f.text) {
        std::ofstream file(out.filePath(name), std::ios::binary);
        file << s;
        if (!file.flush())
            throw Failure{"--out: cannot write " + name, kExitFailure};
    }
}

template <typename T> T orFail(Expected<T> r) {
    if (!r)
        throw Failure{r.error().message};
    return std::move(r).value();
}

Files binaryFiles(const Params& p) {
    const BinaryInsight b = orFail(binaryInsight(p));
    Files f;
    TensorBuffer<std::int32_t> bits(static_cast<std::size_t>(b.bits.size()));
    std::size_t k = 0;
    for (Eigen::Index r = 0; r < b.bits.rows(); ++r)
        for (Eigen::Index c = 0; c < b.bits.cols(); ++c)
            bits[k++] = b.bits(r, c);
    f.npy.emplace_back("bits.npy", Tensor::fromVector<std::int32_t>({b.bits.rows(), b.bits.cols()},
                                                                    std::move(bits)));
    f.npy.emplace_back("omega.npy", vectorTensor(b.omega));
    f.npy.emplace_back("period.npy", vectorTensor(b.period));
    return f;
}

Files offsetFiles(const InsightOptions& o, const Params& p, const Weights& w) {
    OffsetOptions oo;
    oo.delta = o.delta;
    if (!o.table.empty())
        oo.table = tableFromNpy(o.table);
    const OffsetInsight r = orFail(offsetInsight(p, oo, &w));
    Json j{
        {"max_abs_residual", r.maxAbsResidual},
        {"relative_residual", r.relativeResidual},
        {"method", toString(r.method)},
        {"toeplitz_max_deviation", r.toeplitzMaxDeviation},
        {"gram_max_abs", r.gramMaxAbs},
        {"delta", r.delta},
        {"source", r.source},
        {"underdetermined", r.underdetermined},
        {"positions", r.P.rows()},
        {"d", r.P.cols()},
    };
    if (r.ropeDeviation.size() > 0)
        j["rope_max_deviation"] = r.ropeMaxDeviation;
    Files f;
    f.npy.emplace_back("M.npy", matrixTensor(r.M));
    f.json.emplace_back("residual.json", j);
    return f;
}

Files costFiles(const InsightOptions& o, const Params& p) {
    const CostInsight c = orFail(costInsight(p, {o.kernel, o.nMax}));
    std::ostringstream csv;
    csv << "n,cnn_flops,rnn_flops,attention_flops,cnn_sequential,rnn_sequential,"
           "attention_sequential,cnn_path,rnn_path,attention_path\n";
    for (const CostRow& r : c.rows)
        csv << r.n << ',' << r.cnnFlops << ',' << r.rnnFlops << ',' << r.attentionFlops << ','
            << r.cnnSequential << ',' << r.rnnSequential << ',' << r.attentionSequential << ','
            << r.cnnPath << ',' << r.rnnPath << ',' << r.attentionPath << '\n';
    Files f;
    f.text.emplace_back("cost.csv", csv.str());
    if (!o.measure)
        return f;
    CostMeasureOptions mo;
    mo.nMax = o.nMax;
    mo.threads = o.params.threads;
    const CostMeasurement m = orFail(measureAttentionCost(p, mo));
    std::ostringstream measured;
    measured << "n,ms\n" << std::setprecision(9);
    for (std::size_t i = 0; i < m.n.size(); ++i)
        measured << m.n[i] << ',' << m.ms[i] << '\n';
    f.text.emplace_back("measured.csv", measured.str());
    f.json.emplace_back("cost.json", Json{
                                         {"exponent", number(m.exponent)},
                                         {"fit_from_n", m.fitFrom},
                                         {"engine", m.engine.toStdString()},
                                         {"threads", m.threads},
                                         {"scheme", toString(p.scheme)},
                                         {"d", c.d},
                                         {"heads", p.heads},
                                         {"kernel", c.kernel},
                                         {"attention_rnn_crossover", c.attentionRnnCrossover},
                                         {"attention_cnn_crossover", c.attentionCnnCrossover},
                                     });
    return f;
}

Files distanceFiles(const InsightOptions& o, const Params& p, const Weights& w) {
    auto backend = createOptionBackend(o.params.backend, o.params.threads);
    const DistanceInsight r = orFail(distanceInsight(p, &w, backendLayerForward(*backend)));
    Files f;
    f.npy.emplace_back("profile.npy", matrixTensor(r.weightProfile));
    f.npy.emplace_back("position_profile.npy", matrixTensor(r.positionProfile));
    f.npy.emplace_back("rope_decay.npy", vectorTensor(r.ropeDecay));
    return f;
}

Json layerJson(const DepthLayer& l) {
    return Json{{"layer", l.layer},
                {"effective_rank", number(l.effectiveRank)},
                {"uniformity_residual", number(l.uniformityResidual)},
                {"attention_entropy", number(l.attentionEntropy)},
                {"position_r2", number(l.positionR2)},
                {"position_r2_heldout", number(l.positionR2Heldout)}};
}

Files depthFiles(const InsightOptions& o, const Params& p, const Weights& w) {
    DepthOptions d;
    d.layers = o.layers;
    d.residual = o.residual;
    d.mlp = o.mlp;
    const auto norm = depthNormFromString(o.depthNorm);
    if (!norm)
        throw Failure{"--depth-norm: unknown value '" + o.depthNorm +
                      "' (expected one of: none, layernorm, rmsnorm)"};
    d.norm = *norm;
    if (d.layers < 1 || d.layers > kMaxDepthLayers) // before any weight is made
        throw Failure{"--layers " + std::to_string(d.layers) + " must be between 1 and " +
                      std::to_string(kMaxDepthLayers)};
    auto backend = createOptionBackend(o.params.backend, o.params.threads);
    const DepthInsight r = orFail(depthInsight(p, d, &w, backendLayerForward(*backend)));
    Json layers = Json::array();
    for (std::size_t i = 1; i < r.layers.size(); ++i)
        layers.push_back(layerJson(r.layers[i]));
    Files f;
    f.json.emplace_back("depth.json", Json{{"scheme", toString(p.scheme)},
                                           {"n", p.n},
                                           {"d", p.d},
                                           {"heads", p.heads},
                                           {"seed", p.seed},
                                           {"layers_count", d.layers},
                                           {"residual", d.residual},
                                           {"norm", toString(d.norm)},
                                           {"mlp", d.mlp},
                                           {"input", layerJson(r.layers.front())},
                                           {"layers", layers}});
    return f;
}

int run(const InsightOptions& o, CLI::App* command) {
    const auto page = insightPageFromString(o.page);
    if (!page)
        throw Failure{"insight: unknown page '" + o.page + "' (expected one of: " + pageList() +
                      ")"};
    for (const auto& [option, where] : pageOptions())
        if (command->count(option) > 0 && where != *page)
            throw Failure{option + " applies to the " + std::string(toString(where)) +
                          " page, not " + o.page};

    Params p = paramsFromOptions(o.params);
    auto staged = StagedOutput::prepare(o.out);
    if (!staged)
        throw Failure{staged.error().message};
    Weights w;
    std::vector<std::string> tokens;
    loadParameterInputs(o.params, p, w, tokens);

    Files files;
    switch (*page) {
    case InsightPage::Binary:
        files = binaryFiles(p);
        break;
    case InsightPage::Offset:
        if (o.table.empty() && offsetApplies(p))
            completeParameterWeights(o.params.weights, p, w);
        files = offsetFiles(o, p, w);
        break;
    case InsightPage::Cost:
        files = costFiles(o, p);
        break;
    case InsightPage::Distance:
        completeParameterWeights(o.params.weights, p, w);
        files = distanceFiles(o, p, w);
        break;
    case InsightPage::Depth:
        completeParameterWeights(o.params.weights, p, w);
        files = depthFiles(o, p, w);
        break;
    }

    StagedOutput& out = **staged;
    if (Status st = out.begin(); !st)
        throw Failure{st.error().message};
    writeFiles(out, files);
    if (Status st = out.commit(); !st)
        throw Failure{st.error().message, kExitFailure};
    return kExitOk;
}

} // namespace

CLI::App* addInsightCommand(CLI::App& app, InsightOptions& o) {
    CLI::App* c = app.add_subcommand(
        "insight",
        "Write the numbers of one insights page (why the schemes work, docs/insights.md):\n"
        "  binary    bits of the positions beside the sinusoid ladder: bits.npy, omega.npy, "
        "period.npy\n"
        "  offset    P[i+delta] = M P[i]: M.npy, residual.json\n"
        "  cost      CNN / RNN / self-attention FLOPs, sequential ops, path length: cost.csv "
        "(+ measured.csv, cost.json with --measure)\n"
        "  distance  attention and position term against j - i: profile.npy, "
        "position_profile.npy, rope_decay.npy\n"
        "  depth     stacked layers: rank, uniformity, entropy, position probe: depth.json");
    c->add_option("page", o.page, "binary, offset, cost, distance or depth")->required();
    o.params.scheme = "sinusoidal";
    addParameterOptions(c, o.params);
    c->get_option("--scheme")->default_str("sinusoidal");
    c->add_option("--delta", o.delta, "offset: the shift delta, 1 <= delta < n")
        ->capture_default_str();
    c->add_option("--table", o.table,
                  "offset: a position table [rows, d] as .npy, fitted by least squares instead "
                  "of the scheme's P");
    c->add_option("--kernel", o.kernel, "cost: the CNN's kernel size k >= 2")
        ->capture_default_str();
    c->add_option("--n-max", o.nMax,
                  "cost: rows n = 1, 2, 4, ... up to this; --measure times "
                  "n = 128 ... this")
        ->capture_default_str();
    c->add_flag("--measure", o.measure,
                "cost: time one attention layer of --scheme on the fast CPU engine per n "
                "(pooled above 2048) and fit the exponent of time against n for n >= 1024");
    c->add_option("--layers", o.layers, "depth: layers L, 1 to 32")->capture_default_str();
    c->add_flag("--residual,!--no-residual", o.residual,
                "depth: residual connections X + f(X) (default) or none");
    c->add_option("--depth-norm", o.depthNorm, "depth: pre-norm none, layernorm or rmsnorm")
        ->capture_default_str();
    c->add_flag("--mlp", o.mlp, "depth: a ReLU MLP d -> 4d -> d after each attention");
    c->add_option("--out", o.out, "output folder (written all or nothing)")->required();
    return c;
}

int runInsight(const InsightOptions& o, CLI::App* command) {
    return runReportingErrors([&] { return run(o, command); });
}

} // namespace pe
