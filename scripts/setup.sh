#!/usr/bin/env bash
# Idempotent set-up for racewatch on Debian 12: every step skips what is
# already there, so running it twice costs a few seconds.
#
#   1. Debian packages: clang-19 and libclang-19-dev (the front end), libz3-dev
#      (the solver library), xz-utils (driver sources), make, gcc-12 and
#      pahole (out-of-tree kbuild, docs/kbuild.md), chromium (the test that
#      renders the HTML report headless).
#   2. Debian's kernel headers for the newest linux 6.12, resolved with
#      apt-cache at run time, unpacked into the cache with dpkg -x (no kernel
#      image is installed), with the matching linux-kbuild for out-of-tree
#      module builds (gcc-12, make and pahole from step 1).
#   3. The real driver sources the tests and benchmarks use, extracted once
#      from Debian's linux-source-6.12 into the cache.
#   4. With --tree: the whole drivers/ tree of linux-source-6.12 (and the
#      few other directories that drivers include, drivers/linux-6.12/tree-dirs.txt),
#      extracted once into the cache beside the subset of step 3 and linked as
#      $cache/linux-source/tree; scripts/tree-coverage.py runs over it.
#   5. The racewatch binary (cargo build --release).
#
# Usage: scripts/setup.sh [--no-build] [--tree]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$repo/scripts/lib.sh"
cache=$(racewatch_cache)
build=1
tree=0
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --tree) tree=1 ;;
    *) die "unknown option $arg (usage: scripts/setup.sh [--no-build] [--tree])" ;;
  esac
done

apt_updated=0
apt_update() {
  if [ "$apt_updated" -eq 0 ]; then
    say "apt-get update"
    as_root apt-get update -qq
    apt_updated=1
  fi
}

# 1. Debian packages.
packages=(clang-19 libclang-19-dev libz3-dev xz-utils ca-certificates make gcc-12 pahole chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt_update
  say "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -f /usr/lib/llvm-19/lib/libclang.so ] || die "libclang 19 not found at /usr/lib/llvm-19/lib after installing libclang-19-dev"

# Newest version of a package family, from apt's lists (updating them once if
# they know no such package yet).
newest_headers_version() {
  apt-cache pkgnames linux-headers-6.12. 2>/dev/null |
    sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb[0-9]*\)-amd64$/\1/p' | sort -V | tail -n 1
}
v=$(newest_headers_version)
if [ -z "$v" ]; then apt_update; v=$(newest_headers_version); fi
[ -n "$v" ] || die "apt knows no linux-headers-6.12.*-amd64 package (is bookworm-security in the apt sources?)"

# 2. Kernel headers, unpacked without installing.
kdir="$cache/kernel/linux-headers-$v"
if [ ! -f "$kdir/.complete" ]; then
  say "fetching Debian kernel headers $v"
  tmp=$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache/tmp.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get -o APT::Sandbox::User=root download -qq "linux-headers-$v-amd64" "linux-headers-$v-common" >/dev/null) ||
    { apt_update; (cd "$tmp" && apt-get -o APT::Sandbox::User=root download -qq "linux-headers-$v-amd64" "linux-headers-$v-common" >/dev/null); }
  mkdir -p "$tmp/root"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
  [ -d "$tmp/root/usr/src/linux-headers-$v-amd64" ] || die "unexpected layout in linux-headers-$v-amd64"
  touch "$tmp/root/.complete"
  mkdir -p "$cache/kernel"
  rm -rf "$kdir"
  mv "$tmp/root" "$kdir"
  rm -rf "$tmp"; trap - EXIT
fi
ln -sfn "linux-headers-$v" "$cache/kernel/current"
# 2b. kbuild for out-of-tree builds (`make -C .../linux-headers-$v-amd64 M=DIR
# C=2 CHECK="racewatch kbuild"`, docs/kbuild.md): Debian's linux-kbuild
# package (scripts/ and tools/, which the -amd64 headers link to) unpacked
# into the same root, and the -amd64 Makefile's include of the -common one
# pointed at the cache instead of /usr/src. gcc-12, make and pahole (for the
# modules' BTF) come from step 1.
if [ ! -f "$kdir/.kbuild-complete" ]; then
  say "fetching Debian linux-kbuild $v"
  tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get -o APT::Sandbox::User=root download -qq "linux-kbuild-$v" >/dev/null) ||
    { apt_update; (cd "$tmp" && apt-get -o APT::Sandbox::User=root download -qq "linux-kbuild-$v" >/dev/null); }
  dpkg -x "$tmp"/linux-kbuild-*.deb "$kdir"
  [ -d "$kdir/usr/lib/linux-kbuild-$v/scripts" ] || die "unexpected layout in linux-kbuild-$v"
  sed -i "s#^include /usr/src/linux-headers-$v-common/Makefile\$#include $kdir/usr/src/linux-headers-$v-common/Makefile#" \
    "$kdir/usr/src/linux-headers-$v-amd64/Makefile"
  grep -q "^include $kdir/" "$kdir/usr/src/linux-headers-$v-amd64/Makefile" || die "cannot point linux-headers-$v-amd64/Makefile at the cache"
  touch "$kdir/.kbuild-complete"
  rm -rf "$tmp"; trap - EXIT
fi

# 3. Driver sources from linux-source-6.12. The directories come from
# drivers/linux-6.12/extract-dirs.txt; a changed list re-extracts.
src_version=$(apt-cache policy linux-source-6.12 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$src_version" ] || [ "$src_version" = "(none)" ]; then
  apt_update
  src_version=$(apt-cache policy linux-source-6.12 | awk '/Candidate:/ {print $2}')
fi
[ -n "$src_version" ] && [ "$src_version" != "(none)" ] || die "apt knows no linux-source-6.12 package"
dirs_file="$repo/drivers/linux-6.12/extract-dirs.txt"
dirs=$(grep -v '^\s*#' "$dirs_file" | grep -v '^\s*$' | sort -u)
stamp=$(printf '%s\n%s\n' "$src_version" "$dirs" | sha256sum | cut -c1-16)
sdir="$cache/linux-source/$src_version"
if [ "$(cat "$sdir/.complete" 2>/dev/null)" != "$stamp" ]; then
  mkdir -p "$sdir"
  deb=$(ls "$sdir"/linux-source-6.12_*.deb 2>/dev/null | head -n 1 || true)
  if [ -z "$deb" ]; then
    say "fetching Debian linux-source-6.12 $src_version (about 150 MB)"
    (cd "$sdir" && apt-get -o APT::Sandbox::User=root download -qq "linux-source-6.12=$src_version" >/dev/null)
    deb=$(ls "$sdir"/linux-source-6.12_*.deb | head -n 1)
  fi
  say "extracting driver sources: $(echo $dirs)"
  tmp=$(mktemp -d "$sdir/tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./usr/src/linux-source-6.12.tar.xz
  members=()
  for d in $dirs; do members+=("linux-source-6.12/$d"); done
  tar -xJf "$tmp/usr/src/linux-source-6.12.tar.xz" -C "$tmp" "${members[@]}"
  rm -rf "$sdir/linux-source-6.12"
  mv "$tmp/linux-source-6.12" "$sdir/linux-source-6.12"
  rm -rf "$tmp"; trap - EXIT
  echo "$stamp" > "$sdir/.complete"
fi
ln -sfn "$src_version/linux-source-6.12" "$cache/linux-source/current"

# 4. The whole drivers/ tree (--tree), in its own directory with its own
# stamp, so that the subset of step 3 stays as the tests expect it.
if [ "$tree" -eq 1 ]; then
  tree_file="$repo/drivers/linux-6.12/tree-dirs.txt"
  tree_dirs=$(grep -v '^\s*#' "$tree_file" | grep -v '^\s*$' | sort -u)
  tree_stamp=$(printf '%s\n%s\n' "$src_version" "$tree_dirs" | sha256sum | cut -c1-16)
  tdir="$sdir/tree"
  if [ "$(cat "$tdir/.complete" 2>/dev/null)" != "$tree_stamp" ]; then
    deb=$(ls "$sdir"/linux-source-6.12_*.deb 2>/dev/null | head -n 1 || true)
    if [ -z "$deb" ]; then
      say "fetching Debian linux-source-6.12 $src_version (about 150 MB)"
      (cd "$sdir" && apt-get -o APT::Sandbox::User=root download -qq "linux-source-6.12=$src_version" >/dev/null)
      deb=$(ls "$sdir"/linux-source-6.12_*.deb | head -n 1)
    fi
    say "extracting the whole tree: $(echo $tree_dirs)"
    tmp=$(mktemp -d "$sdir/tmp.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    members=()
    for d in $tree_dirs; do members+=("linux-source-6.12/$d"); done
    dpkg-deb --fsys-tarfile "$deb" | tar -x -O ./usr/src/linux-source-6.12.tar.xz | tar -xJ -C "$tmp" "${members[@]}"
    rm -rf "$tdir"
    mkdir -p "$tdir"
    mv "$tmp/linux-source-6.12" "$tdir/linux-source-6.12"
    rm -rf "$tmp"; trap - EXIT
    echo "$tree_stamp" > "$tdir/.complete"
  fi
  ln -sfn "$src_version/tree/linux-source-6.12" "$cache/linux-source/tree"
fi

# 5. The binary.
if [ "$build" -eq 1 ]; then
  say "building racewatch (cargo build --release --locked)"
  (cd "$repo" && cargo build --release --locked --quiet)
fi
say "ready: kernel headers $v, linux-source $src_version, cache $cache"
