// SPDX-License-Identifier: MIT
// The learning lab's speed and its length-generalisation table (issue: Learning lab).
//
//   pe-bench-lab [--lr X] [--budget STEPS]   (budget 3000: the learning rate's cosine spans it)
//     shift-3, 2 layers, d = 64, 4 heads, L = 32, batch 32, one thread: for t5, alibi, rope and
//     learned, trains until the accuracy at L reaches 99% (checked every 100 steps on 128
//     sequences) or the step budget ends. One JSON line per scheme: steps, seconds, steps/s,
//     accuracy at L, 2L, 4L. The first line is this host's one-thread sgemm peak (Eigen, 512³),
//     so the seconds can be read against the machine.
//
//   pe-bench-lab --table [--steps N]
//     shift-3 and copy with every scheme (same seed and budget, stopping at 99% at L): a
//     Markdown table of the accuracy at L, 1.5L, 2L, 4L ("—" where a scheme has no positions).
#include <Eigen/Core>
#ifdef PE_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_gemm.h"
#include "lab.h"

using namespace pe;

namespace {

double nowMs() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/** GFLOP/s of the best of 3 single-thread sgemms of size 1024 (OpenBLAS where built, the
 *  library PyTorch's CPU matrix products use on Debian; else Eigen). */
double sgemmPeak() {
    const int n = 1024;
#ifdef PE_HAVE_OPENBLAS
    std::vector<float> a(std::size_t(n) * n, 0.5f), b(std::size_t(n) * n, 0.25f),
        c(std::size_t(n) * n);
    openblas_set_num_threads(1);
    double fastest = 1e300;
    for (int rep = 0; rep < 4; ++rep) {
        const double t0 = nowMs();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
        if (rep > 0)
            fastest = std::min(fastest, nowMs() - t0);
    }
    return 2.0 * n * double(n) * n / (fastest * 1e6);
#else
    Eigen::setNbThreads(1);
    const Eigen::MatrixXf a = Eigen::MatrixXf::Constant(n, n, 0.5f);
    const Eigen::MatrixXf b = Eigen::MatrixXf::Constant(n, n, 0.25f);
    Eigen::MatrixXf c(n, n);
    double best = 1e300;
    for (int rep = 0; rep < 4; ++rep) {
        const double t0 = nowMs();
        c.noalias() = a * b;
        if (rep > 0)
            best = std::min(best, nowMs() - t0);
    }
    return 2.0 * n * double(n) * n / (best * 1e6);
#endif
}

std::string acc(const std::optional<double>& a, const char* none = "—") {
    char buf[32];
    if (!a)
        return none;
    std::snprintf(buf, sizeof buf, "%.3f", *a);
    return buf;
}

lab::Options base(Scheme s, lab::Task task, int steps, double lr) {
    lab::Options o;
    o.task = task;
    o.shift = 3;
    o.scheme = s;
    o.layers = 2;
    o.d = 64;
    o.heads = 4;
    o.trainLength = 32;
    o.steps = steps;
    o.learningRate = lr;
    o.stopAccuracy = 0.99;
    return o;
}

int speed(int budget, double lr) {
    std::printf("{\"host\":\"sgemm_peak_1_thread\",\"gflops\":%.1f}\n", sgemmPeak());
    for (Scheme s : {Scheme::T5, Scheme::ALiBi, Scheme::RoPE, Scheme::Learned}) {
        const lab::Options o = base(s, lab::Task::Shift, budget, lr);
        auto run = lab::runExperiment(o, {32, 64, 128});
        if (!run) {
            std::fprintf(stderr, "%s: %s\n", std::string(toString(s)).c_str(),
                         run.error().message.c_str());
            return 1;
        }
        const auto& pts = run->record.eval.front().points;
        const bool reached = pts[0].accuracy && *pts[0].accuracy >= 0.99;
        std::printf("{\"scheme\":\"%s\",\"task\":\"shift-3\",\"steps\":%d,\"seconds\":%.2f,"
                    "\"steps_per_s\":%.1f,\"reached_99\":%s,\"acc_L\":%s,\"acc_2L\":%s,"
                    "\"acc_4L\":%s}\n",
                    std::string(toString(s)).c_str(), run->record.stepsDone, run->record.seconds,
                    run->record.stepsDone / run->record.seconds, reached ? "true" : "false",
                    acc(pts[0].accuracy, "null").c_str(), acc(pts[1].accuracy, "null").c_str(),
                    acc(pts[2].accuracy, "null").c_str());
        std::fflush(stdout);
    }
    return 0;
}

int table(int steps, double lr) {
    std::printf(
        "| task | scheme | steps | L = 32 | 48 | 64 | 128 |\n|---|---|---|---|---|---|---|\n");
    for (lab::Task task : {lab::Task::Shift, lab::Task::Copy}) {
        for (Scheme s : allSchemes()) {
            const lab::Options o = base(s, task, steps, lr);
            auto run = lab::runExperiment(o, lab::defaultEvalLengths(o.trainLength));
            if (!run) {
                std::printf("| %s | %s | — | %s | | | |\n",
                            std::string(lab::toString(task)).c_str(),
                            std::string(toString(s)).c_str(), run.error().message.c_str());
                continue;
            }
            for (const lab::EvalRow& row : run->record.eval) {
                std::printf("| %s | %s | %d |", task == lab::Task::Shift ? "shift-3" : "copy",
                            row.name.c_str(), run->record.stepsDone);
                for (const auto& p : row.points)
                    std::printf(" %s |", acc(p.accuracy).c_str());
                std::printf("\n");
            }
            std::fflush(stdout);
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    // OpenBLAS's kernels for this CPU, as the CLI and the window choose them (cpu_gemm.h).
    pe::cpu::chooseGemmLibraryKernels();
    bool wantTable = false;
    int steps = 3000;
    int budget = 3000; // the cosine schedule spans the budget: a shorter one converges sooner
    double lr = 1e-2;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--table"))
            wantTable = true;
        else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--lr") && i + 1 < argc)
            lr = std::atof(argv[++i]);
        else {
            std::fprintf(stderr,
                         "usage: pe-bench-lab [--lr X] [--budget STEPS] | --table [--steps N]\n");
            return 2;
        }
    }
    return wantTable ? table(steps, lr) : speed(budget, lr);
}
