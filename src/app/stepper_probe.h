// SPDX-License-Identifier: MIT
#pragma once

#include <QFutureWatcher>
#include <QGroupBox>
#include <QThreadPool>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "probe.h"
#include "trace.h"

class QCheckBox;
class QLabel;

namespace pe {

class LinePlotView;

/**
 * The probe of SPEC §12, live: whether this configuration can tell n identical tokens apart
 * (runProbe's verdict, the spec's 2-layer toy stack), and, when the trace's input rows are
 * identical, how far each of its output rows lies from the first.
 */
class ProbeBox : public QGroupBox {
    Q_OBJECT
public:
    explicit ProbeBox(QWidget* parent = nullptr);

    /**
     * Runs the probe for the trace's parameters and measures the trace's output rows. A probe
     * of up to kMaxInlineProbeDraws normal variates (probeDrawCount) runs here (tens of ms);
     * larger ones run on a pool thread (seconds at d = 4096, or for an MLP encoding's wide
     * tables, which would freeze the window), the newest wins, and the verdict says "probing"
     * until it is in.
     */
    void setTrace(const Trace& trace);
    ~ProbeBox() override;

    /** Positions the probe runs with at most (the verdict does not depend on n). */
    static constexpr int kMaxProbeTokens = 64;
    /** Probes drawing up to this many variates run on the calling thread: d = 256 without a
     *  scheme's tables (22·d², about 35 ms here). */
    static constexpr std::int64_t kMaxInlineProbeDraws = 22 * 256 * 256;
    /** A probe runs in the background; result() is an earlier configuration's until done. */
    bool probing() const { return m_running || m_queued.has_value(); }

    const ProbeResult& result() const { return m_result; }
    bool canTellApart() const { return m_result.canTellApart; }
    QString verdictText() const;
    /** Spread of the trace's output rows over the input tokens; < 0 when the input rows differ. */
    double traceSpread() const { return m_traceSpread; }
    QCheckBox* keysOnlyBox() const { return m_keysOnly; }

Q_SIGNALS:
    void optionsChanged();

private:
    struct Job {
        Params params;
        bool shawValues = true;
        bool operator==(const Job&) const = default;
    };
    void measure(const Trace& trace);
    void showVerdict();
    void start(const Job& job);
    void finished();

    QLabel* m_verdict;
    QLabel* m_reason;
    QLabel* m_spread;
    QCheckBox* m_keysOnly;
    LinePlotView* m_rows;
    ProbeResult m_result;
    Params m_probed; ///< the parameters m_result belongs to (the probe reruns only on change)
    bool m_probedShawValues = true;
    bool m_hasResult = false;
    double m_traceSpread = -1;
    Job m_wanted;     ///< the configuration on screen
    Job m_runningJob; ///< what the background probe computes
    bool m_running = false;
    std::optional<Job> m_queued; ///< the newest, waiting for the running one to stop
    std::shared_ptr<std::atomic<bool>> m_cancel; ///< the running probe's
    QFutureWatcher<ProbeResult>* m_watcher;
    /** The probe's own thread: on Qt's global pool it would hold up the GUI thread's pooling
     *  jobs, which the GUI thread waits for (grid.cpp). */
    QThreadPool m_pool;
};

} // namespace pe
