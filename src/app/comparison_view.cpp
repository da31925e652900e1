// SPDX-License-Identifier: MIT
#include "comparison_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "allocator.h"
#include "flow_layout.h"
#include "logit_split.h"
#include "spare_buffer.h"
#include "trace_views.h"

namespace pe {

namespace {
QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/** Whether this view's worker computes `p` pooled (the length rule of ComputeWorker). */
bool comesPooled(const Params& p) {
    return p.seqLen() > ComputeWorker::kDefaultPoolThreshold;
}

/** What the Compare tab's traces hold of the process's memory budget is held under this name. */
constexpr const char* kMemoryHolder = "the Compare tab's trace";
/** How often a scheme refused for memory that others hold looks for room again. */
constexpr int kMemoryPollMs = 100;

} // namespace

Params paramsUnder(const Params& a, Scheme s) {
    Params p = a;
    p.scheme = s;
    // Keep A's masking behaviour; the paper's ALiBi form is defined under a causal mask.
    if (p.scheme == Scheme::ALiBi && p.alibiMode == AlibiMode::Causal)
        p.mask = MaskKind::Causal;
    return p;
}

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent)
    , m_controller(new ComputeController(BackendKind::CpuFast, this))
    , m_memoryPoll(new QTimer(this)) {
    m_controller->setMemoryBudget(MemoryBudget::process(), kMemoryHolder);
    m_memoryPoll->setInterval(kMemoryPollMs);
    connect(m_memoryPoll, &QTimer::timeout, this, &ComparisonView::retryWhereMemoryFits);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // The controls in groups that wrap onto a second line in a narrow window (they set the
    // tab's, and so the window's, minimum width otherwise).
    auto* barHost = new QWidget;
    auto* bar = new FlowLayout(barHost, 8);
    bar->setContentsMargins(0, 0, 0, 0);
    auto group = [bar](std::initializer_list<QWidget*> widgets) {
        auto* g = new QWidget;
        auto* row = new QHBoxLayout(g);
        row->setContentsMargins(0, 0, 0, 0);
        for (QWidget* w : widgets)
            row->addWidget(w);
        bar->addWidget(g);
    };
    m_scheme = new QComboBox;
    for (Scheme s : allSchemes())
        m_scheme->addItem(qs(toString(s)), static_cast<int>(s));
    m_scheme->setCurrentIndex(m_scheme->findData(static_cast<int>(Scheme::RoPE)));
    m_scheme->setToolTip(tr("Scheme B: the same inputs, sizes, seed and options under this "
                            "scheme; the right map is A − B"));
    m_galleryButton = new QPushButton;
    m_galleryButton->setText(tr("more schemes"));
    m_galleryButton->setToolTip(tr("Show further schemes below, each on the same inputs, tensor "
                                   "and head"));
    auto* menu = new QMenu(m_galleryButton);
    QAction* all = menu->addAction(tr("all schemes"));
    QAction* none = menu->addAction(tr("none"));
    menu->addSeparator();
    for (Scheme s : allSchemes()) {
        QAction* a = menu->addAction(qs(toString(s)));
        a->setCheckable(true);
        a->setData(static_cast<int>(s));
        connect(a, &QAction::toggled, this, [this, s](bool on) {
            // A scheme ticked goes last: the gallery keeps the order they were chosen in.
            std::erase(m_galleryOrder, s);
            if (on)
                m_galleryOrder.push_back(s);
            rebuildGallery();
        });
    }
    auto checkAll = [menu, this](bool on) {
        m_galleryOrder.clear();
        for (QAction* a : menu->actions()) {
            const QSignalBlocker b(a);
            if (!a->isCheckable())
                continue;
            a->setChecked(on);
            if (on)
                m_galleryOrder.push_back(static_cast<Scheme>(a->data().toInt()));
        }
        rebuildGallery();
    };
    connect(all, &QAction::triggered, this, [checkAll] { checkAll(true); });
    connect(none, &QAction::triggered, this, [checkAll] { checkAll(false); });
    m_galleryButton->setMenu(menu);
    group({new QLabel(tr("compare with")), m_scheme, m_galleryButton});
    m_tensor = new QComboBox;
    m_tensor->addItem(tr("attention weights"), QStringLiteral("weights"));
    m_tensor->addItem(tr("logits"), QStringLiteral("logits"));
    m_tensor->addItem(tr("output"), QStringLiteral("out"));
    // Not a tensor of the trace: the sum of each scheme's position terms (Logit terms tab).
    m_tensor->addItem(tr("position term of the logits"), QStringLiteral("position"));
    m_tensor->setItemData(m_tensor->count() - 1,
                          tr("The part of the logits that position makes, for each scheme on "
                             "the same inputs: the sum of its position terms (absolute: e·p + "
                             "p·e + p·p; T5, ALiBi: the bias; Shaw: the k-term; Transformer-XL: "
                             "(b)+(d); DeBERTa: c2p + p2c; RoPE: what the rotation changes); 0 "
                             "for none, and for URPE without a bias (its positions multiply the "
                             "weights). Not for pooled traces (above 2048 positions)."),
                          Qt::ToolTipRole);
    group({new QLabel(tr("tensor")), m_tensor});
    m_head = new QSpinBox;
    group({new QLabel(tr("head")), m_head});
    m_sameScale = new QCheckBox(tr("same colour scale"));
    m_sameScale->setChecked(true);
    m_sameScale->setToolTip(tr("A, B and the further schemes share one colour scale, so that a "
                               "colour is the same value on every map; off, each map spans its "
                               "own values"));
    group({m_sameScale});
    layout->addWidget(barHost);
    // One grid of equal cells: A, B and A − B on the first row, the gallery's schemes below,
    // three to a row.
    m_gallery = new QWidget;
    m_galleryGrid = new QGridLayout(m_gallery);
    m_galleryGrid->setContentsMargins(0, 0, 0, 0);
    m_left = new HeatmapView;
    m_right = new HeatmapView;
    m_diff = new HeatmapView;
    m_diff->setColorMap(ColorMapKind::RdBu); // a difference is signed: centred on 0
    for (int c = 0; c < 3; ++c) {
        m_galleryGrid->addWidget(std::array{m_left, m_right, m_diff}[static_cast<std::size_t>(c)],
                                 0, c);
        m_galleryGrid->setColumnStretch(c, 1);
    }
    m_galleryGrid->setRowStretch(0, 1);
    layout->addWidget(m_gallery, 1);
    m_left->linkTo(m_right);
    m_left->linkTo(m_diff);
    m_right->linkTo(m_diff);
    for (HeatmapView* h : {m_left, m_right, m_diff}) {
        connect(h, &HeatmapView::hovered, this, &ComparisonView::hovered);
        connect(h, &HeatmapView::headerChanged, this, &ComparisonView::alignHeaders);
    }

    connect(m_scheme, &QComboBox::currentIndexChanged, this, [this] {
        request();
        redraw();
    });
    connect(m_tensor, &QComboBox::currentIndexChanged, this, [this] {
        m_positionTerms.clear(); // held only while the position term is shown
        request();               // the layer's output, where the traces stopped at the weights
        redraw();
        Q_EMIT tensorChanged();
    });
    connect(m_head, &QSpinBox::valueChanged, this, [this] {
        request(); // where the other traces hold another head alone
        redraw();
    });
    connect(m_sameScale, &QCheckBox::toggled, this, &ComparisonView::redraw);
    connect(m_controller, &ComputeController::resultReady, this, [this](const ComputeResult& r) {
        trimMemoryWhenIdle();
        m_requestInFlight = false;
        // A scheme that cannot be computed for A's parameters fails the same way each time:
        // say why on its map and go on to the next, rather than ask again (it asked again and
        // again, redrawing every map each time: the window never settled). A cancelled one is
        // asked for again.
        // A refusal for memory that other holders keep lasts only while they keep it (the
        // window's old trace while its views change over to the new one): asked for again
        // once the budget has room (retryWhereMemoryFits), it was kept as the scheme's failure
        // until A changed, and each scheme after it was refused in turn.
        if (!r.trace && r.error != QLatin1String("cancelled") && m_a && m_requested &&
            sameTrace(m_requested->second, paramsUnder(m_a->params, m_requested->first))) {
            const bool waits =
                r.refusedBytes > 0 && r.refusedBytes <= MemoryBudget::process()->total();
            m_failed[m_requested->first] = {r.error.isEmpty() ? tr("not computed") : r.error,
                                            waits ? r.refusedBytes : 0};
            if (waits && isVisible())
                m_memoryPoll->start();
        }
        if (m_ahead && r.trace &&
            sameTrace(r.trace->params, paramsUnder(m_ahead->a, r.trace->params.scheme))) {
            m_ahead->trace = r.trace; // B, before the reference it was computed for
            return;
        }
        addTrace(r.trace);
        request(); // the next missing scheme, if any
    });
}

void ComparisonView::cancelPrepared() {
    if (!m_ahead)
        return;
    m_ahead.reset();
    request(); // what the current reference still lacks (B's request ahead, if running, ends
               // dropped: it is not for the current reference)
}

void ComparisonView::prepare(const Params& a, const InputChoice& in) {
    m_ahead.reset();
    const Scheme b = schemeB();
    // A long sequence's two pooled passes (seconds each) would share the cores and show A
    // only when B is done too: there A comes first, B after it, as before.
    if (!isVisible() || b == a.scheme || comesPooled(a))
        return;
    if (m_a && m_a->params == a && m_input == in)
        return; // the same again: what this view holds stays valid (setReference)
    if (const Trace* t = traceOf(b);
        t && m_input == in && covers(*t) && sameTrace(t->params, paramsUnder(a, b)))
        return; // B reads none of what changed: setReference keeps it
    m_ahead = Ahead{a, in, nullptr};
    ask(b, a, in);
}

void ComparisonView::ask(Scheme s, const Params& a, const InputChoice& in) {
    m_requestInFlight = true;
    m_requested.emplace(s, paramsUnder(a, s));
    // Logits, weights and their position term need no more of the pass than the weights: half
    // the products of a short one (the value projection, A·V, W_O) are skipped; the weights
    // alone need no other n × n tensor either.
    m_controller->submit(m_requested->second, in, EarlyPart::None, extentNeeded(), headNeeded(a));
}

bool ComparisonView::comparesHeadSlices() const {
    const QString name = m_tensor->currentData().toString();
    return name == QLatin1String("weights") || name == QLatin1String("logits");
}

int ComparisonView::headNeeded(const Params& a) const {
    return comparesHeadSlices() && a.seqLen() >= kOneHeadFrom ? m_head->value() : -1;
}

bool ComparisonView::holdsShownHead(const Trace& t) const {
    return comparesHeadSlices() ? t.holdsHead(m_head->value()) : t.onlyHead < 0;
}

TraceExtent ComparisonView::extentNeeded() const {
    const QString name = m_tensor->currentData().toString();
    if (name == QLatin1String("weights"))
        return TraceExtent::WeightsAlone;
    return name == QLatin1String("out") ? TraceExtent::Whole : TraceExtent::Weights;
}

bool ComparisonView::covers(const Trace& t) const {
    return traceCovers(t, extentNeeded()) && holdsShownHead(t);
}

void ComparisonView::setColorMap(ColorMapKind k) {
    for (HeatmapView* h : {m_left, m_right})
        h->setColorMap(k);
    for (const auto& [s, v] : m_galleryViews)
        v->setColorMap(k);
}

void ComparisonView::setPoolMode(PoolMode m) {
    for (HeatmapView* h : {m_left, m_right, m_diff})
        h->setPoolMode(m);
    for (const auto& [s, v] : m_galleryViews)
        v->setPoolMode(m);
    // Long sequences come pooled from the worker: B and the gallery must pool as A does, or
    // A − B would mix max and mean cells.
    m_controller->setPooling(ComputeWorker::kDefaultPoolThreshold,
                             ComputeWorker::kDefaultPoolResolution, m);
    m_poolMode = m;
    if (m_a && comesPooled(m_a->params)) {
        m_traces.clear();
        forgetFailures();
        m_positionTerms.clear();
        m_requestInFlight = false;
        request();
    }
}

void ComparisonView::setOtherScheme(Scheme s) {
    m_scheme->setCurrentIndex(m_scheme->findData(static_cast<int>(s)));
}

bool ComparisonView::setTensor(const QString& name) {
    const int k = m_tensor->findData(name);
    if (k >= 0)
        m_tensor->setCurrentIndex(k);
    return k >= 0;
}

void ComparisonView::setHead(int h) {
    m_head->setValue(h);
}

void ComparisonView::addTrace(std::shared_ptr<const Trace> t) {
    keep(std::move(t));
    redraw();
}

void ComparisonView::keep(std::shared_ptr<const Trace> t) {
    // A result computed for an earlier reference is not kept.
    if (!t || !m_a || !sameTrace(t->params, paramsUnder(m_a->params, t->params.scheme)))
        return;
    if (comesPooled(t->params)) {
        // A long sequence's trace is mostly its O(n·d) tensors (a few hundred MB at n = 16384):
        // keep only what this view can show, so a gallery of every scheme stays small.
        auto kept = std::make_shared<Trace>();
        kept->params = t->params;
        kept->tokens = t->tokens;
        kept->onlyHead = t->onlyHead;
        for (int k = 0; k < m_tensor->count(); ++k)
            if (const Tensor* x = t->find(m_tensor->itemData(k).toString().toStdString()))
                kept->tensors.emplace_back(m_tensor->itemData(k).toString().toStdString(), *x);
        t = std::move(kept);
    }
    m_positionTerms.erase(t->params.scheme);
    m_traces[t->params.scheme] = std::move(t);
}

Scheme ComparisonView::schemeB() const {
    return static_cast<Scheme>(m_scheme->currentData().toInt());
}

void ComparisonView::setGallerySchemes(const std::vector<Scheme>& schemes) {
    m_galleryOrder.clear();
    for (Scheme s : schemes) // in their order, each once
        if (std::find(m_galleryOrder.begin(), m_galleryOrder.end(), s) == m_galleryOrder.end())
            m_galleryOrder.push_back(s);
    for (QAction* a : m_galleryButton->menu()->actions()) {
        if (!a->isCheckable())
            continue;
        const QSignalBlocker b(a);
        a->setChecked(std::find(schemes.begin(), schemes.end(),
                                static_cast<Scheme>(a->data().toInt())) != schemes.end());
    }
    rebuildGallery();
}

std::vector<Scheme> ComparisonView::gallerySchemes() const {
    std::vector<Scheme> out;
    for (const auto& [s, v] : m_galleryViews)
        out.push_back(s);
    return out;
}

const Trace* ComparisonView::traceOf(Scheme s) const {
    return heldTrace(s).get();
}

HeatmapView* ComparisonView::galleryView(Scheme s) const {
    for (const auto& [scheme, v] : m_galleryViews)
        if (scheme == s)
            return v;
    return nullptr;
}

void ComparisonView::rebuildGallery() {
    for (const auto& [s, v] : m_galleryViews)
        delete v;
    m_galleryViews.clear();
    for (Scheme scheme : m_galleryOrder) {
        auto* v = new HeatmapView(m_gallery);
        v->setMinimumSize(160, 140);
        connect(v, &HeatmapView::hovered, this, &ComparisonView::hovered);
        connect(v, &HeatmapView::headerChanged, this, &ComparisonView::alignHeaders);
        for (HeatmapView* other : {m_left, m_right, m_diff})
            other->linkTo(v);
        for (const auto& [s, w] : m_galleryViews)
            w->linkTo(v);
        m_galleryViews.emplace_back(scheme, v);
    }
    const int count = static_cast<int>(m_galleryViews.size());
    for (int r = 1; r < m_galleryGrid->rowCount(); ++r)
        m_galleryGrid->setRowStretch(r, 0); // rows left over from a larger gallery
    for (int k = 0; k < count; ++k) {
        m_galleryGrid->addWidget(m_galleryViews[static_cast<std::size_t>(k)].second, 1 + k / 3,
                                 k % 3);
        m_galleryGrid->setRowStretch(1 + k / 3, 1);
    }
    m_galleryButton->setText(count ? tr("more schemes (%1)").arg(count) : tr("more schemes"));
    request();
    redraw();
}

void ComparisonView::alignHeaders() {
    // A, B and A − B, then the gallery three to a row, as the grid places them.
    std::vector<HeatmapView*> maps{m_left, m_right, m_diff};
    for (const auto& [s, v] : m_galleryViews)
        maps.push_back(v);
    pe::alignHeaders(maps, 3);
}

void ComparisonView::setReference(std::shared_ptr<const Trace> a, const InputChoice& in) {
    // The same parameters and input again (A from another engine, a session applied twice):
    // the other schemes' traces, failures and the running request stay valid. They were all
    // computed again.
    const bool same = m_a && a && m_a->params == a->params && m_input == in;
    const bool sameInput = m_input == in;
    m_a = std::move(a);
    m_input = in;
    if (same) {
        m_positionTerms.erase(m_a->params.scheme); // A's own comes from A's trace
    } else {
        // Another scheme's trace stays where it reads none of what changed (canonical): A's
        // Shaw k, T5 buckets or its scheme itself mean nothing to B's RoPE. Every one was
        // computed again, each a whole forward pass (a gallery of ten at n = 2,048: ten).
        for (auto it = m_traces.begin(); it != m_traces.end();) {
            const bool valid = m_a && sameInput && it->first != m_a->params.scheme &&
                               sameTrace(it->second->params, paramsUnder(m_a->params, it->first));
            if (!valid)
                m_positionTerms.erase(it->first);
            it = valid ? std::next(it) : m_traces.erase(it);
        }
        if (m_a)
            m_positionTerms.erase(m_a->params.scheme); // A's own comes from A's trace
        forgetFailures();
        // What runs now was for the old reference, unless prepare() asked for B of this one
        // (then it is kept, or still coming) or it reads none of what changed.
        const bool announced = m_ahead && m_a && m_ahead->a == m_a->params && m_ahead->input == in;
        if (announced && m_ahead->trace)
            keep(m_ahead->trace);
        m_requestInFlight =
            m_a && (announced || sameInput) && m_requestInFlight && m_requested &&
            sameTrace(m_requested->second, paramsUnder(m_a->params, m_requested->first));
    }
    m_ahead.reset();
    if (m_a) {
        const QSignalBlocker b(m_head);
        m_head->setRange(0, std::max(0, m_a->params.heads - 1));
    }
    request();
    // A is drawn now, B when it comes (addTrace) or now where it is at hand (B's scheme is
    // A's). Hidden, the tab is drawn when shown: no slicing of every trace for a hidden tab.
    if (isVisible())
        redraw();
}

bool ComparisonView::waitsForMemory() const {
    return std::any_of(m_failed.begin(), m_failed.end(),
                       [](const auto& f) { return f.second.waitsForBytes > 0; });
}

void ComparisonView::forgetFailures() {
    m_failed.clear();
    m_memoryPoll->stop();
}

void ComparisonView::retryWhereMemoryFits() {
    const std::uint64_t room = MemoryBudget::process()->availableTo(kMemoryHolder);
    const auto erased = std::erase_if(m_failed, [room](const auto& f) {
        return f.second.waitsForBytes > 0 && f.second.waitsForBytes <= room;
    });
    if (!waitsForMemory())
        m_memoryPoll->stop();
    if (erased > 0) {
        request();
        redraw(); // "computing …" in place of the refusal
    }
}

void ComparisonView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (waitsForMemory())
        m_memoryPoll->start();
    request();
    redraw();
}

void ComparisonView::hideEvent(QHideEvent* e) {
    QWidget::hideEvent(e);
    m_memoryPoll->stop();       // looked at again when shown
    m_difference.spare.reset(); // kept for the next change only while the tab is shown
}

void ComparisonView::request() {
    // A reference announced by prepare() comes next: nothing for the current one meanwhile.
    if (!m_a || !isVisible() || m_requestInFlight || m_ahead)
        return;
    for (Scheme s : shownSchemes()) { // B first, then the gallery's
        // A's own scheme is A: the window computes it as far as this view needs (to the end
        // when the output is compared: MainWindow::completeIfNeeded). Asked for here while A
        // stopped at the weights, its result was never A, and was asked for again and again
        // until the window's complete A came (17 results in a row in a soak run).
        if (s == m_a->params.scheme)
            continue;
        if (const Trace* t = traceOf(s); (t && covers(*t)) || m_failed.count(s))
            continue;
        ask(s, m_a->params, m_input);
        return;
    }
}

std::shared_ptr<const Trace> ComparisonView::heldTrace(Scheme s) const {
    if (m_a && s == m_a->params.scheme)
        return m_a;
    const auto it = m_traces.find(s);
    return it == m_traces.end() ? nullptr : it->second;
}

namespace {
/** The position term of head `head` of t's logits (positionPart) as a [1, n, n] tensor of
 *  doubles, which a map reads in place; null without. */
std::shared_ptr<const Tensor> positionTensor(const Trace& t, int head) {
    const std::optional<StageMat> m = positionPart(t, head);
    if (!m)
        return nullptr;
    auto x =
        std::make_shared<Tensor>(DType::F64, std::vector<std::int64_t>{1, m->rows(), m->cols()});
    std::copy(m->data(), m->data() + m->size(), x->data<double>()); // both row-major
    return x;
}
} // namespace

bool ComparisonView::positionTermsReady() {
    const int head = m_head->value();
    bool ready = true;
    std::vector<std::shared_ptr<const Trace>> wanted; // computed here
    for (Scheme s : shownSchemes()) {
        std::shared_ptr<const Trace> t = heldTrace(s);
        const auto it = m_positionTerms.find(s);
        if (!t || !holdsShownHead(*t) || (it != m_positionTerms.end() && it->second.first == head))
            continue; // nothing to show, or at hand
        if (m_positionJobs.count(s)) {
            ready = false; // one at a time: its end asks for what is wanted then
            continue;
        }
        if (!m_blocking && positionPartTakesLong(t->params)) {
            startPositionTerm(s, std::move(t), head);
            ready = false;
            continue;
        }
        if (std::none_of(wanted.begin(), wanted.end(),
                         [s](const auto& w) { return w->params.scheme == s; }))
            wanted.push_back(std::move(t));
    }
    if (wanted.size() < 2)
        return ready; // sourceOf computes it
    // One job per scheme on Qt's pool (each an n × n term and its products), the GUI thread
    // waiting: a new head with 12 schemes took 1.2 s on one thread.
    std::vector<QFuture<std::shared_ptr<const Tensor>>> jobs;
    for (const auto& t : wanted)
        jobs.push_back(QtConcurrent::run([t, head] { return positionTensor(*t, head); }));
    for (std::size_t k = 0; k < wanted.size(); ++k)
        m_positionTerms[wanted[k]->params.scheme] = {head, jobs[k].result()};
    return ready;
}

void ComparisonView::startPositionTerm(Scheme s, std::shared_ptr<const Trace> of, int head) {
    auto* watcher = new QFutureWatcher<std::shared_ptr<const Tensor>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, s, watcher] { positionTermDone(s, watcher); });
    m_positionJobs[s] = PositionJob{of, head, watcher};
    watcher->setFuture(
        QtConcurrent::run([of = std::move(of), head] { return positionTensor(*of, head); }));
}

void ComparisonView::positionTermDone(Scheme s, QObject* job) {
    auto* watcher = static_cast<QFutureWatcher<std::shared_ptr<const Tensor>>*>(job);
    watcher->deleteLater();
    const auto it = m_positionJobs.find(s);
    if (it == m_positionJobs.end() || it->second.watcher != job)
        return;
    const PositionJob done = std::move(it->second);
    m_positionJobs.erase(it);
    // Kept while its trace is still the scheme's (a new one erased the old term: keep(),
    // setReference) and the tensor is shown; else dropped. redraw() asks for the term wanted
    // now (another head's too).
    const bool shown = m_tensor->currentData().toString() == QLatin1String("position");
    if (shown && heldTrace(s) == done.of)
        m_positionTerms[s] = {done.head, watcher->result()};
    if (shown && isVisible())
        redraw();
}

std::vector<Scheme> ComparisonView::shownSchemes() const {
    std::vector<Scheme> out{m_a ? m_a->params.scheme : schemeB(), schemeB()};
    for (const auto& [s, v] : m_galleryViews)
        out.push_back(s);
    return out;
}

ComparisonView::Source ComparisonView::sourceOf(std::shared_ptr<const Trace> t) const {
    Source s;
    if (!t || !holdsShownHead(*t)) // one head's trace, of another head: computed anew
        return s;
    s.trace = t;
    const std::string name = m_tensor->currentData().toString().toStdString();
    const Tensor* x = nullptr;
    if (name == "position") { // computed from the trace, for this head, once
        const int head = m_head->value();
        auto it = m_positionTerms.find(t->params.scheme);
        if (it == m_positionTerms.end() || it->second.first != head)
            it = m_positionTerms
                     .insert_or_assign(t->params.scheme, std::pair{head, positionTensor(*t, head)})
                     .first;
        s.owner = it->second.second;
        x = it->second.second.get();
    } else {
        s.owner = t;
        s.head = t->onlyHead < 0 ? m_head->value() : 0; // the shown head (holdsShownHead)
        x = t->find(name);
    }
    // The tensor itself, shown in place as the main views show theirs (HeatmapView::setSlice:
    // pooled to the plot's pixels and ranged in one vectorised pass, nothing copied at full
    // size). Each map used to be a full-size double copy whose range was taken twice: 0.6 s
    // for a new head at n = 2,048 with 13 maps.
    if (!x || x->empty() || x->rank() < 1 || x->rank() > 3)
        return s;
    const std::size_t rank = x->rank();
    s.rows = rank == 1 ? 1 : static_cast<int>(x->dim(rank - 2));
    s.cols = static_cast<int>(x->dim(rank - 1));
    if (s.rows > TraceViews::kMaxCells || s.cols > TraceViews::kMaxCells) {
        // A long output ([n, d] of a pooled trace): binned, as every view bins it.
        s.grid = sliceHeadBinned(*x, s.head, TraceViews::kMaxCells, TraceViews::kMaxCells,
                                 &s.binRows, &s.binCols);
        s.rows = s.grid.rows;
        s.cols = s.grid.cols;
        return s;
    }
    s.tensor = x;
    return s;
}

void ComparisonView::redraw() {
    if (!m_a)
        return;
    const int h = m_head->value();
    const QString valueTitle = m_tensor->currentData().toString();
    // Those not at hand; where one is coming from Qt's pool, drawn when it comes (A's, B's and
    // the gallery's together), the maps keeping what they show meanwhile.
    if (valueTitle == QLatin1String("position") && !positionTermsReady())
        return;
    // Another head, where B's trace holds one head alone (kOneHeadFrom): the maps keep the head
    // they show until B's comes (request()), then A, B and A − B change together, with no
    // "computing B…" in between.
    if (const auto b = heldTrace(schemeB());
        b && !b->holdsHead(h) && m_requestInFlight && m_left->hasData())
        return;
    Source a = sourceOf(m_a);
    if (a.empty()) { // the position term of a pooled trace, or one without W_q, W_k
        // A computed for less than this tensor: the window asks for the rest of its pass.
        if (!covers(*m_a))
            m_left->clear(tr("computing A's %1…").arg(m_tensor->currentText()));
        else
            m_left->clear(tr("no %1 for this trace: it takes the whole n × n logits (not "
                             "pooled) and the weights they were computed with")
                              .arg(m_tensor->currentText()));
        m_right->clear(QString());
        m_diff->clear(QString());
        for (const auto& [s, v] : m_galleryViews)
            v->clear(QString());
        Q_EMIT updated();
        return;
    }
    // A long sequence's logits and weights are pooled cells (B's and the gallery's too, as
    // A's): titled so, the hover read-out giving each cell's positions and the axes counting
    // positions, not cells.
    const int n = m_a->params.seqLen();
    const bool pooledCells =
        comesPooled(m_a->params) && a.rows < n &&
        (valueTitle == QLatin1String("logits") || valueTitle == QLatin1String("weights"));
    QString pooledTitle;
    int br = 1, bc = 1;
    if (pooledCells) {
        PoolInfo pool = PoolInfo::whole(n, a.rows, m_poolMode);
        pool.cols = a.cols;
        pooledTitle = QStringLiteral(" (%1)").arg(pool.describe());
        br = (n + a.rows - 1) / a.rows;
        bc = (n + a.cols - 1) / a.cols;
    }
    auto info = [&](const Trace& t, const QString& title, int binRows, int binCols) {
        return traceHeatmapInfo(t, title + pooledTitle, valueTitle, binRows, binCols);
    };
    auto placed = [&](HeatmapView* v) {
        if (pooledCells)
            v->setSource(n, n);
    };
    // A map of a tensor reads it in place; the position term is a grid of its own.
    auto show = [&](HeatmapView* v, Source& s, const QString& title) {
        const HeatmapInfo i =
            info(*s.trace, title, pooledCells ? br : s.binRows, pooledCells ? bc : s.binCols);
        if (!s.tensor)
            v->setData(std::move(s.grid), i);
        else if (!v->showsSlice(s.tensor, s.head) || !(v->info() == i))
            v->setSlice(s.owner, s.tensor, s.head, i);
        // else shown already (another map's trace arrived): each of 13 maps at n = 2,048 was
        // pooled and replotted again at every arrival.
        placed(v);
    };
    const QString sa = qs(toString(m_a->params.scheme));
    // The title of a map whose trace is not at hand: why, where it could not be computed.
    auto missing = [this](Scheme s, bool isB) {
        const QString name = qs(toString(s));
        const auto f = m_failed.find(s);
        if (f == m_failed.end())
            return isB ? tr("computing B…") : tr("computing %1…").arg(name);
        if (f->second.waitsForBytes > 0)
            return tr("%1 waits for memory that other views hold: %2")
                .arg(isB ? tr("B (%1)").arg(name) : name, f->second.why);
        return tr("%1 cannot be computed for A's parameters: %2")
            .arg(isB ? tr("B (%1)").arg(name) : name, f->second.why);
    };
    // The maps at hand (A, B and the gallery's, each at A's shape), then the range of their
    // finite values, which they share when asked to.
    std::vector<HeatmapView*> shown;
    for (const auto& [s, v] : m_galleryViews) {
        Source g = sourceOf(heldTrace(s));
        if (!g.empty() && g.rows == a.rows && g.cols == a.cols) {
            show(v, g, tr("%1, head %2").arg(qs(toString(s))).arg(h));
            shown.push_back(v);
        } else {
            v->clear(missing(s, false));
        }
    }
    Source b = sourceOf(heldTrace(schemeB()));
    const bool haveB = !b.empty() && b.rows == a.rows && b.cols == a.cols;
    // A − B, cell by cell of what A and B show: a tensor of doubles read in place as the others
    // are, made again only when A's or B's slice changes (not when a gallery map's trace
    // arrives); of two binned grids, a grid, before they hand their grids over.
    Grid d;
    if (haveB && a.tensor && b.tensor) {
        // Current while A's and B's maps still show these slices: every redraw that shows
        // them side by side makes it (before showing them), and a map reads its tensor in
        // place, holding it, so the same pointer is the same slice.
        const bool current = m_difference.tensor && m_left->showsSlice(a.tensor, a.head) &&
                             m_right->showsSlice(b.tensor, b.head);
        if (!current) {
            // Into the buffer A − B was drawn from before this one, where the map has let go
            // of it: 32 MB at n = 2,048, whose fresh pages were a third of the making.
            std::shared_ptr<Tensor> next = takeSpare(m_difference.spare);
            sliceDifference(*a.tensor, a.head, *b.tensor, b.head, *next);
            m_difference.spare = std::exchange(m_difference.tensor, std::move(next));
        }
    } else if (haveB) {
        m_difference.tensor.reset();
        auto whole = [](const Source& s) {
            return s.tensor ? sliceHead(*s.tensor, s.head) : s.grid;
        };
        d = whole(a);
        const Grid gb = whole(b);
        for (std::size_t k = 0; k < d.values.size(); ++k)
            d.values[k] -= gb.values[k];
    }
    show(m_left, a, tr("A: %1, head %2").arg(sa).arg(h));
    shown.push_back(m_left);
    const QString sb = qs(toString(schemeB()));
    if (haveB) {
        show(m_right, b, tr("B: %1, head %2").arg(sb).arg(h));
        shown.push_back(m_right);
    }
    std::optional<std::pair<double, double>> shared;
    if (m_sameScale->isChecked())
        for (const HeatmapView* v : shown)
            if (const auto r = v->dataRange())
                shared = shared ? std::pair{std::min(shared->first, r->first),
                                            std::max(shared->second, r->second)}
                                : *r;
    for (HeatmapView* v : shown)
        v->setColourRange(shared);
    if (!haveB) {
        m_right->clear(missing(schemeB(), true));
        m_diff->clear(QString());
        return;
    }
    Source diff;
    diff.trace = m_a;
    diff.owner = m_difference.tensor;
    diff.tensor = m_difference.tensor.get();
    diff.grid = std::move(d);
    diff.binRows = a.binRows; // A's bins (show() gives pooled cells their own)
    diff.binCols = a.binCols;
    show(m_diff, diff, tr("A − B (%1 − %2)").arg(sa, sb));
    Q_EMIT updated();
}

} // namespace pe
