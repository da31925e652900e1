// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

#include "compute_worker.h"
#include "heatmap_view.h"

class QComboBox;
class QSpinBox;

namespace pe {

/**
 * The same inputs under a second scheme, side by side with the current one, and their
 * difference (A − B). The second trace comes from its own worker, and only while this view is
 * shown, so the main views never wait on it.
 */
class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);

    /** The current trace (scheme A) and its input; B is recomputed with A's other parameters. */
    void setReference(std::shared_ptr<const Trace> a, const InputChoice& in);
    void setColorMap(ColorMapKind k);
    void setPoolMode(PoolMode m);
    void setOtherScheme(Scheme s);
    /** The compared tensor: "weights", "logits" or "out"; false if the name is not offered. */
    bool setTensor(const QString& name);
    void setHead(int h);
    /** Shows `b` as scheme B, computed by the caller (headless figures compute synchronously). */
    void setOther(std::shared_ptr<const Trace> b);
    /** B's parameters: A's with the other scheme (and the mask ALiBi's paper form needs). */
    static Params otherParams(const Params& a, Scheme other);
    const Trace* other() const { return m_b.get(); }
    HeatmapView* difference() const { return m_diff; }
    HeatmapView* left() const { return m_left; }
    HeatmapView* right() const { return m_right; }

Q_SIGNALS:
    void hovered(const QString& text);
    void updated();

protected:
    void showEvent(QShowEvent* e) override;

private:
    void request();
    void redraw();

    ComputeController* m_controller;
    QComboBox* m_scheme;
    QComboBox* m_tensor;
    QSpinBox* m_head;
    HeatmapView* m_left;
    HeatmapView* m_right;
    HeatmapView* m_diff;
    std::shared_ptr<const Trace> m_a;
    std::shared_ptr<const Trace> m_b;
    InputChoice m_input;
    bool m_stale = true;
};

} // namespace pe
