#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compares two one-threaded benchmark commands on a noisy host by running them AT THE SAME TIME,
# one pinned to each of two cores, the cores swapped every round: a slow spell of the host
# (another guest, a frequency drop) then falls on both, and each round's ratio B/A holds where
# sequential runs, alternated or not, drift apart by more than the change being measured.
#
#   bench/paired.sh [-r ROUNDS] [-f FIELD] [-c CORE_A,CORE_B] -- COMMAND_A ::: COMMAND_B
#
# Each command prints JSON lines (pe-bench-tiles, pe-bench-pooled --threads 1, ...); the lines
# with FIELD (default ms_min) are paired in order. One output line per round and pair:
#   round 1  <label>  A <value>  B <value>  B/A <ratio>
# (label: the line's "scheme" or "bench" and its "n" where present), then the median and range
# of the ratios per label. Both commands must be one-threaded (--threads 1 for
# pe-bench-pooled): two threads each would share the cores and measure each other.
#
# Example, the tile pass of two builds:
#   bench/paired.sh -r 8 -- /tmp/old/pe-bench-tiles --repeat 15 ::: build/ci/bench/pooled/pe-bench-tiles --repeat 15
set -euo pipefail

rounds=6
field=ms_min
cores=0,1
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    -r) rounds=$2; shift 2 ;;
    -f) field=$2; shift 2 ;;
    -c) cores=$2; shift 2 ;;
    -h | --help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "paired.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $# -gt 0 ]] && shift # --
cmdA=() cmdB=()
side=A
for arg in "$@"; do
    if [[ $arg == ::: ]]; then side=B; continue; fi
    if [[ $side == A ]]; then cmdA+=("$arg"); else cmdB+=("$arg"); fi
done
if [[ ${#cmdA[@]} -eq 0 || ${#cmdB[@]} -eq 0 ]]; then
    echo "paired.sh: need COMMAND_A ::: COMMAND_B after -- (see --help)" >&2
    exit 2
fi
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
    echo "paired.sh: -r needs a positive number of rounds" >&2
    exit 2
fi
IFS=, read -r core0 core1 <<<"$cores"
command -v taskset >/dev/null || { echo "paired.sh: needs taskset (util-linux)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((k = 1; k <= rounds; ++k)); do
    if ((k % 2)); then ca=$core0 cb=$core1; else ca=$core1 cb=$core0; fi
    taskset -c "$ca" "${cmdA[@]}" >"$work/a.$k" 2>/dev/null &
    pa=$!
    taskset -c "$cb" "${cmdB[@]}" >"$work/b.$k" 2>/dev/null &
    pb=$!
    wait "$pa" || { kill "$pb" 2>/dev/null; wait "$pb" 2>/dev/null || true;
        echo "paired.sh: command A failed in round $k" >&2; exit 1; }
    wait "$pb" || { echo "paired.sh: command B failed in round $k" >&2; exit 1; }
done

python3 - "$work" "$rounds" "$field" <<'EOF'
import json, statistics, sys
work, rounds, field = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def lines(path):
    out = []
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if isinstance(j.get(field), (int, float)):
            label = str(j.get("scheme", j.get("bench", "")))
            if "n" in j:
                label += " n=%s" % j["n"]
            out.append((label, float(j[field])))
    return out

ratios = {}
for k in range(1, rounds + 1):
    a, b = lines("%s/a.%d" % (work, k)), lines("%s/b.%d" % (work, k))
    if not a or len(a) != len(b):
        sys.exit("paired.sh: round %d: %d and %d lines with %s" % (k, len(a), len(b), field))
    for (label, va), (_, vb) in zip(a, b):
        r = vb / va if va else float("nan")
        ratios.setdefault(label, []).append(r)
        print("round %d  %-22s A %10.3f  B %10.3f  B/A %.3f" % (k, label, va, vb, r))
for label, rs in ratios.items():
    print("%-22s B/A median %.3f  range %.3f-%.3f  (%d rounds, %s)"
          % (label, statistics.median(rs), min(rs), max(rs), len(rs), field))
EOF
