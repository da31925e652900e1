// SPDX-License-Identifier: MIT
#pragma once

/**
 * The learning lab: small decoder-only attention models trained on synthetic tasks with one
 * position scheme, evaluated at and past the training length (docs/lab.md).
 *
 * This header is torch-free: the window, the CLI and the tests include it without PyTorch's
 * headers; lab_model.cpp alone holds the libtorch code.
 *
 * The model, for a sequence of ℓ tokens x_i from a vocabulary of V symbols plus a blank:
 *   h_0 = Embedding[x]                                                        [ℓ, d]
 *   layer l = 1 … layers (pre-norm):
 *     E   = LayerNorm₁(h_{l−1});  X = E (+ P for an absolute scheme, at layer 1 only)
 *     A   = attention(X) exactly as the engine computes it (pe::computeTrace: causal mask,
 *           softmax, the scheme's own tables; its "out" = concat(head_out)·W_o)
 *     h   = h_{l−1} + (X − E) + A;  h_l = h + W₂·GELU(W₁·LayerNorm₂(h) + b₁) + b₂
 *   logits = LayerNorm(h_L)·U + c                                             [ℓ, V]
 * so E of layer l, with that layer's weights, reproduces its attention in
 * every view of the explorer and in `pe-explorer-cli trace`.
 */

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "expected.h"
#include "params.h"
#include "weights.h"

namespace pe::lab {

enum class Task { Shift, Copy, Reverse, FirstToken, Sort };

/** "shift", "copy", "reverse", "first-token", "sort", and back. */
std::string_view toString(Task t);
std::optional<Task> taskFromString(std::string_view s);
const std::vector<Task>& allTasks();
/** One line per task: what the model must output at which positions. */
std::string describeTask(Task t);

/** One training run's options (`pe-explorer-cli train`'s flags). */
struct Options {
    Task task = Task::Shift;
    int shift = 3;  ///< k of shift-k: 1 ≤ k < L
    int vocab = 16; ///< V data symbols (the blank comes on top)
    Scheme scheme = Scheme::T5;
    int layers = 2; ///< 1 … 4
    int d = 64;
    int heads = 4;
    int trainLength = 32; ///< L; each step draws its length from [⌈L/2⌉, L]
    int steps = 1000;
    int batch = 32;
    double learningRate = 1e-2; ///< Adam, linear warm-up over the first 5% of steps
    std::uint64_t seed = 0;
    int threads = 1;       ///< intra-op threads; training is deterministic for a seed and count
    int logEvery = 10;     ///< a curve point every logEvery steps (and at the last step)
    int evalSamples = 256; ///< sequences per evaluation length
    int clip = 16;         ///< Shaw clip k, DeBERTa span k
    /** > 0: stop once the accuracy at L (the evaluation's own evalSamples sequences, so the
     *  reported accuracy is the one that stopped it; every checkEvery steps) reaches it; the
     *  learning-rate schedule stays that of `steps`. */
    double stopAccuracy = 0;
    int checkEvery = 100;
};

/** Checks the options; the error names the `train` option at fault. */
Status validate(const Options& o);

/**
 * The memory a run needs at its peak, estimated from its shapes (float32), so that a run too
 * large for the machine is refused before it starts: the parameters with their gradients and
 * Adam's two moments, plus the larger of a training step's activations (every layer's, kept
 * for the backward pass: about 6 tensors of batch × heads × L² per layer, 10 for the schemes
 * with relative tables, and 24 of batch × L × d) and an evaluation chunk's (64 sequences at the
 * longest of `evalLengths`, no gradients, one layer at a time), plus 64 MB for the library.
 * Over-estimates small runs (the library pools its buffers) and is exact in its growth: n² ·
 * batch · heads · layers.
 */
std::uint64_t estimateTrainingBytes(const Options& o, const std::vector<int>& evalLengths);

/** The evaluation lengths L, 1.5L, 2L, 4L (1.5L rounded up). */
std::vector<int> defaultEvalLengths(int trainLength);

/** Params of layer `layer` (0-based) of the model at sequence length n (engine conventions). */
Params layerParams(const Options& o, int layer, int n);

/** One synthetic batch: tokens and targets, row-major [batch, length]; target −1: not scored. */
struct Batch {
    int batch = 0, length = 0;
    std::vector<std::int64_t> tokens, targets;
};
/** The batch drawn from (seed, stream, index): the same numbers on every platform. */
Batch makeBatch(const Options& o, int length, int batch, std::uint64_t stream, std::uint64_t index);
/** The blank token's id (V): the input at positions whose answer the model must produce. */
inline int blankToken(const Options& o) {
    return o.vocab;
}
/** "7 3 12 _ _": a token sequence as the explorer's typed-text input. */
std::string tokensText(const Options& o, const std::vector<std::int64_t>& tokens);

struct CurvePoint {
    int step = 0;
    double loss = 0;     ///< mean cross-entropy over the logged steps
    double accuracy = 0; ///< token accuracy over the logged steps, 0 … 1
};

/** Accuracy at one length; nullopt where the scheme has no positions that far. */
struct EvalPoint {
    int length = 0;
    std::optional<double> accuracy;
};

/** One row of the evaluation table: "t5", or "rope + pi" / "rope + ntk" for RoPE's stretches. */
struct EvalRow {
    std::string name;
    std::vector<EvalPoint> points;
};

/** One layer's attention in the engine's terms: params.n = the sample's length, weights.E its
 * input. */
struct LayerView {
    Params params;
    Weights weights;
};

/** The run's record (run.json). */
struct RunRecord {
    Options options;
    std::vector<CurvePoint> curves;
    std::vector<EvalRow> eval; ///< first row: the model as trained
    double seconds = 0;        ///< training wall-clock
    int stepsDone = 0;
    bool stoppedEarly = false; ///< stopAccuracy reached before options.steps
};

/** The options as the model file's metadata holds them (JSON), and back (validated). */
std::string optionsToJson(const Options& o);
Expected<Options> optionsFromJson(const std::string& text);

/** run.json's text: {"options", "curves", "eval" (length string → accuracy or null), "seconds", …}.
 */
std::string runJson(const RunRecord& r);

using Progress = std::function<void(const CurvePoint&)>;

/**
 * The libtorch half of a model (lab_model.cpp). It lives in a module, libpe-lab-torch.so,
 * loaded on first use: PyTorch's libraries take a second to load and register, a cost the CLI's
 * other commands and the window's start must not pay. Model is the torch-free handle.
 */
class ModelEngine {
public:
    virtual ~ModelEngine() = default;
    virtual const Options& options() const = 0;
    virtual Expected<std::vector<CurvePoint>> train(const Progress& progress,
                                                    const std::atomic<bool>* cancel) = 0;
    virtual int stepsDone() const = 0;
    virtual std::optional<double> evaluate(int length, RopeScaling scaling, double scale,
                                           const std::atomic<bool>* cancel, int samples) = 0;
    virtual std::vector<float> outputLogits(const std::vector<std::int64_t>& tokens) = 0;
    virtual std::vector<LayerView> layerViews(const std::vector<std::int64_t>& tokens) = 0;
    virtual std::vector<float> attentionWeights(const std::vector<std::int64_t>& tokens,
                                                int layer) = 0;
    virtual std::vector<float> attentionLogits(const std::vector<std::int64_t>& tokens,
                                               int layer) = 0;
    virtual Status save(const std::string& path, const std::vector<std::int64_t>& sample) = 0;
};

/** What the module exports (extern "C" pe_lab_engine_factory). */
class EngineFactory {
public:
    virtual ~EngineFactory() = default;
    virtual Expected<std::unique_ptr<ModelEngine>> create(const Options& o) = 0;
    virtual Expected<std::unique_ptr<ModelEngine>> load(const std::string& path) = 0;
};

/**
 * The module's factory, loaded once (thread-safe): from $PE_LAB_MODULE, else beside the
 * installed binaries (../lib/pe-explorer/), else the build tree's. The error says where it
 * looked and why it failed.
 */
Expected<EngineFactory*> engineFactory();
/** Whether the module's file is there (without loading it). */
bool engineAvailable();
/**
 * Starts loading the module on a thread, so that a first Train or Load does not wait; the first
 * call returns that thread, later ones an empty one. The caller must join it before the process
 * exits: libtorch's static initialisers must not run while exit() destroys statics.
 */
std::thread preloadEngine();

class Model {
public:
    /** A fresh model: weights from the engine's seeded generator (completeWeights) per layer. */
    static Expected<Model> create(const Options& o);
    /** A model saved by save(); its options come from the file's metadata. */
    static Expected<Model> load(const std::string& path);
    Model(Model&&) noexcept;
    Model& operator=(Model&&) noexcept;
    ~Model();

    const Options& options() const;

    using Progress = lab::Progress;
    /**
     * Trains options().steps steps (Adam), reporting a curve point every logEvery steps.
     * Polls `cancel` every step: a cancelled run returns Error "cancelled" and keeps the weights
     * reached so far. Returns the curve.
     */
    Expected<std::vector<CurvePoint>> train(const Progress& progress = {},
                                            const std::atomic<bool>* cancel = nullptr);

    /**
     * Token accuracy at `length` over options().evalSamples sequences (stream "eval"); nullopt
     * where the scheme has no positions that far (a learned table or URPE's C past L).
     * `scaling`/`scale`: RoPE's context stretching for this evaluation.
     */
    std::optional<double> evaluate(int length, RopeScaling scaling = RopeScaling::None,
                                   double scale = 1.0, const std::atomic<bool>* cancel = nullptr,
                                   int samples = 0 /* 0: options().evalSamples */);
    /** Steps trained so far (fewer than options().steps after an early stop). */
    int stepsDone() const;
    /** The table's rows for these lengths (RoPE adds "rope + pi" and "rope + ntk", s = ℓ/L). */
    std::vector<EvalRow> evaluateAll(const std::vector<int>& lengths,
                                     const std::atomic<bool>* cancel = nullptr);

    /** Predicted token per position for one sequence. */
    std::vector<std::int64_t> predict(const std::vector<std::int64_t>& tokens);
    /** Output logits [ℓ, V] for one sequence, row-major. */
    std::vector<float> outputLogits(const std::vector<std::int64_t>& tokens);

    /** Every layer's attention on `tokens` as the engine sees it (weights.E = the layer's input).
     */
    std::vector<LayerView> layerViews(const std::vector<std::int64_t>& tokens);
    /** The attention of layer `layer` on `tokens`, per head row-major [heads, ℓ, ℓ]. */
    std::vector<float> attentionWeights(const std::vector<std::int64_t>& tokens, int layer);
    std::vector<float> attentionLogits(const std::vector<std::int64_t>& tokens, int layer);

    /**
     * Writes the model as .safetensors: the trace contract's names for the attention weights
     * (unprefixed for one layer, "layers.<l>." for more), `E` = the sample input's embeddings
     * for a one-layer model (so `trace --weights` reproduces the lab's attention), and the lab's
     * own tensors under "lab."; the options in the metadata.
     */
    Status save(const std::string& path, const std::vector<std::int64_t>& sample);

private:
    explicit Model(std::unique_ptr<ModelEngine> engine);
    std::unique_ptr<ModelEngine> m;
};

/** A full run: create, train, evaluate at `lengths`; the model stays available for views. */
struct Run {
    RunRecord record;
    std::optional<Model> model;
    std::vector<std::int64_t> sample; ///< the task's sample input at length L
};
Expected<Run> runExperiment(const Options& o, const std::vector<int>& lengths,
                            const Model::Progress& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

/** The `trace` options that reproduce a saved one-layer model's attention ("--scheme t5 …"). */
std::string traceArguments(const Options& o);

} // namespace pe::lab
