#!/usr/bin/env python3
"""Runs the precise phase over the real Linux 6.12 drivers of
drivers/linux-6.12/drivers.txt and writes results/confirmed.md: per driver,
the races the lockset phase reports and what the precise phase says of each
(confirmed, not found within bounds, unknown), split by the race's class in
drivers/linux-6.12/races/<driver>.tsv (real, benign, false alarm); and every
race the precise phase confirms although it is classified as a false alarm,
with its witness's first steps. A confirmed false alarm is a failure (exit
status 1): "confirmed" must mean the kernel can do it.

Each driver is run once with `racewatch check --precise --format json -j
JOBS FILE` from the root of the linux-source tree, with racewatch's default
bounds and budgets; a run over --timeout seconds is killed and reported.

Usage: scripts/bench-confirmed.py [--jobs N] [--timeout S] [--drivers NAME,...]
           [--no-setup] [--output FILE]
"""
import argparse
import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, driver_name, git_revision, machine, run_child  # noqa: E402

# The classification rules and helpers of bench-lockset.py.
_spec = importlib.util.spec_from_file_location("bench_lockset", REPO / "scripts/bench-lockset.py")
lockset = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lockset)

VERDICTS = ["confirmed", "not-found", "unknown"]


def precise_races(doc):
    """Every race of a file's verdicts with the precise verdict of its
    region: (first, second, region, accesses, precise)."""
    for p in doc["pairs"]:
        for r in p["regions"]:
            if r["verdict"] == "race":
                yield p["first"], p["second"], r["region"], r.get("accesses", []), r.get("precise") or {}


def witness_text(precise, rel):
    """The witness's steps, shortened, as one line."""
    w = precise.get("witness") or {}
    steps = w.get("steps") or []
    out = []
    for s in steps[:8]:
        loc = s.get("location") or {}
        at = f"{Path(loc['file']).name}:{loc['line']}" if loc.get("file") else "?"
        out.append(f"{s.get('entry_point', '?')} {s.get('event', '?')} {at}")
    return "; ".join(out) if out else "(no steps in the JSON)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per driver before its run is killed")
    ap.add_argument("--drivers", help="comma-separated driver names (file names without .c) to run")
    ap.add_argument("--no-setup", action="store_true", help="do not run scripts/setup.sh (which builds racewatch)")
    ap.add_argument("--output", default=str(REPO / "results/confirmed.md"))
    args = ap.parse_args()
    if not args.no_setup:
        subprocess.run([REPO / "scripts/setup.sh"], check=True)
    built = REPO / "target/release/racewatch"
    if not built.exists():
        sys.exit(f"{built} not found: run cargo build --release (or drop --no-setup)")
    private = tempfile.TemporaryDirectory(prefix="bench-confirmed-")
    binary = Path(private.name) / "racewatch"
    shutil.copy2(built, binary)
    built_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(built.stat().st_mtime))
    load_start = os.getloadavg()[0]
    src = cache_dir() / "linux-source/current"
    drivers = [l.strip() for l in open(REPO / "drivers/linux-6.12/drivers.txt") if l.strip() and not l.startswith("#")]
    if args.drivers:
        wanted = set(args.drivers.split(","))
        drivers = [d for d in drivers if driver_name(d) in wanted]

    rows, confirmed_false, failures, real_unknown = [], [], [], []
    for rel in drivers:
        name = driver_name(rel)
        if not (src / rel).exists():
            rows.append((rel, None, "not in this tree"))
            continue
        cmd = [binary, "check", "--precise", "--format", "json", "-j", str(args.jobs), rel]
        code, out, err, wall, rss = run_child(cmd, src, args.timeout)
        if code is None:
            rows.append((rel, None, f"timed out (over {args.timeout:.0f} s)"))
            print(f"{rel}: timed out", file=sys.stderr)
            continue
        try:
            doc = json.loads(out)["files"][0]
        except (ValueError, KeyError, IndexError):
            rows.append((rel, None, f"exit {code}: no JSON"))
            continue
        if "error" in doc:
            rows.append((rel, None, f"{doc['error']['class']}"))
            continue
        rules, _problems = lockset.read_rules(name)
        counts = collections.Counter()
        for first, second, region, accesses, precise in precise_races(doc):
            rule = next((r for r in rules or [] if r.matches(first, second, region)), None)
            cls = rule.cls if rule else "unclassified"
            verdict = precise.get("verdict", "unknown")
            counts[(cls, verdict)] += 1
            if verdict == "unknown" and cls == "real":
                real_unknown.append((rel, first, second, region, precise.get("reason", "")))
            if verdict == "confirmed" and cls == "false-alarm":
                confirmed_false.append((rel, first, second, region, rule, witness_text(precise, rel)))
        rows.append((rel, counts, f"{wall:.0f} s"))
        print(f"{rel}: {dict(counts)} in {wall:.0f} s", file=sys.stderr)

    cmd = "scripts/bench-confirmed.py " + " ".join(sys.argv[1:])
    lines = [
        "# The precise phase on the real drivers: what it confirms, by class",
        "",
        f"Made by `{cmd.strip()}` at commit `{git_revision()}`.",
        f"Machine: {machine()}; 1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end.",
        f"Binary: target/release/racewatch built {built_at}. Each driver: one run of",
        f"`racewatch check --precise --format json -j {args.jobs} FILE` (default bounds and budgets) from the root of",
        "the linux-source tree. Each race the lockset phase reports is matched against",
        "drivers/linux-6.12/races/<driver>.tsv; the columns give the precise verdict of its region",
        "(confirmed / not found within bounds / unknown) per class.",
        "",
        "| driver | real (c/nf/u) | benign (c/nf/u) | false alarm (c/nf/u) | unclassified (c/nf/u) | time |",
        "| --- | --- | --- | --- | --- | ---: |",
    ]
    total = collections.Counter()
    for rel, counts, note in rows:
        if counts is None:
            lines.append(f"| {rel} | {note} | | | | |")
            continue
        total.update(counts)
        cells = ["/".join(str(counts[(cls, v)]) for v in VERDICTS) for cls in ["real", "benign", "false-alarm", "unclassified"]]
        lines.append(f"| {rel} | " + " | ".join(cells) + f" | {note} |")
    cells = ["/".join(str(total[(cls, v)]) for v in VERDICTS) for cls in ["real", "benign", "false-alarm", "unclassified"]]
    lines.append("| **all** | " + " | ".join(cells) + " | |")
    lines += ["", f"Confirmed false alarms: **{len(confirmed_false)}**.", ""]
    for rel, first, second, region, rule, witness in confirmed_false:
        lines.append(f"- {rel}: {first} × {second} on `{region}` ({rule.where()}: {rule.reason[:160]}); witness: {witness}")
        failures.append(f"{rel}: {first} × {second} on {region!r} is confirmed but classified false-alarm")
    lines += ["", f"Races classified real that the precise phase leaves unknown: **{len(real_unknown)}** (its reason, shortened).", ""]
    for rel, first, second, region, reason in real_unknown:
        lines.append(f"- {rel}: {first} × {second} on `{region[:120]}`: {reason[:260]}")
    Path(args.output).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
