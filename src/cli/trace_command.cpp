// SPDX-License-Identifier: MIT
#include "trace_command.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "backend.h"
#include "manifest.h"
#include "npy.h"
#include "params.h"
#include "preset_option.h"
#include "safetensors.h"
#include "staged_output.h"
#include "trace.h"
#include "trace_output_files.h"
#include "weights.h"

namespace pe {

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

using Failure = CommandFailure;

/** This process's minor page faults, CPU ms and CPU ms in the kernel so far (PE_CPU_TIMING). */
struct Usage {
    long faults = 0;
    double cpuMs = 0.0, kernelMs = 0.0;
};
Usage usage() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    auto ms = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) * 1e-3;
    };
    return {u.ru_minflt, ms(u.ru_utime) + ms(u.ru_stime), ms(u.ru_stime)};
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

Tensor fromMatrix(const Eigen::MatrixXd& m, bool asVector) {
    std::vector<std::int64_t> shape = asVector ? std::vector<std::int64_t>{m.cols()}
                                               : std::vector<std::int64_t>{m.rows(), m.cols()};
    Tensor t(DType::F32, shape);
    float* p = t.data<float>();
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            *p++ = static_cast<float>(m(r, c));
    return t;
}

Json optionsJson(const TraceOptions& o, const Params& p, const std::vector<std::string>& tensors) {
    auto orNull = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
    Json terms = Json::array();
    if (p.debertaC2P)
        terms.push_back("c2p");
    if (p.debertaP2C)
        terms.push_back("p2c");
    return Json{
        {"scheme", toString(p.scheme)},
        {"n", p.n},
        {"d", p.d},
        {"heads", p.heads},
        {"norm", toString(p.norm)},
        {"mask", toString(p.mask)},
        {"valid-len", p.validLen < 0 ? Json(nullptr) : Json(p.validLen)},
        {"clip", p.clip},
        {"base", p.base},
        {"layout", toString(p.layout)},
        {"rope-convention", toString(p.ropeConvention)},
        {"rope-dims", p.ropeDims},
        {"rope-scaling", toString(p.ropeScaling)},
        {"rope-scale", p.ropeScale},
        {"buckets", p.buckets},
        {"max-distance", p.maxDistance},
        {"unidirectional", p.unidirectional},
        {"alibi-mode", toString(p.alibiMode)},
        {"deberta-terms", terms},
        {"p2c-convention", toString(p.p2cConvention)},
        {"deberta-log-buckets", p.debertaLogBuckets},
        {"deberta-buckets", p.debertaBuckets},
        {"deberta-max-position", p.debertaMaxPosition},
        {"clamp-len", p.txlClampLen},
        {"max-positions", p.learnedRows},
        {"mlp-features", p.mlpFeatures},
        {"mlp-hidden", p.mlpHidden},
        {"urpe-bias", toString(p.urpeBias)},
        {"cls", p.cls},
        {"sep", p.sep},
        {"seed", p.seed},
        {"weights", orNull(o.weights)},
        {"input", orNull(o.input)},
        {"text", orNull(o.text)},
        {"backend", o.backend},
        {"dtype", toString(p.precision)},
        {"tensors", tensors},
        {"dump-weights", orNull(o.dumpWeights)},
        {"out", o.out},
    };
}

int run(const TraceOptions& o, int /*argc*/, char** /*argv*/) {
    const auto t0 = Clock::now();
    Params p = paramsFromOptions(o);
    // --pool R: logits and weights pooled to at most R×R per head, streamed (no n×n in memory).
    const bool pooled = o.poolGiven;
    PoolRequest poolRequest;
    if (pooled) {
        if (o.pool < 1 || o.pool > kMaxPoolResolution)
            throw Failure{"--pool must be between 1 and " + std::to_string(kMaxPoolResolution) +
                          ", got " + std::to_string(o.pool)};
        if (o.poolMode != "mean" && o.poolMode != "max")
            throw Failure{"--pool-mode: unknown value '" + o.poolMode +
                          "' (expected one of: mean, max)"};
        poolRequest.resolution = o.pool;
        poolRequest.mode = o.poolMode == "max" ? PoolMode::Max : PoolMode::Mean;
    } else if (o.poolMode != "mean") {
        throw Failure{"--pool-mode needs --pool R"};
    }

    auto staged = StagedOutput::prepare(o.out);
    if (!staged)
        throw Failure{staged.error().message};
    if (!o.dumpWeights.empty()) {
        const auto parent = std::filesystem::absolute(o.dumpWeights).parent_path();
        if (!std::filesystem::is_directory(parent))
            throw Failure{"--dump-weights: folder " + parent.string() + " does not exist"};
        if (std::filesystem::is_directory(o.dumpWeights))
            throw Failure{"--dump-weights: " + o.dumpWeights + " is a folder"};
    }

    Weights w;
    std::vector<std::string> tokens; // the text's tokens, when --text is given
    loadParameterInputs(o, p, w, tokens);

    std::vector<std::string> all = traceTensorNames(p);
    if (pooled) { // the n×n component tensors are not produced; logits and weights come pooled
        const std::vector<std::string> linear = pooledTraceTensorNames(p);
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [&](const std::string& name) {
                                     return name != "logits" && name != "weights" &&
                                            std::find(linear.begin(), linear.end(), name) ==
                                                linear.end();
                                 }),
                  all.end());
    }
    std::vector<std::string> wanted = o.tensors.empty() ? all : splitComma(o.tensors);
    for (const auto& name : wanted)
        if (std::find(all.begin(), all.end(), name) == all.end())
            throw Failure{"--tensors: unknown tensor '" + name + "' for --scheme " +
                          std::string(toString(p.scheme)) + (pooled ? " with --pool" : "") +
                          " (valid: " + join(all) + ")"};
    if (wanted.empty())
        throw Failure{"--tensors: no tensor named (valid: " + join(all) + ")"};

    // The output files are made (and prefaulted on a helper thread) while the weights are
    // generated; the engine computes into them. A pooled run's O(n·d) tensors too (at
    // n = 16,384 and d = 512 they are 300 MB, which `write` took 1.2 s to copy here); its
    // pooled logits and weights are written the usual way.
    StagedOutput& out = **staged;
    // The engine is made now, and a fresh one's threads set up their scratch (Backend::prepare)
    // beside the weights' generation too; `preparing` is joined before the engine is used (or
    // destroyed: it is declared after it).
    QString backendNote; // why --backend gl computes on the CPU, if so
    const std::unique_ptr<Backend> backend =
        createOptionBackend(o.backend, o.threads, &backendNote);
    std::jthread preparing;
    TraceOutputFiles files;
    std::vector<std::string> mapped = wanted;
    if (pooled)
        std::erase_if(
            mapped, [](const std::string& name) { return name == "logits" || name == "weights"; });
    completeParameterWeights(o.weights, p, w, pooled ? &poolRequest : nullptr, [&] {
        if (Status st = out.begin(); !st)
            throw Failure{st.error().message}; // an --out that cannot be created: a usage error
        if (Status st = files.create(out, p, mapped); !st)
            throw Failure{st.error().message, kExitFailure};
        // After the memory check: the scratch it sizes grows with n.
        preparing = std::jthread([&backend, &p, pooled] { backend->prepare(p, pooled); });
    });

    static const bool kTiming = std::getenv("PE_CPU_TIMING") != nullptr;
    const auto tWait = Clock::now();
    files.waitForPrefault();
    if (kTiming)
        std::fprintf(stderr, "  %-12s %8.2f ms (output pages ready %.1f ms after start)\n",
                     "prefault wait", msSince(tWait), msSince(t0));
    if (preparing.joinable()) {
        const auto tPrepared = Clock::now();
        preparing.join();
        if (kTiming)
            std::fprintf(stderr, "  %-12s %8.2f ms\n", "engine ready", msSince(tPrepared));
    }
    const Usage before = kTiming ? usage() : Usage{};
    BackendRun ran = computeOnBackend(*backend, backendNote, p, w, pooled ? &poolRequest : nullptr,
                                      files.storage());
    if (kTiming) {
        const Usage after = usage();
        std::fprintf(stderr, "  %-12s %8ld page faults, %.1f CPU ms (%.1f in the kernel)\n",
                     "compute", after.faults - before.faults, after.cpuMs - before.cpuMs,
                     after.kernelMs - before.kernelMs);
    }
    if (!ran.trace)
        throw Failure{ran.trace.error().message};
    const auto& trace = ran.trace;
    const double computeMs = ran.computeMs;
    const QString &ranOn = ran.ranOn, &device = ran.device, &fallback = ran.fallback;

    const auto tWrite = Clock::now();
    const DType floatType = p.precision == Precision::Float64 ? DType::F64 : DType::F32;
    Json tensorList = Json::array();
    for (const auto& [name, t] : trace->tensors) {
        if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
            continue;
        const std::string file = name + ".npy";
        const bool convert = t.dtype() != DType::I32 && t.dtype() != floatType;
        const Tensor converted = convert ? t.converted(floatType) : Tensor();
        const Tensor& written = convert ? converted : t;
        if (Status st = files.write(name, written, out.filePath(file)); !st)
            throw Failure{st.error().message, kExitFailure};
        tensorList.push_back(manifestTensorEntry(name, file, written));
    }
    files.close();
    const double writeMs = msSince(tWrite);

    std::string dumpTemp;
    if (!o.dumpWeights.empty()) {
        NamedTensors used;
        for (const WeightSpec& spec : weightSpecs(p))
            if (spec.used)
                used.emplace_back(spec.name, fromMatrix(w.*(spec.member), spec.shape.size() == 1));
        dumpTemp = o.dumpWeights + ".tmp-" + std::to_string(::getpid());
        if (Status st =
                writeSafetensors(dumpTemp, used,
                                 {{"generator", std::string("pe-explorer-cli ") + PE_VERSION},
                                  {"seed", std::to_string(p.seed)}});
            !st) {
            std::remove(dumpTemp.c_str());
            throw Failure{"--dump-weights: " + st.error().message, kExitFailure};
        }
    }

    Json manifest{
        {"version", PE_VERSION},
        {"command", "trace"},
        {"options", optionsJson(o, p, wanted)},
        {"seq_len", p.seqLen()},
        {"tokens", tokens.empty() ? trace->tokens : tokens},
        {"tensors", tensorList},
        {"backend", ranOn.toStdString()},
        {"device", device.toStdString()},
    };
    if (!fallback.isEmpty())
        manifest["backend_fallback"] = fallback.toStdString();
    if (pooled) { // (extension) logits and weights are [heads, R', R'] cells, not [heads, n, n]
        manifest["options"]["pool"] = o.pool;
        manifest["options"]["pool-mode"] = o.poolMode;
        manifest["pooled"] = {{"tensors", {"logits", "weights"}},
                              {"resolution", ran.poolCells},
                              {"mode", o.poolMode},
                              {"seq_len", p.seqLen()}};
    }
    if (!o.preset.empty()) // (extension)
        manifest["options"]["preset"] = o.preset;
    if (o.threads > 0) // (extension)
        manifest["options"]["threads"] = o.threads;
    manifest["timings_ms"] = {{"compute", computeMs}, {"write", writeMs}, {"total", msSince(t0)}};
    if (Status st = writeJsonFile(out.filePath("manifest.json"), manifest); !st) {
        if (!dumpTemp.empty())
            std::remove(dumpTemp.c_str());
        throw Failure{st.error().message, kExitFailure};
    }
    if (Status st = out.commit(); !st) {
        if (!dumpTemp.empty())
            std::remove(dumpTemp.c_str());
        throw Failure{st.error().message, kExitFailure};
    }
    if (!dumpTemp.empty() && std::rename(dumpTemp.c_str(), o.dumpWeights.c_str()) != 0) {
        std::remove(dumpTemp.c_str());
        throw Failure{"--dump-weights: cannot write " + o.dumpWeights, kExitFailure};
    }
    return kExitOk;
}

} // namespace

CLI::App* addTraceCommand(CLI::App& app, TraceOptions& o) {
    CLI::App* t = app.add_subcommand(
        "trace", "Compute one multi-head attention layer and write every stage as .npy files "
                 "plus manifest.json. Files, tensor names and shapes: docs/trace-format.md; the "
                 "formulas: docs/encodings.md (installed under share/doc/pe-explorer).");
    addParameterOptions(t, o);
    // --scheme is required unless --preset gives it (toParams says so).
    t->add_option("--tensors", o.tensors,
                  "comma-separated names to write (all are still computed); default: all");
    t->add_option("--out", o.out, "output folder (written all or nothing)")->required();
    t->add_option("--pool", o.pool,
                  "(extension) write logits and weights pooled to at most R x R per head, "
                  "computed in row blocks without holding n x n; other n x n tensors are left out")
        ->each([&o](const std::string&) { o.poolGiven = true; });
    t->add_option("--pool-mode", o.poolMode, "(extension) pooling of --pool cells: mean or max")
        ->capture_default_str();
    t->add_option("--dump-weights", o.dumpWeights,
                  "(extension) also write every weight used, generated or given, as a float32 "
                  ".safetensors file that --weights accepts");
    return t;
}

int runTrace(const TraceOptions& o, int argc, char** argv) {
    return runReportingErrors([&] { return run(o, argc, argv); });
}

} // namespace pe
