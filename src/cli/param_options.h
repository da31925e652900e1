// SPDX-License-Identifier: MIT
#pragma once

/**
 * The options that describe one computation (--scheme … --dtype: parameters, weights, input,
 * backend), shared by `trace`, `render` and `insight`: declared on a command, mapped to
 * pe::Params, with --weights / --input / --text read and the missing weights generated; and the
 * computation itself on the --backend engine.
 */

#include <CLI/CLI.hpp>

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "expected.h"
#include "params.h"
#include "trace.h"
#include "weights.h"

namespace pe {

class Backend;      // backend.h
struct PoolRequest; // backend.h

/** Every option as typed on the command line (named for `trace`, whose options these are first;
 *  the trace-only ones, --tensors … --pool-mode, are ignored elsewhere) (strings are checked when
 * the command runs). */
struct TraceOptions {
    std::string preset; ///< (extension) --preset NAME, applied before the other options
    std::string scheme;
    int n = 16;
    int d = 64;
    int heads = 4;
    std::string norm = "softmax";
    std::string mask = "none";
    int validLen = -1;
    bool validLenGiven = false; ///< set when --valid-len appears on the command line
    int clip = 16;
    double base = 10000;
    std::string layout = "interleaved";
    std::string ropeConvention = "interleaved";
    int ropeDims = 0;
    std::string ropeScaling = "none";
    double ropeScale = 1.0;
    int buckets = 32;
    int maxDistance = 128;
    bool unidirectional = false;
    std::string alibiMode = "symmetric";
    std::string debertaTerms = "c2p,p2c";
    std::string p2cConvention = "code";
    bool debertaLogBuckets = false;
    int debertaBuckets = 256;
    int debertaMaxPosition = 512;
    int clampLen = 0;
    int maxPositions = 1024;
    int mlpFeatures = 8;
    int mlpHidden = 64;
    std::string urpeBias = "none";
    bool cls = false;
    bool sep = false;
    std::uint64_t seed = 0;
    std::string weights;
    std::string input;
    std::string text;
    std::string backend = "cpu";
    int threads = 0; ///< (extension) --threads N: the fast CPU engine's threads; 0 = one per core
    std::string dtype = "float32";
    std::string tensors;
    std::string out;
    std::string dumpWeights;
    int pool = 0; ///< (extension) --pool R: logits/weights pooled to at most R×R per head
    bool poolGiven = false;
    std::string poolMode = "mean";
};

/**
 * Declares the options that describe one computation (--scheme … --dtype: parameters, weights,
 * input, backend) on `cmd`, bound to `o`, none required; returns them. `trace` and `render`
 * share them.
 */
std::vector<CLI::Option*> addParameterOptions(CLI::App* cmd, TraceOptions& o);

/** Row-major tensor data (float or double) as an Eigen matrix; rank 1 becomes one row. */
Eigen::MatrixXd toMatrix(const Tensor& t);

/** One computation as the parameter options describe it, before the missing weights are made. */
struct TraceInput {
    Params params;
    Weights weights;                 ///< from --weights, and E from --input / --text
    std::vector<std::string> tokens; ///< labels of every position when --text is given
    std::string weightsFile;         ///< --weights, for error messages
};

/** Parses and checks the parameter options, reads --weights / --input / --text. */
Expected<TraceInput> traceInputFromOptions(const TraceOptions& o);

/**
 * `in`'s given weights completed for `p` (in.params, or a variant of it): checks the memory
 * the trace needs, generates the missing weights from the seed and checks every shape.
 */
Status completeTraceWeights(const TraceInput& in, const Params& p, Weights& w);

/** A computation on the --backend engine (cpu or gl); fallbacks are noted on stderr. */
struct BackendRun {
    Expected<Trace> trace;
    double computeMs = 0;
    QString ranOn;     ///< the engine that computed the trace
    QString device;    ///< its device description
    QString fallback;  ///< why the requested engine was not used, if so
    int poolCells = 0; ///< pooled runs: the cells per side of logits and weights
};
/**
 * The engine --backend names (cpu: the fast CPU engine; gl: OpenGL compute, else the CPU with a
 * note on stderr, the reason also in *fallback), with --threads applied when > 0.
 */
std::unique_ptr<Backend> createOptionBackend(const std::string& backend, int threads,
                                             QString* fallback = nullptr);
/**
 * With `pool`, logits and weights come pooled (PoolRequest) next to the O(n·d) tensors.
 * `threads` > 0 sets the engine's thread count (Backend::setThreads).
 */
BackendRun computeOnBackend(const std::string& backend, const Params& p, const Weights& w,
                            const PoolRequest* pool = nullptr, int threads = 0,
                            std::vector<std::pair<std::string, Tensor>> outputStorage = {});
/** The same on an engine made ahead by createOptionBackend, `fallback` being what it said. */
BackendRun computeOnBackend(Backend& backend, QString fallback, const Params& p, const Weights& w,
                            const PoolRequest* pool = nullptr,
                            std::vector<std::pair<std::string, Tensor>> outputStorage = {});

/**
 * The steps of traceInputFromOptions for a command that orders its own checks; each throws
 * CommandFailure (one line naming the option) instead of returning an Error.
 * paramsFromOptions: the enums parsed, --backend/--threads checked (no file read yet).
 * loadParameterInputs: --weights, --input / --text read into w and tokens (sets p.n), p validated.
 * completeParameterWeights: the memory check (pooled when `pool` is given), then
 * `afterMemoryCheck` if given (trace creates its output files there, so their page faults
 * overlap the weights' generation), missing weights generated from p.seed, every shape checked.
 */
Params paramsFromOptions(const TraceOptions& o);
void loadParameterInputs(const TraceOptions& o, Params& p, Weights& w,
                         std::vector<std::string>& tokens);
void completeParameterWeights(const std::string& weightsFile, const Params& p, Weights& w,
                              const PoolRequest* pool = nullptr,
                              const std::function<void()>& afterMemoryCheck = {});

} // namespace pe
