#!/usr/bin/env bash
# Runs every test of racewatch, after the idempotent set-up (Debian packages,
# kernel headers, driver sources, build). This is the command CI runs.
#   scripts/test.sh [extra cargo test arguments]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/scripts/setup.sh"
cd "$repo"
cargo test --release --locked "$@"
