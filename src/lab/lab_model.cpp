// SPDX-License-Identifier: MIT
// The lab's libtorch half: the model, its training and evaluation. The only file of the project
// that includes PyTorch's headers (~20 s to compile).
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "encodings.h"
#include "lab.h"
#include "safetensors.h"

// OpenBLAS, under libtorch's CPU matrix products on Debian: its own thread count changes the
// order of the sums, so it is pinned with torch's (weak: absent with another BLAS).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace pe::lab {

namespace {

using TT = torch::Tensor;

/** Every thread count that changes the numbers: torch's intra-op pool and OpenBLAS's. */
void setThreads(int n) {
    torch::set_num_threads(n);
    if (openblas_set_num_threads)
        openblas_set_num_threads(n);
}

TT fromEigen(const Eigen::MatrixXd& m) {
    TT t = torch::empty({m.rows(), m.cols()}, torch::kFloat32);
    auto a = t.accessor<float, 2>();
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            a[r][c] = static_cast<float>(m(r, c));
    return t;
}

Eigen::MatrixXd toEigen(const TT& t) {
    const TT c = t.detach().to(torch::kFloat64).contiguous();
    const Eigen::Index rows = c.dim() == 1 ? 1 : c.size(0);
    const Eigen::Index cols = c.dim() == 1 ? c.size(0) : c.size(1);
    return Eigen::Map<const MatrixXdR>(c.data_ptr<double>(), rows, cols);
}

TT indexTensor(int n, const std::function<std::int64_t(int, int)>& f) {
    TT t = torch::empty({n, n}, torch::kInt64);
    auto a = t.accessor<std::int64_t, 2>();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            a[i][j] = f(i, j);
    return t;
}

/** The position-only tensors of the model at one sequence length (and RoPE stretch). */
struct Geometry {
    int n = 0;
    TT masked;           ///< [n, n] bool: key j after query i
    TT shawIdx, shawOH;  ///< [n, n] clip(j−i)+k; [n, n, 2k+1] its one-hot
    TT t5Idx;            ///< [n·n] bucket of j − i
    TT alibi;            ///< [H, n, n] −m_h (i − j)
    TT txlR, txlIdx;     ///< [2n−1, d] R_t rows t + n − 1; [n, n] (i − j) + n − 1
    TT debC2P, debP2CT;  ///< [n, n] δ(i − j); [n, n] (j, i) ↦ p2c index of (i, j)
    TT urpeIdx;          ///< [n·n] (j − i) + L − 1 into urpe.c's 2L − 1 columns
    TT ropeCos, ropeSin; ///< [n, d_rot/2]
    TT P;                ///< [n, d] sinusoid
    TT phi;              ///< [n, 2F] mlp Fourier features
};

Geometry makeGeometry(const Options& o, const Params& p) {
    const int n = p.n;
    Geometry g;
    g.n = n;
    g.masked = torch::ones({n, n}, torch::kBool).triu(1);
    switch (p.scheme) {
    case Scheme::Shaw:
        g.shawIdx = indexTensor(n, [&](int i, int j) { return shawIndex(i, j, p.clip); });
        g.shawOH = torch::one_hot(g.shawIdx, 2 * p.clip + 1).to(torch::kFloat32);
        break;
    case Scheme::T5:
        g.t5Idx = indexTensor(n, [&](int i, int j) {
                      return t5Bucket(j - i, !p.unidirectional, p.buckets, p.maxDistance);
                  }).flatten();
        break;
    case Scheme::ALiBi: {
        const std::vector<double> slopes = alibiSlopes(p.heads);
        g.alibi = torch::empty({p.heads, n, n}, torch::kFloat32);
        auto a = g.alibi.accessor<float, 3>();
        for (int h = 0; h < p.heads; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    a[h][i][j] = static_cast<float>(-slopes[static_cast<std::size_t>(h)] * (i - j));
        break;
    }
    case Scheme::TransformerXL: {
        Eigen::MatrixXd R(2 * n - 1, p.d);
        for (int t = -(n - 1); t <= n - 1; ++t)
            R.row(t + n - 1) =
                txlRelativeSinusoid(p.txlClampLen > 0 ? std::min(t, p.txlClampLen) : t, p.d);
        g.txlR = fromEigen(R);
        g.txlIdx = indexTensor(n, [n](int i, int j) { return (i - j) + n - 1; });
        break;
    }
    case Scheme::DeBERTa:
        g.debC2P = indexTensor(n, [&](int i, int j) { return debertaIndex(i - j, p); });
        g.debP2CT = indexTensor(n, [&](int j, int i) {
            return p.p2cConvention == P2CConvention::Code ? debertaIndex(i - j, p)
                                                          : debertaIndex(j - i, p);
        });
        break;
    case Scheme::URPE: {
        const int L = o.trainLength;
        g.urpeIdx = indexTensor(n, [L](int i, int j) { return (j - i) + L - 1; }).flatten();
        break;
    }
    case Scheme::RoPE: {
        const RopeFrequencies f = ropeFrequencies(p);
        const int half = static_cast<int>(f.theta.size());
        Eigen::MatrixXd c(n, half), s(n, half);
        for (int i = 0; i < n; ++i)
            for (int m = 0; m < half; ++m) {
                c(i, m) = std::cos(f.angle(i, m));
                s(i, m) = std::sin(f.angle(i, m));
            }
        g.ropeCos = fromEigen(c);
        g.ropeSin = fromEigen(s);
        break;
    }
    case Scheme::Sinusoidal:
        g.P = fromEigen(sinusoidal(n, p.d, p.base, p.layout));
        break;
    case Scheme::Mlp:
        g.phi = fromEigen(mlpFourierFeatures(n, p.mlpFeatures, p.base));
        break;
    default:
        break;
    }
    return g;
}

/** RoPE on x [B, H, n, d_h] with cos/sin [n, half], pairs per `conv`. */
TT rotate(const TT& x, const Geometry& g, RopeConvention conv) {
    const std::int64_t half = g.ropeCos.size(1);
    using torch::indexing::Slice;
    TT a, b;
    if (conv == RopeConvention::Interleaved) {
        a = x.index({Slice(), Slice(), Slice(), Slice(0, 2 * half, 2)});
        b = x.index({Slice(), Slice(), Slice(), Slice(1, 2 * half, 2)});
    } else {
        a = x.index({Slice(), Slice(), Slice(), Slice(0, half)});
        b = x.index({Slice(), Slice(), Slice(), Slice(half, 2 * half)});
    }
    const TT ra = a * g.ropeCos - b * g.ropeSin;
    const TT rb = b * g.ropeCos + a * g.ropeSin;
    const TT rest = x.index({Slice(), Slice(), Slice(), Slice(2 * half, torch::indexing::None)});
    TT rotated = conv == RopeConvention::Interleaved ? torch::stack({ra, rb}, -1).flatten(-2)
                                                     : torch::cat({ra, rb}, -1);
    return rest.size(-1) > 0 ? torch::cat({rotated, rest}, -1) : rotated;
}

/** What a forward pass keeps of one layer for the views. */
struct Capture {
    TT input;   ///< [n, d] the layer's E (before P)
    TT logits;  ///< [H, n, n] masked
    TT weights; ///< [H, n, n]
};

} // namespace

struct TorchState {
    Options o;
    /** Per layer: the attention tensors under their trace names (as Weights holds them, 2-D),
     *  and the lab's own (ln1, mlp, ln2). */
    std::vector<std::map<std::string, TT>> attn;
    std::vector<std::map<std::string, TT>> block;
    TT embedding, unembed, unembedBias;
    std::map<int, Geometry> cache; ///< training lengths, no stretch
    int stepsDone = 0;

    std::vector<TT> parameters() {
        std::vector<TT> all{embedding, unembed, unembedBias};
        for (auto* group : {&attn, &block})
            for (auto& layer : *group)
                for (auto& [name, t] : layer)
                    all.push_back(t);
        return all;
    }

    const Geometry& geometry(int n) {
        auto it = cache.find(n);
        if (it == cache.end())
            it = cache.emplace(n, makeGeometry(o, layerParams(o, 0, n))).first;
        return it->second;
    }

    TT attention(int l, const Params& p, const Geometry& g, const TT& X, Capture* cap) {
        std::map<std::string, TT>& w = attn[static_cast<std::size_t>(l)];
        const std::int64_t B = X.size(0), n = X.size(1), H = p.heads, dh = p.headDim();
        auto heads = [&](const TT& Y) { return Y.view({B, n, H, dh}).permute({0, 2, 1, 3}); };
        TT q = heads(X.matmul(w["W_q"])), k = heads(X.matmul(w["W_k"])),
           v = heads(X.matmul(w["W_v"]));
        if (p.scheme == Scheme::RoPE) {
            q = rotate(q, g, p.ropeConvention);
            k = rotate(k, g, p.ropeConvention);
        }
        const double s = 1.0 / std::sqrt(static_cast<double>(dh));
        const TT content = q.matmul(k.transpose(-1, -2)); // [B, H, n, n]
        TT S;
        switch (p.scheme) {
        case Scheme::Shaw: {
            const TT qw = q.matmul(w["shaw.w_k"].t()); // [B, H, n, 2k+1]
            S = (content + qw.gather(3, g.shawIdx.expand({B, H, n, n}))) * s;
            break;
        }
        case Scheme::TransformerXL: {
            const TT u = w["txl.u"].view({1, H, 1, dh}), vb = w["txl.v"].view({1, H, 1, dh});
            const TT ac = content + (k * u).sum(-1).unsqueeze(2);
            const TT Rp = g.txlR.matmul(w["txl.W_r"]).view({2 * n - 1, H, dh}).permute({1, 0, 2});
            const TT Bm = (q + vb).matmul(Rp.transpose(-1, -2).unsqueeze(0)); // [B, H, n, 2n−1]
            S = (ac + Bm.gather(3, g.txlIdx.expand({B, H, n, n}))) * s;
            break;
        }
        case Scheme::T5:
            S = content + w["t5.table"].index_select(0, g.t5Idx).view({n, n, H}).permute({2, 0, 1});
            break;
        case Scheme::ALiBi:
            S = content * s + g.alibi;
            break;
        case Scheme::DeBERTa: {
            const double sc = 1.0 / std::sqrt(static_cast<double>(dh) * (1 + p.debertaTerms()));
            const TT rel = w["deberta.rel"];
            const std::int64_t R = rel.size(0);
            S = content * sc;
            if (p.debertaC2P) {
                const TT Kr = rel.matmul(w["deberta.W_kr"]).view({R, H, dh}).permute({1, 0, 2});
                const TT qk = q.matmul(Kr.transpose(-1, -2)); // [B, H, n, 2 span]
                S = S + qk.gather(3, g.debC2P.expand({B, H, n, n})) * sc;
            }
            if (p.debertaP2C) {
                const TT Qr = rel.matmul(w["deberta.W_qr"]).view({R, H, dh}).permute({1, 0, 2});
                const TT kq = k.matmul(Qr.transpose(-1, -2)); // [B, H, n (key j), 2 span]
                S = S + kq.gather(3, g.debP2CT.expand({B, H, n, n})).transpose(2, 3) * sc;
            }
            break;
        }
        default: // none, sinusoidal, learned, mlp, rope, urpe
            S = content * s;
            break;
        }
        const TT logits = S.masked_fill(g.masked, -std::numeric_limits<float>::infinity());
        TT A = torch::softmax(logits, -1);
        if (p.scheme == Scheme::URPE)
            A = A * w["urpe.c"].index_select(1, g.urpeIdx).view({H, n, n});
        TT ho = A.matmul(v);
        if (p.scheme == Scheme::Shaw)
            ho = ho + torch::einsum("bhij,ijk->bhik", {A, g.shawOH}).matmul(w["shaw.w_v"]);
        if (cap) {
            cap->logits = logits[0].detach();
            cap->weights = A[0].detach();
        }
        return ho.permute({0, 2, 1, 3}).reshape({B, n, p.d}).matmul(w["W_o"]);
    }

    /** Output logits [B, n, V]; `caps`, if given, gets one Capture per layer (batch row 0). */
    TT forward(const TT& tokens, const Geometry& g0, const std::vector<Params>& ps,
               std::vector<Capture>* caps) {
        TT h =
            embedding.index_select(0, tokens.flatten()).view({tokens.size(0), tokens.size(1), o.d});
        const int n = static_cast<int>(tokens.size(1));
        using torch::indexing::Slice;
        for (int l = 0; l < o.layers; ++l) {
            const Params& p = ps[static_cast<std::size_t>(l)];
            std::map<std::string, TT>& w = attn[static_cast<std::size_t>(l)];
            std::map<std::string, TT>& b = block[static_cast<std::size_t>(l)];
            Capture* cap = caps ? &(*caps)[static_cast<std::size_t>(l)] : nullptr;
            // Pre-norm: the attention's input E is the normalised residual stream (the engine
            // adds P to it for an absolute scheme at layer 1, as computeTrace does).
            const TT E = torch::layer_norm(h, {o.d}, b["ln1.weight"], b["ln1.bias"]);
            if (cap)
                cap->input = E[0].detach();
            TT X = E;
            switch (p.scheme) {
            case Scheme::Sinusoidal:
                X = E + g0.P;
                break;
            case Scheme::Learned:
                X = E + w["learned.table"].index({Slice(0, n)});
                break;
            case Scheme::Mlp:
                X = E + torch::gelu(g0.phi.matmul(w["mlp.w1"]) + w["mlp.b1"]).matmul(w["mlp.w2"]) +
                    w["mlp.b2"];
                break;
            default:
                break;
            }
            const TT a = attention(l, p, g0, X, cap); // every layer's positions are layer 1's
            h = h + (X - E) + a;                      // the residual stream takes P too
            const TT m = torch::layer_norm(h, {o.d}, b["ln2.weight"], b["ln2.bias"]);
            h = h + torch::gelu(m.matmul(b["mlp.w1"]) + b["mlp.b1"]).matmul(b["mlp.w2"]) +
                b["mlp.b2"];
        }
        return torch::layer_norm(h, {o.d}).matmul(unembed) + unembedBias;
    }

    std::vector<Params> paramsAt(int n, RopeScaling scaling = RopeScaling::None,
                                 double scale = 1.0) const {
        std::vector<Params> ps;
        for (int l = 0; l < o.layers; ++l) {
            Params p = layerParams(o, l, n);
            if (p.scheme == Scheme::RoPE) {
                p.ropeScaling = scaling;
                p.ropeScale = scale;
            }
            ps.push_back(p);
        }
        return ps;
    }

    bool reaches(int n) const {
        return n <= o.trainLength || (o.scheme != Scheme::Learned && o.scheme != Scheme::URPE);
    }

    TT tokensTensor(const std::vector<std::int64_t>& t, int rows, int len) const {
        return torch::from_blob(const_cast<std::int64_t*>(t.data()), {rows, len}, torch::kInt64)
            .clone();
    }

    std::vector<Capture> capture(const std::vector<std::int64_t>& tokens) {
        setThreads(o.threads);
        torch::NoGradGuard noGrad;
        const int n = static_cast<int>(tokens.size());
        const std::vector<Params> ps = paramsAt(n);
        const Geometry g = makeGeometry(o, ps[0]);
        std::vector<Capture> caps(static_cast<std::size_t>(o.layers));
        forward(tokensTensor(tokens, 1, n), g, ps, &caps);
        return caps;
    }
};

namespace {

/** A model of the lab on libtorch: the ModelEngine the module hands out. */
class TorchModel final : public ModelEngine {
public:
    explicit TorchModel(std::unique_ptr<TorchState> state)
        : m(std::move(state)) {}
    const Options& options() const override { return m->o; }
    Expected<std::vector<CurvePoint>> train(const Progress& progress,
                                            const std::atomic<bool>* cancel) override;
    int stepsDone() const override { return m->stepsDone; }
    std::optional<double> evaluate(int length, RopeScaling scaling, double scale,
                                   const std::atomic<bool>* cancel, int samples) override;
    std::vector<float> outputLogits(const std::vector<std::int64_t>& tokens) override;
    std::vector<LayerView> layerViews(const std::vector<std::int64_t>& tokens) override;
    std::vector<float> attentionWeights(const std::vector<std::int64_t>& tokens,
                                        int layer) override;
    std::vector<float> attentionLogits(const std::vector<std::int64_t>& tokens, int layer) override;
    Status save(const std::string& path, const std::vector<std::int64_t>& sample) override;

    static Expected<std::unique_ptr<TorchModel>> create(const Options& o);
    static Expected<std::unique_ptr<ModelEngine>> load(const std::string& path);

private:
    std::unique_ptr<TorchState> m;
};

} // namespace

Expected<std::unique_ptr<TorchModel>> TorchModel::create(const Options& o) {
    if (Status s = validate(o); !s)
        return s.error();
    auto impl = std::make_unique<TorchState>();
    impl->o = o;
    const int d = o.d, L = o.trainLength;
    for (int l = 0; l < o.layers; ++l) {
        const Params p = layerParams(o, l, L);
        Weights w;
        completeWeights(p, w);
        std::map<std::string, TT> a;
        for (const WeightSpec& spec : weightSpecs(p))
            if (spec.used && spec.name != "E" && spec.name.rfind("special.", 0) != 0)
                a[spec.name] = fromEigen(w.*(spec.member)).set_requires_grad(true);
        impl->attn.push_back(std::move(a));
        const std::string pre = "lab.layers." + std::to_string(l) + ".";
        auto normal = [&](int r, int c, const std::string& name, double scale) {
            return fromEigen(seededNormal(r, c, o.seed, pre + name) * scale)
                .set_requires_grad(true);
        };
        std::map<std::string, TT> b;
        b["ln1.weight"] = torch::ones({d}).set_requires_grad(true);
        b["ln1.bias"] = torch::zeros({d}).set_requires_grad(true);
        b["ln2.weight"] = torch::ones({d}).set_requires_grad(true);
        b["ln2.bias"] = torch::zeros({d}).set_requires_grad(true);
        b["mlp.w1"] = normal(d, 4 * d, "mlp.w1", 1.0 / std::sqrt(d));
        b["mlp.b1"] = torch::zeros({4 * d}).set_requires_grad(true);
        b["mlp.w2"] = normal(4 * d, d, "mlp.w2", 1.0 / std::sqrt(4.0 * d));
        b["mlp.b2"] = torch::zeros({d}).set_requires_grad(true);
        impl->block.push_back(std::move(b));
    }
    impl->embedding =
        fromEigen(seededNormal(o.vocab + 1, d, o.seed, "lab.embedding")).set_requires_grad(true);
    impl->unembed = fromEigen(seededNormal(d, o.vocab, o.seed, "lab.unembed") / std::sqrt(d))
                        .set_requires_grad(true);
    impl->unembedBias = torch::zeros({o.vocab}).set_requires_grad(true);
    return std::make_unique<TorchModel>(std::move(impl));
}

Expected<std::vector<CurvePoint>> TorchModel::train(const Progress& progress,
                                                    const std::atomic<bool>* cancel) {
    const Options& o = m->o;
    setThreads(o.threads);
    torch::optim::Adam adam(m->parameters(), torch::optim::AdamOptions(o.learningRate));
    const int warm = std::max(1, o.steps / 20);
    const int lo =
        std::max({2, (o.trainLength + 1) / 2, o.task == Task::Shift ? o.shift + 1 : 2,
                  o.task == Task::Copy || o.task == Task::Reverse || o.task == Task::Sort ? 4 : 2});
    std::vector<CurvePoint> curve;
    double lossSum = 0, accSum = 0;
    int window = 0;
    for (int step = 0; step < o.steps; ++step) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Error{"cancelled"};
        // Learning rate: linear warm-up, then cosine decay to a tenth.
        const double t = static_cast<double>(step - warm) / std::max(1, o.steps - warm);
        const double lr =
            step < warm ? o.learningRate * (step + 1) / warm
                        : o.learningRate * (0.1 + 0.45 * (1 + std::cos(3.141592653589793 * t)));
        for (auto& group : adam.param_groups())
            static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
        // The length of this step's batch: uniform in [lo, L] from the step's own stream.
        std::uint64_t x = o.seed * 0x2545F4914F6CDD1Dull + static_cast<std::uint64_t>(step) + 1;
        x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        const int len =
            lo + static_cast<int>(x % static_cast<std::uint64_t>(o.trainLength - lo + 1));
        const Batch batch = makeBatch(o, len, o.batch, 1, static_cast<std::uint64_t>(step));
        const TT tokens = m->tokensTensor(batch.tokens, batch.batch, len);
        const TT targets = m->tokensTensor(batch.targets, batch.batch, len).flatten();
        const TT logits =
            m->forward(tokens, m->geometry(len), m->paramsAt(len), nullptr).view({-1, o.vocab});
        const TT loss = torch::nn::functional::cross_entropy(
            logits, targets, torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-1));
        adam.zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(m->parameters(), 1.0);
        adam.step();
        {
            torch::NoGradGuard noGrad;
            const TT scored = targets.ge(0);
            const double hits =
                logits.argmax(-1).eq(targets).logical_and(scored).sum().item<double>();
            accSum += hits / std::max(1.0, scored.sum().item<double>());
            lossSum += loss.item<double>();
            ++window;
        }
        if ((step + 1) % o.logEvery == 0 || step + 1 == o.steps) {
            const CurvePoint pt{step + 1, lossSum / window, accSum / window};
            if (!std::isfinite(pt.loss))
                return Error{"training diverged at step " + std::to_string(step + 1) +
                             " (loss is not finite); try a smaller --lr"};
            curve.push_back(pt);
            if (progress)
                progress(pt);
            lossSum = accSum = 0;
            window = 0;
        }
        m->stepsDone = step + 1;
        if (o.stopAccuracy > 0 && (step + 1) % o.checkEvery == 0 && step + 1 < o.steps) {
            const auto acc = evaluate(o.trainLength, RopeScaling::None, 1.0, cancel, o.evalSamples);
            if (acc && *acc >= o.stopAccuracy) {
                if (window > 0) {
                    const CurvePoint pt{step + 1, lossSum / window, accSum / window};
                    curve.push_back(pt);
                    if (progress)
                        progress(pt);
                }
                break;
            }
        }
    }
    return curve;
}

std::optional<double> TorchModel::evaluate(int length, RopeScaling scaling, double scale,
                                           const std::atomic<bool>* cancel, int samples) {
    const Options& o = m->o;
    if (!m->reaches(length))
        return std::nullopt;
    setThreads(o.threads);
    torch::NoGradGuard noGrad;
    const std::vector<Params> ps = m->paramsAt(length, scaling, scale);
    const Geometry g = makeGeometry(o, ps[0]);
    double hits = 0, scored = 0;
    const int chunk = 64;
    const int total = samples > 0 ? samples : o.evalSamples;
    for (int done = 0, index = 0; done < total; done += chunk, ++index) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return std::nullopt;
        const int rows = std::min(chunk, total - done);
        const Batch b =
            makeBatch(o, length, rows, 2, static_cast<std::uint64_t>(length) * 100003u + index);
        const TT targets = m->tokensTensor(b.targets, rows, length).flatten();
        const TT pred = m->forward(m->tokensTensor(b.tokens, rows, length), g, ps, nullptr)
                            .view({-1, o.vocab})
                            .argmax(-1);
        const TT mask = targets.ge(0);
        hits += pred.eq(targets).logical_and(mask).sum().item<double>();
        scored += mask.sum().item<double>();
    }
    return scored > 0 ? hits / scored : 0.0;
}

std::vector<float> TorchModel::outputLogits(const std::vector<std::int64_t>& tokens) {
    setThreads(m->o.threads);
    torch::NoGradGuard noGrad;
    const int n = static_cast<int>(tokens.size());
    const std::vector<Params> ps = m->paramsAt(n);
    const Geometry g = makeGeometry(m->o, ps[0]);
    const TT out = m->forward(m->tokensTensor(tokens, 1, n), g, ps, nullptr).contiguous();
    return {out.data_ptr<float>(), out.data_ptr<float>() + out.numel()};
}

namespace {
std::vector<float> flat(const TT& t) {
    const TT c = t.contiguous().to(torch::kFloat32);
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}
} // namespace

std::vector<float> TorchModel::attentionWeights(const std::vector<std::int64_t>& tokens,
                                                int layer) {
    return flat(m->capture(tokens).at(static_cast<std::size_t>(layer)).weights);
}

std::vector<float> TorchModel::attentionLogits(const std::vector<std::int64_t>& tokens, int layer) {
    return flat(m->capture(tokens).at(static_cast<std::size_t>(layer)).logits);
}

std::vector<LayerView> TorchModel::layerViews(const std::vector<std::int64_t>& tokens) {
    const std::vector<Capture> caps = m->capture(tokens);
    const int n = static_cast<int>(tokens.size());
    std::vector<LayerView> views;
    for (int l = 0; l < m->o.layers; ++l) {
        LayerView v;
        v.params = layerParams(m->o, l, n);
        v.weights.E = toEigen(caps[static_cast<std::size_t>(l)].input);
        for (const WeightSpec& spec : weightSpecs(v.params)) {
            const auto it = m->attn[static_cast<std::size_t>(l)].find(spec.name);
            if (!spec.used || it == m->attn[static_cast<std::size_t>(l)].end())
                continue;
            Eigen::MatrixXd t = toEigen(it->second);
            if (spec.name == "urpe.c") // the 2n − 1 offsets of this length, centred on 0
                t = Eigen::MatrixXd(t.middleCols(m->o.trainLength - n, 2 * n - 1));
            v.weights.*(spec.member) = std::move(t);
        }
        views.push_back(std::move(v));
    }
    return views;
}

Status TorchModel::save(const std::string& path, const std::vector<std::int64_t>& sample) {
    const Options& o = m->o;
    NamedTensors out;
    auto add = [&out](const std::string& name, const TT& t, std::vector<std::int64_t> shape) {
        const std::vector<float> v = flat(t);
        out.emplace_back(name, pe::Tensor::fromVector(std::move(shape), v));
    };
    auto shapeOf = [](const TT& t) {
        std::vector<std::int64_t> s;
        for (std::int64_t x : t.sizes())
            s.push_back(x);
        return s;
    };
    for (int l = 0; l < o.layers; ++l) {
        const std::string pre = o.layers == 1 ? std::string() : "layers." + std::to_string(l) + ".";
        const Params p = layerParams(o, l, o.trainLength);
        for (const WeightSpec& spec : weightSpecs(p)) {
            const auto it = m->attn[static_cast<std::size_t>(l)].find(spec.name);
            if (it == m->attn[static_cast<std::size_t>(l)].end())
                continue;
            add(pre + spec.name, it->second,
                spec.shape.size() == 1 ? std::vector<std::int64_t>{it->second.numel()}
                                       : shapeOf(it->second));
        }
        for (const auto& [name, t] : m->block[static_cast<std::size_t>(l)])
            add("lab.layers." + std::to_string(l) + "." + name, t, shapeOf(t));
    }
    if (o.layers == 1 && !sample.empty()) {
        const auto caps = m->capture(sample);
        add("E", caps[0].input, shapeOf(caps[0].input));
    }
    add("lab.embedding", m->embedding, shapeOf(m->embedding));
    add("lab.unembed", m->unembed, shapeOf(m->unembed));
    add("lab.unembed_bias", m->unembedBias, shapeOf(m->unembedBias));
    return writeSafetensors(path, out,
                            {{"format", "pe-explorer-lab"},
                             {"version", "1"},
                             {"options", optionsToJson(o)},
                             {"sample", tokensText(o, sample)},
                             {"trace_arguments", traceArguments(o)}});
}

Expected<std::unique_ptr<ModelEngine>> TorchModel::load(const std::string& path) {
    std::map<std::string, std::string> meta;
    auto tensors = readSafetensors(path, &meta);
    if (!tensors)
        return tensors.error();
    if (meta["format"] != "pe-explorer-lab" || meta.count("options") == 0)
        return Error{path + ": not a pe-explorer lab model (no lab metadata)"};
    auto options = optionsFromJson(meta["options"]);
    if (!options)
        return Error{path + ": " + options.error().message};
    auto model = create(*options);
    if (!model)
        return model.error();
    TorchState& im = *(*model)->m;
    std::map<std::string, TT*> slots{{"lab.embedding", &im.embedding},
                                     {"lab.unembed", &im.unembed},
                                     {"lab.unembed_bias", &im.unembedBias}};
    for (int l = 0; l < options->layers; ++l) {
        const std::string pre =
            options->layers == 1 ? std::string() : "layers." + std::to_string(l) + ".";
        for (auto& [name, t] : im.attn[static_cast<std::size_t>(l)])
            slots[pre + name] = &t;
        for (auto& [name, t] : im.block[static_cast<std::size_t>(l)])
            slots["lab.layers." + std::to_string(l) + "." + name] = &t;
    }
    std::size_t filled = 0;
    for (const auto& [name, t] : *tensors) {
        const auto it = slots.find(name);
        if (it == slots.end())
            continue; // E (the sample's embeddings) and anything newer
        TT& dst = *it->second;
        if (t.dtype() != DType::F32 || t.size() != dst.numel())
            return Error{path + ": tensor '" + name + "' has shape " + t.shapeString() +
                         ", the model's options need " + std::to_string(dst.numel()) +
                         " float32 values"};
        torch::NoGradGuard noGrad;
        dst.copy_(
            torch::from_blob(const_cast<float*>(t.data<float>()), dst.sizes(), torch::kFloat32));
        ++filled;
    }
    if (filled != slots.size())
        return Error{path + ": " + std::to_string(slots.size() - filled) +
                     " of the model's tensors are missing"};
    return std::unique_ptr<ModelEngine>(std::move(*model));
}

namespace {
class TorchFactory final : public EngineFactory {
public:
    Expected<std::unique_ptr<ModelEngine>> create(const Options& o) override {
        auto m = TorchModel::create(o);
        if (!m)
            return m.error();
        return std::unique_ptr<ModelEngine>(std::move(*m));
    }
    Expected<std::unique_ptr<ModelEngine>> load(const std::string& path) override {
        return TorchModel::load(path);
    }
};
} // namespace

} // namespace pe::lab

/** The module's one entry point (looked up with dlsym by lab.cpp's engineFactory()). */
extern "C" __attribute__((visibility("default"))) pe::lab::EngineFactory* pe_lab_engine_factory() {
    static pe::lab::TorchFactory factory;
    return &factory;
}
