// SPDX-License-Identifier: MIT
#pragma once

/**
 * The share of the machine's CPU time that the hypervisor gave to other guests (the "steal"
 * column of /proc/stat, vmstat's `st`) between two readings. On a shared VM it can take a tenth
 * of the cores while a benchmark runs: wall-time figures count it, CPU-time figures do not, so
 * the benchmarks print it beside both.
 */

#include <fstream>
#include <sstream>
#include <string>

namespace pe::bench {

/** The machine's CPU time so far, in clock ticks: all of it and the stolen part (0 if unknown). */
struct HostTicks {
    double total = 0.0;
    double steal = 0.0;

    static HostTicks now() {
        HostTicks t;
        std::ifstream in("/proc/stat");
        std::string line;
        if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0)
            return t;
        std::istringstream fields(line.substr(4));
        double v = 0.0;
        // user nice system idle iowait irq softirq steal (guest time is counted in user)
        for (int k = 0; k < 8 && fields >> v; ++k) {
            t.total += v;
            if (k == 7)
                t.steal = v;
        }
        return t;
    }
};

/** Percent of the CPU time between two readings that was stolen (0 where unknown). */
inline double stealPercent(const HostTicks& from, const HostTicks& to) {
    const double total = to.total - from.total;
    return total > 0.0 ? 100.0 * (to.steal - from.steal) / total : 0.0;
}

} // namespace pe::bench
