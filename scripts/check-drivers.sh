#!/usr/bin/env bash
# The main job: racewatch over the shipped driver corpus (or the paths given),
# after the idempotent set-up: each driver's entry points, the pairs of them
# that may run concurrently, the lockset verification of every pair, and the
# bounded precise search of what stays unproven (races are findings, not
# failures: the script fails only on errors).
#   scripts/check-drivers.sh [PATH...]     (default: drivers/)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/scripts/setup.sh"
cd "$repo"
[ "$#" -gt 0 ] || set -- drivers/
status=0
target/release/racewatch entry-points "$@" || status=$?
echo
target/release/racewatch pairs "$@" || status=$?
echo
# Two minutes per file: the precise phase on drivers/corpus/tty_serial.c
# needs more; it reports what it searched by then and leaves the rest
# unknown (never a verdict).
target/release/racewatch check --precise --file-timeout 120 "$@" || { code=$?; [ "$code" -eq 2 ] && status=2; }
exit "$status"
