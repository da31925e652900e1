#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer harnesses (preset `fuzz`: clang, ASan + UBSan) and runs each for N seconds.
#   scripts/fuzz.sh [seconds] [harness…]     default: 60 s each, every harness
# Each harness starts from its committed seeds (tests/fuzz/seeds/<name>) plus the corpus grown
# by earlier runs (build/fuzz/corpus/<name>), with its dictionary (tests/fuzz/dict/<name>.dict).
# A crash leaves its input in build/fuzz/artifacts/<name>/ and makes the script exit 1;
# minimise it with `build/fuzz/tests/fuzz/fuzz_<name> -minimize_crash=1 -runs=100000 <file>`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(npy safetensors session tokenizer)
jobs=${PE_JOBS:-2}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build build/fuzz -j "$jobs" --target "${harnesses[@]/#/fuzz_}"

failed=0
summary=()
for h in "${harnesses[@]}"; do
    corpus=build/fuzz/corpus/$h
    artifacts=build/fuzz/artifacts/$h
    log=build/fuzz/logs/$h.log
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    printf '\033[1m==> fuzz_%s for %s s\033[0m\n' "$h" "$seconds"
    set +e
    build/fuzz/tests/fuzz/fuzz_"$h" "$corpus" tests/fuzz/seeds/"$h" \
        -dict=tests/fuzz/dict/"$h".dict -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts"/ >"$log" 2>&1
    rc=$?
    set -e
    # Coverage as it grew (every few lines), then the final figures.
    grep -E '^#[0-9]+[[:space:]]+(INITED|pulse)' "$log" | cut -c1-100 || true
    grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY' "$log" || true
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    cov=$(grep -oE 'cov: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || echo '?')
    ft=$(grep -oE 'ft: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || echo '?')
    if [ $rc -ne 0 ]; then
        failed=1
        summary+=("$(printf '%-12s CRASH (exit %d): see %s and %s' "$h" "$rc" "$log" "$artifacts")")
    else
        summary+=("$(printf '%-12s %12s execs  %5s s  cov %5s  ft %6s  corpus %s files' \
            "$h" "$execs" "$seconds" "$cov" "$ft" "$(ls "$corpus" | wc -l)")")
    fi
done
printf '\033[1m==> Summary\033[0m\n'
printf '%s\n' "${summary[@]}"
exit $failed
