#!/usr/bin/env python3
"""The callback structures racewatch does not model, over whole directories
of Linux 6.12: writes results/unmodelled-ops.md.

Runs `racewatch entry-points -j JOBS DIR` from the root of the linux-source
tree that `scripts/setup.sh --tree` extracts, for each directory given
(default: the ones issue 15 names: drivers/char, drivers/watchdog,
drivers/usb, drivers/block, drivers/net/ethernet), and reads the
`[unmodelled-ops]` warnings: "driver functions stored in `struct S`
(fields), which kernel-models/ does not describe". A structure's *uses* are
the files that store driver functions in it. The table lists every such
structure with its files, fields and first locations, most used first, and
says which have three uses or more (the issue's bound). Files that do not
parse (another architecture, an unset CONFIG option) are counted apart:
their structures are unknown.
"""

import argparse
import collections
import datetime
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import REPO, cache_dir, git_revision, machine, write_atomically  # noqa: E402

DIRS = ["drivers/char", "drivers/watchdog", "drivers/usb", "drivers/block", "drivers/net/ethernet"]
WARNING = re.compile(
    r"^(?P<file>[^:\s]+\.[ch]):(?P<line>\d+):\d+: warning: driver functions stored in `struct (?P<struct>[^`]+)` "
    r"\((?P<fields>[^)]*)\), which kernel-models/ does not describe"
)
SUMMARY = re.compile(r"^(?P<file>\S+\.c): (?P<n>\d+) entry points")
ERROR = re.compile(r"^(?P<file>\S+\.c):(\d+:\d+: )?(fatal )?error")


def run_dir(binary, tree, d, jobs, timeout):
    """One `entry-points` run over a directory: (warnings, parsed files, failed files, seconds)."""
    start = time.monotonic()
    p = subprocess.run([binary, "entry-points", "-j", str(jobs), d], cwd=tree, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    warnings, parsed, failed = [], set(), set()
    for line in (p.stdout + "\n" + p.stderr).splitlines():
        if m := WARNING.match(line):
            warnings.append((m["struct"], m["file"], int(m["line"]), [f.strip() for f in m["fields"].split(",")]))
        elif m := SUMMARY.match(line):
            parsed.add(m["file"])
        elif m := ERROR.match(line):
            failed.add(m["file"])
    return warnings, parsed, failed - parsed, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", default=DIRS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=7200, help="seconds per directory")
    ap.add_argument("--binary", default=str(REPO / "target/release/racewatch"))
    ap.add_argument("--tree", default=str(cache_dir() / "linux-source/tree"))
    ap.add_argument("--output", default=str(REPO / "results/unmodelled-ops.md"))
    args = ap.parse_args()

    load_start = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    uses = collections.defaultdict(lambda: collections.defaultdict(set))  # struct -> file -> fields
    where = collections.defaultdict(list)
    per_dir = []
    for d in args.dirs:
        warnings, parsed, failed, seconds = run_dir(args.binary, args.tree, d, args.jobs, args.timeout)
        for struct, file, line, fields in warnings:
            uses[struct][file].update(fields)
            where[struct].append(f"{file}:{line}")
        per_dir.append((d, len(parsed), len(failed), len({w[1] for w in warnings}), seconds))
        print(f"{d}: {len(parsed)} parsed, {len(failed)} not parsed, {len(warnings)} warnings, {seconds:.0f} s", file=sys.stderr)

    rows = sorted(uses.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    many = [s for s, files in rows if len(files) >= 3]
    out = ["# Callback structures racewatch does not model", ""]
    out.append(f"Made by `scripts/unmodelled-ops.py --jobs {args.jobs} {' '.join(args.dirs)}` "
               f"at commit `{git_revision()}`.")
    out.append(f"Machine: {machine()}; 1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
               f"(shared with other jobs). Started {started:%Y-%m-%d %H:%M} UTC.")
    out.append("")
    out.append("Each directory: `racewatch entry-points -j JOBS DIR` from the root of the linux-source tree; a structure's "
               "*uses* are the files that store driver functions in it (the `[unmodelled-ops]` warning). "
               "Files that do not parse are not counted (their structures are unknown).")
    out.append("")
    out.append("| directory | files parsed | not parsed | files with an unmodelled structure | seconds |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for d, parsed, failed, with_warning, seconds in per_dir:
        out.append(f"| {d} | {parsed} | {failed} | {with_warning} | {seconds:.0f} |")
    out.append("")
    out.append(f"Structures left unmodelled: **{len(rows)}**; with three uses or more: **{len(many)}**"
               + (f" ({', '.join(many)})." if many else "."))
    out.append("")
    out.append("| structure | uses (files) | fields | first places |")
    out.append("| --- | ---: | --- | --- |")
    for struct, files in rows:
        fields = sorted(set().union(*files.values()))
        out.append(f"| `struct {struct}` | {len(files)} | {', '.join(fields)} | {', '.join(where[struct][:3])} |")
    out.append("")
    write_atomically(Path(args.output), "\n".join(out))
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
