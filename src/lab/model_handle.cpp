// SPDX-License-Identifier: MIT
// The torch-free Model handle and the module (libpe-lab-torch.so) it forwards to, loaded with
// dlopen on first use.
#include "lab.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

namespace pe::lab {

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

std::thread preloadEngine() {
    static std::once_flag started;
    std::thread loader;
    std::call_once(started, [&loader] { loader = std::thread([] { (void)engineFactory(); }); });
    return loader;
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

} // namespace pe::lab
