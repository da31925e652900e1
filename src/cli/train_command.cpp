// SPDX-License-Identifier: MIT
#include "train_command.h"

#include <fstream>
#include <iostream>

#include "command_support.h"
#include "lab.h"
#include "memory_budget.h"
#include "staged_output.h"

namespace pe {

namespace {

using Failure = CommandFailure;

std::string taskList() {
    std::string s;
    for (lab::Task t : lab::allTasks())
        s += (s.empty() ? "" : ", ") +
             (t == lab::Task::Shift ? std::string("shift-K") : std::string(lab::toString(t)));
    return s;
}

std::string schemeList() {
    std::string s;
    for (Scheme sc : allSchemes())
        s += (s.empty() ? "" : ", ") + std::string(toString(sc));
    return s;
}

/** --task: "shift-3" (or "shift", k = 3), "copy", "reverse", "first-token", "sort". */
void parseTask(const std::string& text, lab::Options& o) {
    if (text.rfind("shift", 0) == 0) {
        o.task = lab::Task::Shift;
        if (text.size() == 5)
            return;
        const std::string k = text.substr(5);
        if (k.size() < 2 || k[0] != '-' ||
            k.find_first_not_of("0123456789", 1) != std::string::npos || k.size() > 8)
            throw Failure{"--task: unknown task '" + text + "' (expected one of: " + taskList() +
                          ")"};
        o.shift = std::stoi(k.substr(1));
        return;
    }
    const auto t = lab::taskFromString(text);
    if (!t)
        throw Failure{"--task: unknown task '" + text + "' (expected one of: " + taskList() + ")"};
    o.task = *t;
}

std::vector<int> parseLengths(const std::string& text) {
    std::vector<int> lens;
    for (const std::string& item : splitComma(text)) {
        if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 6)
            throw Failure{"--eval-lens: '" + item +
                          "' is not a length (expected e.g. 32,48,64,128)"};
        lens.push_back(std::stoi(item));
        if (lens.back() < 2 || lens.back() > 8192)
            throw Failure{"--eval-lens: every length must be in [2, 8192] (got " + item + ")"};
    }
    if (lens.empty())
        throw Failure{"--eval-lens: give at least one length"};
    return lens;
}

int train(const TrainOptions& t) {
    lab::Options o;
    parseTask(t.task, o);
    const auto scheme = schemeFromString(t.scheme);
    if (!scheme)
        throw Failure{"--scheme: unknown value '" + t.scheme +
                      "' (expected one of: " + schemeList() + ")"};
    o.scheme = *scheme;
    o.vocab = t.vocab;
    o.layers = t.layers;
    o.d = t.d;
    o.heads = t.heads;
    o.trainLength = t.trainLength;
    o.steps = t.steps;
    o.batch = t.batch;
    o.learningRate = t.lr;
    o.seed = t.seed;
    o.threads = t.threads;
    o.clip = t.clip;
    o.logEvery = t.logEvery;
    o.evalSamples = t.evalSamples;
    o.stopAccuracy = t.until;
    if (Status s = lab::validate(o); !s)
        throw Failure{s.error().message};
    const std::vector<int> lengths =
        t.evalLens.empty() ? lab::defaultEvalLengths(o.trainLength) : parseLengths(t.evalLens);
    const std::uint64_t need = lab::estimateTrainingBytes(o, lengths);
    if (const auto avail = memAvailableBytes(); avail && need > *avail)
        throw Failure{"training needs about " + formatGigabytes(need) + " of memory but only " +
                      formatGigabytes(*avail) +
                      " is available; lower --batch, --train-len, --d, --heads or --layers (or "
                      "the longest --eval-lens)"};
    auto staged = StagedOutput::prepare(t.out);
    if (!staged)
        throw Failure{staged.error().message};

    const int every = std::max(1, o.steps / 10);
    auto progress = [&](const lab::CurvePoint& c) {
        if (!t.quiet && (c.step % every < o.logEvery || c.step == o.steps))
            std::cerr << "step " << c.step << "/" << o.steps << "  loss " << c.loss << "  accuracy "
                      << c.accuracy << "\n";
    };
    auto run = lab::runExperiment(o, lengths, progress);
    if (!run)
        throw Failure{run.error().message, kExitFailure};

    StagedOutput& out = **staged;
    if (Status st = out.begin(); !st)
        throw Failure{st.error().message, kExitFailure};
    if (Status st = run->model->save(out.filePath("model.safetensors"), run->sample); !st)
        throw Failure{st.error().message, kExitFailure};
    {
        std::ofstream file(out.filePath("run.json"), std::ios::binary);
        file << lab::runJson(run->record);
        if (!file.flush())
            throw Failure{"--out: cannot write run.json", kExitFailure};
    }
    if (Status st = out.commit(); !st)
        throw Failure{st.error().message, kExitFailure};
    if (!t.quiet) {
        std::cerr << "trained " << run->record.stepsDone << " steps in " << run->record.seconds
                  << " s; accuracy";
        for (const lab::EvalRow& row : run->record.eval) {
            std::cerr << "\n  " << row.name << ":";
            for (const lab::EvalPoint& p : row.points)
                std::cerr << "  " << p.length << " → "
                          << (p.accuracy ? std::to_string(*p.accuracy)
                                         : std::string("no positions"));
        }
        std::cerr << "\n";
    }
    return kExitOk;
}

} // namespace

CLI::App* addTrainCommand(CLI::App& app, TrainOptions& o) {
    std::string tasks;
    for (lab::Task t : lab::allTasks())
        tasks += "\n  " + lab::describeTask(t);
    CLI::App* c = app.add_subcommand(
        "train",
        "Train a small attention model on a synthetic task with one position scheme (the "
        "learning lab, docs/lab.md), then measure its accuracy at the training length L and "
        "beyond. Writes model.safetensors and run.json into --out. Tasks:" +
            tasks);
    c->add_option("--task", o.task, "shift-K (e.g. shift-3), copy, reverse, first-token, sort")
        ->capture_default_str();
    c->add_option("--scheme", o.scheme, "position scheme: " + schemeList())->capture_default_str();
    c->add_option("--vocab", o.vocab, "data symbols V (a blank comes on top)")
        ->capture_default_str();
    c->add_option("--layers", o.layers, "attention layers, 1-4")->capture_default_str();
    c->add_option("--d", o.d, "model width")->capture_default_str();
    c->add_option("--heads", o.heads, "heads; must divide --d")->capture_default_str();
    c->add_option("--train-len", o.trainLength,
                  "training length L (each step draws its length from [L/2, L])")
        ->capture_default_str();
    c->add_option("--steps", o.steps, "training steps (Adam)")->capture_default_str();
    c->add_option("--batch", o.batch, "sequences per step")->capture_default_str();
    c->add_option("--lr", o.lr, "peak learning rate (warm-up, cosine decay to a tenth)")
        ->capture_default_str();
    c->add_option("--seed", o.seed, "seed of the weights and the data")->capture_default_str();
    c->add_option("--threads", o.threads, "intra-op threads (results are deterministic per count)")
        ->capture_default_str();
    c->add_option("--clip", o.clip, "Shaw clip distance k, DeBERTa span k")->capture_default_str();
    c->add_option("--log-every", o.logEvery, "steps per curve point")->capture_default_str();
    c->add_option("--eval-samples", o.evalSamples, "sequences per evaluation length")
        ->capture_default_str();
    c->add_option("--eval-lens", o.evalLens,
                  "comma-separated evaluation lengths (default L, 1.5L, 2L, 4L)");
    c->add_option("--until", o.until,
                  "stop early once the accuracy at L reaches this (checked every 100 steps on the "
                  "evaluation's sequences); 0: train every step")
        ->capture_default_str();
    c->add_flag("--quiet", o.quiet, "no progress on stderr");
    c->add_option("--out", o.out, "output folder")->required();
    return c;
}

int runTrain(const TrainOptions& o) {
    return runReportingErrors([&o] { return train(o); });
}

} // namespace pe
