// SPDX-License-Identifier: MIT
#include "preset_option.h"

#include <string>
#include <vector>

#include "params.h"
#include "presets.h"
#include "trace_command.h"

namespace pe {

namespace {

/** The options a preset sets, in TraceOptions' spelling (n, seed and inputs are left alone). */
void writePreset(const ModelPreset& preset, TraceOptions& o) {
    const Params p = withPreset(Params{}, preset);
    o.scheme = toString(p.scheme);
    o.d = p.d;
    o.heads = p.heads;
    o.norm = toString(p.norm);
    o.mask = toString(p.mask);
    o.clip = p.clip;
    o.base = p.base;
    o.layout = toString(p.layout);
    o.ropeConvention = toString(p.ropeConvention);
    o.ropeDims = p.ropeDims;
    o.buckets = p.buckets;
    o.maxDistance = p.maxDistance;
    o.unidirectional = p.unidirectional;
    o.alibiMode = toString(p.alibiMode);
    o.debertaTerms = std::string(p.debertaC2P ? "c2p" : "") +
                     (p.debertaC2P && p.debertaP2C ? "," : "") + (p.debertaP2C ? "p2c" : "");
    o.p2cConvention = toString(p.p2cConvention);
    o.debertaLogBuckets = p.debertaLogBuckets;
    o.debertaBuckets = p.debertaBuckets;
    o.debertaMaxPosition = p.debertaMaxPosition;
    o.clampLen = p.txlClampLen;
    o.maxPositions = p.learnedRows;
    o.urpeBias = toString(p.urpeBias);
    o.cls = p.cls;
    o.sep = p.sep;
}

} // namespace

CLI::Option* addPresetOption(CLI::App* cmd, TraceOptions& o) {
    std::vector<std::string> names;
    std::string help = "(extension) a model's configuration; options given as well override it: ";
    for (const ModelPreset& m : modelPresets()) {
        names.emplace_back(m.name);
        help += std::string(names.size() > 1 ? "; " : "") + std::string(m.name) + " (" +
                std::string(m.summary) + ")";
    }
    return cmd->add_option("--preset", o.preset, help)
        ->check(CLI::IsMember(names))
        ->each([&o](const std::string& name) {
            if (const ModelPreset* m = findModelPreset(name))
                writePreset(*m, o);
        });
}

} // namespace pe
