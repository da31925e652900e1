// SPDX-License-Identifier: MIT
#include "render_command.h"

#include <QApplication>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include "comparison_view.h"
#include "insights_worker.h"
#include "render_figures.h"
#include "sample_input.h"
#include "session.h"
#include "staged_output.h"
#include "trace_views.h"

namespace pe {

namespace {

using Failure = CommandFailure;

std::string schemeList(const std::vector<Scheme>& schemes) {
    if (schemes.size() == allSchemes().size())
        return "all";
    if (schemes.empty())
        return "none with these options";
    std::string s;
    for (Scheme x : schemes)
        s += (s.empty() ? "" : ", ") + std::string(toString(x));
    return s;
}

/** The views that `all` stands for, in tab order (compare only when asked for by name). */
const std::vector<std::string> kAllViews{"position",  "position-lines", "similarity",
                                         "rel-index", "bias",           "terms",
                                         "attention", "attention-head", "query-row"};

int printViewList() {
    const Params defaults;
    std::printf("%-22s %-38s %s\n", "VIEW", "SCHEMES (default options)", "FIGURE");
    for (const RenderView& v : renderViewCatalog()) {
        if (v.name == "term:NAME") {
            for (const std::string& t : logitTermNames()) {
                const std::string name = "term:" + t;
                std::printf("%-22s %-38s %s\n", name.c_str(),
                            schemeList(schemesWithView(name, defaults)).c_str(),
                            ("logit term " + t + " of --head").c_str());
            }
            continue;
        }
        const std::string probe = v.name == "attention-head[:K]" ? "attention-head" : v.name;
        std::printf("%-22s %-38s %s\n", v.name.c_str(),
                    schemeList(schemesWithView(probe, defaults)).c_str(), v.description.c_str());
    }
    std::printf("\n'all' (the default) draws every view that applies to the scheme but compare "
                "and the insights pages.\n");
    return kExitOk;
}

/** The file name of a view's figure in --out. */
std::string fileNameFor(std::string view, int head, const std::string& format) {
    if (view == "attention-head")
        view += "-" + std::to_string(head);
    std::replace(view.begin(), view.end(), ':', '-');
    return view + "." + format;
}

QSize parseSize(const std::string& s) {
    static const std::regex re(R"((\d{1,5})x(\d{1,5}))");
    std::smatch m;
    if (!std::regex_match(s, m, re))
        throw Failure{"--size: expected WIDTHxHEIGHT in pixels at 96 dpi, e.g. 800x600, got '" + s +
                      "'"};
    const int w = std::stoi(m[1]);
    const int h = std::stoi(m[2]);
    if (w < 200 || h < 150 || w > 10000 || h > 10000)
        throw Failure{"--size: " + s + " is out of range (200x150 to 10000x10000)"};
    return {w, h};
}

TraceInput fromSession(const std::string& file) {
    QString ignored;
    const Expected<Session> s = loadSession(QString::fromStdString(file), &ignored);
    if (!s)
        throw Failure{"--session: " + s.error().message};
    if (!ignored.isEmpty())
        std::fprintf(stderr, "pe-explorer-cli: warning: --session %s: %s\n", file.c_str(),
                     ignored.toUtf8().constData());
    TraceInput in;
    in.params = s->params;
    if (Status st = validate(in.params); !st)
        throw Failure{"--session " + file + ": " + st.error().message};
    // As the window computes it (ComputeWorker): the input cycled to n tokens, embedded.
    const std::vector<std::string> tokens = inputTokens(s->input, in.params.n);
    in.weights.E = inputEmbeddings(in.params, tokens);
    in.tokens = sequenceLabels(in.params, tokens);
    return in;
}

/** Checks every requested view against the scheme; expands `all` (noting what it skips). */
std::vector<std::string> resolveViews(const RenderOptions& o, const Params& p,
                                      std::vector<std::string>& notes) {
    auto applies = [&p](const std::string& view) {
        const std::vector<Scheme> where = schemesWithView(view, p);
        return std::find(where.begin(), where.end(), p.scheme) != where.end();
    };
    std::vector<std::string> out;
    for (const std::string& v : splitComma(o.views)) {
        if (const auto page = insightPageFromString(v)) {
            if (*page == InsightPage::Offset && !offsetApplies(p))
                throw Failure{"--view offset: scheme " + std::string(toString(p.scheme)) +
                              " has no position table P (it applies to: " +
                              schemeList(schemesWithView(v, p)) + ")"};
            out.push_back(v);
            continue;
        }
        if (v == "all") {
            for (const std::string& a : kAllViews) {
                if (applies(a))
                    out.push_back(a);
                else
                    notes.push_back("skipping view " + a + ": it does not apply to scheme " +
                                    std::string(toString(p.scheme)));
            }
            continue;
        }
        if (v.rfind("attention-head:", 0) == 0) {
            static const std::regex re(R"(attention-head:(\d{1,4}))");
            if (!std::regex_match(v, re))
                throw Failure{"--view " + v + ": expected attention-head:K with a head number K"};
            const int h = std::stoi(v.substr(15));
            if (h >= p.heads)
                throw Failure{"--view " + v + ": head " + std::to_string(h) +
                              " does not exist (--heads " + std::to_string(p.heads) + ")"};
        }
        if (tensorNeeded(v).empty())
            throw Failure{"--view: unknown view '" + v + "' (--view list shows them)"};
        if (!applies(v))
            throw Failure{"--view " + v + ": does not apply to scheme " +
                          std::string(toString(p.scheme)) +
                          " (it applies to: " + schemeList(schemesWithView(v, p)) + ")"};
        out.push_back(v);
    }
    if (out.empty())
        throw Failure{"--view: no view to draw (--view list shows them)"};
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/** Drops the offscreen platform's chatter about windows it never shows; passes the rest on. */
QtMessageHandler g_previousHandler = nullptr;
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtWarningMsg &&
        (message.contains(QLatin1String("does not support propagateSizeHints")) ||
         message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR"))))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

/**
 * Qt draws offscreen unless told otherwise, so figures never depend on a display. The device
 * pixel ratio is the output's: the heat maps pool a large matrix to the pixels the file will
 * have (at 300 dpi, 3× those of the screen), not to the screen's.
 */
std::unique_ptr<QApplication> makeApplication(double pixelRatio) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qEnvironmentVariableIsEmpty("QT_SCALE_FACTOR")) // the plots' buffers grow with its square
        qputenv("QT_SCALE_FACTOR", QByteArray::number(std::clamp(pixelRatio, 1.0, 4.0)));
    g_previousHandler = qInstallMessageHandler(quietHandler);
    static int argc = 1;
    static char name[] = "pe-explorer-cli";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QApplication>(argc, argv);
}

/** A computed trace and, in pooled mode, what the window's worker gives with it. */
struct Computed {
    std::shared_ptr<const Trace> trace;
    PoolInfo pool;
    std::shared_ptr<const PositionView> positions;
};

/**
 * The trace of `p` on the --backend engine. With `pool`, as the window computes above 2,048
 * positions: logits and weights pooled, no other n × n matrix, and the relative tables by
 * offset that the Relative tab's maps are pooled from.
 */
Computed compute(const TraceOptions& engine, const TraceInput& in, const Params& p,
                 const PoolRequest* pool = nullptr) {
    Weights w = in.weights;
    completeParameterWeights(in.weightsFile, p, w, pool);
    BackendRun ran = computeOnBackend(engine.backend, p, w, pool, engine.threads);
    if (!ran.trace)
        throw Failure{ran.trace.error().message};
    Trace t = std::move(ran.trace).value();
    if (!in.tokens.empty())
        t.tokens = in.tokens;
    Computed c;
    if (pool) {
        c.pool = PoolInfo::whole(p.seqLen(), ran.poolCells, pool->mode);
        c.positions = positionsFor(p, w);
    } else if (isAbsolute(p.scheme)) { // the Logit terms view splits the logits into e·e … p·p
        t.queryKey = std::make_shared<const QueryKeyWeights>(QueryKeyWeights{w.W_q, w.W_k});
    }
    c.trace = std::make_shared<const Trace>(std::move(t));
    return c;
}

/** One insights page for render's options (the numbers of `insight NAME`); errors exit 2. */
InsightResult renderInsight(const RenderOptions& o, const TraceInput& in, InsightPage page) {
    InsightRequest request;
    request.page = page;
    request.params = in.params;
    InsightSettings& s = request.settings;
    s.delta = o.delta;
    s.kernel = o.kernel;
    s.measure = o.measure;
    s.depth.layers = o.layers;
    s.depth.residual = o.residual;
    s.depth.mlp = o.mlp;
    const auto norm = depthNormFromString(o.depthNorm);
    if (!norm)
        throw Failure{"--depth-norm: unknown value '" + o.depthNorm +
                      "' (expected one of: none, layernorm, rmsnorm)"};
    s.depth.norm = *norm;
    if (page == InsightPage::Depth && (s.depth.layers < 1 || s.depth.layers > kMaxDepthLayers))
        throw Failure{"--layers " + std::to_string(s.depth.layers) + " must be between 1 and " +
                      std::to_string(kMaxDepthLayers)};
    Weights w = in.weights;
    if (page == InsightPage::Distance || page == InsightPage::Depth)
        if (Status st = completeTraceWeights(in, in.params, w); !st)
            throw Failure{st.error().message};
    auto engine = createOptionBackend(o.params.backend, o.params.threads);
    InsightResult r = computeInsight(request, std::move(w), engine.get());
    if (!r.ok())
        throw Failure{r.error.toStdString()};
    return r;
}

int run(const RenderOptions& o) {
    if (o.views == "list")
        return printViewList();

    FigureStyle style;
    const QSize size = o.size.empty() ? QSize() : parseSize(o.size);
    if (o.dpi < 24 || o.dpi > 2400)
        throw Failure{"--dpi: " + std::to_string(o.dpi) + " is out of range (24 to 2400)"};
    const QSize largest = size.isValid() ? size : QSize(1600, 1200); // the largest default
    if (static_cast<double>(largest.width()) * largest.height() * o.dpi * o.dpi / 9216.0 > 4e8)
        throw Failure{"--size " + (o.size.empty() ? std::string("(default)") : o.size) +
                      " at --dpi " + std::to_string(o.dpi) +
                      " makes images of more than 400 megapixels"};
    const QString cmap = QString::fromStdString(o.colormap);
    style.colorMap = colorMapFromString(cmap);
    if (toString(style.colorMap) != cmap)
        throw Failure{"--colormap: unknown value '" + o.colormap +
                      "' (expected one of: auto, viridis, magma, greys, RdBu, PuOr)"};
    if (o.pool != "mean" && o.pool != "max")
        throw Failure{"--pool: unknown value '" + o.pool + "' (expected one of: mean, max)"};
    style.pool = o.pool == "max" ? PoolMode::Max : PoolMode::Mean;
    style.columns = QString::fromStdString(o.columns);
    style.compareTensor = QString::fromStdString(o.compareTensor);
    if (o.compareTensor != "weights" && o.compareTensor != "logits" && o.compareTensor != "out" &&
        o.compareTensor != "position")
        throw Failure{"--compare-tensor: unknown value '" + o.compareTensor +
                      "' (expected one of: weights, logits, out, position)"};
    std::vector<Scheme> compared; // B, then the gallery's schemes
    for (const std::string& name : splitComma(o.compareScheme)) {
        const auto s = schemeFromString(name);
        if (!s)
            throw Failure{"--compare-scheme: unknown scheme '" + name + "'"};
        compared.push_back(*s);
    }
    if (compared.empty())
        throw Failure{"--compare-scheme: no scheme named"};

    // Output: exactly one of -o FILE and --out DIR; the format from --format or -o's suffix.
    if (o.outFile.empty() == o.outDir.empty())
        throw Failure{"give one of -o FILE (one view) and --out DIR"};
    std::string format = o.format;
    if (!format.empty() && format != "png" && format != "svg" && format != "pdf")
        throw Failure{"--format: unknown value '" + format + "' (expected one of: png, svg, pdf)"};
    if (!o.outFile.empty()) {
        const std::string suffix =
            QFileInfo(QString::fromStdString(o.outFile)).suffix().toLower().toStdString();
        const bool known = suffix == "png" || suffix == "svg" || suffix == "pdf";
        if (format.empty() && !known)
            throw Failure{"-o " + o.outFile +
                          ": cannot tell the format from the name; add --format png|svg|pdf"};
        if (!format.empty() && known && suffix != format)
            throw Failure{"--format " + format + " does not match -o " + o.outFile};
        if (format.empty())
            format = suffix;
    }
    if (format.empty())
        format = "png";

    if (o.session.empty() && o.params.scheme.empty())
        throw Failure{"--scheme or --session is required"};
    TraceInput in;
    if (!o.session.empty()) {
        in = fromSession(o.session);
    } else {
        auto parsed = traceInputFromOptions(o.params);
        if (!parsed)
            throw Failure{parsed.error().message};
        in = std::move(parsed).value();
    }
    const Params& p = in.params;
    if (o.head < 0 || o.head >= p.heads)
        throw Failure{"--head " + std::to_string(o.head) + " does not exist (--heads " +
                      std::to_string(p.heads) + ")"};
    if (o.query < 0 || o.query >= p.seqLen())
        throw Failure{"--query " + std::to_string(o.query) + " is outside the sequence (0 to " +
                      std::to_string(p.seqLen() - 1) + ")"};
    style.head = o.head;
    style.query = o.query;
    std::vector<std::string> notes; // printed once every check has passed
    const std::vector<std::string> views = resolveViews(o, p, notes);
    // Above 2,048 positions, as the window: no n × n matrix held but the pooled logits and
    // weights (--pool's mode), the relative index and bias pooled from their tables.
    const bool pooled = p.seqLen() > ComputeWorker::kDefaultPoolThreshold;
    PoolRequest poolRequest;
    poolRequest.resolution = ComputeWorker::kDefaultPoolResolution;
    poolRequest.mode = style.pool;
    if (pooled) {
        for (const std::string& view : views)
            if (view == "compare" || view.rfind("term:", 0) == 0)
                throw Failure{"--view " + view + ": not drawn above " +
                              std::to_string(ComputeWorker::kDefaultPoolThreshold) +
                              " positions (n = " + std::to_string(p.seqLen()) +
                              "), where the logits and weights are pooled and no other n × n "
                              "matrix is computed; lower --n"};
        notes.push_back("n = " + std::to_string(p.seqLen()) + " > " +
                        std::to_string(ComputeWorker::kDefaultPoolThreshold) +
                        ": pooled mode, as the window: the logits and weights pooled to " +
                        std::to_string(std::min(p.seqLen(), poolRequest.resolution)) +
                        " cells a side (" + o.pool +
                        "), the relative index and bias from their tables by distance");
    }

    QString single;
    std::unique_ptr<StagedOutput> staged;
    if (!o.outFile.empty()) {
        if (views.size() != 1)
            throw Failure{"-o takes one view, got " + std::to_string(views.size()) +
                          "; use --out DIR for several"};
        const QFileInfo file(QString::fromStdString(o.outFile));
        const QFileInfo dir(file.absolutePath());
        if (file.isDir())
            throw Failure{"-o " + o.outFile + ": is a folder"};
        if (!dir.isDir() || !dir.isWritable())
            throw Failure{"-o " + o.outFile + ": folder " + dir.filePath().toStdString() +
                          (dir.isDir() ? " is not writable" : " does not exist")};
        single = file.absoluteFilePath();
    } else {
        auto s = StagedOutput::prepare(o.outDir);
        if (!s)
            throw Failure{s.error().message};
        staged = std::move(s).value();
    }

    for (const std::string& note : notes)
        std::cerr << "pe-explorer-cli: note: " << note << "\n";
    // The insights pages are computed first: a bad page option exits 2 and writes nothing.
    std::map<std::string, InsightResult> insights;
    for (const std::string& view : views)
        if (const auto page = insightPageFromString(view))
            insights.emplace(view, renderInsight(o, in, *page));
    const bool traceViews = insights.size() < views.size();

    std::unique_ptr<QApplication> app = makeApplication(format == "png" ? o.dpi / 96.0 : 2.0);
    HeatmapView::setSquareCellsEverywhere(o.squareCells); // every map made from here on
    std::unique_ptr<FigureMaker> maker;
    if (traceViews) {
        const Computed c = compute(o.params, in, p, pooled ? &poolRequest : nullptr);
        std::vector<std::shared_ptr<const Trace>> others;
        if (std::find(views.begin(), views.end(), "compare") != views.end())
            for (Scheme s : compared)
                others.push_back(compute(o.params, in, paramsUnder(p, s)).trace);
        maker =
            std::make_unique<FigureMaker>(c.trace, std::move(others), style, c.pool, c.positions);
    }

    if (staged)
        if (Status st = staged->begin(); !st)
            throw Failure{st.error().message}; // a --out that cannot be created
    for (const std::string& view : views) {
        Expected<Figure> fig = Error{"no figure"};
        if (const auto it = insights.find(view); it != insights.end()) {
            style.size = size.isValid() ? size : defaultInsightSize(it->second.page);
            fig = insightFigure(it->second, style);
        } else {
            maker->setSize(size.isValid() ? size : maker->defaultSize(view));
            fig = maker->make(view);
        }
        if (!fig)
            throw Failure{fig.error().message, kExitFailure};
        const QString path =
            staged ? QString::fromStdString(staged->filePath(fileNameFor(view, o.head, format)))
                   : single;
        if (Status st = exportFigure(*fig, path, QString::fromStdString(format), o.dpi); !st)
            throw Failure{st.error().message, kExitFailure};
    }
    if (staged)
        if (Status st = staged->commit(); !st)
            throw Failure{st.error().message, kExitFailure};
    return kExitOk;
}

} // namespace

CLI::App* addRenderCommand(CLI::App& app, RenderOptions& o) {
    CLI::App* r = app.add_subcommand(
        "render", "Draw the window's figures without a window, as PNG, SVG or PDF, from the "
                  "parameter options (as trace reads them) or from a session file. Options and "
                  "views: docs/trace-format.md.");
    const std::vector<CLI::Option*> params = addParameterOptions(r, o.params);
    CLI::Option* session =
        r->add_option("--session", o.session,
                      "a session file saved by the window (File > Save session), instead of the "
                      "parameter options");
    // Checked here rather than with excludes(), which would print on every option's help line.
    r->final_callback([session, params] {
        if (session->count() == 0)
            return;
        for (const CLI::Option* opt : params)
            if (opt->count() > 0 && opt->get_name() != "--backend" &&
                opt->get_name() != "--threads")
                throw CLI::ExcludesError(session->get_name(), opt->get_name());
    });
    std::string names;
    for (const RenderView& v : renderViewCatalog())
        names += (names.empty() ? "" : ", ") + v.name;
    r->add_option("--view", o.views,
                  "comma list of views (" + names +
                      "), 'all', or 'list' to show which schemes each applies to")
        ->capture_default_str();
    r->add_option("--format", o.format, "png, svg or pdf (default: -o's suffix, else png)");
    r->add_option("--dpi", o.dpi, "PNG resolution: pixels = size × dpi / 96")
        ->capture_default_str();
    r->add_option("--size", o.size,
                  "figure size WxH in pixels at 96 dpi (SVG/PDF: × 3/4 pt); default 800x600, "
                  "wider for the panels of several maps");
    auto* dir = r->add_option("--out", o.outDir, "output folder, one file per view (all or none)");
    r->add_option("-o,--output", o.outFile, "output file, for one view")->excludes(dir);
    r->add_option("--head", o.head, "head of the per-head views")->capture_default_str();
    r->add_option("--query", o.query, "query row of the query-row view")->capture_default_str();
    r->add_option("--columns", o.columns, "columns of P for position-lines")->capture_default_str();
    r->add_option("--colormap", o.colormap, "auto, viridis, magma, greys, RdBu, PuOr")
        ->capture_default_str();
    r->add_flag("--square-cells", o.squareCells,
                "draw the maps' cells square (as matplotlib's imshow), each map centred in its "
                "box; default: maps fill their boxes");
    r->add_option("--pool", o.pool, "pooling of matrices larger than the plot: mean or max")
        ->capture_default_str();
    r->add_option("--compare-scheme", o.compareScheme,
                  "scheme B of the compare view; a comma list adds the rest below, as the "
                  "window's gallery")
        ->capture_default_str();
    r->add_option("--compare-tensor", o.compareTensor,
                  "weights, logits, out, or position (the position term of the logits)")
        ->capture_default_str();
    r->add_option("--delta", o.delta, "offset view: the shift delta, 1 <= delta < n")
        ->capture_default_str();
    r->add_option("--kernel", o.kernel, "cost view: the CNN's kernel size k >= 2")
        ->capture_default_str();
    r->add_option("--layers", o.layers, "depth view: layers L, 1 to 32")->capture_default_str();
    r->add_flag("--residual,!--no-residual", o.residual,
                "depth view: residual connections (default) or none");
    r->add_option("--depth-norm", o.depthNorm, "depth view: pre-norm none, layernorm or rmsnorm")
        ->capture_default_str();
    r->add_flag("--mlp", o.mlp, "depth view: a ReLU MLP after each attention");
    r->add_flag("--measure", o.measure,
                "cost view: time one attention layer per n = 128 ... 16384 on the fast CPU engine");
    return r;
}

int runRender(const RenderOptions& o) {
    return runReportingErrors([&] { return run(o); });
}

} // namespace pe
