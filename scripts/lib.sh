# Shared helpers for racewatch's scripts. Sourced, never run.
# shellcheck shell=bash

# The cache that set-up fills: Debian kernel headers and driver sources.
# RACEWATCH_CACHE overrides it; the racewatch binary looks in the same place.
racewatch_cache() {
  local home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
  echo "${RACEWATCH_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/racewatch}"
}

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 2; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"; fi
}
