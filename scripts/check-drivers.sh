#!/usr/bin/env bash
# The main job: racewatch over the shipped driver corpus (or the paths given),
# after the idempotent set-up. At this stage it lists each driver's entry
# points and the candidate pairs of entry points that may run concurrently.
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
exit "$status"
