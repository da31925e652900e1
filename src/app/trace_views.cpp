// SPDX-License-Identifier: MIT
#include "trace_views.h"

#include <QtConcurrent/QtConcurrentRun>

#include <QCoreApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <type_traits>

#include "adaptive_splitter.h"
#include "line_plot_view.h"
#include "logit_split.h"
#include "relative_tables.h"
#include "spare_buffer.h"
#include "stages.h"

namespace pe {

namespace {

constexpr int kMaxSmallMultiples = 16;

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

struct TermName {
    const char* name;
    const char* title;
};

// The logit terms, in the order a reader adds them up.
constexpr TermName kTerms[] = {
    {"logits", "logits S (all terms, scaled)"},
    {"c2c", "DeBERTa c2c: content→content"},
    {"c2p", "DeBERTa c2p: content→position"},
    {"p2c", "DeBERTa p2c: position→content"},
    {"txl_ac", "Transformer-XL (a)+(c): content"},
    {"txl_bd", "Transformer-XL (b)+(d): position"},
    {"shaw_k_term", "Shaw key term q_i·w^K_clip(j−i)"},
    {"bias", "additive position bias"},
};

/**
 * Runs the slicing jobs of one refresh concurrently (they read disjoint parts of the trace and
 * the computation is done by now), so a large trace is converted on every core rather than on
 * the GUI thread alone. Results come back in order.
 */
/** Runs the jobs on Qt's thread pool, the first on this thread; the results in job order. */
template <typename R> std::vector<R> runConcurrently(std::vector<std::function<R()>> jobs) {
    std::vector<QFuture<R>> pending;
    pending.reserve(jobs.size());
    for (std::size_t k = 1; k < jobs.size(); ++k)
        pending.push_back(QtConcurrent::run(std::move(jobs[k])));
    std::vector<R> out;
    out.reserve(jobs.size());
    if (!jobs.empty())
        out.push_back(jobs[0]()); // the GUI thread takes the first
    for (QFuture<R>& f : pending)
        out.push_back(f.takeResult());
    return out;
}

std::vector<Grid> sliceConcurrently(std::vector<std::function<Grid()>> jobs) {
    return runConcurrently(std::move(jobs));
}

/** The n × n Toeplitz matrix M(i, j) = table[(j − i) + n − 1], row by row: row i is the
 *  table's n entries from n − 1 − i on. */
template <typename T> void copyToeplitz(const T* table, int n, T* out) {
    const auto rows = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < rows; ++i)
        std::copy_n(table + (rows - 1 - i), rows, out + i * rows);
}

/**
 * A tab's note above its maps asks for the height of its lines at its width. A word-wrapped
 * QLabel asks for the height of its text at about 80 characters a line, and the tab page's
 * layout gave it that: a two-line note over the pooled Relative maps stood above two empty
 * lines.
 */
class NoteLabel : public QLabel {
public:
    QSize sizeHint() const override {
        QSize s = QLabel::sizeHint();
        if (width() > 0 && wordWrap())
            s.setHeight(heightForWidth(width()));
        return s;
    }

protected:
    void resizeEvent(QResizeEvent* e) override {
        QLabel::resizeEvent(e);
        if (const int h = heightForWidth(width()); h != m_fitted) {
            m_fitted = h;
            updateGeometry(); // the new width's height
        }
    }

private:
    int m_fitted = -1;
};

/** Puts `w` at (row, column) of `grid` unless it is there already: adding a widget again takes
 *  it out and back in, and the whole grid is laid out again (every change, every map). */
void placeInGrid(QGridLayout* grid, QWidget* w, int row, int column) {
    if (const int at = grid->indexOf(w); at >= 0) {
        int r = 0, c = 0, rowSpan = 0, columnSpan = 0;
        grid->getItemPosition(at, &r, &c, &rowSpan, &columnSpan);
        if (r == row && c == column)
            return;
    }
    grid->addWidget(w, row, column);
}

/** A map's info from its trace's parameters line and token labels (those of unbinned axes). */
HeatmapInfo heatmapInfo(const QString& subtitle, const QStringList& labels, const QString& title,
                        const QString& valueTitle, int binR, int binC) {
    HeatmapInfo info;
    info.title = title;
    info.subtitle = subtitle;
    info.valueTitle = valueTitle;
    if (binR == 1)
        info.rowLabels = labels;
    if (binC == 1)
        info.colLabels = labels;
    info.binRows = binR;
    info.binCols = binC;
    return info;
}

QStringList tokenLabels(const Trace& trace) {
    QStringList labels;
    for (const std::string& t : trace.tokens)
        labels << QString::fromStdString(t);
    return labels;
}

} // namespace

/** The trace's own terms, then an absolute scheme's four (splitLogits), as the tab shows them. */
const std::vector<TermName>& allTerms() {
    static const std::vector<TermName> terms = [] {
        std::vector<TermName> all(std::begin(kTerms), std::end(kTerms));
        for (const AbsoluteTerm& a : absoluteTerms())
            all.push_back({a.name, a.title});
        return all;
    }();
    return terms;
}

std::vector<std::string> logitTermNames() {
    std::vector<std::string> names;
    for (const TermName& t : allTerms())
        names.emplace_back(t.name);
    return names;
}

QString describeParams(const Params& p) {
    QString s = QStringLiteral("%1, n=%2, d=%3, heads=%4, %5")
                    .arg(qs(toString(p.scheme)))
                    .arg(p.n)
                    .arg(p.d)
                    .arg(p.heads)
                    .arg(qs(toString(p.norm)));
    // What changes the matrices' size and masking: the special tokens and the padding.
    if (p.cls || p.sep)
        s += QStringLiteral(", %1%2%3")
                 .arg(p.cls ? QStringLiteral("[CLS]") : QString())
                 .arg(p.cls && p.sep ? QStringLiteral("+") : QString())
                 .arg(p.sep ? QStringLiteral("[SEP]") : QString());
    if (p.mask == MaskKind::Causal)
        s += QStringLiteral(", causal");
    if (p.validLen >= 0 && p.validLen < p.seqLen())
        s += QStringLiteral(", valid=%1").arg(p.validLen);
    if (p.scheme == Scheme::Shaw)
        s += QStringLiteral(", k=%1").arg(p.clip);
    if (p.scheme == Scheme::Sinusoidal || p.scheme == Scheme::RoPE)
        s += QStringLiteral(", base=%1").arg(p.base);
    if (p.scheme == Scheme::RoPE && p.ropeScaling != RopeScaling::None)
        s += QStringLiteral(", %1×%2").arg(qs(toString(p.ropeScaling))).arg(p.ropeScale);
    if (p.scheme == Scheme::Mlp)
        s += QStringLiteral(", F=%1, H=%2").arg(p.mlpFeatures).arg(p.mlpHidden);
    if (p.scheme == Scheme::T5)
        s += QStringLiteral(", buckets=%1, max=%2%3")
                 .arg(p.buckets)
                 .arg(p.maxDistance)
                 .arg(p.unidirectional ? QStringLiteral(", unidirectional") : QString());
    if (p.scheme == Scheme::ALiBi && p.alibiMode == AlibiMode::Causal)
        s += QStringLiteral(", causal ALiBi");
    s += QStringLiteral(", seed=%1").arg(p.seed);
    return s;
}

TraceViews::TraceViews(QWidget* parent)
    : QTabWidget(parent)
    , m_releaseSpares(new QTimer(this)) {
    m_splitWatcher = new QFutureWatcher<void>(this);
    connect(m_splitWatcher, &QFutureWatcherBase::finished, this, &TraceViews::splitDone);
    // The Toeplitz buffers and the logit split no view shows are kept for the next change only:
    // once the window has been idle a while it holds what it shows and no more (as the worker's
    // engine does). A split kept spare was 64 MB at n = 2,048 (a soak's +60 MB at its end).
    m_releaseSpares->setSingleShot(true);
    m_releaseSpares->setInterval(2000);
    connect(m_releaseSpares, &QTimer::timeout, this, [this] {
        for (std::shared_ptr<ToeplitzMatrix>& b : m_toeplitz)
            if (b && b.use_count() == 1)
                b.reset();
        m_splitSpare.reset();
        m_similarity.spare.reset(); // a map holds its own while it shows it
    });
    // Head and query selectors, shared by every tab. (The parameters line is every plot's
    // subtitle; repeated here it pushed the tabs behind the tab bar's scroll arrows.)
    auto* corner = new QWidget;
    auto* cl = new QHBoxLayout(corner);
    cl->setContentsMargins(0, 0, 4, 0);
    cl->addWidget(new QLabel(tr("head")));
    m_head = new QSpinBox;
    m_head->setToolTip(tr("Head shown by the per-head views (bias, logit terms, enlarged "
                          "attention)"));
    cl->addWidget(m_head);
    cl->addWidget(new QLabel(tr("query")));
    m_query = new QSpinBox;
    m_query->setToolTip(tr("Query row i whose attention weights are plotted; right-click a row of "
                           "the enlarged map to pick it"));
    cl->addWidget(m_query);
    setCornerWidget(corner);
    connect(m_head, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_query, &QSpinBox::valueChanged, this, [this] {
        m_stale[3] = true;
        refreshCurrent();
    });

    // Encoding
    auto* enc = new QSplitter(Qt::Vertical);
    auto* encTop = new AdaptiveSplitter(1.2); // the two maps stack in a narrow window
    enc->addWidget(encTop);
    m_p = addHeatmap(encTop);
    m_gram = addHeatmap(encTop);
    auto* encBottom = new QWidget(enc);
    auto* eb = new QVBoxLayout(encBottom);
    eb->setContentsMargins(0, 0, 0, 0);
    m_columnsRow = new QWidget(encBottom);
    auto* colRow = new QHBoxLayout(m_columnsRow);
    colRow->setContentsMargins(0, 0, 0, 0);
    colRow->addWidget(new QLabel(tr("columns of P:")));
    m_columns = new QLineEdit(QStringLiteral("6 7 8 9"));
    m_columns->setToolTip(tr("Feature columns of P to plot against position, separated by spaces "
                             "(d2l's figure uses 6 7 8 9: the sin/cos pairs m = 3, 4 of the "
                             "interleaved layout, frequencies ω_m = base^(−2m/d))"));
    m_columns->setMaximumWidth(240);
    colRow->addWidget(m_columns);
    colRow->addStretch(1);
    eb->addWidget(m_columnsRow);
    connect(m_columns, &QLineEdit::editingFinished, this, [this] {
        m_stale[0] = true;
        refreshCurrent();
    });
    m_pColumns = new LinePlotView(encBottom);
    eb->addWidget(m_pColumns, 1);
    enc->setStretchFactor(0, 3);
    enc->setStretchFactor(1, 2);
    // One line above the maps: where position enters this scheme's layer.
    auto* encHost = new QWidget;
    auto* ev = new QVBoxLayout(encHost);
    ev->setContentsMargins(0, 0, 0, 0);
    ev->setSpacing(2);
    m_encodingNote = new NoteLabel;
    m_encodingNote->setObjectName(QStringLiteral("encodingNote"));
    m_encodingNote->setWordWrap(true);
    m_encodingNote->hide();
    ev->addWidget(m_encodingNote);
    ev->addWidget(enc, 1);
    addTab(encHost, tr("&Encoding"));

    // Relative index and bias
    auto* rel = new AdaptiveSplitter(1.2);
    m_relMaps = rel;
    m_relIndex = addHeatmap(rel);
    m_bias = addHeatmap(rel);
    m_relIndex->linkTo(m_bias);
    // Pooled mode: zoomed past their cells, the maps draw the visible positions from the
    // tables by offset at once (no request to the worker).
    for (HeatmapView* v : {m_relIndex, m_bias}) {
        connect(v, &HeatmapView::tileWanted, this,
                [this, v](PoolRegion region) { relativeTile(v, region); });
        // Side by side, the two maps start their axes level when one title takes two lines
        // (a pooled map's title says how it was pooled).
        connect(v, &HeatmapView::headerChanged, this, [this, rel] {
            const bool sideBySide = rel->orientation() == Qt::Horizontal &&
                                    !m_relIndex->isHidden() && !m_bias->isHidden();
            alignHeaders({m_relIndex, m_bias}, sideBySide ? 2 : 1);
        });
    }
    auto* relHost = new QWidget;
    auto* rv = new QVBoxLayout(relHost);
    rv->setContentsMargins(0, 0, 0, 0);
    rv->setSpacing(2);
    m_relativeNote = new NoteLabel;
    m_relativeNote->setObjectName(QStringLiteral("relativeNote"));
    m_relativeNote->setWordWrap(true);
    m_relativeNote->hide();
    rv->addWidget(m_relativeNote);
    rv->addWidget(rel, 1);
    addTab(relHost, tr("&Relative"));

    // Logit terms
    m_termsHost = new QWidget;
    m_termsGrid = new QGridLayout(m_termsHost);
    m_termsGrid->setContentsMargins(0, 0, 0, 0);
    addTab(m_termsHost, tr("&Logit terms"));

    // Attention
    auto* att = new AdaptiveSplitter(1.2);
    m_headsHost = new QWidget(att);
    m_headsGrid = new QGridLayout(m_headsHost);
    m_headsGrid->setContentsMargins(0, 0, 0, 0);
    m_headsGrid->setSpacing(2);
    auto* attRight = new QSplitter(Qt::Vertical, att);
    m_enlarged = addHeatmap(attRight);
    m_queryRow = new LinePlotView(attRight);
    attRight->setStretchFactor(0, 3);
    attRight->setStretchFactor(1, 2);
    att->setStretchFactor(0, 2);
    att->setStretchFactor(1, 3);
    att->setSizes({400, 600});
    attRight->setSizes({600, 300});
    connect(m_enlarged, &HeatmapView::rowClicked, this, &TraceViews::selectQuery);
    connect(m_enlarged, &HeatmapView::tileWanted, this, &TraceViews::tileRequested);
    // Which weights the maps come from, above them (the tab bar's caption has no room for it).
    auto* attHost = new QWidget;
    auto* av = new QVBoxLayout(attHost);
    av->setContentsMargins(0, 0, 0, 0);
    av->setSpacing(2);
    m_weightsCaption = new QLabel;
    m_weightsCaption->setObjectName(QStringLiteral("weightsCaption"));
    av->addWidget(m_weightsCaption);
    av->addWidget(att, 1);
    addTab(attHost, tr("&Attention"));
    setCurrentIndex(0);
    connect(this, &QTabWidget::currentChanged, this, &TraceViews::refreshCurrent);
}

TraceViews::~TraceViews() = default;

bool TraceViews::event(QEvent* e) {
    // A layout change inside a page (a map shown, a colour scale wider, a note's text) reaches
    // QTabWidget as a LayoutRequest, which lays out the tab bar, the corner and the page stack
    // again and repaints the whole widget: twice per scheme switch, each a full repaint of every
    // map. The stack fills the same rectangle whatever its pages hold; only the tab bar's and the
    // corner's sizes move things. When neither changed, the request only passes the pages' new
    // size constraints on to the window's layout.
    if (e->type() == QEvent::LayoutRequest) {
        const TabLayoutKey key{tabBar()->sizeHint(),
                               cornerWidget() ? cornerWidget()->sizeHint() : QSize()};
        if (m_tabLayoutKey == key) {
            updateGeometry();
            return true;
        }
        m_tabLayoutKey = key;
    } else if (e->type() == QEvent::Resize || e->type() == QEvent::StyleChange ||
               e->type() == QEvent::FontChange) {
        m_tabLayoutKey.reset();
    }
    return QTabWidget::event(e);
}

HeatmapView* TraceViews::addHeatmap(QWidget* parent, bool compact) {
    auto* h = new HeatmapView(parent, compact);
    h->setColorMap(m_colorMap);
    h->setPoolMode(m_pool);
    connect(h, &HeatmapView::hovered, this, &TraceViews::hovered);
    return h;
}

std::vector<HeatmapView*> TraceViews::heatmaps() const {
    std::vector<HeatmapView*> all{m_p, m_gram, m_relIndex, m_bias, m_enlarged};
    all.insert(all.end(), m_terms.begin(), m_terms.end());
    all.insert(all.end(), m_heads.begin(), m_heads.end());
    return all;
}

void TraceViews::setColorMap(ColorMapKind k) {
    m_colorMap = k;
    for (HeatmapView* h : heatmaps())
        h->setColorMap(k);
}

void TraceViews::setPoolMode(PoolMode m) {
    m_pool = m;
    for (HeatmapView* h : heatmaps())
        h->setPoolMode(m);
}

HeatmapView* TraceViews::currentHeatmap() const {
    switch (currentIndex()) {
    case 0:
        return m_p;
    case 1:
        return m_bias->hasData() ? m_bias : m_relIndex;
    case 2:
        return m_terms.empty() ? nullptr : m_terms.front();
    default:
        return m_enlarged;
    }
}

int TraceViews::selectedHead() const {
    return m_head->value();
}

int TraceViews::selectedQuery() const {
    return m_query->value();
}

void TraceViews::selectHead(int h) {
    m_head->setValue(h);
}

void TraceViews::selectQuery(int i) {
    m_query->setValue(i);
}

void TraceViews::setEarlyTrace(std::shared_ptr<const Trace> trace, const PoolInfo& pool,
                               std::shared_ptr<const PositionView> positions, EarlyPart part) {
    // The Encoding tab draws from E, P and X; the Relative tab from the positions' tables.
    const int tabs = part == EarlyPart::Inputs ? 2 : 0;
    const int tab = currentIndex();
    if (!trace || tab < 0 || tab >= tabs)
        return;
    adopt(std::move(trace), pool, std::move(positions));
    m_earlyTabs = tabs;
    refresh();
}

EarlyPart TraceViews::earlyPartWanted() const {
    const int tab = currentIndex();
    return tab == 0 || tab == 1 ? EarlyPart::Inputs : EarlyPart::None;
}

bool TraceViews::showsPositionTerms() const {
    const int tab = currentIndex();
    // The Relative tab's index and bias come from the tables by offset that come with every
    // result of the window's worker; the trace's own n × n ones only without them.
    return tab == 2 || (tab == 1 && !tablesByOffset());
}

void TraceViews::setTrace(std::shared_ptr<const Trace> trace, const PoolInfo& pool,
                          std::shared_ptr<const PositionView> positions) {
    // The tab on screen drawn from this trace's early part keeps what it shows: the same values.
    const int tab = currentIndex();
    const bool keep = m_earlyTabs > 0 && m_trace && trace && tab >= 0 && tab < m_earlyTabs &&
                      !m_stale[static_cast<std::size_t>(tab)] && m_trace->params == trace->params &&
                      m_poolInfo.pooled == pool.pooled;
    m_earlyTabs = 0;
    m_whole = trace;
    ++m_updates;
    adopt(std::move(trace), pool, std::move(positions));
    if (!keep) {
        refresh();
        return;
    }
    if (m_weightsCaption->text() != m_weightsLabel)
        m_weightsCaption->setText(m_weightsLabel);
    m_stale = {true, true, true, true};
    m_stale[static_cast<std::size_t>(tab)] = false;
}

void TraceViews::adopt(std::shared_ptr<const Trace> trace, const PoolInfo& pool,
                       std::shared_ptr<const PositionView> positions) {
    m_trace = std::move(trace);
    m_positions = std::move(positions);
    m_poolInfo = pool;
    m_tile.reset();
    m_splitOf = nullptr; // the old trace's terms (setTrace may reuse its address): split anew
    if (m_trace) {
        const QSignalBlocker b1(m_head);
        const QSignalBlocker b2(m_query);
        // Only when they change: setting a spin box's range repaints it, and with it the tab
        // bar's corner and the tab widget's frame behind it, change after change.
        const auto setRange = [](QSpinBox* box, int top) {
            if (box->minimum() != 0 || box->maximum() != top)
                box->setRange(0, top);
        };
        setRange(m_head, std::max(0, m_trace->params.heads - 1));
        setRange(m_query, std::max(0, m_trace->params.seqLen() - 1));
        // Once per trace, not once per map: every map of the trace shares the same lists (and
        // compares them with another map's in O(1)).
        m_traceSubtitle = describeParams(m_trace->params);
        m_traceLabels = tokenLabels(*m_trace);
    }
}

QString TraceViews::caption() const {
    if (!m_trace)
        return {};
    return describeParams(m_trace->params) +
           (m_weightsLabel.isEmpty() ? QString() : QStringLiteral(" | ") + m_weightsLabel);
}

void TraceViews::refresh() {
    if (!m_trace)
        return;
    if (m_weightsCaption->text() != m_weightsLabel) // an unchanged text lays nothing out again
        m_weightsCaption->setText(m_weightsLabel);
    // Only the tab on screen is prepared now; the others when they are opened, so a slider drag
    // pays for one view, not five.
    m_stale = {true, true, true, true};
    refreshCurrent();
}

void TraceViews::refreshCurrent() {
    const int tab = currentIndex();
    if (!m_trace || tab < 0 || tab >= static_cast<int>(m_stale.size()) ||
        !m_stale[static_cast<std::size_t>(tab)])
        return;
    if (m_earlyTabs > 0 && tab >= m_earlyTabs)
        return; // the early trace has nothing for this tab: drawn when the whole one comes
    if (m_earlyTabs == 0 && showsPositionTerms() && !traceCovers(*m_trace, TraceExtent::Weights))
        return; // computed for the weights alone: drawn when the window's next trace comes
    m_stale[static_cast<std::size_t>(tab)] = false;
    switch (tab) {
    case 0:
        refreshEncoding();
        break;
    case 1:
        refreshRelative();
        break;
    case 2:
        refreshTerms();
        break;
    default:
        refreshAttention();
        break;
    }
}

const Tensor* TraceViews::find(const char* name) const {
    if (const Tensor* t = m_trace->find(name))
        return t;
    return m_split ? m_split->find(name) : nullptr;
}

Grid TraceViews::slice(const char* name, int head, int* binR, int* binC) const {
    const Tensor* t = find(name);
    *binR = 1;
    *binC = 1;
    if (!t || t->empty())
        return {};
    Grid g = sliceHeadBinned(*t, head, kMaxCells, kMaxCells, binR, binC);
    const std::string n(name);
    if (m_poolInfo.pooled && (n == "logits" || n == "weights") && g.rows > 0) {
        // Pooled cells: about seqLen / cells positions each (for the hover read-out).
        *binR = (m_poolInfo.seqLen + g.rows - 1) / g.rows;
        *binC = (m_poolInfo.seqLen + g.cols - 1) / g.cols;
    }
    return g;
}

const Tensor* TraceViews::inPlace(const char* name, int* binR, int* binC) const {
    const Tensor* t = find(name);
    *binR = 1;
    *binC = 1;
    if (!t || t->empty() || t->rank() < 2 || t->rank() > 3)
        return nullptr;
    const std::int64_t rows = t->dim(t->rank() - 2);
    const std::int64_t cols = t->dim(t->rank() - 1);
    if (rows > kMaxCells || cols > kMaxCells)
        return nullptr;
    const std::string n(name);
    if (m_poolInfo.pooled && (n == "logits" || n == "weights")) { // as slice() says
        *binR = static_cast<int>((m_poolInfo.seqLen + rows - 1) / rows);
        *binC = static_cast<int>((m_poolInfo.seqLen + cols - 1) / cols);
    }
    return t;
}

void TraceViews::preparePooled(HeatmapView* v, const char* name, int head) {
    if (!m_poolInfo.pooled)
        return;
    v->setSource(m_poolInfo.seqLen, m_poolInfo.seqLen);
    if (!m_tile)
        return;
    const Tensor* t = m_tile->find(name);
    if (t && head < headCount(*t))
        v->setTile(sliceHead(*t, head), m_tileInfo.region, m_tileInfo.describe());
}

void TraceViews::setTile(std::shared_ptr<const Trace> tile, const PoolInfo& info) {
    if (!m_trace || !tile || !m_poolInfo.pooled || !(tile->params == m_trace->params))
        return; // a tile of another trace
    m_tile = std::move(tile);
    m_tileInfo = info;
    const int h = m_head->value();
    preparePooled(m_enlarged, "weights", h);
    if (!m_terms.empty() && m_terms.front()->isVisible())
        preparePooled(m_terms.front(), "logits", h);
}

HeatmapInfo traceHeatmapInfo(const Trace& trace, const QString& title, const QString& valueTitle,
                             int binR, int binC) {
    return heatmapInfo(describeParams(trace.params), tokenLabels(trace), title, valueTitle, binR,
                       binC);
}

HeatmapInfo TraceViews::infoFor(const QString& title, const QString& valueTitle, int binR,
                                int binC) const {
    return heatmapInfo(m_traceSubtitle, m_traceLabels, title, valueTitle, binR, binC);
}

namespace {
/** The Logit terms map's second subtitle line in pooled mode, where it leaves terms out. */
QString pooledNote(const PoolInfo& pool) {
    return QObject::tr("pooled mode (n = %1): the terms, n × n, are not computed, only the "
                       "logits")
        .arg(pool.seqLen);
}
} // namespace

QString TraceViews::relativeNote() const {
    return m_relativeNote->isHidden() ? QString() : m_relativeNote->text();
}

QString TraceViews::encodingNote() const {
    return m_encodingNote->isHidden() ? QString() : m_encodingNote->text();
}

namespace {

/** A position table as a heat map: its values, titles and axis values (distance, sampling). */
std::pair<Grid, HeatmapInfo> tableMap(const PositionMap& m, const QString& subtitle) {
    Grid g;
    g.rows = static_cast<int>(m.values.rows());
    g.cols = static_cast<int>(m.values.cols());
    g.values.resize(static_cast<std::size_t>(g.rows) * static_cast<std::size_t>(g.cols));
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            g.at(r, c) = m.values(r, c);
    HeatmapInfo info;
    info.title = qs(m.title);
    info.subtitle = subtitle;
    info.xTitle = qs(m.xTitle);
    info.yTitle = qs(m.yTitle);
    info.valueTitle = qs(m.valueTitle);
    // Short axes (heads, Shaw's −k … k) get a label per cell, long ones value ticks.
    const auto labels = [](int count, double start, double step) {
        QStringList l;
        for (int k = 0; k < count; ++k)
            l << QString::number(start + k * step, 'g', 6);
        return l;
    };
    if (g.rows <= 24) {
        info.rowLabels = labels(g.rows, m.rowStart, m.rowStep);
    } else {
        info.rowStart = m.rowStart;
        info.rowStep = m.rowStep;
    }
    if (g.cols <= 24) {
        info.colLabels = labels(g.cols, m.colStart, m.colStep);
    } else {
        info.colStart = m.colStart;
        info.colStep = m.colStep;
    }
    return {std::move(g), std::move(info)};
}

} // namespace

void TraceViews::refreshEncoding() {
    int br = 1, bc = 1;
    // Absolute schemes: P. No position at all: X = E, what attention sees.
    const bool none = m_trace->params.scheme == Scheme::None;
    const char* name = none ? "X" : "P";
    Grid p = slice(name, 0, &br, &bc);
    const QString where = m_positions ? qs(m_positions->where) : QString();
    const bool tables = m_positions && !m_positions->maps.empty();
    if (p.empty() || (tables && !none)) {
        m_columnsRow->hide();
        if (!tables) {
            QString why = tr("%1 adds no absolute encoding P to the input: see the Relative and "
                             "Logit terms tabs.")
                              .arg(qs(toString(m_trace->params.scheme)));
            if (m_poolInfo.pooled && !m_trace->find("X")) // GL's pooled path reads back `out`
                why = tr("This engine's pooled mode (n = %1) returns the attention only; the CPU "
                         "engine also keeps E, P and X.")
                          .arg(m_poolInfo.seqLen);
            m_p->clear(tr("no position matrix P"));
            m_p->hide(); // no empty axes: the note says why
            m_gram->clear(QString());
            m_gram->hide();
            m_similarity = {};
            m_pColumns->hide();
            m_encodingNote->setText(where.isEmpty() ? why : where + u'\n' + why);
            m_encodingNote->show();
            return;
        }
        // What the scheme has instead of P: its tables (from the weights) and curves.
        m_encodingNote->setText(where);
        m_encodingNote->show();
        const QString subtitle = describeParams(m_trace->params);
        m_similarity = {}; // the similarity map shows a table
        HeatmapView* slots[] = {m_p, m_gram};
        for (std::size_t k = 0; k < 2; ++k) {
            if (k < m_positions->maps.size()) {
                auto [g, info] = tableMap(m_positions->maps[k], subtitle);
                slots[k]->setData(std::move(g), info);
                slots[k]->show();
            } else {
                slots[k]->clear(QString()); // no stale table behind the hidden view
                slots[k]->hide();
            }
        }
        const PositionCurves& pc = m_positions->curves;
        std::vector<LineSeries> series;
        for (const PositionCurve& c : pc.curves)
            series.push_back(LineSeries{qs(c.name), c.y, pc.xStart, pc.xStep});
        m_pColumns->setVisible(!series.empty());
        m_pColumns->setSeries(qs(pc.title), qs(pc.xTitle), qs(pc.yTitle), series);
        return;
    }
    m_columnsRow->show();
    if (auto* label = m_columnsRow->findChild<QLabel*>())
        label->setText(none ? tr("columns of X:") : tr("columns of P:"));
    m_p->show();
    m_gram->show();
    m_pColumns->show();
    m_encodingNote->setText(where);
    m_encodingNote->setVisible(!where.isEmpty());
    const QString sym = none ? tr("X") : tr("P");
    HeatmapInfo info =
        infoFor(none ? tr("input X = E (no position added)") : tr("position matrix P"),
                tr("%1[p, c]").arg(sym), br, bc);
    info.xTitle = tr("feature c");
    info.yTitle = tr("position p");
    info.colLabels.clear();
    m_p->setData(p, info);

    // Mean of p_i·p_j over a block = (mean p_i)·(mean p_j): binning P's rows first is exact.
    HeatmapInfo g = none
                        ? infoFor(tr("similarity X·Xᵀ (the tokens alone)"), tr("x_i · x_j"), br, br)
                        : infoFor(tr("position similarity P·Pᵀ"), tr("p_i · p_j"), br, br);
    g.xTitle = tr("position j");
    g.yTitle = tr("position i");
    // P·Pᵀ depends on P alone: a change that keeps P (the seed, the heads, the mask, …) shows
    // the same similarity again, under the new subtitle, rather than computing it (n = 2,048,
    // d = 256: the rank update and its mirror took the GUI thread ~95 ms a change). A new one
    // is written into the buffer shown before the current one, where the map has let go of
    // it, and read in place: a fresh n × n grid and its copy were 64 MB of new pages.
    const bool sameP = m_similarity.tensor && m_similarity.of.rows == p.rows &&
                       m_similarity.of.cols == p.cols && m_similarity.of.values == p.values;
    if (!sameP) {
        std::shared_ptr<Tensor> next = takeSpare(m_similarity.spare);
        gramInto(p, *next);
        m_similarity.spare = std::exchange(m_similarity.tensor, std::move(next));
        m_similarity.of = p;
        m_releaseSpares->start();
    }
    if (!m_gram->showsSlice(m_similarity.tensor.get(), 0) || !(m_gram->info() == g))
        m_gram->setSlice(m_similarity.tensor, m_similarity.tensor.get(), 0, g);

    const int d = p.cols;
    std::vector<int> cols;
    for (const QString& word : m_columns->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int c = word.toInt(&ok);
        if (ok && c >= 0 && c < d && cols.size() < 8)
            cols.push_back(c);
    }
    if (cols.empty()) // nothing usable typed: the first sin/cos pair and a slow one
        cols = {0, 1, d / 2};
    std::vector<LineSeries> series;
    for (int c : cols) {
        if (c >= d)
            continue;
        LineSeries s{tr("col %1").arg(c), {}};
        // Binned rows are means of br positions: each at its bin's centre, on a position axis.
        s.xStart = 0.5 * (br - 1);
        s.xStep = br;
        s.values.reserve(static_cast<std::size_t>(p.rows));
        for (int r = 0; r < p.rows; ++r)
            s.values.push_back(p.at(r, c));
        series.push_back(std::move(s));
    }
    m_pColumns->setSeries(tr("columns of %1 against position").arg(sym),
                          br == 1 ? tr("position") : tr("position (means of %1)").arg(br),
                          tr("%1[p, c]").arg(sym), series);
}

void TraceViews::refreshRelative() {
    int br = 1, bc = 1;
    const QString scheme = qs(toString(m_trace->params.scheme));
    // A view with nothing to show is hidden (no empty axes); the note says what is missing.
    // What is shown is settled first and each widget's visibility changes at most once (showing
    // a view only to hide it again re-laid out and repainted the tab on every change); when it
    // changes, the tab is laid out before the maps pool their cells, for their final size.
    const auto present = [this](const char* name) {
        const Tensor* t = m_trace->find(name);
        return t && !t->empty();
    };
    // The index, bias and URPE's C are Toeplitz: the maps come from the tables by offset that
    // came with the trace (PositionView::relative), pooled exactly in pooled mode (which
    // computes no n × n matrix but the logits and weights), else copied out row by row.
    const RelativeTables* byOffset = tablesByOffset();
    const bool showIndex = byOffset ? !byOffset->index.empty() || !byOffset->urpeC.empty()
                                    : present("rel_index") || present("urpe_C");
    const bool showBias =
        byOffset ? !byOffset->bias.empty() && hasBias(m_trace->params) : present("bias");
    const bool noMaps = !showIndex && !showBias;
    // Without the tables, a scheme that has an index or a bias gets a note in place of two
    // empty maps.
    bool pooledAway = false;
    if (m_poolInfo.pooled && !byOffset)
        for (const std::string& name : traceTensorNames(m_trace->params))
            pooledAway = pooledAway || name == "rel_index" || name == "urpe_C" || name == "bias";
    QString note;
    if (byOffset && m_poolInfo.pooled) {
        const int n = byOffset->seqLen;
        const int bin = (n + relativeCells(n) - 1) / relativeCells(n);
        note = bin > 1
                   ? tr("Pooled mode (n = %1): each cell is the %2 of about %3 × %3 positions, "
                        "exact, from %4's tables by distance j − i (no n × n matrix is made). "
                        "Zoom in for single positions.")
                         .arg(n)
                         .arg(m_poolInfo.mode == PoolMode::Max ? tr("largest value") : tr("mean"))
                         .arg(bin)
                         .arg(scheme)
                   : tr("Pooled mode (n = %1): one cell per position, from %2's tables by "
                        "distance j − i (no n × n matrix is made).")
                         .arg(n)
                         .arg(scheme);
    }
    if (pooledAway) {
        note = tr("Pooled mode (n = %1): the relative index and the bias of %2 are n × n "
                  "matrices, which this mode does not compute (only the logits and the weights, "
                  "pooled to the screen). Up to %3 positions this tab shows them; the Encoding "
                  "tab shows %2's tables by distance, and the Attention and Logit terms tabs the "
                  "pooled maps (zoom in for full-resolution tiles).")
                   .arg(m_poolInfo.seqLen)
                   .arg(scheme)
                   .arg(ComputeWorker::kDefaultPoolThreshold);
    } else if (!showIndex || !showBias) {
        if (!note.isEmpty())
            note += u' ';
        QStringList missing;
        if (!showIndex)
            missing << tr("no relative index");
        if (!showBias)
            missing << tr("no additive bias");
        note += tr("%1 has %2.").arg(scheme, missing.join(tr(" and ")));
        if (m_positions && !m_positions->where.empty())
            note += u' ' + qs(m_positions->where);
        if (noMaps) // an empty tab: say what it shows, and for whom
            note += QStringLiteral("\n\n") +
                    tr("This tab shows the relative index or bucket matrix (shaw, t5, deberta; "
                       "urpe's table C) and the additive bias (t5, alibi). For %1, see the "
                       "Encoding tab for what takes the place of P and the Logit terms tab for "
                       "how position enters the logits.")
                        .arg(scheme);
    }
    const bool relayout = m_relIndex->isHidden() == showIndex || m_bias->isHidden() == showBias ||
                          m_relMaps->isHidden() == !noMaps ||
                          m_relativeNote->isHidden() == !note.isEmpty() ||
                          (!note.isEmpty() && m_relativeNote->text() != note);
    m_relIndex->setVisible(showIndex);
    m_bias->setVisible(showBias);
    // A map hidden lets go of what it showed (a buffer, or the trace itself).
    for (HeatmapView* v : {m_relIndex, m_bias})
        if (v->isHidden() && v->hasData())
            v->clear(QString());
    if (!note.isEmpty())
        m_relativeNote->setText(note);
    m_relativeNote->setVisible(!note.isEmpty());
    // With no map, the note takes the tab, centred; above maps, one line at the top.
    m_relMaps->setVisible(!noMaps);
    m_relativeNote->setAlignment(noMaps ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignTop);
    m_relativeNote->setSizePolicy(QSizePolicy::Preferred,
                                  noMaps ? QSizePolicy::Expanding : QSizePolicy::Preferred);
    m_relativeNote->setContentsMargins(noMaps ? QMargins(80, 0, 80, 0) : QMargins());
    if (relayout && isVisible())
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    if (noMaps)
        return;
    if (byOffset) {
        refreshRelativeFromTables(*byOffset, showIndex, showBias);
        return;
    }
    // Index and bias up to kMaxCells per side are shown in place (pooled and coloured by two
    // jobs at once); larger ones binned.
    const int h = m_head->value();
    int bbr = 1, bbc = 1;
    const Tensor* idxInPlace = inPlace("rel_index", &br, &bc);
    const Tensor* biasInPlace = inPlace("bias", &bbr, &bbc);
    std::vector<std::function<HeatmapView::PreparedSlice()>> preparers;
    if (idxInPlace)
        preparers.push_back(m_relIndex->slicePreparer(idxInPlace, 0));
    if (biasInPlace)
        preparers.push_back(m_bias->slicePreparer(biasInPlace, h));
    std::vector<HeatmapView::PreparedSlice> prepared = runConcurrently(std::move(preparers));
    Grid idx = idxInPlace ? Grid{} : slice("rel_index", 0, &br, &bc);
    if (idxInPlace) {
        m_relIndex->setSlice(m_trace, idxInPlace, 0,
                             infoFor(tr("relative index / bucket"), tr("index"), br, bc),
                             std::move(prepared.front()));
    } else if (idx.empty() && m_trace->find("urpe_C")) {
        // URPE has no index matrix; its table C[h, j − i], spread over the n × n grid
        // (trace tensor urpe_C [heads, n, n]), takes the place.
        Grid c = slice("urpe_C", 0, &br, &bc);
        HeatmapInfo info = infoFor(tr("URPE table C[j − i], head 0"), tr("C"), br, bc);
        m_relIndex->setData(std::move(c), info);
    } else if (idx.empty()) {
        m_relIndex->clear(tr("%1 has no relative index").arg(scheme));
    } else {
        m_relIndex->setData(idx, infoFor(tr("relative index / bucket"), tr("index"), br, bc));
    }
    if (biasInPlace) {
        m_bias->setSlice(m_trace, biasInPlace, h,
                         infoFor(tr("bias, head %1").arg(h), tr("b_ij"), bbr, bbc),
                         std::move(prepared.back()));
    } else if (Grid bias = slice("bias", h, &br, &bc); !bias.empty()) {
        m_bias->setData(bias, infoFor(tr("bias, head %1").arg(h), tr("b_ij"), br, bc));
    } else {
        m_bias->clear(tr("%1 has no additive bias").arg(scheme));
    }
}

const RelativeTables* TraceViews::pooledTables() const {
    return m_poolInfo.pooled ? tablesByOffset() : nullptr;
}

const RelativeTables* TraceViews::tablesByOffset() const {
    return m_positions && m_positions->relative && !m_positions->relative->empty()
               ? m_positions->relative.get()
               : nullptr;
}

int TraceViews::relativeCells(int n) const {
    // As many as the logits' (the early part's info says how many they will have).
    return std::min(n,
                    m_poolInfo.rows > 0 ? m_poolInfo.rows : ComputeWorker::kDefaultPoolResolution);
}

Grid TraceViews::relativeGrid(const RelativeTables& t, bool index, int head, PoolRegion region,
                              int cells) const {
    const int n = t.seqLen;
    const int rows = std::min(region.rows(), cells), cols = std::min(region.cols(), cells);
    Grid g;
    if (index && !t.index.empty())
        g.values = poolToeplitz(t.index.data(), n, region, rows, cols, m_poolInfo.mode);
    else if (index) // URPE: its table C, head 0, in place of an index
        g.values = poolToeplitz(t.urpeCOf(0), n, region, rows, cols, m_poolInfo.mode);
    else
        g.values = poolToeplitz(t.biasOf(head), n, region, rows, cols, m_poolInfo.mode);
    if (!g.values.empty()) {
        g.rows = rows;
        g.cols = cols;
    }
    return g;
}

void TraceViews::refreshRelativeFromTables(const RelativeTables& t, bool index, bool bias) {
    const int n = t.seqLen;
    const int h = std::clamp(m_head->value(), 0, std::max(t.heads - 1, 0));
    // Pooled exactly to the logits' cells in pooled mode (or above kMaxCells), into F64
    // buffers; else the whole matrix, in the trace's element type, each row copied from the
    // table: row i of M(i, j) = table[(j − i) + n − 1] is its n entries from n − 1 − i on.
    const bool pooled = m_poolInfo.pooled || n > kMaxCells;
    const int cells = pooled ? relativeCells(n) : n;
    const int bin = (n + cells - 1) / cells;
    const QString how =
        pooled ? QStringLiteral(" (%1)").arg(PoolInfo::whole(n, cells, m_poolInfo.mode).describe())
               : QString();
    const PoolMode mode = m_poolInfo.mode;
    const bool f64 = m_trace->params.precision == Precision::Float64;
    std::vector<ToeplitzJob> jobs;
    const auto add = [&](HeatmapView* v, int map, const QString& title, const QString& value,
                         const auto* table) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(table)>>;
        const DType type = pooled                   ? DType::F64
                           : std::is_same_v<T, int> ? DType::I32
                           : f64                    ? DType::F64
                                                    : DType::F32;
        auto b = toeplitzBuffer(map, type, cells, cells);
        std::function<void()> fill;
        if (pooled) {
            fill = [table, n, cells, mode, out = b->matrix.data<double>()] {
                poolToeplitzInto(table, n, PoolRegion{0, n, 0, n}, cells, cells, mode, out);
            };
        } else if constexpr (std::is_same_v<T, int>) {
            fill = [table, n, out = b->matrix.data<std::int32_t>()] {
                copyToeplitz(table, n, out);
            };
        } else if (f64) {
            fill = [table, n, out = b->matrix.data<double>()] { copyToeplitz(table, n, out); };
        } else { // as the trace holds them: the table's doubles rounded to float
            fill = [table, n, offsets = t.offsets(), out = b->matrix.data<float>()] {
                const std::vector<float> rounded(table, table + offsets);
                copyToeplitz(rounded.data(), n, out);
            };
        }
        jobs.push_back({v, std::move(b), infoFor(title + how, value, bin, bin), std::move(fill)});
    };
    if (index && !t.index.empty())
        add(m_relIndex, 0, tr("relative index / bucket"), tr("index"), t.index.data());
    else if (index) // URPE: its table C, head 0, in place of an index
        add(m_relIndex, 0, tr("URPE table C[j − i], head 0"), tr("C"), t.urpeCOf(0));
    if (bias)
        add(m_bias, 1, tr("bias, head %1").arg(h), tr("b_ij"), t.biasOf(h));
    showToeplitz(std::move(jobs), pooled ? n : 0);
}

std::shared_ptr<TraceViews::ToeplitzMatrix> TraceViews::toeplitzBuffer(int map, DType type,
                                                                       int rows, int cols) {
    const std::vector<std::int64_t> shape{rows, cols};
    for (int k = 0; k < 2; ++k) {
        std::shared_ptr<ToeplitzMatrix>& b = m_toeplitz[static_cast<std::size_t>(2 * map + k)];
        if (b && b.use_count() > 1)
            continue; // a view shows it (its owner)
        if (!b || b->matrix.dtype() != type || b->matrix.shape() != shape)
            b = std::make_shared<ToeplitzMatrix>(ToeplitzMatrix{Tensor(type, shape)});
        return b;
    }
    return std::make_shared<ToeplitzMatrix>(ToeplitzMatrix{Tensor(type, shape)});
}

int TraceViews::toeplitzBuffersHeld() const {
    return static_cast<int>(std::count_if(m_toeplitz.begin(), m_toeplitz.end(),
                                          [](const auto& b) { return b != nullptr; }));
}

void TraceViews::showToeplitz(std::vector<ToeplitzJob> jobs, int source) {
    std::vector<std::function<HeatmapView::PreparedSlice()>> work;
    for (ToeplitzJob& j : jobs)
        work.emplace_back(
            [fill = std::move(j.fill), prepare = j.view->slicePreparer(&j.buffer->matrix, 0)] {
                fill();
                return prepare();
            });
    std::vector<HeatmapView::PreparedSlice> prepared = runConcurrently(std::move(work));
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        // The view holds the matrix (and so the buffer) until it is shown something else.
        const std::shared_ptr<const void> owner(jobs[k].buffer, &jobs[k].buffer->matrix);
        jobs[k].view->setSlice(owner, &jobs[k].buffer->matrix, 0, jobs[k].info,
                               std::move(prepared[k]));
        if (source > 0)
            jobs[k].view->setSource(source, source);
    }
    m_releaseSpares->start();
}

void TraceViews::relativeTile(HeatmapView* v, PoolRegion region) {
    const RelativeTables* t = tablesByOffset();
    if (!t || !v->isVisible() || region.r1 > t->seqLen || region.c1 > t->seqLen)
        return;
    const int h = std::clamp(m_head->value(), 0, std::max(t->heads - 1, 0));
    Grid g = relativeGrid(*t, v == m_relIndex, h, region, relativeCells(t->seqLen));
    if (g.empty())
        return;
    PoolInfo tile = m_poolInfo;
    tile.tile = true;
    tile.region = region;
    tile.seqLen = t->seqLen;
    tile.rows = g.rows;
    tile.cols = g.cols;
    v->setTile(std::move(g), region, tile.describe());
}

void TraceViews::refreshTerms() {
    const int h = m_head->value();
    // An absolute scheme's logits split into e·e, e·p, p·e and p·p for the head shown (not in
    // pooled mode: no n × n matrix there).
    if (!m_poolInfo.pooled && canSplitLogits(*m_trace)) {
        if (!m_split || m_splitOf != m_trace.get() || m_splitHead != h) {
            if (splitTakesLong(m_trace->params)) {
                // Off the GUI thread (the head's spin box, a drag, stay live); the tab is drawn
                // as a whole when the terms come, its maps keeping what they show meanwhile.
                startSplit(h);
                m_stale[2] = true;
                return;
            }
            // Written over in place where the sizes hold (another head, a new trace of the same
            // n), the maps given the new terms below before anything paints; else a new set,
            // the maps keeping the old one until then.
            if (!m_split || !splitFits(*m_trace, *m_split))
                m_split = std::make_shared<Trace>();
            splitLogitsInto(*m_trace, h, *m_split);
            m_splitOf = m_trace.get();
            m_splitHead = h;
        }
    } else {
        m_split.reset();
    }
    // In pooled mode the bias (T5, ALiBi) comes pooled from its table by distance, as on the
    // Relative tab; the other terms are n × n and not computed.
    const RelativeTables* byOffset = pooledTables();
    const bool biasFromTables =
        byOffset && !byOffset->bias.empty() && hasBias(m_trace->params) && !find("bias");
    std::vector<const TermName*> present;
    std::vector<bool> fromTables; // per term shown
    for (const TermName& t : allTerms()) {
        const Tensor* x = find(t.name);
        const bool tables = biasFromTables && std::string_view(t.name) == "bias";
        if ((x && !x->empty()) || tables) {
            present.push_back(&t);
            fromTables.push_back(tables);
        }
    }
    // Pooled: the note says what is left out, where a term of the scheme's trace is.
    // An absolute scheme's four terms are split from the whole logits: left out too.
    bool termsLeftOut = m_poolInfo.pooled && isAbsolute(m_trace->params.scheme);
    if (m_poolInfo.pooled)
        for (const std::string& name : traceTensorNames(m_trace->params))
            for (const TermName& t : allTerms())
                termsLeftOut = termsLeftOut || (name == t.name && name != "logits" &&
                                                !(name == "bias" && biasFromTables));
    while (m_terms.size() < present.size()) {
        HeatmapView* v = addHeatmap(m_termsHost);
        if (m_terms.empty()) // the logits: pooled views ask for tiles
            connect(v, &HeatmapView::tileWanted, this, &TraceViews::tileRequested);
        else // the bias from its table (pooled mode): drawn here at once
            connect(v, &HeatmapView::tileWanted, this,
                    [this, v](PoolRegion region) { relativeTile(v, region); });
        for (HeatmapView* other : m_terms)
            v->linkTo(other); // the terms share their axes: zoom one, zoom all
        // Maps side by side start their axes level, whatever their titles' lines (as Compare).
        connect(v, &HeatmapView::headerChanged, this, &TraceViews::alignTermHeaders);
        m_terms.push_back(v);
    }
    const int columns = present.size() > 4 ? 3 : 2;
    m_termColumns = columns;
    std::vector<int> bins(2 * present.size(), 1);
    // The split's terms are [1, n, n]: head 0 of their own trace.
    std::vector<bool> split(present.size(), false);
    for (std::size_t k = 0; k < present.size(); ++k)
        split[k] = m_split && m_split->find(present[k]->name);
    // Slices that fit are shown in place; larger ones are binned, concurrently.
    std::vector<const Tensor*> tensors(present.size(), nullptr);
    std::vector<std::size_t> gridOf(present.size(), 0);
    std::vector<std::function<Grid()>> jobs;
    std::shared_ptr<ToeplitzMatrix> tableBias; // the bias from its table, pooled (one at most)
    for (std::size_t k = 0; k < present.size(); ++k) {
        if (fromTables[k]) {
            // Pooled from the table into a reused buffer, then shown in place as the others.
            const int n = byOffset->seqLen, cells = relativeCells(n);
            bins[2 * k] = bins[2 * k + 1] = (n + cells - 1) / cells;
            tableBias = toeplitzBuffer(2, DType::F64, cells, cells);
            m_releaseSpares->start();
            tensors[k] = &tableBias->matrix;
            jobs.emplace_back([table = byOffset->biasOf(h), n, cells, mode = m_poolInfo.mode,
                               out = tableBias->matrix.data<double>()] {
                poolToeplitzInto(table, n, PoolRegion{0, n, 0, n}, cells, cells, mode, out);
                return Grid{};
            });
            continue;
        }
        tensors[k] = inPlace(present[k]->name, &bins[2 * k], &bins[2 * k + 1]);
        if (tensors[k])
            continue;
        gridOf[k] = jobs.size();
        const int head = split[k] ? 0 : h;
        jobs.emplace_back([this, name = present[k]->name, head, b = &bins[2 * k]] {
            return slice(name, head, b, b + 1);
        });
    }
    std::vector<Grid> grids = sliceConcurrently(std::move(jobs));
    for (std::size_t k = 0; k < m_terms.size(); ++k) {
        HeatmapView* v = m_terms[k];
        if (k >= present.size()) {
            v->clear(QString()); // let go of the earlier trace's matrix (and the trace itself)
            v->hide();
            continue;
        }
        placeInGrid(m_termsGrid, v, static_cast<int>(k) / columns, static_cast<int>(k) % columns);
        v->show();
    }
    // The maps shown in place pool (and colour) their slices in parallel, one job per map.
    std::vector<std::function<HeatmapView::PreparedSlice()>> preparers;
    for (std::size_t k = 0; k < present.size(); ++k)
        if (tensors[k])
            preparers.push_back(
                m_terms[k]->slicePreparer(tensors[k], split[k] || fromTables[k] ? 0 : h));
    std::vector<HeatmapView::PreparedSlice> prepared = runConcurrently(std::move(preparers));
    for (std::size_t k = 0, next = 0; k < present.size(); ++k) {
        HeatmapView* v = m_terms[k];
        const int br = bins[2 * k], bc = bins[2 * k + 1];
        HeatmapInfo info =
            infoFor(tr("%1, head %2").arg(QString::fromUtf8(present[k]->title)).arg(h),
                    QString::fromLatin1(present[k]->name), br, bc);
        if (m_poolInfo.pooled) {
            info.title += QStringLiteral(" (%1)").arg(m_poolInfo.describe());
            if (k == 0 && termsLeftOut) // under the parameters
                info.subtitle += QLatin1Char('\n') + pooledNote(m_poolInfo);
        }
        if (fromTables[k])
            v->setSlice(std::shared_ptr<const void>(tableBias, &tableBias->matrix), tensors[k], 0,
                        info, std::move(prepared[next++]));
        else if (tensors[k])
            v->setSlice(split[k] ? m_split : m_trace, tensors[k], split[k] ? 0 : h, info,
                        std::move(prepared[next++]));
        else
            v->setData(std::move(grids[gridOf[k]]), info);
        if (k == 0)
            preparePooled(v, present[k]->name, h);
        else if (fromTables[k])
            v->setSource(byOffset->seqLen, byOffset->seqLen);
    }
    alignTermHeaders(); // the rows may have changed with the terms shown
}

void TraceViews::startSplit(int head) {
    if (m_splitJob)
        return; // splitDone asks for what is wanted then
    // Into the split shown before the current one, where no map holds it any more.
    std::shared_ptr<Trace> into = takeSpare(m_splitSpare);
    m_splitJob = SplitJob{m_trace, head, into};
    m_splitWatcher->setFuture(QtConcurrent::run(
        [of = m_trace, head, into = std::move(into)] { splitLogitsInto(*of, head, *into); }));
}

void TraceViews::splitDone() {
    if (!m_splitJob)
        return;
    SplitJob done = std::move(*m_splitJob);
    m_splitJob.reset();
    if (m_trace == done.of && !m_poolInfo.pooled && done.head == m_head->value()) {
        m_splitSpare = std::exchange(m_split, std::move(done.into));
        m_splitOf = m_trace.get();
        m_splitHead = done.head;
    } else { // another trace or head meanwhile: split that one now
        m_splitSpare = std::move(done.into);
    }
    m_releaseSpares->start();
    done.of.reset(); // back to the worker's recycler once no view holds it either
    refreshCurrent();
}

void TraceViews::alignTermHeaders() {
    std::vector<HeatmapView*> shown;
    for (HeatmapView* m : m_terms)
        if (!m->isHidden())
            shown.push_back(m);
    alignHeaders(shown, m_termColumns);
}

void TraceViews::refreshAttention() {
    if (!m_trace)
        return;
    const Tensor* w = m_trace->find("weights");
    if (!w || w->empty()) {
        m_enlarged->clear(tr("no attention weights"));
        return;
    }
    const int heads = std::min(headCount(*w), kMaxSmallMultiples);
    while (static_cast<int>(m_heads.size()) < heads) {
        auto* v = addHeatmap(m_headsHost, true);
        const int h = static_cast<int>(m_heads.size());
        connect(v, &HeatmapView::clicked, this, [this, h] { selectHead(h); });
        v->setToolTip(tr("Head %1: click to enlarge").arg(h));
        m_heads.push_back(v);
    }
    const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(heads))));
    const int h = m_head->value();
    // In place (weights no larger than kMaxCells): the small multiples and the enlarged head
    // pool their head straight to their own pixel size, all of them in parallel. Otherwise the
    // slices are binned (the small multiples to 256² at most), concurrently as well.
    std::vector<int> bins(2 * static_cast<std::size_t>(heads + 1), 1);
    const Tensor* whole = inPlace("weights", &bins[0], &bins[1]);
    std::vector<HeatmapView::PreparedSlice> prepared;
    std::vector<Grid> grids;
    if (whole) {
        std::vector<std::function<HeatmapView::PreparedSlice()>> preparers;
        for (int k = 0; k < heads; ++k)
            preparers.push_back(m_heads[static_cast<std::size_t>(k)]->slicePreparer(whole, k));
        preparers.push_back(m_enlarged->slicePreparer(whole, h));
        prepared = runConcurrently(std::move(preparers));
    } else {
        std::vector<std::function<Grid()>> jobs;
        jobs.emplace_back([this, h, b = bins.data()] { return slice("weights", h, b, b + 1); });
        for (int k = 0; k < heads; ++k)
            jobs.emplace_back([w, k, b = &bins[2 * static_cast<std::size_t>(k + 1)]] {
                return sliceHeadBinned(*w, k, 256, 256, b, b + 1);
            });
        grids = sliceConcurrently(std::move(jobs));
    }
    for (int k = 0; k < static_cast<int>(m_heads.size()); ++k) {
        HeatmapView* v = m_heads[static_cast<std::size_t>(k)];
        if (k >= heads) {
            v->clear(QString()); // let go of the earlier trace's matrix (and the trace itself)
            v->hide();
            continue;
        }
        placeInGrid(m_headsGrid, v, k / columns, k % columns);
        v->show();
        HeatmapInfo info;
        info.title = k == h ? tr("▶ head %1").arg(k) : tr("head %1").arg(k);
        // Positions per cell: the in-place tensor's own (pooled mode) or the binning's.
        info.binRows = bins[whole ? 0 : 2 * static_cast<std::size_t>(k + 1)];
        info.binCols = bins[whole ? 1 : 2 * static_cast<std::size_t>(k + 1) + 1];
        if (whole)
            v->setSlice(m_trace, whole, k, info, std::move(prepared[static_cast<std::size_t>(k)]));
        else
            v->setData(std::move(grids[static_cast<std::size_t>(k + 1)]), info);
    }
    const int br = bins[0], bc = bins[1];
    Grid g = whole ? Grid{} : std::move(grids[0]);
    const int gRows = whole ? static_cast<int>(whole->dim(whole->rank() - 2)) : g.rows;
    HeatmapInfo info = infoFor(tr("attention weights, head %1").arg(h), tr("a_ij"), br, bc);
    int q = std::min(m_query->value() / br, gRows - 1);
    if (m_poolInfo.pooled) {
        info.title += QStringLiteral(" (%1)").arg(m_poolInfo.describe());
        q = std::clamp(static_cast<int>(static_cast<std::int64_t>(m_query->value()) * gRows /
                                        std::max(m_poolInfo.seqLen, 1)),
                       0, gRows - 1);
    }
    std::vector<double> r;
    if (whole) {
        m_enlarged->setSlice(m_trace, whole, h, info,
                             std::move(prepared[static_cast<std::size_t>(heads)]));
        const int cols = m_enlarged->dataCols();
        r.reserve(static_cast<std::size_t>(cols));
        for (int c = 0; c < cols && q >= 0; ++c)
            r.push_back(sliceAt(*whole, h, q, c));
    } else {
        r = row(g, q);
        m_enlarged->setData(std::move(g), info);
    }
    preparePooled(m_enlarged, "weights", h);

    QString qLabel;
    const int qi = m_query->value();
    if (qi >= 0 && qi < static_cast<int>(m_trace->tokens.size()))
        qLabel = QStringLiteral(" \u201c%1\u201d")
                     .arg(QString::fromStdString(m_trace->tokens[static_cast<std::size_t>(qi)]));
    m_queryRow->setSeries(tr("weights of query %1%2, head %3").arg(qi).arg(qLabel).arg(h),
                          bc == 1 ? tr("key position j") : tr("key position j / %1").arg(bc),
                          tr("a_ij"), {LineSeries{tr("head %1").arg(h), std::move(r)}},
                          bc == 1 ? info.colLabels : QStringList());
}

} // namespace pe
