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
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cache_dir():
    env = os.environ
    if env.get("RACEWATCH_CACHE"):
        return Path(env["RACEWATCH_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "racewatch"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} × {cpu}, {mem:.0f} GiB, {platform.system()} {platform.release()}"


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
    rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
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
    out = REPO / "results/entry-points.md"
    tmp = out.with_suffix(".md.tmp")
    tmp.write_text("\n".join(lines))
    tmp.replace(out)
    print(f"wrote {out}", file=sys.stderr)
    if max(ratios) > 1.5:
        sys.exit(1)


main()
