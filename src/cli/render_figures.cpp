// SPDX-License-Identifier: MIT
#include "render_figures.h"

#include <QApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "qcp.h"

#include "comparison_view.h"
#include "exporter.h"
#include "insights_figures.h"
#include "line_plot_view.h"
#include "stages.h"
#include "trace_views.h"

namespace pe {

namespace {

constexpr const char* kTermPrefix = "term:";
constexpr const char* kHeadPrefix = "attention-head:";

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

/** Whether a trace with these tensors has what `view` draws. */
bool hasView(const std::string& view, const std::vector<std::string>& tensors) {
    if (view == "rel-index") // URPE's table C takes the place of the index matrix
        return contains(tensors, "rel_index") || contains(tensors, "urpe_C");
    const std::string t = tensorNeeded(view);
    return !t.empty() && contains(tensors, t);
}

/**
 * Shows `w` offscreen (never on a screen) at `size` and lets its layouts settle. The asked size
 * wins over the plots' minimum size hints (a long title would otherwise widen the figure).
 */
void present(QWidget* w, QSize size) {
    for (QCustomPlot* plot : w->findChildren<QCustomPlot*>())
        plot->setMinimumSize(1, 1);
    if (w->layout())
        w->layout()->setSizeConstraint(QLayout::SetNoConstraint);
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->resize(size);
    w->show();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

/**
 * Copies `src`'s grid, titles, colour map, shared colour range (the Compare tab's) and pooled
 * source size into `v`. The second setData pools the grid to the axis rect that the first one's
 * labels and colour scale left (setData lays out on replot).
 */
void copyHeatmap(HeatmapView* v, const HeatmapView* src, PoolMode pool) {
    v->setColorMap(src->colorMap());
    v->setColourRange(src->sharedColourRange());
    v->setPoolMode(pool);
    for (int pass = 0; pass < 2; ++pass) {
        v->setData(src->data(), src->info());
        if (src->sourceRows() > 0) // pooled cells: the axes label positions
            v->setSource(src->sourceRows(), src->sourceCols());
        v->plot()->replot();
    }
}

QLabel* headerLabel(const QString& text, int pointSize, bool bold, QColor colour) {
    auto* l = new QLabel(text);
    QFont f = l->font();
    f.setPointSize(pointSize);
    f.setBold(bold);
    l->setFont(f);
    l->setAlignment(Qt::AlignCenter);
    QPalette pal = l->palette();
    pal.setColor(QPalette::WindowText, colour);
    l->setPalette(pal);
    return l;
}

/** A white panel of maps copied from `sources`, in `columns` columns, under an optional header. */
Figure panelFigure(const std::vector<const HeatmapView*>& sources, int columns, bool compact,
                   const QString& title, const QString& subtitle, const FigureStyle& style) {
    Figure f{std::make_unique<QWidget>(), nullptr};
    QWidget* panel = f.widget.get();
    panel->setAutoFillBackground(true);
    QPalette pal = panel->palette();
    pal.setColor(QPalette::Window, Qt::white);
    panel->setPalette(pal);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(2);
    // The fonts of HeatmapView's own title and parameters line.
    if (!title.isEmpty())
        layout->addWidget(headerLabel(title, 11, true, Qt::black));
    if (!subtitle.isEmpty())
        layout->addWidget(headerLabel(subtitle, 8, false, QColor(80, 80, 80)));
    auto* grid = new QGridLayout;
    grid->setSpacing(compact ? 4 : 8);
    layout->addLayout(grid, 1);
    std::vector<HeatmapView*> copies;
    for (std::size_t k = 0; k < sources.size(); ++k) {
        auto* v = new HeatmapView(panel, compact);
        grid->addWidget(v, static_cast<int>(k) / columns, static_cast<int>(k) % columns);
        copies.push_back(v);
    }
    present(panel, style.size);
    for (std::size_t k = 0; k < sources.size(); ++k)
        copyHeatmap(copies[k], sources[k], style.pool);
    if (!compact) { // maps side by side start their axes level, whatever their titles' lines
        alignHeaders(copies, columns);
        for (HeatmapView* v : copies)
            v->plot()->replot();
    }
    return f;
}

std::vector<const HeatmapView*> shown(const std::vector<HeatmapView*>& views) {
    std::vector<const HeatmapView*> out;
    for (const HeatmapView* v : views)
        if (!v->isHidden())
            out.push_back(v);
    return out;
}

} // namespace

QSize defaultInsightSize(InsightPage page) {
    // Three figures side by side, or two rows of two.
    return page == InsightPage::Offset || page == InsightPage::Depth ? QSize(1100, 900)
                                                                     : QSize(1500, 560);
}

Expected<Figure> insightFigure(const InsightResult& r, const FigureStyle& style) {
    Figure f{std::make_unique<QWidget>(), nullptr};
    QWidget* panel = f.widget.get();
    panel->setAutoFillBackground(true);
    QPalette pal = panel->palette();
    pal.setColor(QPalette::Window, Qt::white);
    panel->setPalette(pal);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(2);
    layout->addWidget(headerLabel(insightPageHeading(r.page), 11, true, Qt::black));
    layout->addWidget(headerLabel(insightSubtitle(r), 8, false, QColor(80, 80, 80)));
    auto* figures = new InsightsFigures;
    layout->addWidget(figures, 1);
    figures->setColorMap(style.colorMap);
    figures->setMeasureHint(QObject::tr("not measured (render --measure)"));
    figures->setPage(r.page);
    present(panel, style.size);
    // Twice: the second pools the heat maps to the axis rects the first one laid out.
    for (int pass = 0; pass < 2; ++pass) {
        figures->setResult(r);
        for (QCustomPlot* plot : panel->findChildren<QCustomPlot*>())
            plot->replot();
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
    if (!r.ok())
        return Error{r.error.toStdString()};
    return f;
}

std::vector<RenderView> renderViewCatalog() {
    std::string terms;
    for (const std::string& t : logitTermNames())
        terms += (terms.empty() ? "" : ", ") + t;
    return {
        {"position", "position matrix P (Encoding tab)"},
        {"position-lines", "columns of P against position, d2l's figure (--columns)"},
        {"similarity", "position similarity P·Pᵀ"},
        {"rel-index", "relative index / bucket; URPE: its table C (Relative tab)"},
        {"bias", "additive position bias of --head"},
        {"terms", "every logit term of --head, side by side (Logit terms tab)"},
        {"term:NAME", "one logit term of --head; NAME: " + terms},
        {"attention", "attention weights of every head, small multiples (Attention tab)"},
        {"attention-head[:K]", "attention weights of head K (default --head), enlarged"},
        {"query-row", "weights of query --query, head --head, against key position"},
        {"compare", "A, B and A − B under --compare-scheme (--compare-tensor, --head)"},
        {"binary", "insights: bits of the positions beside P and the periods (docs/insights.md)"},
        {"offset", "insights: M_delta, P[i+delta] against M_delta P[i], residual (--delta)"},
        {"cost", "insights: FLOPs and path length of CNN, RNN, attention (--kernel)"},
        {"distance", "insights: attention and position term against j - i, RoPE decay"},
        {"depth", "insights: stacked layers (--layers, --no-residual, --depth-norm, --mlp)"},
    };
}

std::string tensorNeeded(const std::string& view) {
    if (view == "position" || view == "position-lines" || view == "similarity")
        return "P";
    if (view == "rel-index")
        return "rel_index";
    if (view == "bias")
        return "bias";
    if (view == "terms")
        return "logits";
    if (startsWith(view, kTermPrefix)) {
        const std::string name = view.substr(std::string(kTermPrefix).size());
        for (const AbsoluteTerm& a : absoluteTerms()) // split from the logits, given P
            if (name == a.name)
                return "P";
        return contains(logitTermNames(), name) ? name : std::string();
    }
    if (view == "attention" || view == "attention-head" || startsWith(view, kHeadPrefix) ||
        view == "query-row" || view == "compare")
        return "weights";
    return {};
}

std::vector<Scheme> schemesWithView(const std::string& view, const Params& p) {
    std::vector<Scheme> out;
    const auto page = insightPageFromString(view);
    for (Scheme s : allSchemes()) {
        Params q = p;
        q.scheme = s;
        if (page ? (*page != InsightPage::Offset || offsetApplies(q))
                 : hasView(view, traceTensorNames(q)))
            out.push_back(s);
    }
    return out;
}

/** The window's views, filled from the trace and never shown. */
struct FigureMaker::Views {
    TraceViews trace;
    ComparisonView compare;

    /** Prepares every tab (the views prepare only the tab on screen). */
    void refreshAll() {
        for (int k = 0; k < trace.count(); ++k)
            trace.setCurrentIndex(k);
    }
};

FigureMaker::FigureMaker(std::shared_ptr<const Trace> trace,
                         std::vector<std::shared_ptr<const Trace>> compared,
                         const FigureStyle& style, const PoolInfo& pool,
                         std::shared_ptr<const PositionView> positions)
    : m_views(std::make_unique<Views>())
    , m_trace(std::move(trace))
    , m_style(style) {
    TraceViews& v = m_views->trace;
    v.setColorMap(style.colorMap);
    v.setPoolMode(style.pool);
    v.columnsEdit()->setText(style.columns);
    v.setTrace(m_trace, pool, std::move(positions));
    v.selectHead(style.head);
    v.selectQuery(style.query);
    m_views->refreshAll();
    if (!compared.empty()) {
        ComparisonView& c = m_views->compare;
        c.setBlocking(true); // the figure is drawn once, now
        c.setColorMap(style.colorMap);
        c.setPoolMode(style.pool);
        c.setReference(m_trace, InputChoice{});
        c.setOtherScheme(compared.front()->params.scheme);
        std::vector<Scheme> gallery;
        for (std::size_t k = 1; k < compared.size(); ++k)
            gallery.push_back(compared[k]->params.scheme);
        c.setGallerySchemes(gallery);
        c.setTensor(style.compareTensor);
        c.setHead(style.head);
        for (auto& t : compared)
            c.addTrace(std::move(t));
    }
}

FigureMaker::~FigureMaker() = default;

namespace {
/** Columns of the terms panel, as the Logit terms tab lays them out. */
int termColumns(std::size_t terms) {
    return terms > 4 ? 3 : 2;
}
} // namespace

QSize FigureMaker::defaultSize(const std::string& view) const {
    // Below ~450 px a map with its colour scale no longer fits: QCustomPlot overlaps them.
    if (view == "compare") {
        const auto maps = 3 + m_views->compare.gallerySchemes().size();
        return {1500, 520 * static_cast<int>((maps + 2) / 3)};
    }
    if (view == "terms") {
        const auto n = static_cast<int>(shown(m_views->trace.termMaps()).size());
        const int columns = n > 1 ? termColumns(static_cast<std::size_t>(n)) : 1;
        const int rows = (n + columns - 1) / std::max(columns, 1);
        return {columns * 520, std::max(rows, 1) * 420};
    }
    if (view == "attention")
        return {800, 800};
    return {800, 600};
}

Expected<Figure> FigureMaker::make(const std::string& view) {
    TraceViews& v = m_views->trace;
    auto heatmap = [this](const HeatmapView* src) {
        auto* copy = new HeatmapView;
        Figure f{std::unique_ptr<QWidget>(copy), copy->plot()};
        present(copy, m_style.size);
        copyHeatmap(copy, src, m_style.pool);
        // The plot, not the widget (which adds the hover read-out line), gets the asked size.
        for (int k = 0; k < 5 && copy->plot()->size() != m_style.size; ++k) {
            copy->resize(copy->size() + m_style.size - copy->plot()->size());
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
        }
        copyHeatmap(copy, src, m_style.pool);
        return f;
    };
    auto lines = [this](const LinePlotView* src) {
        auto* copy = new LinePlotView;
        Figure f{std::unique_ptr<QWidget>(copy), copy->plot()};
        present(copy, m_style.size);
        copy->setContent(src->content());
        copy->plot()->replot();
        return f;
    };

    if (view == "position")
        return heatmap(v.positionMap());
    if (view == "similarity")
        return heatmap(v.similarityMap());
    if (view == "position-lines")
        return lines(v.columnsPlot());
    if (view == "rel-index")
        return heatmap(v.relIndexMap());
    if (view == "bias")
        return heatmap(v.biasMap());
    if (view == "query-row")
        return lines(v.queryRowPlot());
    if (view == "attention-head")
        return heatmap(v.attentionMap());
    if (startsWith(view, kHeadPrefix)) {
        const int h = std::stoi(view.substr(std::string(kHeadPrefix).size()));
        v.selectHead(h);
        m_views->refreshAll();
        Expected<Figure> f = heatmap(v.attentionMap());
        v.selectHead(m_style.head); // the other per-head views keep --head
        m_views->refreshAll();
        return f;
    }
    if (view == "terms") {
        const auto maps = shown(v.termMaps());
        const int columns = maps.size() > 1 ? termColumns(maps.size()) : 1;
        return panelFigure(maps, columns, false, QString(), QString(), m_style);
    }
    if (startsWith(view, kTermPrefix)) {
        const QString name = QString::fromStdString(view.substr(std::string(kTermPrefix).size()));
        for (const HeatmapView* map : shown(v.termMaps()))
            if (map->info().valueTitle == name)
                return heatmap(map);
        return Error{"the trace has no logit term " + name.toStdString()};
    }
    if (view == "attention") {
        const auto maps = shown(v.headMaps());
        const int columns =
            std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(maps.size())))));
        return panelFigure(maps, columns, true, QObject::tr("attention weights of every head"),
                           describeParams(m_trace->params), m_style);
    }
    if (view == "compare") {
        const ComparisonView& c = m_views->compare;
        if (!c.other())
            return Error{"compare: no trace B"};
        std::vector<const HeatmapView*> maps{c.left(), c.right(), c.difference()};
        for (Scheme s : c.gallerySchemes())
            maps.push_back(c.galleryView(s));
        return panelFigure(maps, 3, false, QString(), QString(), m_style);
    }
    return Error{"unknown view '" + view + "'"};
}

Status exportFigure(const Figure& f, const QString& path, const QString& format, int dpi) {
    const FigureFormat fmt = format == QLatin1String("svg")   ? FigureFormat::Svg
                             : format == QLatin1String("pdf") ? FigureFormat::Pdf
                                                              : FigureFormat::Png;
    return f.plot ? exportPlot(f.plot, path, fmt, dpi)
                  : exportWidget(f.widget.get(), path, fmt, dpi);
}

} // namespace pe
