#!/usr/bin/env bash
# Runs clang-19 on C files with the same kernel flags racewatch composes from
# the cached Debian headers (see src/frontend/flags.rs). For checking that a
# corpus driver compiles against the real kernel API:
#   scripts/kernel-clang.sh -fsyntax-only drivers/corpus/foo.c
# The configuration-dependent flags (-mfentry -DCC_USING_FENTRY) are those of
# Debian's amd64 configuration, which sets CONFIG_FUNCTION_TRACER.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$repo/scripts/lib.sh"
root=$(readlink -f "$(racewatch_cache)/kernel/current") || die "no kernel headers: run scripts/setup.sh"
H=$(ls -d "$root"/usr/src/linux-headers-*-amd64 | head -n 1)
C=$(ls -d "$root"/usr/src/linux-headers-*-common | head -n 1)
exec clang-19 -nostdinc -I"$C/arch/x86/include" -I"$H/arch/x86/include/generated" -I"$C/include" -I"$H/include" \
  -I"$C/arch/x86/include/uapi" -I"$H/arch/x86/include/generated/uapi" -I"$C/include/uapi" -I"$H/include/generated/uapi" \
  -include "$C/include/linux/compiler-version.h" -include "$C/include/linux/kconfig.h" -include "$C/include/linux/compiler_types.h" \
  -D__KERNEL__ -DMODULE -DKBUILD_MODNAME='"racewatch"' -D__KBUILD_MODNAME=kmod_racewatch -DKBUILD_BASENAME='"racewatch"' \
  -std=gnu11 -fshort-wchar -funsigned-char -fno-common -fno-PIE -fno-strict-aliasing -mfentry -DCC_USING_FENTRY -m64 -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mcmodel=kernel -mno-red-zone \
  -Wno-unknown-warning-option "$@"
