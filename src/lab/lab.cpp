// SPDX-License-Identifier: MIT
// The lab's options, the engine conventions of its layers, and a whole run.
#include "lab.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace pe::lab {

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
    if (o.checkEvery < 1)
        return fail("--until: checks need at least one step between them");
    if (o.scheme == Scheme::RoPE && (o.d / o.heads) % 2 != 0)
        return fail("--scheme rope: the head width d/heads must be even");
    Params p = layerParams(o, 0, o.trainLength);
    if (Status s = pe::validate(p); !s)
        return s;
    return Status::success();
}

std::uint64_t estimateTrainingBytes(const Options& o, const std::vector<int>& evalLengths) {
    // In doubles: the worst shapes overflow 64 bits of bytes.
    const double d = o.d, H = o.heads, layers = o.layers, B = o.batch, V = o.vocab + 1.0;
    const double L = o.trainLength;
    double longest = L;
    for (int n : evalLengths)
        longest = std::max(longest, static_cast<double>(n));
    const bool relativeTables = o.scheme == Scheme::Shaw || o.scheme == Scheme::TransformerXL ||
                                o.scheme == Scheme::DeBERTa;
    const double perPair = relativeTables ? 10.0 : 6.0; // n² tensors per head and layer
    // Embedding and unembedding, 4 d² of attention and 8 d² of MLP per layer, and room for the
    // schemes' own tables (Transformer-XL's W_r, DeBERTa's W_kr and W_qr, a learned table).
    const double params = 2.0 * V * d + layers * (16.0 * d * d + 16.0 * d) + longest * d;
    const double optimiser = 4.0 * params; // value, gradient, Adam's two moments
    const double train = layers * (perPair * B * H * L * L + 24.0 * B * L * d);
    const double chunk = std::min(64, o.evalSamples);
    const double eval = perPair * chunk * H * longest * longest + 24.0 * chunk * longest * d +
                        H * longest * longest; // the geometry (ALiBi's bias, masks)
    const double bytes = 4.0 * (optimiser + std::max(train, eval)) + 64.0 * (1 << 20);
    return bytes >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max()
                           : static_cast<std::uint64_t>(bytes);
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
