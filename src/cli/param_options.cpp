// SPDX-License-Identifier: MIT
#include "param_options.h"

#include <QLoggingCategory>
#include <QString>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "backend.h"
#include "memory_budget.h"
#include "npy.h"
#include "preset_option.h"
#include "safetensors.h"
#include "tokenizer.h"

namespace pe {

namespace {

constexpr int kMaxThreads = 1024;

using Clock = std::chrono::steady_clock;
using Failure = CommandFailure;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <typename E> std::string joinNames(const std::vector<E>& values) {
    std::string s;
    for (const auto& v : values) {
        if (!s.empty())
            s += ", ";
        s += std::string(toString(v));
    }
    return s;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

/** Parses an enum option; the error names the option and lists the accepted values. */
template <typename E, typename F>
E parseEnum(const std::string& option, const std::string& value, F fromString,
            const std::vector<E>& all) {
    if (auto v = fromString(value))
        return *v;
    throw Failure{option + ": unknown value '" + value + "' (expected one of: " + joinNames(all) +
                  ")"};
}

std::string shapeString(const std::vector<std::int64_t>& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + (s[i] < 0 ? std::string("P_max") : std::to_string(s[i]));
    return out + "]";
}

std::string humanBytes(std::uint64_t b) {
    char buf[64];
    if (b >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ull << 20));
    return buf;
}

Params toParams(const TraceOptions& o) {
    Params p;
    if (o.scheme.empty())
        throw Failure{"--scheme is required (or --preset NAME)"};
    p.scheme = parseEnum("--scheme", o.scheme, schemeFromString, allSchemes());
    p.n = o.n;
    p.d = o.d;
    p.heads = o.heads;
    p.norm = parseEnum("--norm", o.norm, normaliserFromString, allNormalisers());
    p.mask = parseEnum("--mask", o.mask, maskFromString, allValues<MaskKind>());
    if (o.validLenGiven && o.validLen < 0)
        throw Failure{"--valid-len must be >= 0, got " + std::to_string(o.validLen)};
    p.validLen = o.validLenGiven ? o.validLen : -1;
    p.clip = o.clip;
    p.base = o.base;
    p.layout = parseEnum("--layout", o.layout, layoutFromString, allValues<SinLayout>());
    p.ropeConvention = parseEnum("--rope-convention", o.ropeConvention, ropeConventionFromString,
                                 allValues<RopeConvention>());
    p.ropeDims = o.ropeDims;
    p.ropeScaling =
        parseEnum("--rope-scaling", o.ropeScaling, ropeScalingFromString, allValues<RopeScaling>());
    p.ropeScale = o.ropeScale;
    p.buckets = o.buckets;
    p.maxDistance = o.maxDistance;
    p.unidirectional = o.unidirectional;
    p.alibiMode =
        parseEnum("--alibi-mode", o.alibiMode, alibiModeFromString, allValues<AlibiMode>());
    p.debertaC2P = p.debertaP2C = false;
    for (const std::string& term : splitComma(o.debertaTerms)) {
        if (term == "c2p")
            p.debertaC2P = true;
        else if (term == "p2c")
            p.debertaP2C = true;
        else if (term != "none")
            throw Failure{"--deberta-terms: unknown term '" + term +
                          "' (expected a comma list of c2p, p2c)"};
    }
    p.p2cConvention =
        parseEnum("--p2c-convention", o.p2cConvention, p2cFromString, allValues<P2CConvention>());
    p.debertaLogBuckets = o.debertaLogBuckets;
    p.debertaBuckets = o.debertaBuckets;
    p.debertaMaxPosition = o.debertaMaxPosition;
    p.txlClampLen = o.clampLen;
    p.learnedRows = o.maxPositions;
    p.mlpFeatures = o.mlpFeatures;
    p.mlpHidden = o.mlpHidden;
    p.urpeBias = parseEnum("--urpe-bias", o.urpeBias, urpeBiasFromString, allValues<UrpeBias>());
    p.cls = o.cls;
    p.sep = o.sep;
    p.seed = o.seed;
    p.precision = parseEnum("--dtype", o.dtype, precisionFromString, allValues<Precision>());
    return p;
}

/** Reads --weights into `w`, checking names, dtypes and shapes against weightSpecs(p). */
void loadWeights(const std::string& file, const NamedTensors& tensors, const Params& p,
                 Weights& w) {
    const auto specs = weightSpecs(p);
    for (const auto& [name, t] : tensors) {
        if (name.rfind("lab.", 0) == 0)
            continue; // a lab model's own tensors (embedding, layer norms, MLP): not attention's
        const auto spec =
            std::find_if(specs.begin(), specs.end(),
                         [&name = name](const WeightSpec& s) { return s.name == name; });
        if (spec == specs.end()) {
            std::vector<std::string> known;
            for (const auto& s : specs)
                known.push_back(s.name);
            throw Failure{"--weights " + file + ": unknown tensor '" + name +
                          "' (known: " + join(known) + ")"};
        }
        if (!spec->used)
            continue; // known, but this scheme and these options do not read it
        if (t.dtype() != DType::F32)
            throw Failure{"--weights " + file + ": tensor '" + name + "' has dtype " +
                          safetensorsName(t.dtype()) + ", expected F32"};
        bool ok = t.rank() == spec->shape.size();
        for (std::size_t a = 0; ok && a < t.rank(); ++a)
            ok = spec->shape[a] < 0 ? t.dim(a) >= 1 : t.dim(a) == spec->shape[a];
        if (!ok)
            throw Failure{"--weights " + file + ": tensor '" + name + "' has shape " +
                          t.shapeString() + ", expected " + shapeString(spec->shape)};
        w.*(spec->member) = toMatrix(t);
    }
}

/** The token embeddings E [n, d] from --input, --text or --weights; sets p.n. */
void loadEmbeddings(const TraceOptions& o, const NamedTensors& weightFile, Params& p, Weights& w,
                    std::vector<std::string>& tokens) {
    int sources = 0;
    const auto fromWeights = std::find_if(weightFile.begin(), weightFile.end(),
                                          [](const auto& e) { return e.first == "E"; });
    sources += !o.input.empty();
    sources += !o.text.empty();
    sources += fromWeights != weightFile.end();
    if (sources > 1)
        throw Failure{"E is given more than once: use only one of --input, --text and an 'E' "
                      "tensor in --weights"};
    if (!o.input.empty()) {
        auto t = readNpy(o.input);
        if (!t)
            throw Failure{"--input: " + t.error().message};
        if (t->dtype() == DType::I32)
            throw Failure{"--input " + o.input + ": dtype <i4, expected <f4 or <f8"};
        if (t->rank() != 2 || t->dim(1) != p.d || t->dim(0) < 1)
            throw Failure{"--input " + o.input + ": shape " + t->shapeString() + ", expected [n, " +
                          std::to_string(p.d) + "] (n >= 1, --d " + std::to_string(p.d) + ")"};
        p.n = static_cast<int>(t->dim(0));
        w.E = toMatrix(*t);
    } else if (!o.text.empty()) {
        tokens = tokenize(o.text);
        if (tokens.empty())
            throw Failure{"--text: the text holds no tokens"};
        p.n = static_cast<int>(tokens.size());
        if (p.d >= 1)
            w.E = embedTokens(tokens, p.d, p.seed);
        if (p.cls)
            tokens.insert(tokens.begin(), "[CLS]");
        if (p.sep)
            tokens.emplace_back("[SEP]");
    } else if (fromWeights != weightFile.end()) {
        const Tensor& t = fromWeights->second;
        if (t.dtype() != DType::F32)
            throw Failure{"--weights " + o.weights + ": tensor 'E' has dtype " +
                          safetensorsName(t.dtype()) + ", expected F32"};
        if (t.rank() != 2 || t.dim(1) != p.d || t.dim(0) < 1)
            throw Failure{"--weights " + o.weights + ": tensor 'E' has shape " + t.shapeString() +
                          ", expected [n, " + std::to_string(p.d) + "]"};
        p.n = static_cast<int>(t.dim(0));
        w.E = toMatrix(t);
    }
}

void checkBackend(const TraceOptions& o) {
    if (o.backend != "cpu" && o.backend != "gl")
        throw Failure{"--backend: unknown value '" + o.backend + "' (expected one of: cpu, gl)"};
    if (o.threads < 0 || o.threads > kMaxThreads)
        throw Failure{"--threads must be between 0 (one per hardware thread) and " +
                      std::to_string(kMaxThreads) + ", got " + std::to_string(o.threads)};
}

/** --weights, --input / --text: the given weights, E and the token labels; validates p. */
void loadInputs(const TraceOptions& o, Params& p, Weights& w, std::vector<std::string>& tokens) {
    NamedTensors weightFile;
    if (!o.weights.empty()) {
        auto wf = readSafetensors(o.weights);
        if (!wf)
            throw Failure{"--weights: " + wf.error().message};
        weightFile = std::move(*wf);
    }
    loadEmbeddings(o, weightFile, p, w, tokens);
    if (Status st = validate(p); !st)
        throw Failure{st.error().message};
    loadWeights(o.weights, weightFile, p, w);
}

/** Checks the memory the trace needs, generates every weight not given and checks them all. */
void completeInputs(const std::string& weightsFile, const Params& p, Weights& w,
                    const PoolRequest* pool = nullptr,
                    const std::function<void()>& afterMemoryCheck = {}) {
    // The trace itself (pooled: no n×n) plus the weights completeWeights is about to generate.
    std::uint64_t need =
        pool ? estimatePooledBytes(p, pool->resolution,
                                   static_cast<int>(std::thread::hardware_concurrency()))
             : estimateTraceBytes(p);
    for (const WeightSpec& spec : weightSpecs(p)) {
        if (!spec.used || (w.*(spec.member)).size() > 0)
            continue;
        need += 8 * static_cast<std::uint64_t>(weightElements(spec, p));
    }
    if (const auto avail = memAvailableBytes(); avail && need > *avail)
        throw Failure{"the trace needs about " + humanBytes(need) + " of memory but only " +
                      humanBytes(*avail) + " is available; lower --n, --heads or --max-positions" +
                      (p.precision == Precision::Float64 ? ", or use --dtype float32" : "")};

    if (afterMemoryCheck)
        afterMemoryCheck();
    completeWeights(p, w);
    if (Status st = checkWeights(p, w); !st)
        throw Failure{(weightsFile.empty() ? "" : "--weights " + weightsFile + ": ") +
                      st.error().message};
}

} // namespace

Eigen::MatrixXd toMatrix(const Tensor& t) {
    const auto rows = t.rank() == 2 ? t.dim(0) : 1;
    const auto cols = t.rank() == 0 ? 1 : t.shape().back();
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index c = 0; c < cols; ++c)
            m(r, c) = t.at(r * cols + c);
    return m;
}

Params paramsFromOptions(const TraceOptions& o) {
    Params p = toParams(o);
    checkBackend(o);
    return p;
}

void loadParameterInputs(const TraceOptions& o, Params& p, Weights& w,
                         std::vector<std::string>& tokens) {
    loadInputs(o, p, w, tokens);
}

void completeParameterWeights(const std::string& weightsFile, const Params& p, Weights& w,
                              const PoolRequest* pool,
                              const std::function<void()>& afterMemoryCheck) {
    completeInputs(weightsFile, p, w, pool, afterMemoryCheck);
}

std::vector<CLI::Option*> addParameterOptions(CLI::App* t, TraceOptions& o) {
    const std::size_t before = t->get_options().size();
    addPresetOption(t, o); // first: the options below override it
    t->add_option("--scheme", o.scheme,
                  "none, sinusoidal, learned, shaw, txl, t5, deberta, rope, alibi, urpe, mlp");
    t->add_option("--n", o.n, "input tokens (special tokens come on top)")->capture_default_str();
    t->add_option("--d", o.d, "model width")->capture_default_str();
    t->add_option("--heads", o.heads, "heads; d must divide evenly")->capture_default_str();
    t->add_option("--norm", o.norm, "softmax, exp, l2, relu2, relu2_visible")
        ->capture_default_str();
    t->add_option("--mask", o.mask, "none or causal")->capture_default_str();
    t->add_option("--valid-len", o.validLen,
                  "keys at positions >= L are padding (special tokens counted); default: all valid")
        ->each([&o](const std::string&) { o.validLenGiven = true; });
    t->add_option("--clip", o.clip, "Shaw clip distance k; DeBERTa span k (v1)")
        ->capture_default_str();
    t->add_option("--base", o.base, "sinusoidal, RoPE and mlp-feature base")->capture_default_str();
    t->add_option("--layout", o.layout, "sinusoidal layout: interleaved, concat, t2t")
        ->capture_default_str();
    t->add_option("--rope-convention", o.ropeConvention, "interleaved or half")
        ->capture_default_str();
    t->add_option("--rope-dims", o.ropeDims,
                  "(extension) rotated features per head, partial rotary; 0 = d/heads")
        ->capture_default_str();
    t->add_option("--rope-scaling", o.ropeScaling,
                  "(extension) RoPE context stretching by --rope-scale s: none; pi, position "
                  "interpolation, angle = (p/s)*theta_m; ntk, NTK-aware base "
                  "base' = base*s^(d_rot/(d_rot-2)) (needs d_rot >= 4)")
        ->capture_default_str();
    t->add_option("--rope-scale", o.ropeScale,
                  "(extension) stretch s > 0 of --rope-scaling pi|ntk (ignored with none)")
        ->capture_default_str();
    t->add_option("--buckets", o.buckets, "T5 number of buckets")->capture_default_str();
    t->add_option("--max-distance", o.maxDistance, "T5 max distance")->capture_default_str();
    t->add_flag("--unidirectional", o.unidirectional,
                "T5 unidirectional buckets (default bidirectional)");
    t->add_option("--alibi-mode", o.alibiMode,
                  "causal (paper form, needs --mask causal) or symmetric (-m|i-j|)")
        ->capture_default_str();
    t->add_option("--deberta-terms", o.debertaTerms, "comma list, any of c2p,p2c")
        ->capture_default_str();
    t->add_option("--p2c-convention", o.p2cConvention, "code or paper")->capture_default_str();
    t->add_flag("--deberta-log-buckets", o.debertaLogBuckets,
                "(extension) DeBERTa v2/v3 log buckets; span = --deberta-buckets (a [2 span, d] "
                "relative table), exact for |i-j| <= span/2");
    t->add_option("--deberta-buckets", o.debertaBuckets,
                  "(extension) DeBERTa v2/v3 position_buckets")
        ->capture_default_str();
    t->add_option("--deberta-max-position", o.debertaMaxPosition,
                  "(extension) DeBERTa v2/v3 max_relative_positions")
        ->capture_default_str();
    t->add_option("--clamp-len", o.clampLen, "(extension) Transformer-XL clamp_len; 0 = off")
        ->capture_default_str();
    t->add_option("--max-positions", o.maxPositions,
                  "(extension) rows P_max of a generated learned table")
        ->capture_default_str();
    t->add_option("--mlp-features", o.mlpFeatures,
                  "mlp: F Fourier frequencies (1-256), phi(p) = [sin(p*w_k), cos(p*w_k)], "
                  "w_k = base^(-k/F); P = GELU(phi*W1 + b1)*W2 + b2, weights mlp.w1 [2F, H], "
                  "mlp.b1 [H], mlp.w2 [H, d], mlp.b2 [d]")
        ->capture_default_str();
    t->add_option("--mlp-hidden", o.mlpHidden, "mlp: hidden width H (1-4096)")
        ->capture_default_str();
    t->add_option("--urpe-bias", o.urpeBias, "additive bias used with URPE: none or t5")
        ->capture_default_str();
    t->add_flag("--cls", o.cls, "prepend [CLS]");
    t->add_flag("--sep", o.sep, "append [SEP]");
    t->add_option("--seed", o.seed, "seed for every tensor that --weights does not give")
        ->check(CLI::Validator(
            [](std::string& v) {
                return v.find('-') == std::string::npos ? std::string()
                                                        : "must be an unsigned integer, got " + v;
            },
            "", "unsigned"))
        ->capture_default_str();
    t->add_option("--weights", o.weights,
                  ".safetensors file; each (float32) tensor replaces the generated one");
    auto* input =
        t->add_option("--input", o.input, "token embeddings E as .npy [n, d] (overrides --n)");
    t->add_option("--text", o.text,
                  "tokenize a sample text; embeddings from a seeded per-token table")
        ->excludes(input);
    t->add_option("--backend", o.backend, "cpu or gl")->capture_default_str();
    t->add_option("--threads", o.threads,
                  "(extension) threads of the fast CPU engine; 0: one per hardware thread")
        ->capture_default_str();
    t->add_option("--dtype", o.dtype, "float32 or float64")->capture_default_str();
    std::vector<CLI::Option*> added;
    for (CLI::Option* opt : t->get_options())
        added.push_back(opt);
    added.erase(added.begin(), added.begin() + static_cast<std::ptrdiff_t>(before));
    return added;
}

namespace {

/** A pooled computation as a trace: the O(n·d) tensors and the pooled logits and weights. */
Expected<Trace> pooledAsTrace(Backend& backend, const Params& p, const Weights& w,
                              const PoolRequest& request, int* cells) {
    Expected<PooledTrace> pt = backend.computePooled(p, w, request, nullptr);
    if (!pt)
        return pt.error();
    *cells = pt->resolution;
    Trace t = std::move(pt->trace);
    t.params = p;
    if (t.tokens.empty())
        t.tokens = defaultTokens(p);
    if (!t.find("out") && !pt->out.empty()) // the GL path returns out alone
        t.tensors.emplace_back("out", std::move(pt->out));
    t.tensors.emplace_back("logits", std::move(pt->logits));
    t.tensors.emplace_back("weights", std::move(pt->weights));
    const std::vector<std::string> order = traceTensorNames(p);
    auto rank = [&order](const std::string& name) {
        return std::find(order.begin(), order.end(), name) - order.begin();
    };
    std::stable_sort(t.tensors.begin(), t.tensors.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    return t;
}

} // namespace

std::unique_ptr<Backend> createOptionBackend(const std::string& backendName, int threads,
                                             QString* fallback) {
    // The GL backend makes its own raw EGL context: no display and no QGuiApplication needed.
    // Its warnings reach the user once, as the note below; QT_LOGGING_RULES can turn them on.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(QStringLiteral("pe.gl.warning=false"));
    QString why;
    auto backend =
        createBackend(backendName == "gl" ? BackendKind::OpenGL : BackendKind::CpuFast, &why);
    if (!why.isEmpty())
        std::cerr << "pe-explorer-cli: note: " << why.toStdString() << "\n";
    if (threads > 0)
        backend->setThreads(threads);
    if (fallback)
        *fallback = why;
    return backend;
}

BackendRun computeOnBackend(const std::string& backendName, const Params& p, const Weights& w,
                            const PoolRequest* pool, int threads,
                            std::vector<std::pair<std::string, Tensor>> outputStorage) {
    QString fallback;
    auto backend = createOptionBackend(backendName, threads, &fallback);
    return computeOnBackend(*backend, fallback, p, w, pool, std::move(outputStorage));
}

BackendRun computeOnBackend(Backend& backend, QString fallback, const Params& p, const Weights& w,
                            const PoolRequest* pool,
                            std::vector<std::pair<std::string, Tensor>> outputStorage) {
    if (!outputStorage.empty())
        backend.provideOutputStorage(std::move(outputStorage));

    const auto tCompute = Clock::now();
    BackendRun ran{Error{"not computed"}, 0, {}, {}, {}};
    ran.trace =
        pool ? pooledAsTrace(backend, p, w, *pool, &ran.poolCells) : backend.compute(p, w, nullptr);
    ran.computeMs = msSince(tCompute);
    // A backend that handed this run to the CPU (GL with float64, a shader error, …) says so.
    ran.ranOn = backend.name();
    ran.device = backend.device();
    if (const QString why = backend.lastFallbackReason(); !why.isEmpty()) {
        std::cerr << "pe-explorer-cli: note: " << why.toStdString() << "\n";
        fallback = fallback.isEmpty() ? why : fallback + QStringLiteral("; ") + why;
        ran.ranOn = QStringLiteral("cpu");
        ran.device = QStringLiteral("CPU reference (fallback from %1)").arg(backend.device());
    }
    ran.fallback = fallback;
    return ran;
}

Expected<TraceInput> traceInputFromOptions(const TraceOptions& o) {
    try {
        TraceInput in;
        in.params = toParams(o);
        checkBackend(o);
        loadInputs(o, in.params, in.weights, in.tokens);
        in.weightsFile = o.weights;
        return in;
    } catch (const Failure& f) {
        return Error{f.message};
    }
}

Status completeTraceWeights(const TraceInput& in, const Params& p, Weights& w) {
    try {
        w = in.weights;
        completeInputs(in.weightsFile, p, w);
        return {};
    } catch (const Failure& f) {
        return Error{f.message};
    }
}

} // namespace pe
