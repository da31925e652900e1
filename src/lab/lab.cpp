// SPDX-License-Identifier: MIT
// The lab's torch-free half: tasks, options, batches, the run record.
#include "lab.h"

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

namespace pe::lab {

namespace {

constexpr std::array<std::pair<Task, std::string_view>, 5> kTaskNames{{
    {Task::Shift, "shift"},
    {Task::Copy, "copy"},
    {Task::Reverse, "reverse"},
    {Task::FirstToken, "first-token"},
    {Task::Sort, "sort"},
}};

/** splitmix64: the batch generator (small, and the same numbers on every platform). */
struct SplitMix {
    std::uint64_t x;
    std::uint64_t next() {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /** Uniform in [0, n) (n ≤ 2^20: the modulo bias is below 1e-13). */
    std::int64_t below(int n) {
        return static_cast<std::int64_t>(next() % static_cast<unsigned>(n));
    }
};

/** splitmix64's finaliser: a bijective 64-bit mix. */
std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

std::string_view toString(Task t) {
    for (const auto& [task, name] : kTaskNames)
        if (task == t)
            return name;
    return "shift";
}

std::optional<Task> taskFromString(std::string_view s) {
    for (const auto& [task, name] : kTaskNames)
        if (name == s)
            return task;
    return std::nullopt;
}

const std::vector<Task>& allTasks() {
    static const std::vector<Task> all{Task::Shift, Task::Copy, Task::Reverse, Task::FirstToken,
                                       Task::Sort};
    return all;
}

std::string describeTask(Task t) {
    switch (t) {
    case Task::Shift:
        return "shift-k: random tokens; at every position i >= k output the token at i - k";
    case Task::Copy:
        return "copy: the first half random, the second half blanks; output the first half again";
    case Task::Reverse:
        return "reverse: the first half random, the second half blanks; output the first half "
               "reversed";
    case Task::FirstToken:
        return "first-token: random tokens; at every position output the token at position 0";
    case Task::Sort:
        return "sort: the first half random, the second half blanks; output the first half sorted";
    }
    return {};
}

Status validate(const Options& o) {
    auto fail = [](const std::string& s) { return Status(Error{s}); };
    if (o.trainLength < 2 || o.trainLength > 512)
        return fail("--train-len: must be in [2, 512] (got " + std::to_string(o.trainLength) + ")");
    if (o.task == Task::Shift && (o.shift < 1 || o.shift >= o.trainLength))
        return fail("--shift: k must be in [1, L - 1] = [1, " + std::to_string(o.trainLength - 1) +
                    "] (got " + std::to_string(o.shift) + ")");
    if ((o.task == Task::Copy || o.task == Task::Reverse || o.task == Task::Sort) &&
        o.trainLength < 4)
        return fail("--train-len: " + std::string(toString(o.task)) + " needs L >= 4");
    if (o.vocab < 2 || o.vocab > 4096)
        return fail("--vocab: must be in [2, 4096] (got " + std::to_string(o.vocab) + ")");
    if (o.layers < 1 || o.layers > 4)
        return fail("--layers: must be in [1, 4] (got " + std::to_string(o.layers) + ")");
    if (o.d < 2 || o.d > 1024)
        return fail("--d: must be in [2, 1024] (got " + std::to_string(o.d) + ")");
    if (o.heads < 1 || o.d % o.heads != 0)
        return fail("--heads: must divide --d " + std::to_string(o.d) + " (got " +
                    std::to_string(o.heads) + ")");
    if (o.steps < 1 || o.steps > 1'000'000)
        return fail("--steps: must be in [1, 1000000] (got " + std::to_string(o.steps) + ")");
    if (o.batch < 1 || o.batch > 4096)
        return fail("--batch: must be in [1, 4096] (got " + std::to_string(o.batch) + ")");
    if (!(o.learningRate > 0 && o.learningRate <= 1))
        return fail("--lr: must be in (0, 1]");
    if (o.threads < 1 || o.threads > 256)
        return fail("--threads: must be in [1, 256]");
    if (o.logEvery < 1)
        return fail("--log-every: must be >= 1");
    if (o.evalSamples < 1 || o.evalSamples > 100000)
        return fail("--eval-samples: must be in [1, 100000]");
    if (o.clip < 1 || o.clip > 4096)
        return fail("--clip: must be in [1, 4096]");
    if (!(o.stopAccuracy >= 0 && o.stopAccuracy <= 1))
        return fail("--until: must be an accuracy in [0, 1] (0: train every step)");
    if (o.checkEvery < 1 || o.checkSamples < 1)
        return fail("--until: checks need at least one step and one sample");
    if (o.scheme == Scheme::RoPE && (o.d / o.heads) % 2 != 0)
        return fail("--scheme rope: the head width d/heads must be even");
    Params p = layerParams(o, 0, o.trainLength);
    if (Status s = pe::validate(p); !s)
        return s;
    return Status::success();
}

std::vector<int> defaultEvalLengths(int trainLength) {
    const int l = std::max(1, trainLength);
    return {l, (3 * l + 1) / 2, 2 * l, 4 * l};
}

Params layerParams(const Options& o, int layer, int n) {
    Params p;
    p.scheme = layer > 0 && isAbsolute(o.scheme) ? Scheme::None : o.scheme;
    p.n = n;
    p.d = o.d;
    p.heads = o.heads;
    p.norm = Normaliser::Softmax;
    p.mask = MaskKind::Causal;
    p.clip = o.clip;
    p.unidirectional = true; // a decoder: T5's causal buckets
    p.alibiMode = AlibiMode::Causal;
    p.learnedRows = o.trainLength;
    p.seed = o.seed + static_cast<std::uint64_t>(layer);
    p.precision = Precision::Float32;
    return p;
}

Batch makeBatch(const Options& o, int length, int batch, std::uint64_t stream,
                std::uint64_t index) {
    Batch b;
    b.batch = batch;
    b.length = length;
    const std::size_t total = static_cast<std::size_t>(batch) * static_cast<std::size_t>(length);
    b.tokens.assign(total, 0);
    b.targets.assign(total, -1);
    // Every (seed, stream, index) starts far from every other: states that differ by a few
    // golden-ratio steps would make consecutive batches shifted copies of one another.
    SplitMix rng{mix64(o.seed ^ mix64(stream * 0xD1B54A32D192ED03ull ^ mix64(index)))};
    const int half = length / 2;
    std::vector<std::int64_t> first(static_cast<std::size_t>(half));
    for (int r = 0; r < batch; ++r) {
        std::int64_t* x = b.tokens.data() + static_cast<std::ptrdiff_t>(r) * length;
        std::int64_t* y = b.targets.data() + static_cast<std::ptrdiff_t>(r) * length;
        switch (o.task) {
        case Task::Shift:
        case Task::FirstToken:
            for (int i = 0; i < length; ++i)
                x[i] = rng.below(o.vocab);
            for (int i = 0; i < length; ++i)
                if (o.task == Task::FirstToken)
                    y[i] = i >= 1 ? x[0] : -1;
                else
                    y[i] = i >= o.shift ? x[i - o.shift] : -1;
            break;
        case Task::Copy:
        case Task::Reverse:
        case Task::Sort:
            for (int i = 0; i < half; ++i)
                first[static_cast<std::size_t>(i)] = x[i] = rng.below(o.vocab);
            for (int i = half; i < length; ++i)
                x[i] = blankToken(o);
            if (o.task == Task::Sort)
                std::sort(first.begin(), first.end());
            for (int i = half; i < 2 * half; ++i)
                y[i] = o.task == Task::Reverse ? first[static_cast<std::size_t>(2 * half - 1 - i)]
                                               : first[static_cast<std::size_t>(i - half)];
            break;
        }
    }
    return b;
}

std::string tokensText(const Options& o, const std::vector<std::int64_t>& tokens) {
    std::string s;
    for (std::int64_t t : tokens) {
        if (!s.empty())
            s += ' ';
        s += t == blankToken(o) ? std::string("_") : std::to_string(t);
    }
    return s;
}

namespace {
nlohmann::json optionsJson(const Options& o) {
    return {{"task", std::string(toString(o.task))},
            {"shift", o.shift},
            {"vocab", o.vocab},
            {"scheme", std::string(pe::toString(o.scheme))},
            {"layers", o.layers},
            {"d", o.d},
            {"heads", o.heads},
            {"train_len", o.trainLength},
            {"steps", o.steps},
            {"batch", o.batch},
            {"lr", o.learningRate},
            {"seed", o.seed},
            {"threads", o.threads},
            {"log_every", o.logEvery},
            {"eval_samples", o.evalSamples},
            {"clip", o.clip},
            {"until", o.stopAccuracy}};
}
} // namespace

std::string optionsToJson(const Options& o) {
    return optionsJson(o).dump();
}

Expected<Options> optionsFromJson(const std::string& text) {
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        Options o;
        const auto task = taskFromString(j.at("task").get<std::string>());
        const auto scheme = schemeFromString(j.at("scheme").get<std::string>());
        if (!task || !scheme)
            return Error{"unknown task or scheme in the model's options"};
        o.task = *task;
        o.scheme = *scheme;
        o.shift = j.at("shift").get<int>();
        o.vocab = j.at("vocab").get<int>();
        o.layers = j.at("layers").get<int>();
        o.d = j.at("d").get<int>();
        o.heads = j.at("heads").get<int>();
        o.trainLength = j.at("train_len").get<int>();
        o.steps = j.at("steps").get<int>();
        o.batch = j.at("batch").get<int>();
        o.learningRate = j.at("lr").get<double>();
        o.seed = j.at("seed").get<std::uint64_t>();
        o.threads = j.value("threads", 1);
        o.logEvery = j.value("log_every", 10);
        o.evalSamples = j.value("eval_samples", 256);
        o.clip = j.value("clip", 16);
        o.stopAccuracy = j.value("until", 0.0);
        if (Status s = validate(o); !s)
            return s.error();
        return o;
    } catch (const std::exception& e) {
        return Error{std::string("the model's options are not valid JSON: ") + e.what()};
    }
}

std::string runJson(const RunRecord& r) {
    nlohmann::json curves = nlohmann::json::array();
    for (const CurvePoint& c : r.curves)
        curves.push_back({{"step", c.step}, {"loss", c.loss}, {"accuracy", c.accuracy}});
    auto evalObject = [](const EvalRow& row) {
        nlohmann::json e = nlohmann::json::object();
        for (const EvalPoint& p : row.points)
            e[std::to_string(p.length)] =
                p.accuracy ? nlohmann::json(*p.accuracy) : nlohmann::json(nullptr);
        return e;
    };
    nlohmann::json j{
        {"format", "pe-explorer-lab-run"},
        {"version", 1},
        {"options", optionsJson(r.options)},
        {"task", describeTask(r.options.task)},
        {"curves", curves},
        {"eval", r.eval.empty() ? nlohmann::json::object() : evalObject(r.eval.front())},
        {"seconds", r.seconds},
        {"steps_done", r.stepsDone},
        {"stopped_early", r.stoppedEarly},
        {"trace_arguments", traceArguments(r.options)}};
    if (r.eval.size() > 1) {
        nlohmann::json variants = nlohmann::json::object();
        for (std::size_t i = 1; i < r.eval.size(); ++i)
            variants[r.eval[i].name] = evalObject(r.eval[i]);
        j["eval_variants"] = variants;
    }
    return j.dump(2) + "\n";
}

std::string traceArguments(const Options& o) {
    std::ostringstream s;
    s << "--scheme " << pe::toString(o.scheme) << " --d " << o.d << " --heads " << o.heads
      << " --mask causal";
    switch (o.scheme) {
    case Scheme::T5:
        s << " --unidirectional";
        break;
    case Scheme::ALiBi:
        s << " --alibi-mode causal";
        break;
    case Scheme::Shaw:
    case Scheme::DeBERTa:
        s << " --clip " << o.clip;
        break;
    default:
        break;
    }
    return s.str();
}

// ---- The torch module -------------------------------------------------------------------

namespace {

#ifndef PE_LAB_MODULE_NAME
#define PE_LAB_MODULE_NAME "libpe-lab-torch.so"
#endif

/** Where the module may be, in order. */
std::vector<std::filesystem::path> moduleCandidates() {
    std::vector<std::filesystem::path> c;
    if (const char* env = std::getenv("PE_LAB_MODULE"); env && *env)
        c.emplace_back(env);
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        c.push_back(exe.parent_path() / ".." / "lib" / "pe-explorer" / PE_LAB_MODULE_NAME);
        c.push_back(exe.parent_path() / PE_LAB_MODULE_NAME);
    }
#ifdef PE_LAB_MODULE_BUILD_PATH
    c.emplace_back(PE_LAB_MODULE_BUILD_PATH); // the build tree's, for tests and uninstalled runs
#endif
    return c;
}

std::once_flag g_loadOnce;
EngineFactory* g_factory = nullptr;
std::string g_loadError;

void loadModule() {
    std::string tried;
    for (const std::filesystem::path& p : moduleCandidates()) {
        std::error_code ec;
        if (!std::filesystem::exists(p, ec))
            continue;
        void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            tried += (tried.empty() ? "" : "; ") + p.string() + ": " + (why ? why : "?");
            continue;
        }
        using Entry = EngineFactory* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, "pe_lab_engine_factory"));
        if (!entry) {
            tried += (tried.empty() ? "" : "; ") + p.string() + ": no pe_lab_engine_factory";
            continue;
        }
        g_factory = entry(); // the module stays loaded for the life of the process
        return;
    }
    g_loadError = "the learning lab's engine (" PE_LAB_MODULE_NAME ", libtorch) is not installed" +
                  (tried.empty() ? std::string() : " or failed to load: " + tried);
}

} // namespace

Expected<EngineFactory*> engineFactory() {
    std::call_once(g_loadOnce, loadModule);
    if (!g_factory)
        return Error{g_loadError};
    return g_factory;
}

bool engineAvailable() {
    for (const std::filesystem::path& p : moduleCandidates()) {
        std::error_code ec;
        if (std::filesystem::exists(p, ec))
            return true;
    }
    return false;
}

void preloadEngine() {
    // One loader thread at most, joined when the process ends (never detached: exiting while
    // the dynamic loader runs would be undefined).
    struct Loader {
        std::thread thread;
        ~Loader() {
            if (thread.joinable())
                thread.join();
        }
    };
    static Loader loader;
    static std::once_flag started;
    std::call_once(started, [] { loader.thread = std::thread([] { (void)engineFactory(); }); });
}

// ---- Model: the torch-free handle ---------------------------------------------------------

Model::Model(std::unique_ptr<ModelEngine> engine)
    : m(std::move(engine)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Expected<Model> Model::create(const Options& o) {
    if (Status s = validate(o); !s)
        return s.error();
    auto factory = engineFactory();
    if (!factory)
        return factory.error();
    auto engine = (*factory)->create(o);
    if (!engine)
        return engine.error();
    return Model(std::move(*engine));
}

Expected<Model> Model::load(const std::string& path) {
    auto factory = engineFactory();
    if (!factory)
        return factory.error();
    auto engine = (*factory)->load(path);
    if (!engine)
        return engine.error();
    return Model(std::move(*engine));
}

const Options& Model::options() const {
    return m->options();
}

Expected<std::vector<CurvePoint>> Model::train(const Progress& progress,
                                               const std::atomic<bool>* cancel) {
    return m->train(progress, cancel);
}

int Model::stepsDone() const {
    return m->stepsDone();
}

std::optional<double> Model::evaluate(int length, RopeScaling scaling, double scale,
                                      const std::atomic<bool>* cancel, int samples) {
    return m->evaluate(length, scaling, scale, cancel, samples);
}

std::vector<EvalRow> Model::evaluateAll(const std::vector<int>& lengths,
                                        const std::atomic<bool>* cancel) {
    const Options& o = options();
    std::vector<EvalRow> rows{{std::string(pe::toString(o.scheme)), {}}};
    for (int len : lengths)
        rows[0].points.push_back({len, evaluate(len, RopeScaling::None, 1.0, cancel)});
    if (o.scheme == Scheme::RoPE) {
        for (RopeScaling sc : {RopeScaling::PI, RopeScaling::NTK}) {
            if (sc == RopeScaling::NTK && o.d / o.heads < 4)
                continue; // NTK scaling needs d_rot >= 4
            EvalRow row{"rope + " + std::string(pe::toString(sc)), {}};
            for (int len : lengths) {
                const double s = std::max(1.0, static_cast<double>(len) / o.trainLength);
                row.points.push_back({len, s > 1.0 ? evaluate(len, sc, s, cancel)
                                                   : rows[0].points[row.points.size()].accuracy});
            }
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

std::vector<std::int64_t> Model::predict(const std::vector<std::int64_t>& tokens) {
    const std::vector<float> logits = outputLogits(tokens);
    std::vector<std::int64_t> out;
    const int V = options().vocab;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const float* row = logits.data() + i * static_cast<std::size_t>(V);
        out.push_back(std::max_element(row, row + V) - row);
    }
    return out;
}

std::vector<float> Model::outputLogits(const std::vector<std::int64_t>& tokens) {
    return m->outputLogits(tokens);
}

std::vector<LayerView> Model::layerViews(const std::vector<std::int64_t>& tokens) {
    return m->layerViews(tokens);
}

std::vector<float> Model::attentionWeights(const std::vector<std::int64_t>& tokens, int layer) {
    return m->attentionWeights(tokens, layer);
}

std::vector<float> Model::attentionLogits(const std::vector<std::int64_t>& tokens, int layer) {
    return m->attentionLogits(tokens, layer);
}

Status Model::save(const std::string& path, const std::vector<std::int64_t>& sample) {
    return m->save(path, sample);
}

Expected<Run> runExperiment(const Options& o, const std::vector<int>& lengths,
                            const Model::Progress& progress, const std::atomic<bool>* cancel) {
    if (Status s = validate(o); !s)
        return s.error();
    for (int len : lengths)
        if (len < 2 || len > 8192)
            return Error{"--eval-lens: every length must be in [2, 8192] (got " +
                         std::to_string(len) + ")"};
    auto model = Model::create(o);
    if (!model)
        return model.error();
    Run run;
    run.record.options = o;
    const auto start = std::chrono::steady_clock::now();
    auto curves = model->train(progress, cancel);
    run.record.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!curves)
        return curves.error();
    run.record.curves = std::move(*curves);
    run.record.stepsDone = model->stepsDone();
    run.record.stoppedEarly = model->stepsDone() < o.steps;
    run.record.eval = model->evaluateAll(lengths, cancel);
    if (cancel && cancel->load())
        return Error{"cancelled"};
    run.sample = makeBatch(o, o.trainLength, 1, 3, 0).tokens;
    run.model.emplace(std::move(*model));
    return run;
}

} // namespace pe::lab
