// SPDX-License-Identifier: MIT
#include "stepper_probe.h"

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

#include "line_plot_view.h"
#include "stages.h"
#include "vector_state.h"

namespace pe {

ProbeBox::ProbeBox(QWidget* parent)
    : QGroupBox(tr("Probe: n identical tokens"), parent) {
    setToolTip(tr("Can this configuration map n identical tokens to distinct outputs? A two-layer "
                  "toy stack answers it live; the argument is in docs/encodings.md §12."));
    setMinimumWidth(220);
    auto* v = new QVBoxLayout(this);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("probeVerdict"));
    m_verdict->setWordWrap(true);
    QFont f = m_verdict->font();
    f.setBold(true);
    m_verdict->setFont(f);
    v->addWidget(m_verdict);
    m_reason = new QLabel;
    m_reason->setWordWrap(true);
    v->addWidget(m_reason);
    m_keysOnly = new QCheckBox(tr("Shaw keys only (a^V = 0)"));
    m_keysOnly->setToolTip(
        tr("Run the probe with Shaw's value table set to zero: only the logits "
           "then carry position, and the probe fails (docs/encodings.md §3, §12)"));
    v->addWidget(m_keysOnly);
    m_spread = new QLabel;
    m_spread->setWordWrap(true);
    v->addWidget(m_spread);
    m_rows = new LinePlotView;
    m_rows->setMinimumSize(200, 110);
    v->addWidget(m_rows, 4);
    v->addStretch(1); // takes the room while the plot is hidden
    connect(m_keysOnly, &QCheckBox::toggled, this, &ProbeBox::optionsChanged);
    m_pool.setMaxThreadCount(1);
    m_watcher = new QFutureWatcher<ProbeResult>(this);
    connect(m_watcher, &QFutureWatcher<ProbeResult>::finished, this, &ProbeBox::finished);
}

ProbeBox::~ProbeBox() {
    // The job holds its own copies and flag: it stops at its next check (m_pool waits for it).
    if (m_cancel)
        m_cancel->store(true);
}

QString ProbeBox::verdictText() const {
    return m_verdict->text();
}

void ProbeBox::setTrace(const Trace& trace) {
    Params p = trace.params;
    const bool shaw = p.scheme == Scheme::Shaw;
    m_keysOnly->setEnabled(shaw);
    const bool shawValues = !(shaw && m_keysOnly->isChecked());
    // Same configuration, few tokens: the verdict is about the configuration, not about n.
    p.n = std::min(p.n, kMaxProbeTokens);
    if (p.validLen > p.seqLen())
        p.validLen = -1;
    m_wanted = Job{p, shawValues};
    if (m_hasResult && p == m_probed && shawValues == m_probedShawValues) {
        // Already known; a background probe of another configuration is no longer wanted.
        if (m_cancel)
            m_cancel->store(true);
        m_queued.reset();
    } else if (probeDrawCount(p) <= kMaxInlineProbeDraws) {
        if (m_cancel)
            m_cancel->store(true);
        m_queued.reset();
        clearUpperVectorState(); // a paint before, in this handler, may have left it in use
        m_result = runProbe(p, 2, shawValues);
        m_probed = p;
        m_probedShawValues = shawValues;
        m_hasResult = true;
    } else if (!m_running) {
        start(m_wanted);
    } else if (m_runningJob == m_wanted && !m_cancel->load()) {
        m_queued.reset(); // the running probe is this configuration's
    } else {
        m_cancel->store(true); // one probe at a time: the newest starts when this one stops
        m_queued = m_wanted;
    }
    showVerdict();
    measure(trace);
}

void ProbeBox::start(const Job& job) {
    m_running = true;
    m_runningJob = job;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_watcher->setFuture(QtConcurrent::run(&m_pool, [job, cancel = m_cancel] {
        return runProbe(job.params, 2, job.shawValues, cancel.get());
    }));
}

void ProbeBox::finished() {
    m_running = false;
    if (!m_cancel->load()) {
        m_result = m_watcher->result();
        m_probed = m_runningJob.params;
        m_probedShawValues = m_runningJob.shawValues;
        m_hasResult = true;
    }
    if (m_queued) {
        const Job next = *m_queued;
        m_queued.reset();
        if (!(m_hasResult && next.params == m_probed && next.shawValues == m_probedShawValues))
            start(next);
    }
    showVerdict();
}

void ProbeBox::showVerdict() {
    const Params& p = m_wanted.params;
    if (!(m_hasResult && p == m_probed && m_wanted.shawValues == m_probedShawValues)) {
        m_verdict->setText(tr("Probing this configuration (d = %1)…").arg(p.d));
        m_verdict->setStyleSheet(QString());
        m_reason->clear();
        return;
    }
    m_verdict->setText(m_result.canTellApart
                           ? tr("✔ Can tell positions apart: n identical tokens give distinct "
                                "output rows.")
                           : tr("✘ Cannot tell positions apart: n identical tokens give identical "
                                "output rows."));
    m_verdict->setStyleSheet(m_result.canTellApart ? QStringLiteral("color: #1a7f37")
                                                   : QStringLiteral("color: #b3261e"));
    m_reason->setText(
        tr("%1<br><small>Probe: %2 identical tokens through a 2-layer pre-RMSNorm stack in "
           "float64; row spread %3 (identical ≤ %4, broken > %5).</small>")
            .arg(QString::fromStdString(probeReason(p, m_result.canTellApart, m_wanted.shawValues))
                     .toHtmlEscaped())
            .arg(p.n)
            .arg(m_result.spread, 0, 'g', 3)
            .arg(kProbeIdenticalThreshold, 0, 'g', 1)
            .arg(kProbeBrokenThreshold, 0, 'g', 1));
}

void ProbeBox::measure(const Trace& trace) {
    const Params& p = trace.params;
    const Tensor* E = trace.find("E");
    const Tensor* out = trace.find("out");
    const int first = p.cls ? 1 : 0;
    m_traceSpread = -1;
    if (!E || !out || p.n < 1) {
        m_spread->clear();
        return;
    }
    const StageMat e = headSlice(*E, 0);
    const StageMat o = headSlice(*out, 0);
    bool identical = true;
    for (int i = first + 1; i < first + p.n && identical; ++i)
        identical = e.row(i) == e.row(first);
    if (!identical) {
        m_spread->setText(tr("This trace's input tokens differ. Choose the input <i>n identical "
                             "tokens</i> (or <i>all zeros</i>) to watch the probe on it."));
        m_rows->setSeries(tr("output rows"), tr("position i"), tr("max_c |o_i − o_first|"), {});
        m_rows->hide();
        return;
    }
    LineSeries s{tr("max_c |o_i,c − o_%1,c|").arg(first), {}};
    for (int i = first; i < first + p.n; ++i) {
        const double dist = (o.row(i) - o.row(first)).cwiseAbs().maxCoeff();
        s.values.push_back(dist);
        m_traceSpread = std::max(m_traceSpread, dist);
    }
    m_spread->setText(
        tr("This trace (one layer, %1): its %2 input rows are identical; its output rows "
           "differ by at most <b>%3</b>.")
            .arg(QString::fromLatin1(toString(p.precision).data()))
            .arg(p.n)
            .arg(m_traceSpread, 0, 'g', 3));
    m_rows->show();
    m_rows->setSeries(tr("output rows against the first"), tr("input token i"),
                      tr("max_c |o_i − o_first|"), {s});
}

} // namespace pe
