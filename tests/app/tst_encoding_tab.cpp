// SPDX-License-Identifier: MIT
// The Encoding tab says something for every scheme: P (absolute schemes), X = E (none), or the
// scheme's own position tables from the engine (relative schemes), never empty axes, and one
// line on where position enters. The Relative tab hides a map the scheme lacks and says so, and
// in pooled mode pools its maps from the tables by offset; a
// change that keeps what a tab shows leaves its layout alone, and a page laid out again leaves
// the tab widget around it alone. The Logit terms tab splits an absolute scheme's logits into
// its four terms.
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTabBar>
#include <QTest>

#include "encodings.h"
#include "heatmap_view.h"
#include "line_plot_view.h"
#include "main_window.h"
#include "paint_log.h"
#include "params_panel.h"
#include "qcp.h"
#include "seed_spin_box.h"
#include "trace_views.h"

using namespace pe;

class TestEncodingTab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void everySchemeShowsData_data();
    void everySchemeShowsData();
    void tablesComeFromTheEngine();
    void relativeTabHidesWhatIsMissing();
    void relativeTabPoolsItsMapsFromTheTables();
    void viewsKeepTheirLayoutAcrossChanges();
    void relativeMapsPoolOnceWhenTheLayoutChanges();
    void pageLayoutLeavesTheTabWidgetAlone();
    void logitTermsSplitAnAbsoluteScheme();
    void termMapsInARowStartLevel();
    void subtitleSaysWhatShapesTheMatrices();
    void largeSplitsLeaveTheGuiThread();
    void similarityFollowsP();

private:
    void show(Scheme s);
    MainWindow* m_w = nullptr;
};

void TestEncodingTab::initTestCase() {
    m_w = new MainWindow(Settings::defaultSession(), /*persist=*/false);
    m_w->resize(1280, 720);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w));
    m_w->views()->setCurrentIndex(0);
}

void TestEncodingTab::cleanupTestCase() {
    delete m_w;
}

void TestEncodingTab::show(Scheme s) {
    QComboBox* box = m_w->panel()->schemeBox();
    box->setCurrentIndex(box->findData(static_cast<int>(s)));
    QVERIFY(QTest::qWaitFor([&] { return m_w->shownParams() && m_w->shownParams()->scheme == s; },
                            8000));
    QTest::qWait(30); // queued replots
}

void TestEncodingTab::everySchemeShowsData_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<QString>("where");
    const auto row = [](Scheme s, const char* where) {
        QTest::newRow(std::string(toString(s)).c_str()) << int(s) << QString::fromUtf8(where);
    };
    row(Scheme::None, "No position");
    row(Scheme::Sinusoidal, "X = E + P");
    row(Scheme::Learned, "X = E + P");
    row(Scheme::Mlp, "X = E + P");
    row(Scheme::Shaw, "a^K");
    row(Scheme::TransformerXL, "R_{i−j}");
    row(Scheme::T5, "bucket(j − i)");
    row(Scheme::DeBERTa, "δ(i, j)");
    row(Scheme::RoPE, "rotating");
    row(Scheme::ALiBi, "−m_h");
    row(Scheme::URPE, "C[h, j − i]");
}

void TestEncodingTab::everySchemeShowsData() {
    QFETCH(int, scheme);
    QFETCH(QString, where);
    show(Scheme(scheme));
    TraceViews* v = m_w->views();
    QVERIFY2(v->encodingNote().contains(where), qPrintable(v->encodingNote()));
    QVERIFY(v->encodingNote().contains(QStringLiteral("position")) ||
            v->encodingNote().contains(QStringLiteral("Position")));
    int maps = 0;
    for (HeatmapView* h : {v->positionMap(), v->similarityMap()}) {
        if (!h->isVisible())
            continue;
        ++maps;
        QVERIFY2(h->hasData(), qPrintable(h->titleText()));
        QVERIFY(h->dataRows() > 1 && h->dataCols() > 1);
        const Grid& g = h->data();
        QVERIFY2(g.maxValue() > g.minValue(), qPrintable(h->titleText())); // not a flat map
    }
    QVERIFY(maps >= 1);
    LinePlotView* lines = v->columnsPlot();
    QVERIFY(lines->isVisible());
    QVERIFY(lines->seriesCount() > 0);
    for (const LineSeries& s : lines->content().series)
        QVERIFY(s.values.size() > 1);
}

void TestEncodingTab::tablesComeFromTheEngine() {
    show(Scheme::T5);
    TraceViews* v = m_w->views();
    const PositionView* pv = v->positions();
    QVERIFY(pv);
    QCOMPARE(pv->maps.size(), std::size_t(2));
    // The first map is the engine's table as it is (b[h, bucket], heads × buckets).
    const Grid& g = v->positionMap()->data();
    const Eigen::MatrixXd& t = pv->maps[0].values;
    QCOMPARE(g.rows, int(t.rows()));
    QCOMPARE(g.cols, int(t.cols()));
    QCOMPARE(g.rows, m_w->shownParams()->heads);
    QCOMPARE(g.cols, m_w->shownParams()->buckets);
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            QCOMPARE(g.at(r, c), t(r, c));
    // A new seed draws a new table, and the view follows.
    const double before = g.at(0, 0);
    m_w->panel()->seedBox()->setValue(1);
    QVERIFY(QTest::qWaitFor([&] { return m_w->shownParams()->seed == 1; }, 8000));
    QVERIFY(v->positionMap()->data().at(0, 0) != before);
    // The curve is the bucket of j − i: 0 at distance 0 (x = 0 is point −xStart / xStep).
    const LineSeries& bucket = v->columnsPlot()->content().series.at(0);
    const auto zero = static_cast<std::size_t>(-bucket.xStart / bucket.xStep);
    QCOMPARE(bucket.values.at(zero), 0.0);
    QVERIFY(bucket.values.at(zero + 1) > 0.0);
}

void TestEncodingTab::relativeTabPoolsItsMapsFromTheTables() {
    // Above 2048 positions no n × n matrix but the logits and weights is computed; the index
    // and the bias are Toeplitz, and their pooled cells come from the tables by offset.
    TraceViews* v = m_w->views();
    v->setCurrentIndex(1);
    show(Scheme::T5);
    const int n = m_w->shownParams()->n;
    auto setLength = [&](int length) {
        Session s = m_w->session();
        s.params.n = length;
        m_w->applySession(s);
        QVERIFY(QTest::qWaitFor(
            [&] { return m_w->shownParams() && m_w->shownParams()->n == length; }, 20000));
        QTest::qWait(30);
    };
    setLength(2100);
    const Params p = *m_w->shownParams();
    QVERIFY(p.heads >= 2);
    auto* note = v->findChild<QLabel*>(QStringLiteral("relativeNote"));
    QVERIFY(note && note->isVisible());
    QVERIFY2(v->relativeNote().contains(QStringLiteral("Pooled mode (n = 2100)")) &&
                 v->relativeNote().contains(QStringLiteral("t5's tables by distance")),
             qPrintable(v->relativeNote()));
    // As tall as its lines (it stood above two empty lines: a wrapped label's own hint).
    QVERIFY2(note->height() <= note->heightForWidth(note->width()) + 2,
             qPrintable(QStringLiteral("%1 px for %2")
                            .arg(note->height())
                            .arg(note->heightForWidth(note->width()))));
    HeatmapView* index = v->relIndexMap();
    HeatmapView* bias = v->biasMap();
    QVERIFY(index->isVisible() && bias->isVisible());
    QVERIFY(index->hasData() && bias->hasData());
    QCOMPARE(index->dataRows(), 1024);
    QCOMPARE(index->dataCols(), 1024);
    QVERIFY2(index->titleText().contains(QStringLiteral("pooled 2100\u21921024, mean")),
             qPrintable(index->titleText()));
    // The index's cells against the buckets of each cell's positions, counted here.
    const auto bucket = [&](int i, int j) {
        return t5Bucket(j - i, !p.unidirectional, p.buckets, p.maxDistance);
    };
    for (const auto& [u, c] : std::vector<std::pair<int, int>>{
             {0, 0}, {0, 1023}, {1023, 0}, {500, 500}, {500, 501}, {100, 900}, {731, 730}}) {
        const int i0 = binStart(u, 2100, 1024), i1 = binStart(u + 1, 2100, 1024);
        const int j0 = binStart(c, 2100, 1024), j1 = binStart(c + 1, 2100, 1024);
        double sum = 0;
        for (int i = i0; i < i1; ++i)
            for (int j = j0; j < j1; ++j)
                sum += bucket(i, j);
        QCOMPARE(index->data().at(u, c), sum / ((i1 - i0) * (j1 - j0)));
    }
    // The bias is the head's: another head, other cells.
    const Grid head0 = bias->data();
    QVERIFY(head0.maxValue() > head0.minValue());
    v->selectHead(1);
    QTest::qWait(30);
    QVERIFY(bias->titleText().startsWith(QStringLiteral("bias, head 1")));
    QVERIFY(!(bias->data() == head0));
    // Zoomed past the cells, the visible positions at full resolution, from the tables at once.
    const PoolRegion region{100, 160, 1000, 1080};
    Q_EMIT index->tileWanted(region);
    QVERIFY(index->hasTile());
    QCOMPARE(index->tileRegion(), region);
    QVERIFY2(index->tileNote().contains(QStringLiteral("full resolution")),
             qPrintable(index->tileNote()));
    v->selectHead(0);
    QTest::qWait(30);
    show(Scheme::ALiBi); // a bias and no index
    QVERIFY(!index->isVisible() && bias->isVisible() && bias->hasData());
    QVERIFY2(v->relativeNote().contains(QStringLiteral("Pooled mode (n = 2100)")) &&
                 v->relativeNote().contains(QStringLiteral("no relative index")),
             qPrintable(v->relativeNote()));
    // Symmetric ALiBi: −m_h |j − i|, 0 on the diagonal, most negative in the far corners.
    QVERIFY(bias->data().at(0, 1023) < bias->data().at(0, 1) &&
            bias->data().at(0, 1) < bias->data().at(0, 0) && bias->data().at(0, 0) <= 0);
    show(Scheme::Sinusoidal); // nothing relative: the usual note
    QVERIFY(!v->relativeNote().contains(QStringLiteral("Pooled mode")));
    QVERIFY(v->relativeNote().contains(QStringLiteral("This tab shows")));
    show(Scheme::T5);
    setLength(n);
    QVERIFY(v->relIndexMap()->isVisible() && v->biasMap()->isVisible());
    QVERIFY(!index->titleText().contains(QStringLiteral("pooled")));
    QVERIFY(v->relativeNote().isEmpty());
    v->setCurrentIndex(0);
}

void TestEncodingTab::relativeTabHidesWhatIsMissing() {
    TraceViews* v = m_w->views();
    v->setCurrentIndex(1);
    show(Scheme::DeBERTa);
    HeatmapView* idx = v->relIndexMap();
    QVERIFY(idx->isVisible());
    QVERIFY(!v->biasMap()->isVisible());
    QVERIFY2(v->relativeNote().contains(QStringLiteral("no additive bias")),
             qPrintable(v->relativeNote()));
    QVERIFY(!v->relativeNote().contains(QStringLiteral("This tab shows"))); // a map is shown
    // The index map keeps its own axes: all n rows on screen (not those of the emptied bias).
    const int n = m_w->shownParams()->seqLen();
    QCOMPARE(idx->dataRows(), n);
    QVERIFY(idx->plot()->yAxis->range().size() >= n - 1);
    show(Scheme::T5);
    QVERIFY(idx->isVisible() && v->biasMap()->isVisible());
    QVERIFY(v->relativeNote().isEmpty());
    QVERIFY(v->biasMap()->hasData());
    show(Scheme::Sinusoidal);
    QVERIFY(!idx->isVisible() && !v->biasMap()->isVisible());
    QVERIFY(v->relativeNote().contains(QStringLiteral("X = E + P")));
    // No map at all: the note fills the tab and says what the tab shows, and where to look.
    auto* note = v->findChild<QLabel*>(QStringLiteral("relativeNote"));
    QVERIFY(note && note->isVisible());
    QVERIFY2(v->relativeNote().contains(QStringLiteral("This tab shows")) &&
                 v->relativeNote().contains(QStringLiteral("Logit terms tab")),
             qPrintable(v->relativeNote()));
    QVERIFY2(note->height() > v->currentWidget()->height() / 2,
             qPrintable(QStringLiteral("note %1 px high").arg(note->height())));
    show(Scheme::T5);
    QVERIFY(idx->isVisible() && v->biasMap()->isVisible());
    QVERIFY(!note->isVisible());
    v->setCurrentIndex(0);
}

namespace {
/** Show, hide and layout-request events of the widgets it watches. */
class LayoutEvents : public QObject {
public:
    int showHide = 0;
    int layoutRequests = 0;

protected:
    bool eventFilter(QObject*, QEvent* e) override {
        showHide += e->type() == QEvent::Show || e->type() == QEvent::Hide;
        layoutRequests += e->type() == QEvent::LayoutRequest;
        return false;
    }
};
} // namespace

void TestEncodingTab::viewsKeepTheirLayoutAcrossChanges() {
    // A change that keeps what the tab shows (here the seed) neither shows and hides its views
    // nor lays out its grid of maps again: either repaints the whole tab, change after change.
    TraceViews* v = m_w->views();
    const auto nextSeed = [&] {
        Session s = m_w->session();
        ++s.params.seed;
        m_w->applySession(s);
        QVERIFY(QTest::qWaitFor(
            [&] { return m_w->shownParams() && m_w->shownParams()->seed == s.params.seed; }, 8000));
        QTest::qWait(30);
    };
    v->setCurrentIndex(1);
    show(Scheme::Shaw); // an index, no bias: the bias view hidden, the note shown
    QVERIFY(!v->biasMap()->isVisible());
    QVERIFY(!v->relativeNote().isEmpty());
    LayoutEvents relative;
    auto* note = v->findChild<QLabel*>(QStringLiteral("relativeNote"));
    QVERIFY(note);
    for (QObject* o : {static_cast<QObject*>(v->biasMap()), static_cast<QObject*>(note),
                       static_cast<QObject*>(v->relIndexMap())})
        o->installEventFilter(&relative);
    nextSeed();
    QCOMPARE(relative.showHide, 0);
    QVERIFY(!v->biasMap()->isVisible());
    QVERIFY(!v->relativeNote().isEmpty());

    v->setCurrentIndex(3); // attention: the small multiples in their grid
    nextSeed();
    QVERIFY(!v->headMaps().empty());
    QWidget* host = v->headMaps().front()->parentWidget();
    LayoutEvents attention;
    host->installEventFilter(&attention);
    for (HeatmapView* h : v->headMaps())
        h->installEventFilter(&attention);
    nextSeed();
    QCOMPARE(attention.layoutRequests, 0);
    QCOMPARE(attention.showHide, 0);
    QVERIFY(v->headMaps().front()->hasData());
    v->setCurrentIndex(0);
}

void TestEncodingTab::relativeMapsPoolOnceWhenTheLayoutChanges() {
    // Shaw → T5 shows the bias map beside the index map and hides the note: the tab is laid out
    // before the maps pool, so each pools once, for its final size (not for the old size and
    // again when the layout resizes it).
    TraceViews* v = m_w->views();
    v->setCurrentIndex(1);
    show(Scheme::Shaw);
    QTest::qWait(100);
    HeatmapView* idx = v->relIndexMap();
    const int before = idx->redrawCount();
    const int widthBefore = idx->width();
    show(Scheme::T5);
    QTest::qWait(100); // past the resize debounce
    QVERIFY(v->biasMap()->isVisible());
    QVERIFY(idx->width() < widthBefore); // it shares the row with the bias map now
    QCOMPARE(idx->redrawCount(), before + 1);
    show(Scheme::Shaw);
    QTest::qWait(100);
    QVERIFY(!v->biasMap()->isVisible());
    QCOMPARE(idx->redrawCount(), before + 2);
    v->setCurrentIndex(0);
}

void TestEncodingTab::pageLayoutLeavesTheTabWidgetAlone() {
    // Shaw ↔ T5 lays the Relative tab out again (the bias map and the note come and go). That
    // must not make QTabWidget lay out and repaint itself whole (tab bar, corner and every map),
    // which it did for each LayoutRequest a page sent up. The tab bar, outside the page, shows
    // whether it did.
    TraceViews* v = m_w->views();
    v->setCurrentIndex(1);
    show(Scheme::Shaw);
    QTest::qWait(100);
    test::PaintLog tabBar;
    v->tabBar()->installEventFilter(&tabBar);
    show(Scheme::T5);
    QTest::qWait(100);
    QVERIFY(v->biasMap()->isVisible());
    show(Scheme::Shaw);
    QTest::qWait(100);
    QVERIFY(!v->biasMap()->isVisible());
    v->tabBar()->removeEventFilter(&tabBar);
    QCOMPARE(tabBar.count(), 0);

    // What does move the tab widget's parts still lays them out: a wider query box (n = 1,000
    // needs three digits where the default n needs two) widens the corner, which stays inside
    // the tab widget at its new width. (n = 50,000 took over a minute under AddressSanitizer.)
    QWidget* corner = v->cornerWidget();
    QVERIFY(corner);
    auto* query = corner->findChildren<QSpinBox*>().last();
    const int before = corner->width();
    Session s = m_w->session();
    s.params.n = 1000;
    m_w->applySession(s);
    QVERIFY(QTest::qWaitFor([&] { return query->maximum() >= 999; }, 60000));
    QTest::qWait(100);
    QVERIFY2(corner->width() > before,
             qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(corner->width())));
    QCOMPARE(corner->width(), corner->sizeHint().width());
    QVERIFY(corner->geometry().right() < v->width());
    s.params.n = 16;
    m_w->applySession(s);
    QVERIFY(
        QTest::qWaitFor([&] { return m_w->shownParams() && m_w->shownParams()->n == 16; }, 60000));
    v->setCurrentIndex(0);
}

void TestEncodingTab::logitTermsSplitAnAbsoluteScheme() {
    TraceViews* v = m_w->views();
    v->setCurrentIndex(2);
    show(Scheme::Sinusoidal);
    auto shown = [v] {
        std::vector<HeatmapView*> maps;
        for (HeatmapView* m : v->termMaps())
            if (m->isVisible())
                maps.push_back(m);
        return maps;
    };
    // The logits, then e·e, e·p, p·e and p·p of the head shown, which add up to them.
    auto check = [&](int head, double* ee23) {
        QTRY_COMPARE(shown().size(), std::size_t(5));
        const std::vector<HeatmapView*> maps = shown();
        const QStringList names{QStringLiteral("logits"), QStringLiteral("ee"),
                                QStringLiteral("ep"), QStringLiteral("pe"), QStringLiteral("pp")};
        for (std::size_t k = 0; k < maps.size(); ++k) {
            QCOMPARE(maps[k]->info().valueTitle, names[static_cast<qsizetype>(k)]);
            QVERIFY(maps[k]->titleText().endsWith(QStringLiteral("head %1").arg(head)));
        }
        const Grid& logits = maps[0]->data();
        double worst = 0.0;
        for (int i = 0; i < logits.rows; ++i)
            for (int j = 0; j < logits.cols; ++j) {
                double sum = 0.0;
                for (std::size_t k = 1; k < 5; ++k)
                    sum += maps[k]->data().at(i, j);
                worst = std::max(worst, std::abs(sum - logits.at(i, j)));
            }
        QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
        *ee23 = maps[1]->data().at(2, 3);
    };
    double head0 = 0.0, head1 = 0.0;
    check(0, &head0);
    m_w->views()->selectHead(1);
    QTest::qWait(30);
    check(1, &head1);
    QVERIFY(head0 != head1); // the split follows the head
    m_w->views()->selectHead(0);
    // A relative scheme keeps its own terms: T5's logits and bias.
    show(Scheme::T5);
    QTRY_COMPARE(shown().size(), std::size_t(2));
    QCOMPARE(shown()[1]->info().valueTitle, QStringLiteral("bias"));
}

void TestEncodingTab::termMapsInARowStartLevel() {
    // Five terms in rows of three at 1280 × 720: titles of one and two lines side by side, the
    // axes of each row at one height.
    TraceViews* v = m_w->views();
    v->setCurrentIndex(2);
    show(Scheme::Sinusoidal);
    std::vector<HeatmapView*> maps;
    QTRY_VERIFY([&] {
        maps.clear();
        for (HeatmapView* m : v->termMaps())
            if (m->isVisible())
                maps.push_back(m);
        return maps.size() == 5;
    }());
    auto top = [](HeatmapView* m) { return m->plot()->axisRect()->rect().top(); };
    auto level = [&](std::size_t a, std::size_t b) {
        for (std::size_t k = a + 1; k < b; ++k)
            if (top(maps[k]) != top(maps[a]))
                return false;
        return true;
    };
    QTRY_VERIFY(level(0, 3) && level(3, 5));
    bool differ = false; // the titles differ in lines somewhere, or the test proves nothing
    for (HeatmapView* m : maps)
        differ = differ || m->headerHeight() != maps[0]->headerHeight();
    QVERIFY(differ);
}

// Every map's subtitle (and so every exported figure's) names what changes the matrices' size
// and masking: [CLS]/[SEP], padding, T5's unidirectional buckets, ALiBi's causal form.
void TestEncodingTab::subtitleSaysWhatShapesTheMatrices() {
    Params p;
    p.scheme = Scheme::T5;
    p.n = 20;
    const QString plain = describeParams(p);
    QVERIFY2(!plain.contains(u'[') && !plain.contains(QStringLiteral("valid")) &&
                 !plain.contains(QStringLiteral("unidirectional")),
             qPrintable(plain));
    p.cls = true;
    p.sep = true;
    p.validLen = 15;
    p.unidirectional = true;
    const QString full = describeParams(p);
    QVERIFY2(full.contains(QStringLiteral("n=20, d=")) &&
                 full.contains(QStringLiteral(", [CLS]+[SEP]")) &&
                 full.contains(QStringLiteral(", valid=15")) &&
                 full.contains(QStringLiteral(", unidirectional")),
             qPrintable(full));
    p.sep = false;
    p.validLen = p.seqLen(); // every key valid: nothing to say
    QVERIFY2(describeParams(p).contains(QStringLiteral(", [CLS],")) &&
                 !describeParams(p).contains(QStringLiteral("valid")),
             qPrintable(describeParams(p)));
    p.scheme = Scheme::ALiBi;
    p.mask = MaskKind::Causal;
    p.alibiMode = AlibiMode::Causal;
    QVERIFY2(describeParams(p).contains(QStringLiteral(", causal ALiBi")),
             qPrintable(describeParams(p)));
}

// A split too large for the GUI thread (n = 1,024, d_h = 256; 190 ms at n = 2,048 and d = 2,048)
// runs on Qt's pool: choosing a head returns at once, the tab keeps what it shows until the
// terms come, then shows those of the head chosen last, which add up to its logits.
void TestEncodingTab::largeSplitsLeaveTheGuiThread() {
    TraceViews* v = m_w->views();
    v->setCurrentIndex(2);
    const Session before = m_w->session();
    Session s = before;
    s.params.scheme = Scheme::Sinusoidal;
    s.params.n = 1024;
    s.params.d = 512;
    s.params.heads = 2;
    s.params.cls = s.params.sep = false;
    s.params.mask = MaskKind::None;
    s.params.validLen = -1;
    m_w->applySession(s);
    QVERIFY(QTest::qWaitFor([&] { return m_w->shownParams() && m_w->shownParams()->n == 1024; },
                            30000));
    // The four terms the maps show in place, of `head` of the trace shown: their sum is the
    // head's logits.
    const auto showsSplitOf = [v](int head) {
        const std::vector<HeatmapView*>& maps = v->termMaps();
        if (maps.size() < 5 || !maps[1]->isVisible() ||
            !maps[1]->titleText().endsWith(QStringLiteral("head %1").arg(head)))
            return false;
        const Tensor* logits = v->trace()->find("logits");
        if (!logits || logits->size() != 2 * 1024 * 1024)
            return false;
        for (int k = 1; k < 5; ++k)
            if (!maps[k]->shownTensor() || maps[k]->shownTensor()->size() != 1024 * 1024)
                return false; // an earlier trace's terms
        for (const auto& [i, j] : {std::pair{0, 0}, {5, 900}, {1023, 17}}) {
            double sum = 0.0;
            for (int k = 1; k < 5; ++k)
                sum += maps[k]->shownTensor()->at(std::int64_t(i) * 1024 + j);
            if (std::abs(sum - logits->at((std::int64_t(head) * 1024 + i) * 1024 + j)) > 1e-4)
                return false;
        }
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(showsSplitOf(0), 20000);
    v->selectHead(1);
    QVERIFY(showsSplitOf(0)); // not split on the GUI thread: head 0's terms until head 1's come
    v->selectHead(0);
    v->selectHead(1);
    QTRY_VERIFY_WITH_TIMEOUT(showsSplitOf(1), 20000);
    QTest::qWait(200);
    QVERIFY(showsSplitOf(1)); // and stays: the splits asked for meanwhile were not shown
    // The split shown before is kept for the next one, and let go once the window is idle.
    QVERIFY(v->holdsSpareSplit());
    QTRY_VERIFY_WITH_TIMEOUT(!v->holdsSpareSplit(), 5000);
    QVERIFY(showsSplitOf(1));
    v->selectHead(0);
    m_w->applySession(before);
    QVERIFY(QTest::qWaitFor(
        [&] { return m_w->shownParams() && *m_w->shownParams() == before.params; }, 30000));
    v->setCurrentIndex(0);
}

// The similarity map is P·Pᵀ of the P shown, whatever changed: a change that keeps P (the seed)
// shows the same similarity under the new parameters' subtitle, one that changes P (the base)
// its new similarity.
void TestEncodingTab::similarityFollowsP() {
    TraceViews* v = m_w->views();
    v->setCurrentIndex(0);
    const Session before = m_w->session();
    Session s = before;
    s.params.scheme = Scheme::Sinusoidal;
    s.params.n = 48;
    s.params.d = 16;
    s.params.cls = s.params.sep = false;
    const auto apply = [&] {
        m_w->applySession(s);
        QVERIFY(QTest::qWaitFor(
            [&] { return m_w->shownParams() && *m_w->shownParams() == s.params; }, 30000));
        QTest::qWait(30);
    };
    // The map's cells against P·Pᵀ of the position map's P, and the subtitle's seed.
    const auto matchesP = [v](std::uint64_t seed) {
        const Grid& p = v->positionMap()->data();
        const Grid& g = v->similarityMap()->data();
        if (p.rows != 48 || g.rows != 48 || g.cols != 48 ||
            !v->similarityMap()->info().subtitle.contains(QStringLiteral("seed=%1").arg(seed)))
            return false;
        for (const auto& [i, j] : {std::pair{0, 0}, {3, 40}, {47, 12}, {20, 21}}) {
            double dot = 0.0;
            for (int c = 0; c < p.cols; ++c)
                dot += p.at(i, c) * p.at(j, c);
            if (std::abs(g.at(i, j) - dot) > 1e-12)
                return false;
        }
        return true;
    };
    apply();
    QVERIFY(matchesP(s.params.seed));
    const double corner = v->similarityMap()->data().at(3, 40);
    s.params.seed += 1; // P is the same
    apply();
    QVERIFY(matchesP(s.params.seed));
    QCOMPARE(v->similarityMap()->data().at(3, 40), corner);
    s.params.base = 100; // another P
    apply();
    QVERIFY(matchesP(s.params.seed));
    QVERIFY(std::abs(v->similarityMap()->data().at(3, 40) - corner) > 1e-6);
    m_w->applySession(before);
    QVERIFY(QTest::qWaitFor(
        [&] { return m_w->shownParams() && *m_w->shownParams() == before.params; }, 30000));
}

QTEST_MAIN(TestEncodingTab)
#include "tst_encoding_tab.moc"
