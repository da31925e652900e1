// SPDX-License-Identifier: MIT
#pragma once

#include <QGroupBox>

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

    /** Runs the probe for the trace's parameters and measures the trace's output rows. */
    void setTrace(const Trace& trace);

    /** Positions the probe runs with at most (the verdict does not depend on n). */
    static constexpr int kMaxProbeTokens = 64;

    const ProbeResult& result() const { return m_result; }
    bool canTellApart() const { return m_result.canTellApart; }
    QString verdictText() const;
    /** Spread of the trace's output rows over the input tokens; < 0 when the input rows differ. */
    double traceSpread() const { return m_traceSpread; }
    QCheckBox* keysOnlyBox() const { return m_keysOnly; }

Q_SIGNALS:
    void optionsChanged();

private:
    void measure(const Trace& trace);

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
};

} // namespace pe
