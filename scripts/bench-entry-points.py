#!/usr/bin/env python3
"""Measures entry-point extraction against the libclang parse of the same
file, over the real Linux 6.12 drivers of drivers/linux-6.12/drivers.txt, and
writes results/entry-points.md.

Each driver is run RUNS times with one job (`racewatch entry-points --timings
-j 1`); racewatch itself times the parse and the extraction of each file, so
process start-up is not counted. The table gives medians; the ratio is
extraction time over parse time (the acceptance bound is 1.5).

Usage: scripts/bench-entry-points.py [--runs N]
"""
import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, machine, git_revision, write_atomically  # noqa: E402


def run_once(binary, source):
    out = subprocess.run([binary, "entry-points", "--timings", "-j", "1", str(source)],
                         capture_output=True, text=True)
    for line in out.stderr.splitlines():
        if line.startswith("timing "):
            _, _, parse, extract, _ = line.rsplit(" ", 4)
            return float(parse), float(extract), out.returncode
    return None, None, out.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    subprocess.run([REPO / "scripts/setup.sh"], check=True)
    binary = REPO / "target/release/racewatch"
    src = cache_dir() / "linux-source/current"
    drivers = [l.strip() for l in open(REPO / "drivers/linux-6.12/drivers.txt")
               if l.strip() and not l.startswith("#")]
    rows = []
    for rel in drivers:
        path = src / rel
        if not path.exists():
            rows.append((rel, None, None, "not in linux 6.12"))
            continue
        samples = [run_once(binary, path) for _ in range(args.runs)]
        if samples[0][0] is None or samples[0][2] != 0:
            rows.append((rel, None, None, "not parsed on x86 (see tests)"))
            continue
        parse = statistics.median(s[0] for s in samples)
        extract = statistics.median(s[1] for s in samples)
        rows.append((rel, parse, extract, ""))
        print(f"{rel}: parse {parse:.1f} ms, extract {extract:.2f} ms", file=sys.stderr)
    measured = [r for r in rows if r[1] is not None]
    ratios = [r[2] / r[1] for r in measured]
    rev = git_revision()
    lines = [
        "# Entry-point extraction cost",
        "",
        f"Made by `scripts/bench-entry-points.py --runs {args.runs}` at commit `{rev or 'unknown'}`.",
        f"Machine: {machine()}. One job; medians of {args.runs} runs; times are racewatch's own",
        "measurements of the libclang parse and of the extraction walk, per file.",
        "",
        "| driver | parse (ms) | extraction (ms) | extraction / parse |",
        "| --- | ---: | ---: | ---: |",
    ]
    for rel, parse, extract, note in rows:
        if parse is None:
            lines.append(f"| {rel} | – | – | {note} |")
        else:
            lines.append(f"| {rel} | {parse:.1f} | {extract:.2f} | {extract / parse:.3f} |")
    lines += [
        "",
        f"Median extraction / parse over {len(measured)} drivers: **{statistics.median(ratios):.3f}**; "
        f"largest: **{max(ratios):.3f}** (bound: 1.5).",
        "",
    ]
    write_atomically(REPO / "results/entry-points.md", "\n".join(lines))
    if max(ratios) > 1.5:
        sys.exit(1)


main()
