#!/bin/sh
# SPDX-License-Identifier: MIT
# run_tool.sh TOOL ARGS...: runs a validator and fails when it exits non-zero or reports anything
# (error, warning, hint or pedantic note) besides appstreamcli's success line. Exits 77, CTest's
# skip, when TOOL is not installed.
tool=$1
shift
command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed: skipped"; exit 77; }
out=$("$tool" "$@" 2>&1)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || exit 1
if printf '%s\n' "$out" | grep -v -e '^$' -e 'Validation was successful' | grep -q .; then
    echo "run_tool.sh: $tool reported the findings above"
    exit 1
fi
exit 0
