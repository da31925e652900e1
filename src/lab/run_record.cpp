// SPDX-License-Identifier: MIT
// The lab's files: the options as JSON (model metadata), run.json, and the trace arguments.
#include "lab.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace pe::lab {

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

} // namespace pe::lab
