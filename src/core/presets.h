// SPDX-License-Identifier: MIT
#pragma once

/**
 * Presets named after real models: the scheme, its options and the sizes (d, heads, P_max) as
 * the model's published configuration sets them, so the explorer shows that model's encoding in
 * one step. Applying a preset leaves the sequence length, seed, input and precision alone
 * (a learned table's n is capped at its P_max).
 *
 * | preset     | scheme   | configuration                                             | d × heads |
 * |------------|----------|-----------------------------------------------------------|-----------|
 * | bert       | learned  | P_max 512, [CLS] and [SEP], bidirectional                 | 768 × 12  |
 * | gpt2       | learned  | P_max 1024 (n_ctx), causal                                | 768 × 12  |
 * | t5         | t5       | 32 buckets, max distance 128, bidirectional (t5-small)    | 512 × 8   |
 * | deberta-v3 | deberta  | log buckets 256 / 512, c2p + p2c (code δ), [CLS], [SEP]   | 768 × 12  |
 * | llama      | rope     | rotate_half pairs, base 10000, causal (LLaMA-7B)          | 4096 × 32 |
 * | gpt-neox   | rope     | rotate_half, rotary_pct 0.25 (32 of 128), causal (Pythia) | 2048 × 16 |
 * | bloom      | alibi    | the paper's causal form, causal mask (bloom-560m)         | 1024 × 16 |
 */

#include <string_view>
#include <vector>

#include "params.h"

namespace pe {

struct ModelPreset {
    std::string_view name;    ///< as --preset spells it
    std::string_view label;   ///< for menus: "BERT (base)"
    std::string_view summary; ///< one line: what it sets and where that comes from
    /** Sets the preset's scheme, options and sizes on `p`; everything else is kept. */
    void (*apply)(Params& p);
};

/** Every preset, in the order of the table above. */
const std::vector<ModelPreset>& modelPresets();

/** The preset called `name`, or nullptr. */
const ModelPreset* findModelPreset(std::string_view name);

/** `p` with preset `preset` applied (see ModelPreset::apply). */
Params withPreset(Params p, const ModelPreset& preset);

} // namespace pe
