#!/usr/bin/env python3
"""Lowers the real Linux 6.12 drivers of drivers/linux-6.12/drivers.txt and
writes results/lowering.md: per driver, what the lowering produced, the count
of each approximation kind, and the lowering time against the libclang parse
time of the same file.

Each driver is run RUNS times with one job (`racewatch ivl --stats --timings
-j 1`); racewatch itself times the parse, the entry-point extraction and the
lowering, so process start-up is not counted. Times are medians. The
acceptance bound is lowering <= parse.

Usage: scripts/bench-lowering.py [--runs N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, machine, git_revision, write_atomically  # noqa: E402

APPROX_KINDS = ["external-call", "function-pointer", "inline-asm", "bit-operation", "cast", "unknown-lock",
                "unsupported-construct"]


def run_once(binary, source):
    out = subprocess.run([binary, "ivl", "--stats", "--timings", "-j", "1", str(source)],
                         capture_output=True, text=True)
    timing = re.search(r"timing \S+ parse ([\d.]+) extract ([\d.]+) lower ([\d.]+)", out.stderr)
    stats = {}
    for line in out.stdout.splitlines()[1:]:
        m = re.match(r"\s+(.+?)\s+(\d+)$", line)
        if m:
            stats[m.group(1)] = int(m.group(2))
    if out.returncode != 0 or not timing:
        return None
    return tuple(float(x) for x in timing.groups()), stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    subprocess.run([REPO / "scripts/setup.sh"], check=True)
    binary = REPO / "target/release/racewatch"
    src = cache_dir() / "linux-source/current"
    drivers = [l.strip() for l in open(REPO / "drivers/linux-6.12/drivers.txt") if l.strip() and not l.startswith("#")]
    rows = []
    for rel in drivers:
        path = src / rel
        samples = [run_once(binary, path) for _ in range(args.runs)] if path.exists() else [None]
        if samples[0] is None:
            rows.append((rel, None, None, None, "not in linux 6.12" if not path.exists() else "not parsed on x86 (see tests)"))
            continue
        parse = statistics.median(s[0][0] for s in samples)
        lower = statistics.median(s[0][2] for s in samples)
        rows.append((rel, parse, lower, samples[0][1], ""))
        print(f"{rel}: parse {parse:.0f} ms, lower {lower:.0f} ms", file=sys.stderr)
    measured = [r for r in rows if r[1] is not None]
    ratios = [r[2] / r[1] for r in measured]
    lines = [
        "# Lowering: approximations and cost",
        "",
        f"Made by `scripts/bench-lowering.py --runs {args.runs}` at commit `{git_revision()}`.",
        f"Machine: {machine()}. One job; times are medians of {args.runs} runs of racewatch's own",
        "measurements (libclang parse; lowering of every function reachable from the entry points).",
        "",
        "## Approximations per driver",
        "",
        "| driver | procedures | regions | locks | " + " | ".join(APPROX_KINDS) + " | external functions |",
        "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in APPROX_KINDS) + " | ---: |",
    ]
    for rel, parse, lower, stats, note in rows:
        if stats is None:
            lines.append(f"| {rel} | {note} |" + " |" * (len(APPROX_KINDS) + 3))
            continue
        counts = " | ".join(str(stats.get(f"approximation {k}", 0)) for k in APPROX_KINDS)
        lines.append(f"| {rel} | {stats.get('procedures', 0)} | {stats.get('regions', 0)} | "
                     f"{stats.get('lock identities', 0)} | {counts} | {stats.get('external functions', 0)} |")
    lines += [
        "",
        "`unsupported-construct` is the only kind that makes verdicts unknown; the others",
        "over-approximate or are counted assumptions (docs/soundness.md).",
        "",
        "## Lowering time against parse time",
        "",
        "| driver | parse (ms) | lowering (ms) | lowering / parse |",
        "| --- | ---: | ---: | ---: |",
    ]
    for rel, parse, lower, stats, note in rows:
        if parse is not None:
            lines.append(f"| {rel} | {parse:.0f} | {lower:.0f} | {lower / parse:.2f} |")
    lines += ["", f"Median lowering / parse over {len(measured)} drivers: **{statistics.median(ratios):.2f}**; "
                  f"largest: **{max(ratios):.2f}** (bound: 1.0).", ""]
    write_atomically(REPO / "results/lowering.md", "\n".join(lines))
    if max(ratios) > 1.0:
        sys.exit(1)


main()
