// SPDX-License-Identifier: MIT
#include "insights_figures.h"

#include <QFutureWatcher>
#include <QGridLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

#include "allocator.h"
#include "line_plot_view.h"
#include "trace_views.h"

namespace pe {

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

Grid toGrid(const Eigen::MatrixXd& m) {
    Grid g;
    g.rows = static_cast<int>(m.rows());
    g.cols = static_cast<int>(m.cols());
    g.values.resize(static_cast<std::size_t>(m.size()));
    std::size_t k = 0;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            g.values[k++] = m(r, c);
    return g;
}

std::vector<double> toVector(const Eigen::VectorXd& v) {
    return {v.data(), v.data() + v.size()};
}

std::vector<double> range(double from, int count) {
    std::vector<double> x(static_cast<std::size_t>(std::max(count, 0)));
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = from + static_cast<double>(i);
    return x;
}

/** One curve: y against x (empty: 0, 1, …), in a style and colour (invalid: the palette's). */
LineSeries line(const QString& name, std::vector<double> y, std::vector<double> x = {},
                LineStyle style = LineStyle::Line, QColor colour = {}) {
    LineSeries s;
    s.name = name;
    s.values = std::move(y);
    s.x = std::move(x);
    s.style = style;
    s.colour = colour;
    return s;
}

/** A number for the page text: 3 significant digits, exponent form when small or large. */
QString num(double v) {
    if (!std::isfinite(v))
        return QStringLiteral("–");
    const double a = std::abs(v);
    if (a != 0 && (a < 1e-3 || a >= 1e6))
        return QString::number(v, 'e', 2);
    return QString::number(v, 'g', 4);
}

QString layoutName(SinLayout l) {
    return qs(toString(l));
}

} // namespace

QString insightPageTitle(InsightPage page) {
    switch (page) {
    case InsightPage::Binary:
        return QObject::tr("binary: sinusoids as bits");
    case InsightPage::Offset:
        return QObject::tr("offset: P[i+δ] = Mδ·P[i]");
    case InsightPage::Cost:
        return QObject::tr("cost: CNN, RNN, attention");
    case InsightPage::Distance:
        return QObject::tr("distance: against j − i");
    case InsightPage::Depth:
        return QObject::tr("depth: stacked layers");
    }
    return {};
}

QString insightPageHeading(InsightPage page) {
    switch (page) {
    case InsightPage::Binary:
        return QObject::tr("binary — sinusoids as binary digits");
    case InsightPage::Offset:
        return QObject::tr("offset — a fixed linear map shifts P");
    case InsightPage::Cost:
        return QObject::tr("cost — CNN, RNN and self-attention");
    case InsightPage::Distance:
        return QObject::tr("distance — attention against j − i");
    case InsightPage::Depth:
        return QObject::tr("depth — stacking layers (exercise 1)");
    }
    return {};
}

QString insightExplanation(InsightPage page) {
    switch (page) {
    case InsightPage::Binary:
        return QObject::tr(
            "Written in binary, bit <i>b</i> of the positions 0, 1, 2, … flips every "
            "2<sup><i>b</i></sup> numbers: the low bits change fast, the high bits slowly. The "
            "columns of the sinusoidal table do the same with continuous values: pair <i>j</i> "
            "oscillates with ω<sub><i>j</i></sub> = base<sup>−2<i>j</i>/<i>d</i></sup>, "
            "period 2π/ω<sub><i>j</i></sub>, slower as <i>j</i> grows. "
            "<span style='color:#666'>d2l §Positional Encoding, “Absolute Positional "
            "Information”.</span>");
    case InsightPage::Offset:
        return QObject::tr(
            "For a fixed offset δ, every (sin, cos) pair at position <i>i</i> + δ is "
            "the pair at <i>i</i> turned by the angle δω<sub><i>j</i></sub>, whatever "
            "<i>i</i> is: P[<i>i</i>+δ] = M<sub>δ</sub>·P[<i>i</i>] with "
            "M<sub>δ</sub> made of 2×2 rotations. A table that is not sinusoidal "
            "(learned, mlp) gets the best least-squares M<sub>δ</sub> instead, and keeps a "
            "large residual. For the same reason P·P<sup>T</sup> depends only on <i>i</i> "
            "− <i>j</i>. <span style='color:#666'>d2l §Positional Encoding, "
            "“Relative Positional Information”.</span>");
    case InsightPage::Cost:
        return QObject::tr(
            "Mapping <i>n</i> tokens of width <i>d</i> (a multiply-add counts as 2 FLOPs): a "
            "convolution with kernel <i>k</i> costs 2<i>knd</i>², a recurrent layer "
            "2<i>nd</i>² with <i>n</i> sequential steps, self-attention 4<i>n</i>²"
            "<i>d</i> with a path of length 1 between any two tokens. Attention is the cheapest "
            "below <i>n</i> = <i>d</i>/2 and the most expensive for long sequences. "
            "<span style='color:#666'>d2l §Self-Attention, “Comparing CNNs, RNNs, and "
            "Self-Attention”.</span>");
    case InsightPage::Distance:
        return QObject::tr(
            "Every token sees every other in one step; how strongly depends on the scheme. "
            "Averaged over query rows <i>i</i>, the mean attention weight A[<i>i</i>, <i>i</i>+"
            "<i>r</i>] and the position term of the logits against the offset <i>r</i> = "
            "<i>j</i> − <i>i</i>; with RoPE's long-term decay (2/<i>d</i>)·Σ"
            "<sub><i>j</i></sub>|S<sub><i>j</i></sub>(<i>r</i>)|, S<sub><i>j</i></sub> = "
            "Σ<sub><i>k</i>&lt;<i>j</i></sub> e<sup><i>ir</i>θ<sub><i>k</i></sub></sup>. "
            "<span style='color:#666'>d2l §Self-Attention; RoFormer §3.4.3.</span>");
    case InsightPage::Depth:
        return QObject::tr(
            "Stacking attention layers: pure attention averages tokens, and a stack of it makes "
            "every token the same vector (rank collapse, Dong et al. 2021): the uniformity "
            "residual ‖X − 1·x̄<sup>T</sup>‖<sub>F</sub>/‖X"
            "‖<sub>F</sub> falls doubly exponentially. Residual connections keep it, and "
            "with it the position a linear probe can read (R²). "
            "<span style='color:#666'>d2l §Positional Encoding, exercise 1: “what "
            "could the possible issues be?”</span>");
    }
    return {};
}

QString insightSubtitle(const InsightResult& r) {
    const Params& p = r.params;
    switch (r.page) {
    case InsightPage::Binary:
        return QStringLiteral("N=%1, d=%2, base=%3, %4")
            .arg(p.seqLen())
            .arg(p.d)
            .arg(p.base)
            .arg(layoutName(p.layout));
    case InsightPage::Offset:
        return describeParams(p) + QStringLiteral(", δ=%1").arg(r.settings.delta);
    case InsightPage::Cost:
        return QStringLiteral("d=%1, k=%2").arg(p.d).arg(r.settings.kernel);
    case InsightPage::Distance:
        return describeParams(p);
    case InsightPage::Depth:
        return describeParams(p) +
               QStringLiteral(", L=%1, %2, norm %3%4")
                   .arg(r.settings.depth.layers)
                   .arg(r.settings.depth.residual ? QStringLiteral("residual")
                                                  : QStringLiteral("no residual"))
                   .arg(qs(toString(r.settings.depth.norm)))
                   .arg(r.settings.depth.mlp ? QStringLiteral(", MLP") : QString());
    }
    return {};
}

QString insightNumbers(const InsightResult& r) {
    if (!r.ok())
        return r.error;
    switch (r.page) {
    case InsightPage::Binary: {
        const BinaryInsight& b = *r.binary;
        return QObject::tr("N = %1 positions need B = ⌈log₂ N⌉ = %2 bits, periods "
                           "2 … %3; the %4 sinusoid pairs have periods %5 … %6.")
            .arg(b.positions)
            .arg(b.bitCount)
            .arg(num(b.bitPeriod.size() ? b.bitPeriod(b.bitPeriod.size() - 1) : 0))
            .arg(b.period.size())
            .arg(num(b.period.size() ? b.period(0) : 0))
            .arg(num(b.period.size() ? b.period(b.period.size() - 1) : 0));
    }
    case InsightPage::Offset: {
        const OffsetInsight& o = *r.offset;
        QString s = QObject::tr("relative residual = %1 (%2 M<sub>δ</sub>, %3), max "
                                "|residual| = %4; P·P<sup>T</sup> Toeplitz deviation = %5 of "
                                "max |G| = %6")
                        .arg(num(o.relativeResidual))
                        .arg(o.method == OffsetMethod::Exact ? QObject::tr("exact")
                                                             : QObject::tr("least-squares"))
                        .arg(qs(o.source))
                        .arg(num(o.maxAbsResidual))
                        .arg(num(o.toeplitzMaxDeviation))
                        .arg(num(o.gramMaxAbs));
        if (o.ropeDeviation.size() > 0)
            s +=
                QObject::tr("; rotated q·k deviation from m − n = %1").arg(num(o.ropeMaxDeviation));
        if (o.underdetermined)
            s += QObject::tr(" — N − δ ≤ d: any table fits exactly");
        return s;
    }
    case InsightPage::Cost: {
        const CostInsight& c = *r.cost;
        QString s = QObject::tr("attention = RNN at n = d/2 = %1, attention = CNN at n = kd/2 = "
                                "%2; sequential operations: CNN 1, RNN n, attention 1.")
                        .arg(num(c.attentionRnnCrossover))
                        .arg(num(c.attentionCnnCrossover));
        if (r.measured)
            s += QObject::tr(" Measured: time ∝ n<sup>%1</sup> for n ≥ %2 (%3).")
                     .arg(std::isfinite(r.measured->exponent)
                              ? QString::number(r.measured->exponent, 'f', 2)
                              : QStringLiteral("?"))
                     .arg(r.measured->fitFrom)
                     .arg(r.measured->engine);
        return s;
    }
    case InsightPage::Distance: {
        const DistanceInsight& d = *r.distance;
        QString s = QObject::tr("position term: %1").arg(qs(d.positionTermName));
        if (d.alibiSlopes.size() > 0) {
            QStringList l;
            for (Eigen::Index h = 0; h < d.alibiSlopes.size(); ++h)
                l << num(d.alibiSlopes(h));
            s += QObject::tr("; ALiBi slopes m<sub>h</sub> = %1").arg(l.join(QStringLiteral(", ")));
        }
        if (!d.t5BucketStart.empty()) {
            QStringList l;
            for (int b : d.t5BucketStart)
                l << QString::number(b);
            s += QObject::tr("; T5 buckets start at |r| = %1").arg(l.join(QStringLiteral(", ")));
        }
        if (d.ropeDecay.size() > 1)
            s += QObject::tr("; RoPE bound %1 at r = 0, %2 at r = %3")
                     .arg(num(d.ropeDecay(0)))
                     .arg(num(d.ropeDecay(d.ropeDecay.size() - 1)))
                     .arg(d.ropeDecay.size() - 1);
        return s;
    }
    case InsightPage::Depth: {
        const DepthInsight& d = *r.depth;
        if (d.layers.size() < 2)
            return {};
        const DepthLayer& first = d.layers[1];
        const DepthLayer& last = d.layers.back();
        return QObject::tr("uniformity residual %1 at layer 1, %2 at layer %3; effective rank "
                           "%4 → %5; position R² (held out) %6 → %7")
            .arg(num(first.uniformityResidual))
            .arg(num(last.uniformityResidual))
            .arg(last.layer)
            .arg(num(first.effectiveRank))
            .arg(num(last.effectiveRank))
            .arg(num(first.positionR2Heldout))
            .arg(num(last.positionR2Heldout));
    }
    }
    return {};
}

InsightsFigures::InsightsFigures(QWidget* parent)
    : QStackedWidget(parent)
    , m_bits(new HeatmapView)
    , m_binaryP(new HeatmapView)
    , m_periods(new LinePlotView)
    , m_offsetM(new HeatmapView)
    , m_residual(new HeatmapView)
    , m_shift(new LinePlotView)
    , m_toeplitz(new LinePlotView)
    , m_flops(new LinePlotView)
    , m_path(new LinePlotView)
    , m_measured(new LinePlotView)
    , m_weightProfile(new LinePlotView)
    , m_positionProfile(new LinePlotView)
    , m_ropeDecay(new LinePlotView)
    , m_everyScheme(new LinePlotView)
    , m_rank(new LinePlotView)
    , m_uniformity(new LinePlotView)
    , m_entropy(new LinePlotView)
    , m_probe(new LinePlotView)
    , m_measureHint(tr("this machine: press Measure")) {
    m_gridPool.setMaxThreadCount(1);
    // In the order of InsightPage.
    addPage(3, {m_bits, m_binaryP, m_periods});
    addPage(2, {m_offsetM, m_residual, m_shift, m_toeplitz});
    addPage(3, {m_flops, m_path, m_measured});
    addPage(2, {m_weightProfile, m_positionProfile, m_everyScheme, m_ropeDecay});
    addPage(2, {m_rank, m_uniformity, m_entropy, m_probe});
    setColorMap(ColorMapKind::Auto);
    for (InsightPage page : allInsightPages())
        clearPage(page, tr("computing…"));
}

QWidget* InsightsFigures::addPage(int columns, const std::vector<QWidget*>& views) {
    auto* page = new QWidget;
    auto* grid = new QGridLayout(page);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);
    for (std::size_t k = 0; k < views.size(); ++k)
        grid->addWidget(views[k], static_cast<int>(k) / columns, static_cast<int>(k) % columns);
    // Every figure the same share of the page, whatever its size hint.
    const int rows = (static_cast<int>(views.size()) + columns - 1) / columns;
    for (int r = 0; r < rows; ++r)
        grid->setRowStretch(r, 1);
    for (int c = 0; c < columns; ++c)
        grid->setColumnStretch(c, 1);
    for (QWidget* v : views)
        v->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    addWidget(page);
    return page;
}

void InsightsFigures::setPage(InsightPage page) {
    setCurrentIndex(static_cast<int>(page));
}

InsightPage InsightsFigures::page() const {
    return static_cast<InsightPage>(currentIndex());
}

std::vector<QWidget*> InsightsFigures::figures(InsightPage page) const {
    switch (page) {
    case InsightPage::Binary:
        return {m_bits, m_binaryP, m_periods};
    case InsightPage::Offset:
        return {m_offsetM, m_residual, m_shift, m_toeplitz};
    case InsightPage::Cost:
        return {m_flops, m_path, m_measured};
    case InsightPage::Distance:
        return {m_weightProfile, m_positionProfile, m_everyScheme, m_ropeDecay};
    case InsightPage::Depth:
        return {m_rank, m_uniformity, m_entropy, m_probe};
    }
    return {};
}

HeatmapView* InsightsFigures::mainHeatmap(InsightPage page) const {
    for (QWidget* w : figures(page))
        if (auto* h = qobject_cast<HeatmapView*>(w))
            return h;
    return nullptr;
}

ColorMapKind InsightsFigures::binaryColorMap() const {
    return m_colorMap == ColorMapKind::Auto ? ColorMapKind::Viridis : m_colorMap;
}

void InsightsFigures::setColorMap(ColorMapKind k) {
    m_colorMap = k;
    m_bits->setColorMap(binaryColorMap());
    m_binaryP->setColorMap(binaryColorMap());
    m_offsetM->setColorMap(k);
    m_residual->setColorMap(k);
}

void InsightsFigures::clearPage(InsightPage page, const QString& message) {
    for (QWidget* w : figures(page)) {
        if (auto* h = qobject_cast<HeatmapView*>(w)) {
            m_gridRequest[h] = ++m_lastGridRequest; // a map still being prepared is not shown
            h->clear(message);
        } else if (auto* l = qobject_cast<LinePlotView*>(w))
            l->setSeries(message, {}, {}, {});
    }
}

void InsightsFigures::setResult(const InsightResult& r) {
    setPage(r.page);
    if (!r.ok()) {
        // One line per plot title: the page's text shows the whole message.
        const QString first = r.error.section(QLatin1Char('.'), 0, 0);
        clearPage(r.page, first.size() > 90 ? first.left(88) + QStringLiteral("…") : first);
        return;
    }
    switch (r.page) {
    case InsightPage::Binary:
        showBinary(r);
        break;
    case InsightPage::Offset:
        showOffset(r);
        break;
    case InsightPage::Cost:
        showCost(r);
        break;
    case InsightPage::Distance:
        showDistance(r);
        break;
    case InsightPage::Depth:
        showDepth(r);
        break;
    }
}

void InsightsFigures::setGrid(HeatmapView* view, std::int64_t cells, std::function<Grid()> make,
                              const HeatmapInfo& info) {
    const quint64 request = ++m_lastGridRequest;
    m_gridRequest[view] = request;
    if (!m_background || cells <= kInlineGridCells) {
        view->setData(make(), info);
        return;
    }
    view->clear(tr("Preparing %1 million cells…").arg(static_cast<double>(cells) / 1e6, 0, 'f', 1));
    auto* watcher = new QFutureWatcher<Grid>(this);
    ++m_pendingGrids;
    connect(watcher, &QFutureWatcher<Grid>::finished, this, [this, watcher, view, request, info] {
        --m_pendingGrids;
        trimMemoryWhenIdle();
        Grid g = watcher->future().takeResult();
        watcher->deleteLater();
        if (m_gridRequest[view] == request) // else a newer request owns the map
            view->setData(std::move(g), info);
    });
    watcher->setFuture(QtConcurrent::run(&m_gridPool, std::move(make)));
}

void InsightsFigures::showBinary(const InsightResult& r) {
    const BinaryInsight& b = *r.binary;
    const QString sub = insightSubtitle(r);
    HeatmapInfo bits;
    bits.title = tr("bit b of position i");
    bits.subtitle = sub;
    bits.xTitle = tr("bit b");
    bits.yTitle = tr("position i");
    bits.valueTitle = tr("⌊i/2^b⌋ mod 2");
    m_bits->setData(toGrid(b.bits.cast<double>()), bits);
    HeatmapInfo p;
    p.title = tr("sinusoidal P, same colours");
    p.subtitle = sub;
    p.xTitle = tr("column c of P");
    p.yTitle = tr("position i");
    p.valueTitle = tr("P[i, c]");
    setGrid(
        m_binaryP, b.P.size(), [b = r.binary] { return toGrid(b->P); }, p);

    LinePlotContent c;
    c.title = tr("periods: bits and sinusoids");
    c.xTitle = tr("bit b / pair j");
    c.yTitle = tr("period (positions)");
    c.logY = true;
    c.series.push_back(
        line(tr("bit b: 2^(b+1)"), toVector(b.bitPeriod), {}, LineStyle::LineAndPoints));
    c.series.push_back(line(tr("pair j: 2π/ω_j"), toVector(b.period), {},
                            b.period.size() > 48 ? LineStyle::Line : LineStyle::LineAndPoints));
    m_periods->setContent(c);
}

void InsightsFigures::showOffset(const InsightResult& r) {
    const OffsetInsight& o = *r.offset;
    const QString sub = insightSubtitle(r);
    HeatmapInfo m;
    m.title =
        o.method == OffsetMethod::Exact ? tr("M_δ, exact rotations") : tr("M_δ, least squares");
    m.subtitle = sub;
    m.xTitle = tr("column of P[i]");
    m.yTitle = tr("column of P[i+δ]");
    m.valueTitle = tr("M_δ");
    setGrid(
        m_offsetM, o.M.size(), [o = r.offset] { return toGrid(o->M); }, m);
    HeatmapInfo res;
    res.title = tr("residual P[i+δ] − M_δ·P[i]");
    res.subtitle = tr("relative residual %1").arg(num(o.relativeResidual));
    res.xTitle = tr("column c");
    res.yTitle = tr("position i");
    res.valueTitle = tr("residual");
    setGrid(
        m_residual, o.residual.size(), [o = r.offset] { return toGrid(o->residual); }, res);

    const int rows = static_cast<int>(o.shifted.rows());
    LinePlotContent s;
    s.title = tr("column 0: P[i+δ] against M_δ·P[i]");
    s.xTitle = tr("position i");
    s.yTitle = tr("value");
    std::vector<double> shifted(static_cast<std::size_t>(rows));
    std::vector<double> predicted(shifted.size());
    for (int i = 0; i < rows; ++i) {
        shifted[static_cast<std::size_t>(i)] = o.shifted(i, 0);
        predicted[static_cast<std::size_t>(i)] = o.predicted(i, 0);
    }
    s.series.push_back(line(tr("P[i+δ, 0]"), shifted));
    s.series.push_back(line(tr("(M_δ·P[i])_0"), predicted, {}, LineStyle::Dashed));
    s.series.push_back(line(tr("‖residual row i‖"), toVector(o.rowResidual)));
    m_shift->setContent(s);

    const int n = static_cast<int>(o.P.rows());
    LinePlotContent t;
    t.title = tr("P·Pᵀ along each diagonal r = j − i");
    t.xTitle = tr("offset r = j − i");
    t.yTitle = tr("value");
    t.series.push_back(
        line(tr("mean of the diagonal"), toVector(o.gramDiagonalMean), range(-(n - 1), 2 * n - 1)));
    t.series.push_back(line(tr("max deviation from it"), toVector(o.toeplitzDeviation),
                            range(-(n - 1), 2 * n - 1)));
    if (o.ropeDeviation.size() > 0)
        t.series.push_back(line(tr("RoPE: (R_m q)·(R_n k) deviation"), toVector(o.ropeDeviation),
                                range(-(n - 1), 2 * n - 1)));
    t.integerX = false;
    m_toeplitz->setContent(t);
}

void InsightsFigures::showCost(const InsightResult& r) {
    const CostInsight& c = *r.cost;
    std::vector<double> n, cnn, rnn, att, cnnPath, rnnPath, attPath, rnnSeq;
    for (const CostRow& row : c.rows) {
        n.push_back(static_cast<double>(row.n));
        cnn.push_back(static_cast<double>(row.cnnFlops));
        rnn.push_back(static_cast<double>(row.rnnFlops));
        att.push_back(static_cast<double>(row.attentionFlops));
        cnnPath.push_back(static_cast<double>(row.cnnPath));
        rnnPath.push_back(static_cast<double>(row.rnnPath));
        attPath.push_back(static_cast<double>(row.attentionPath));
        rnnSeq.push_back(static_cast<double>(row.rnnSequential));
    }
    LinePlotContent f;
    f.title = tr("FLOPs of one layer, d = %1, k = %2").arg(c.d).arg(c.kernel);
    f.xTitle = tr("sequence length n");
    f.yTitle = tr("FLOPs");
    f.logX = f.logY = true;
    f.integerX = false;
    f.series = {line(tr("CNN 2knd²"), cnn, n, LineStyle::Line),
                line(tr("RNN 2nd²"), rnn, n, LineStyle::Line),
                line(tr("attention 4n²d"), att, n, LineStyle::Line)};
    f.legendAt = Qt::AlignBottom | Qt::AlignRight;
    f.markers = {{c.attentionRnnCrossover, tr("attention = RNN")},
                 {c.attentionCnnCrossover, tr("attention = CNN")}};
    m_flops->setContent(f);

    LinePlotContent p;
    p.title = tr("maximum path length and sequential steps");
    p.xTitle = tr("sequence length n");
    p.yTitle = tr("layers / steps");
    p.logX = p.logY = true;
    p.integerX = false;
    p.legendAt = Qt::AlignTop | Qt::AlignLeft;
    p.series = {line(tr("CNN path ⌈(n−1)/(k−1)⌉"), cnnPath, n, LineStyle::Line),
                line(tr("RNN path n−1"), rnnPath, n, LineStyle::Line),
                line(tr("attention path 1"), attPath, n, LineStyle::Line),
                line(tr("RNN sequential steps n"), rnnSeq, n, LineStyle::Dashed)};
    m_path->setContent(p);

    LinePlotContent m;
    m.xTitle = tr("sequence length n");
    m.yTitle = tr("ms");
    m.logX = m.logY = true;
    m.integerX = false;
    m.legendAt = Qt::AlignTop | Qt::AlignLeft;
    if (!r.measured) {
        m.title = m_measureHint;
        m_measured->setContent(m);
        return;
    }
    const CostMeasurement& cm = *r.measured;
    std::vector<double> x(cm.n.begin(), cm.n.end());
    m.title = std::isfinite(cm.exponent)
                  ? tr("measured: time ∝ n^%1 (n ≥ %2)").arg(cm.exponent, 0, 'f', 2).arg(cm.fitFrom)
                  : tr("measured attention layer");
    m.series.push_back(line(tr("%1, d = %2").arg(qs(toString(r.params.scheme))).arg(r.params.d),
                            cm.ms, x, LineStyle::LineAndPoints));
    if (std::isfinite(cm.exponent)) {
        // The fitted line through the points it was fitted on: log ms = a·log n + b.
        double sx = 0, sy = 0;
        int count = 0;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i] >= cm.fitFrom && cm.ms[i] > 0) {
                sx += std::log(x[i]);
                sy += std::log(cm.ms[i]);
                ++count;
            }
        const double b = (sy - cm.exponent * sx) / std::max(count, 1);
        std::vector<double> fit;
        for (double v : x) // over the points it was fitted on
            fit.push_back(v >= cm.fitFrom ? std::exp(cm.exponent * std::log(v) + b)
                                          : std::numeric_limits<double>::quiet_NaN());
        m.series.push_back(
            line(tr("fit n^%1").arg(cm.exponent, 0, 'f', 2), fit, x, LineStyle::Dashed));
    }
    m_measured->setContent(m);
}

void InsightsFigures::showDistance(const InsightResult& r) {
    const DistanceInsight& d = *r.distance;
    const int n = d.positions;
    const std::vector<double> offsets = range(-(n - 1), 2 * n - 1);
    const int heads = static_cast<int>(d.weightProfile.rows());
    constexpr int kShownHeads = 4; // besides the mean: more curves only hide each other
    auto profile = [&](const QString& title, const QString& yTitle, const Eigen::MatrixXd& perHead,
                       const Eigen::VectorXd& mean) {
        LinePlotContent c;
        c.title = title;
        c.xTitle = tr("offset r = j − i");
        c.yTitle = yTitle;
        c.integerX = false;
        for (int h = 0; h < std::min(heads, kShownHeads); ++h)
            c.series.push_back(line(tr("head %1").arg(h), toVector(perHead.row(h).transpose()),
                                    offsets, LineStyle::Faint));
        // Last, so it is drawn over the heads; black, so it is never one of their colours.
        c.series.push_back(
            line(tr("mean over heads"), toVector(mean), offsets, LineStyle::Bold, Qt::black));
        return c;
    };
    m_weightProfile->setContent(profile(tr("mean attention weight A[i, i+r]"), tr("weight"),
                                        d.weightProfile, d.weightProfileMean));
    LinePlotContent pos = profile(tr("mean position term"), qs(d.positionTermName),
                                  d.positionProfile, d.positionProfileMean);
    pos.legendAt = Qt::AlignBottom | Qt::AlignHCenter; // a bias peaks (or dips) at r = 0
    // The logarithmic buckets' boundaries (the exact ones, one offset each, would fill the
    // middle with lines; the numbers line lists every boundary).
    int previous = -1;
    for (int b : d.t5BucketStart) {
        if (b - previous > 1 && b < n) {
            pos.markers.push_back({static_cast<double>(b), QString()});
            pos.markers.push_back({static_cast<double>(-b), QString()});
        }
        previous = b;
    }
    if (!pos.markers.empty())
        pos.title += tr(", dotted: log buckets");
    m_positionProfile->setContent(pos);

    LinePlotContent rope;
    rope.title = tr("RoPE long-term decay (RoFormer §3.4.3)");
    rope.xTitle = tr("relative distance r");
    rope.yTitle = tr("(2/d)·Σ|S_j(r)|");
    rope.integerX = false;
    rope.series.push_back(line(tr("upper bound"), toVector(d.ropeDecay)));
    m_ropeDecay->setContent(rope);

    LinePlotContent all;
    const int m = r.distanceEveryScheme.empty() ? n : r.distanceEveryScheme.front()->positions;
    all.title = tr("every scheme: mean attention weight (N = %1)").arg(m);
    all.xTitle = tr("offset r = j − i");
    all.yTitle = tr("weight, mean over heads");
    all.integerX = false;
    all.legendAt = Qt::AlignTop | Qt::AlignRight;
    const std::vector<double> offsetsAll = range(-(m - 1), 2 * m - 1);
    for (const auto& e : r.distanceEveryScheme) {
        const bool own = e->scheme == d.scheme;
        // Eleven curves, fewer colours: the second round of the palette is dashed.
        const LineStyle style = own                      ? LineStyle::Bold
                                : all.series.size() >= 6 ? LineStyle::Dashed
                                                         : LineStyle::Line;
        all.series.push_back(
            line(qs(toString(e->scheme)), toVector(e->weightProfileMean), offsetsAll, style));
    }
    m_everyScheme->setContent(all);
}

void InsightsFigures::showDepth(const InsightResult& r) {
    const DepthInsight& d = *r.depth;
    std::vector<double> rank, uniform, entropy, r2, r2held;
    for (const DepthLayer& l : d.layers) {
        rank.push_back(l.effectiveRank);
        uniform.push_back(l.uniformityResidual);
        entropy.push_back(l.attentionEntropy);
        r2.push_back(l.positionR2);
        r2held.push_back(l.positionR2Heldout);
    }
    const QString x = tr("layer (0 = input)");
    const auto pts = d.layers.size() > 24 ? LineStyle::Line : LineStyle::LineAndPoints;
    LinePlotContent a;
    a.title = tr("effective rank of the output");
    a.xTitle = x;
    a.yTitle = tr("exp(entropy of σ/Σσ)");
    a.series = {line(tr("effective rank"), rank, {}, pts)};
    m_rank->setContent(a);
    LinePlotContent u;
    u.title = tr("uniformity residual ‖X − 1·x̄ᵀ‖/‖X‖");
    u.xTitle = x;
    u.yTitle = tr("residual (log)");
    u.logY = true;
    u.series = {line(tr("uniformity residual"), uniform, {}, pts)};
    m_uniformity->setContent(u);
    LinePlotContent e;
    e.title = tr("mean attention entropy");
    e.xTitle = x;
    e.yTitle = tr("nats");
    const double uniformEntropy = std::log(static_cast<double>(r.params.seqLen()));
    e.series = {line(tr("entropy"), entropy, {}, pts),
                line(tr("ln N (uniform attention)"),
                     std::vector<double>(entropy.size(), uniformEntropy), {}, LineStyle::Dashed)};
    m_entropy->setContent(e);
    LinePlotContent p;
    p.title = tr("position read by a linear probe");
    p.xTitle = x;
    p.yTitle = tr("R²");
    p.series = {line(tr("R² (all positions)"), r2, {}, pts),
                line(tr("R² held out (odd positions)"), r2held, {}, pts)};
    m_probe->setContent(p);
}

} // namespace pe
