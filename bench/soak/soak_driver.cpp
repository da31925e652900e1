// SPDX-License-Identifier: MIT
#include "soak_driver.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEventLoop>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "allocator.h"
#include "comparison_view.h"
#include "compute_worker.h"
#include "heatmap_view.h"
#include "insights_panel.h"
#include "insights_worker.h"
#include "main_window.h"
#include "params_panel.h"
#include "qcp.h"
#include "seed_spin_box.h"
#include "stages.h"
#include "stepper_panel.h"
#include "trace_views.h"

namespace pe {

void spinEventLoop(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
}

bool spinUntil(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() >= timeoutMs)
            return false;
        spinEventLoop(5);
    }
    return true;
}

namespace {

QString name(QWidget* w) {
    // The form label that names the control ("Width d", "T5 buckets"), else its class.
    if (auto* p = w->parentWidget())
        for (QLabel* l : p->findChildren<QLabel*>())
            if (l->buddy() == w)
                return l->text().remove(QLatin1Char('&'));
    if (auto* c = qobject_cast<QCheckBox*>(w))
        return c->text();
    return QString::fromLatin1(w->metaObject()->className());
}

/** The panel's controls: spin boxes, combo boxes, check boxes, the slider and the text box. */
std::vector<QWidget*> controlsOf(ParamsPanel* panel, bool enabledOnly) {
    std::vector<QWidget*> out;
    for (QWidget* w : panel->findChildren<QWidget*>()) {
        QWidget* parent = w->parentWidget();
        const bool inner =
            qobject_cast<QAbstractSpinBox*>(parent) || qobject_cast<QComboBox*>(parent);
        const bool control = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                             qobject_cast<QCheckBox*>(w) || qobject_cast<QSlider*>(w) ||
                             (qobject_cast<QLineEdit*>(w) && !inner);
        if (control && (!enabledOnly || w->isEnabled()))
            out.push_back(w);
    }
    return out;
}

/** Typed inputs: empty, ordinary, punctuation only, CJK, emoji, a few thousand words. */
QString sampleText(int k) {
    switch (k) {
    case 0:
        return {};
    case 1:
        return QStringLiteral("the cat sat on the mat");
    case 2:
        return QStringLiteral("... ,,, !!! ???");
    case 3:
        return QStringLiteral("位置编码让注意力知道顺序");
    case 4:
        return QStringLiteral("emoji \U0001F600 \U0001F680 tokens");
    case 5:
        return QStringLiteral("   ");
    default:
        return QStringLiteral("a long typed text with many words ").repeated(400);
    }
}

} // namespace

SoakDriver::SoakDriver(MainWindow* window, std::uint64_t seed)
    : m_w(window)
    , m_rng(seed) {}

QString SoakDriver::step() {
    // Relative weights of the kinds of action.
    static const std::vector<std::pair<const char*, int>> kinds = {
        {"control", 30},  {"burst", 5},  {"scheme", 8},   {"tab", 12},    {"zoom", 12},
        {"undo", 6},      {"redo", 4},   {"compare", 7},  {"stepper", 6}, {"backend", 3},
        {"view_menu", 3}, {"preset", 2}, {"selection", 4}};
    const auto weightOf = [this](const char* k, int weight) {
        return std::find(m_skip.begin(), m_skip.end(), k) == m_skip.end() ? weight : 0;
    };
    int total = 0;
    for (const auto& [k, weight] : kinds)
        total += weightOf(k, weight);
    int at = below(total);
    std::string kind;
    for (const auto& [k, w] : kinds) {
        const int weight = weightOf(k, w);
        if (at < weight) {
            kind = k;
            break;
        }
        at -= weight;
    }
    ++m_counts[kind];
    QString what;
    if (kind == "control")
        what = control(false);
    else if (kind == "burst")
        what = burst();
    else if (kind == "scheme")
        what = scheme();
    else if (kind == "tab")
        what = tab();
    else if (kind == "zoom")
        what = zoom();
    else if (kind == "undo")
        what = undoRedo(true);
    else if (kind == "redo")
        what = undoRedo(false);
    else if (kind == "compare")
        what = compare();
    else if (kind == "stepper")
        what = stepper();
    else if (kind == "backend")
        what = backend();
    else if (kind == "view_menu")
        what = viewMenu();
    else if (kind == "preset")
        what = preset();
    else
        what = selection();
    return QString::fromStdString(kind) + QStringLiteral(": ") + what;
}

QString SoakDriver::control(bool anyControl) {
    const std::vector<QWidget*> all = controlsOf(m_w->panel(), !anyControl);
    return setControl(all.at(static_cast<std::size_t>(below(static_cast<int>(all.size())))));
}

QString SoakDriver::burst() {
    // Several controls within one event-loop turn (the panel emits them as one change), any of
    // them, enabled or not: what a preset or a loaded session does to the panel.
    const int k = 2 + below(5);
    QStringList done;
    for (int i = 0; i < k; ++i)
        done << control(true);
    return done.join(QStringLiteral("; "));
}

int SoakDriver::chooseInt(int lo, int hi, int now, const QString& what) {
    const double u = uniform();
    const int how = below(7);
    ParamsPanel* panel = m_w->panel();
    // Width and heads: half the time a valid pair (d a multiple of the heads).
    if (what == QLatin1String("valid-d") && how < 4) {
        const int heads = panel->headsBox()->value();
        const int most = std::max(1, hi / heads);
        return heads * std::clamp(static_cast<int>(std::exp2(u * std::log2(most))), 1, most);
    }
    if (what == QLatin1String("valid-heads") && how < 4) {
        const int d = panel->widthBox()->value();
        std::vector<int> divisors;
        for (int h = 1; h <= std::min(d, hi); ++h)
            if (d % h == 0)
                divisors.push_back(h);
        return divisors.at(static_cast<std::size_t>(u * static_cast<double>(divisors.size())) %
                           divisors.size());
    }
    // Valid length: mostly "all" or within the sequence (most of its range is an error that
    // stays until it is changed back, and errors show no frame).
    if (what == QLatin1String("valid-len") && how < 5) {
        const int n = panel->lengthBox()->value();
        return u < 0.4 ? -1 : 1 + static_cast<int>(u * n);
    }
    double v = 0.0;
    switch (how) {
    case 0:
        v = lo;
        break;
    case 1:
        v = hi;
        break;
    case 2:
        v = lo + u * (static_cast<double>(hi) - lo);
        break;
    case 3: { // log-uniform over the positive part of the range
        const double a = std::max(lo, 1), b = std::max(hi, 1);
        v = std::exp(std::log(a) + u * (std::log(b) - std::log(a)));
        break;
    }
    case 4:
        v = static_cast<double>(now) + 1;
        break;
    case 5:
        v = static_cast<double>(now) - 1;
        break;
    default:
        v = u < 0.5 ? static_cast<double>(now) * 2 : static_cast<double>(now) / 2;
        break;
    }
    return static_cast<int>(
        std::clamp(std::round(v), static_cast<double>(lo), static_cast<double>(hi)));
}

QString SoakDriver::setControl(QWidget* w) {
    const QString label = name(w);
    ParamsPanel* panel = m_w->panel();
    const double u = uniform();
    const std::uint64_t bits = m_rng();
    if (auto* s = qobject_cast<SeedSpinBox*>(w)) {
        switch (below(5)) {
        case 0:
            s->setValue(0);
            break;
        case 1:
            s->setValue(std::numeric_limits<std::uint64_t>::max());
            break;
        case 2:
            s->setValue(bits);
            break;
        case 3:
            s->stepBy(1);
            break;
        default:
            s->stepBy(-1);
            break;
        }
        return QStringLiteral("%1 = %2").arg(label).arg(s->value());
    }
    if (auto* s = qobject_cast<QSpinBox*>(w)) {
        const QString rule = s == panel->widthBox()   ? QStringLiteral("valid-d")
                             : s == panel->headsBox() ? QStringLiteral("valid-heads")
                             : label == QLatin1String("Valid length") ? QStringLiteral("valid-len")
                                                                      : label;
        s->setValue(chooseInt(s->minimum(), s->maximum(), s->value(), rule));
        return QStringLiteral("%1 = %2").arg(label).arg(s->value());
    }
    if (auto* s = qobject_cast<QSlider*>(w)) {
        s->setValue(chooseInt(s->minimum(), s->maximum(), s->value(), label));
        return QStringLiteral("length slider = %1 (n = %2)")
            .arg(s->value())
            .arg(panel->lengthBox()->value());
    }
    if (auto* s = qobject_cast<QDoubleSpinBox*>(w)) {
        const double lo = s->minimum(), hi = s->maximum(), now = s->value();
        double v = now;
        switch (below(6)) {
        case 0:
            v = lo;
            break;
        case 1:
            v = hi;
            break;
        case 2:
            v = lo + u * (hi - lo);
            break;
        case 3:
            v = std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
            break;
        case 4:
            v = now * 2;
            break;
        default:
            v = now / 2;
            break;
        }
        s->setValue(v);
        return QStringLiteral("%1 = %2").arg(label).arg(s->value());
    }
    if (auto* c = qobject_cast<QComboBox*>(w)) {
        // Only the items a user can pick (Weights = trained is greyed until a model is given).
        std::vector<int> items;
        const auto* model = qobject_cast<QStandardItemModel*>(c->model());
        for (int k = 0; k < c->count(); ++k)
            if (!model || !model->item(k) || model->item(k)->isEnabled())
                items.push_back(k);
        if (!items.empty())
            c->setCurrentIndex(
                items[static_cast<std::size_t>(u * static_cast<double>(items.size())) %
                      items.size()]);
        return QStringLiteral("%1 = %2").arg(label, c->currentText());
    }
    if (auto* c = qobject_cast<QCheckBox*>(w)) {
        c->toggle();
        return QStringLiteral("%1 %2").arg(label, c->isChecked() ? QStringLiteral("on")
                                                                 : QStringLiteral("off"));
    }
    if (auto* e = qobject_cast<QLineEdit*>(w)) {
        const QString text = sampleText(below(7));
        bool ascii = text.size() < 64;
        for (QChar ch : text)
            ascii = ascii && ch.unicode() >= 0x20 && ch.unicode() < 0x7f;
        if (ascii && e->isEnabled()) { // typed, key by key (QTest types ASCII only)
            QTest::keyClick(e, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClick(e, Qt::Key_Backspace);
            QTest::keyClicks(e, text);
        } else { // pasted
            e->setText(text);
            Q_EMIT e->textEdited(text);
        }
        return QStringLiteral("text = %1 chars").arg(e->text().size());
    }
    return QStringLiteral("nothing (%1)").arg(label);
}

QString SoakDriver::scheme() {
    QComboBox* box = m_w->panel()->schemeBox();
    box->setCurrentIndex(below(box->count()));
    return box->currentText();
}

QString SoakDriver::tab() {
    TraceViews* v = m_w->views();
    v->setCurrentIndex(below(v->count()));
    return v->tabText(v->currentIndex()).remove(QLatin1Char('&'));
}

HeatmapView* SoakDriver::visibleHeatmap(double pick) const {
    std::vector<HeatmapView*> shown;
    for (HeatmapView* h : m_w->findChildren<HeatmapView*>())
        if (h->isVisible())
            shown.push_back(h);
    if (HeatmapView* current = m_w->currentHeatmap(); current && pick < 0.6)
        return current;
    if (shown.empty())
        return nullptr;
    return shown[static_cast<std::size_t>(pick * static_cast<double>(shown.size())) % shown.size()];
}

QString SoakDriver::zoom() {
    const double pick = uniform(), u1 = uniform(), u2 = uniform(), u3 = uniform();
    const int how = below(4);
    HeatmapView* h = visibleHeatmap(pick);
    if (!h)
        return QStringLiteral("no heat map on this tab");
    QCustomPlot* plot = h->plot();
    const double rows = std::max(1, h->dataRows()), cols = std::max(1, h->dataCols());
    QString what;
    switch (how) {
    case 0: { // into a block of 0.5 % … 60 % of each side
        const double f = 0.005 + 0.6 * u1;
        const double x0 = u2 * cols * (1 - f) - 0.5, y0 = u3 * rows * (1 - f) - 0.5;
        plot->xAxis->setRange(x0, x0 + f * cols);
        plot->yAxis->setRange(y0, y0 + f * rows);
        what = QStringLiteral("in to %1 %").arg(100 * f, 0, 'f', 1);
        break;
    }
    case 1: { // pan by up to half the visible width
        const double dx = (u1 - 0.5) * plot->xAxis->range().size();
        const double dy = (u2 - 0.5) * plot->yAxis->range().size();
        plot->xAxis->moveRange(dx);
        plot->yAxis->moveRange(dy);
        what = QStringLiteral("pan");
        break;
    }
    case 2:
        plot->xAxis->setRange(-0.5, cols - 0.5);
        plot->yAxis->setRange(-0.5, rows - 0.5);
        what = QStringLiteral("reset");
        break;
    default: { // the mouse wheel, as a user zooms
        const QPointF at(u1 * plot->width(), u2 * plot->height());
        const int steps = (u3 < 0.5 ? -1 : 1) * (1 + below(3));
        QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120 * steps), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(plot, &wheel);
        what = QStringLiteral("wheel %1").arg(steps);
        break;
    }
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
    return QStringLiteral("%1 on a %2×%3 map").arg(what).arg(h->dataRows()).arg(h->dataCols());
}

QString SoakDriver::undoRedo(bool undo) {
    QUndoStack* stack = m_w->undoStack();
    if (undo ? !stack->canUndo() : !stack->canRedo())
        return QStringLiteral("nothing to %1")
            .arg(undo ? QStringLiteral("undo") : QStringLiteral("redo"));
    if (undo)
        stack->undo();
    else
        stack->redo();
    return QStringLiteral("to index %1 of %2").arg(stack->index()).arg(stack->count());
}

QString SoakDriver::compare() {
    ComparisonView* c = m_w->comparison();
    const double u = uniform();
    const std::uint64_t bits = m_rng();
    const std::vector<Scheme>& schemes = allSchemes();
    switch (below(6)) {
    case 0: {
        const Scheme s = schemes[static_cast<std::size_t>(u * static_cast<double>(schemes.size())) %
                                 schemes.size()];
        c->setOtherScheme(s);
        return QStringLiteral("B = %1").arg(
            QString::fromUtf8(toString(s).data(), static_cast<qsizetype>(toString(s).size())));
    }
    case 1: { // a gallery: every scheme, none, or a random subset
        std::vector<Scheme> chosen;
        for (std::size_t k = 0; k < schemes.size(); ++k)
            if (u < 0.25 || (u >= 0.4 && ((bits >> k) & 1u)))
                chosen.push_back(schemes[k]);
        c->setGallerySchemes(chosen);
        return QStringLiteral("gallery of %1 schemes").arg(chosen.size());
    }
    case 2: {
        const char* tensors[] = {"weights", "logits", "out", "position"};
        c->setTensor(QLatin1String(tensors[static_cast<int>(u * 4) % 4]));
        return QStringLiteral("tensor %1").arg(QLatin1String(tensors[static_cast<int>(u * 4) % 4]));
    }
    case 3:
        c->setHead(static_cast<int>(u * 64));
        return QStringLiteral("head %1").arg(static_cast<int>(u * 64));
    default:
        m_w->views()->setCurrentWidget(c);
        return QStringLiteral("shown");
    }
}

QString SoakDriver::stepper() {
    StepperPanel* s = m_w->stepper();
    const double u = uniform();
    switch (below(7)) {
    case 0: {
        const int interval = u < 0.4 ? 20 : u < 0.8 ? 100 : StepperPanel::kPlayIntervalMs;
        s->setPlayInterval(interval);
        s->setPlaying(!s->playing());
        return QStringLiteral("%1 every %2 ms")
            .arg(s->playing() ? QStringLiteral("play") : QStringLiteral("pause"))
            .arg(interval);
    }
    case 1:
        s->next();
        return QStringLiteral("next");
    case 2:
        s->previous();
        return QStringLiteral("previous");
    case 3:
        s->setStage(static_cast<int>(u * kStageCount));
        return QStringLiteral("stage %1").arg(s->stage());
    case 4:
        s->setHead(static_cast<int>(u * 64));
        return QStringLiteral("head %1").arg(s->head());
    case 5:
        s->setQuery(static_cast<int>(u * 16386));
        return QStringLiteral("query %1").arg(s->query());
    default:
        m_w->views()->setCurrentWidget(s);
        return QStringLiteral("shown");
    }
}

QAction* SoakDriver::menuAction(const QString& title, double pick) const {
    for (QMenu* m : m_w->findChildren<QMenu*>()) {
        if (m->title().remove(QLatin1Char('&')) != title)
            continue;
        std::vector<QAction*> items;
        for (QAction* a : m->actions())
            if (!a->isSeparator() && !a->menu())
                items.push_back(a);
        if (!items.empty())
            return items[static_cast<std::size_t>(pick * static_cast<double>(items.size())) %
                         items.size()];
    }
    return nullptr;
}

QString SoakDriver::backend() {
    QAction* a = menuAction(QStringLiteral("Compute backend"), uniform());
    if (!a)
        return QStringLiteral("no backend menu");
    a->trigger();
    return a->text();
}

QString SoakDriver::viewMenu() {
    const double u = uniform();
    static const QString menus[] = {QStringLiteral("Colour map"),
                                    QStringLiteral("Pooling of large matrices"),
                                    QStringLiteral("CPU threads")};
    const QString& menu = menus[below(3)];
    QAction* a = menuAction(menu, u);
    if (!a)
        return QStringLiteral("no %1 menu").arg(menu);
    a->trigger();
    return QStringLiteral("%1: %2").arg(menu, a->text());
}

QString SoakDriver::preset() {
    std::vector<QAction*> presets;
    for (QAction* a : m_w->findChildren<QAction*>())
        if (a->objectName().startsWith(QLatin1String("preset-")))
            presets.push_back(a);
    if (presets.empty())
        return QStringLiteral("no presets");
    QAction* a = presets[static_cast<std::size_t>(below(static_cast<int>(presets.size())))];
    a->trigger();
    return a->objectName();
}

QString SoakDriver::selection() {
    const double u = uniform();
    TraceViews* v = m_w->views();
    switch (below(3)) {
    case 0:
        v->selectHead(static_cast<int>(u * 64));
        return QStringLiteral("head %1").arg(v->selectedHead());
    case 1:
        v->selectQuery(static_cast<int>(u * 16386));
        return QStringLiteral("query %1").arg(v->selectedQuery());
    default: {
        auto* cancel = m_w->findChild<QPushButton*>(QStringLiteral("cancelButton"));
        if (!cancel || !cancel->isVisible())
            return QStringLiteral("nothing to cancel");
        QTest::mouseClick(cancel, Qt::LeftButton);
        return QStringLiteral("cancel");
    }
    }
}

bool SoakDriver::settle(int timeoutMs) {
    return spinUntil([this] { return !m_w->controller()->busy(); }, timeoutMs);
}

bool SoakDriver::quiesce(const Session& s, int timeoutMs) {
    m_w->stepper()->setPlaying(false);
    m_w->comparison()->setGallerySchemes({});
    for (const QString& choice : {QStringLiteral("fast CPU")})
        for (QAction* a : m_w->findChildren<QAction*>())
            if (a->text() == choice && !a->isChecked())
                a->trigger();
    for (QAction* a : m_w->findChildren<QAction*>())
        if (a->text().startsWith(QLatin1String("one per core")) && !a->isChecked())
            a->trigger();
    ComparisonView* c = m_w->comparison();
    m_w->views()->setCurrentWidget(c); // the comparison computes B only while shown
    bool ok = true;
    for (int round = 0; round < 2; ++round) {
        const int frames = m_w->frames();
        m_w->applySession(s);
        ok = spinUntil(
                 [&] {
                     return m_w->frames() > frames && !m_w->controller()->busy() &&
                            c->other() != nullptr;
                 },
                 timeoutMs) &&
             ok;
    }
    // Every tab once, so no view keeps the tensors of an earlier trace; then the first one.
    for (int k = m_w->views()->count() - 1; k >= 0; --k) {
        m_w->views()->setCurrentIndex(k);
        spinEventLoop(50);
    }
    // The Insights tab, shown above, asked for its page of these parameters: an idle window is
    // one whose pages are computed, not one still computing the page of an earlier action (a
    // binary page at n = 16,384, d = 4,096 holds its 512 MB table while it computes).
    ok = spinUntil([this] { return !m_w->insights()->controller()->busy(); }, timeoutMs) && ok;
    // The actions run between nested event loops, where objects deleted with deleteLater()
    // from inside a handler wait for an outer loop that never runs; the explorer's own loop
    // deletes them as soon as control returns to it, so do that here (before the idle wait,
    // as in the explorer: what they free is then trimmed too).
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    // An idle window: the workers free the buffers they keep for a next computation once none
    // has come for kIdleReleaseMs (ComputeWorker::releaseWhenIdle), and the window returns
    // malloc's free memory kTrimAfterMs after its last result (trimMemoryWhenIdle).
    spinEventLoop(std::max(ComputeWorker::kIdleReleaseMs, kTrimAfterMs) + 300);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return ok;
}

} // namespace pe
