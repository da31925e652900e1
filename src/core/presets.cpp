// SPDX-License-Identifier: MIT
#include "presets.h"

#include <algorithm>

namespace pe {

namespace {

/** What every preset resets first: one model's options never leak into another's. */
void resetSchemeOptions(Params& p) {
    const Params defaults;
    const int n = p.n;
    const std::uint64_t seed = p.seed;
    const Precision precision = p.precision;
    const int validLen = p.validLen;
    p = defaults;
    p.n = n;
    p.seed = seed;
    p.precision = precision;
    p.validLen = validLen;
}

void sizes(Params& p, int d, int heads) {
    p.d = d;
    p.heads = heads;
}

void learned(Params& p, int rows) {
    p.scheme = Scheme::Learned;
    p.learnedRows = rows;
    p.n = std::min(p.n, rows - (p.cls ? 1 : 0) - (p.sep ? 1 : 0));
}

void bert(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 768, 12);
    p.cls = p.sep = true; // [CLS] sentence [SEP]
    learned(p, 512);      // max_position_embeddings
}

void gpt2(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 768, 12);
    p.mask = MaskKind::Causal;
    learned(p, 1024); // n_ctx
}

void t5(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 512, 8); // t5-small: d_model 512, num_heads 8
    p.scheme = Scheme::T5;
    p.buckets = 32;
    p.maxDistance = 128;
    p.unidirectional = false; // the encoder
}

void debertaV3(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 768, 12);
    p.scheme = Scheme::DeBERTa;
    p.debertaLogBuckets = true;
    p.debertaBuckets = 256;     // position_buckets
    p.debertaMaxPosition = 512; // max_relative_positions
    p.debertaC2P = p.debertaP2C = true;
    p.p2cConvention = P2CConvention::Code;
    p.cls = p.sep = true;
}

void llama(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 4096, 32);
    p.scheme = Scheme::RoPE;
    p.ropeConvention = RopeConvention::Half; // Hugging Face's rotate_half
    p.base = 10000;
    p.ropeDims = 0;
    p.mask = MaskKind::Causal;
}

void gptNeoX(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 2048, 16); // Pythia-1.4B, a GPT-NeoX model: head width 128
    p.scheme = Scheme::RoPE;
    p.ropeConvention = RopeConvention::Half;
    p.base = 10000;
    p.ropeDims = 32; // rotary_pct 0.25 of 128
    p.mask = MaskKind::Causal;
}

void bloom(Params& p) {
    resetSchemeOptions(p);
    sizes(p, 1024, 16); // bloom-560m
    p.scheme = Scheme::ALiBi;
    p.alibiMode = AlibiMode::Causal;
    p.mask = MaskKind::Causal;
}

} // namespace

const std::vector<ModelPreset>& modelPresets() {
    static const std::vector<ModelPreset> presets{
        {"bert", "BERT (base)", "learned positions, P_max 512, [CLS]/[SEP], d 768, 12 heads", bert},
        {"gpt2", "GPT-2 (small)", "learned positions, P_max 1024, causal, d 768, 12 heads", gpt2},
        {"t5", "T5 (small)", "T5 bias, 32 buckets, max distance 128, d 512, 8 heads", t5},
        {"deberta-v3", "DeBERTa-v3 (base)",
         "disentangled c2p + p2c, log buckets 256 / 512, [CLS]/[SEP], d 768, 12 heads", debertaV3},
        {"llama", "LLaMA (7B)", "RoPE, rotate_half pairs, base 10000, causal, d 4096, 32 heads",
         llama},
        {"gpt-neox", "GPT-NeoX (Pythia-1.4B)",
         "RoPE, rotate_half, rotary_pct 0.25 (32 of 128), causal, d 2048, 16 heads", gptNeoX},
        {"bloom", "BLOOM (560m)", "ALiBi, causal form and mask, d 1024, 16 heads", bloom},
    };
    return presets;
}

const ModelPreset* findModelPreset(std::string_view name) {
    for (const ModelPreset& m : modelPresets())
        if (m.name == name)
            return &m;
    return nullptr;
}

Params withPreset(Params p, const ModelPreset& preset) {
    preset.apply(p);
    return p;
}

} // namespace pe
