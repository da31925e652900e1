// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "session.h"

class QAction;
class QWidget;

namespace pe {

class HeatmapView;
class MainWindow;

/** Runs the event loop for `ms` milliseconds (timers, results and paints are handled). */
void spinEventLoop(int ms);
/** Runs the event loop until `done()` holds or `timeoutMs` pass; returns done(). */
bool spinUntil(const std::function<bool()>& done, int timeoutMs);

/**
 * Random actions on a real MainWindow, as a user (or a script of one) would take them: every
 * parameter control of the panel (extreme values included, several at once, disabled ones
 * through a preset or undo), scheme and tab switches, zoom and pan on heat maps, undo/redo,
 * the comparison's scheme B and gallery, the stepper (play, stages, head, query), the compute
 * backend, colour map, pooling and thread menus. Seeded: the same seed takes the same actions
 * (every action draws the same random numbers whatever the window shows at that moment).
 */
class SoakDriver {
public:
    SoakDriver(MainWindow* window, std::uint64_t seed);
    /** Leaves these kinds of action out (bisecting a leak): "backend", "zoom", … */
    void skip(const std::vector<std::string>& kinds) { m_skip = kinds; }

    /** Takes one random action and says what it was, e.g. "n box = 16384". */
    QString step();
    /** Runs the event loop until the window's worker is idle, or `timeoutMs` pass. */
    bool settle(int timeoutMs);
    /**
     * Brings the window to a fixed state for a memory sample: playing stopped, no gallery, the
     * fast CPU engine, session `s` computed twice (so buffers held for the previous shapes are
     * handed back and freed) with the comparison's B computed too, the first tab shown.
     * Returns false if a computation did not finish within `timeoutMs`.
     */
    bool quiesce(const Session& s, int timeoutMs);

    /** Actions taken so far, by kind. */
    const std::map<std::string, int>& counts() const { return m_counts; }

private:
    QString control(bool anyControl);
    QString burst();
    QString scheme();
    QString tab();
    QString zoom();
    QString undoRedo(bool undo);
    QString compare();
    QString stepper();
    QString backend();
    QString viewMenu();
    QString preset();
    QString selection();

    QString setControl(QWidget* w);
    int chooseInt(int lo, int hi, int now, const QString& name);
    HeatmapView* visibleHeatmap(double pick) const;
    QAction* menuAction(const QString& menu, double pick) const;

    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(m_rng); }
    int below(int n) { return static_cast<int>(uniform() * n) % std::max(n, 1); }

    MainWindow* m_w;
    std::mt19937_64 m_rng;
    std::map<std::string, int> m_counts;
    std::vector<std::string> m_skip;
};

} // namespace pe
