#!/usr/bin/env python3
"""Measures the yield placements of the precise phase side by side and writes
results/yields.md: for every driver of the corpus (drivers/corpus-races/ and
drivers/corpus-precise/) that the lockset phase leaves with an unproven
region, and for the real Linux 6.12 drivers of drivers/linux-6.12/drivers.txt,
the precise phase's time and number of yields under `--yields all`, `epp` and
`mr` at `--k 2` and `--k 3`, and the races each confirms.

Each driver is run RUNS times per (K, mode) with `racewatch check --precise
--yields MODE --k K --format json -j JOBS FILE` (corpus files from the root of
the repository, real drivers from the root of the linux-source tree, so
locations are relative paths); the (K, mode) combinations are interleaved
within each run so that a change of load hits them alike. Other bounds are
racewatch's defaults. Per (driver, K, mode):

- precise time: the sum of `precise.pairs[].seconds` (the precise phase
  alone; the lockset phase, identical in every mode, is excluded), median
  over the runs; the wall time of the process is reported separately;
- yields: the sum of `precise.pairs[].yields`;
- the confirmed / not-found / unknown counts, and the set of confirmed
  (file, first, second, region).

A corpus file with no region left unproven by the lockset phase (no race, no
unknown) does no precise work: it is run once (K = 2, all) and listed as
skipped. drivers/block/sx8.c is not in linux 6.12 and is skipped with a note;
a driver that cannot be parsed on x86-64 (swim.c) is listed as such.

Checks, each a failure (exit status 1; the results file is written in every
case, with the problems stated at its top):
- within each K, the confirmed races are identical under all, epp and mr (a
  race confirmed in one mode and not-found or unknown in another is a
  difference, reported with the verdict of every mode);
- under each mode, K = 3 confirms every race K = 2 confirms;
- yields and precise verdicts are identical across runs, the lockset verdicts
  are identical in every run, and the JSON's bounds are the ones asked for;
- a run that crashes or reports an error (other than a missing header).
A run that exceeds --timeout seconds is killed and recorded as timed out (a
warning: its verdicts are not compared); the same mode is then not run at
the larger K (recorded as not run, neither a time nor a verdict). Differences between not-found and
unknown are listed, not failed. The goal (mr at least 3x faster than all in
the median of the per-driver precise-time ratios at K = 2, more at K = 3;
median over drivers whose `all` time is at least 0.05 s) is reported, not
enforced.

Usage: scripts/bench-yields.py [--runs N] [--jobs N] [--timeout S] [--query-timeout S]
           [--drivers NAME,...] [--quick] [--no-setup] [--binary FILE] [--output FILE]
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import (  # noqa: E402
    NOT_IN_TREE, NOT_PARSED, WHY_NOT_PARSED, cache_dir, driver_name, git_revision, machine, run_child, write_atomically,
)

CORPUS_DIRS = ["drivers/corpus-races", "drivers/corpus-precise"]
KS = [2, 3]
MODES = ["all", "epp", "mr"]
GOAL = 3.0           # mr at least GOAL x faster than all in the median at K = 2
RATIO_FLOOR = 0.05   # seconds of `all` precise time below which a driver's ratio is noise
NO_PRECISE_WORK = "no region left unproven by the lockset phase: no precise work"


def last_line(text):
    return (text.strip().splitlines() or ["no output"])[-1]


def exit_text(code):
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


def precise_once(binary, drv, k, mode, args):
    """One `check --precise` run: a dict of the measurements, or a dict with
    an `error` (and `timeout` when the run was killed)."""
    cmd = [binary, "check", "--precise", "--yields", mode, "--k", k, "--format", "json", "-j", args.jobs]
    if args.query_timeout is not None:
        cmd += ["--timeout", args.query_timeout]
    code, out, err, wall, rss = run_child(cmd + [drv["rel"]], drv["cwd"], args.timeout)
    if code is None:
        return {"error": f"timeout (over {args.timeout:.0f} s)", "timeout": True, "wall": wall, "rss": rss}
    # Exit codes (docs/cli.md): 0 proven, 1 races, 2 errors, 3 unknowns.
    try:
        doc = json.loads(out)
        entry = doc["files"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return {"error": f"{exit_text(code)}: {last_line(err)}", "wall": wall, "rss": rss}
    if "error" in entry:
        return {"error": f"{entry['error']['class']}: {entry['error']['message']}", "wall": wall, "rss": rss}
    if code not in (0, 1, 3) or doc.get("errors"):
        extra = "; ".join(f"{e.get('class')}: {e.get('message')}" for e in doc.get("errors") or [])
        return {"error": f"{exit_text(code)}: {extra or last_line(err)}", "wall": wall, "rss": rss}
    precise = entry.get("precise")
    if precise is None:
        return {"error": f"{exit_text(code)}: no `precise` object in the JSON output", "wall": wall, "rss": rss}
    verdicts, lockset = {}, {}
    for p in entry["pairs"]:
        for r in p["regions"]:
            key = (p["first"], p["second"], r["region"])
            lockset[key] = r["verdict"]
            if "precise" in r:
                v = r["precise"]
                verdicts[key] = (v["verdict"], v.get("reason"), tuple(v.get("bounds_reached", [])))
    pairs = {(p["first"], p["second"]): (p["yields"], tuple(p.get("bounds_reached", []))) for p in precise["pairs"]}
    return {
        "wall": wall,
        "rss": rss,
        "file": entry["file"],
        "time": sum(p["seconds"] for p in precise["pairs"]),
        "yields": sum(p["yields"] for p in precise["pairs"]),
        "counts": (precise["confirmed"], precise["not_found"], precise["unknown"]),
        "verdicts": verdicts,
        "pairs": pairs,
        "lockset": lockset,
        "unproven": sum(1 for v in lockset.values() if v != "proven"),
        "bounds": precise["bounds"],
    }


class Cell:
    """The runs of one driver at one (K, mode)."""

    def __init__(self):
        self.samples = []   # the runs that completed
        self.error = None   # the first failed run's error, after which the cell is not run again
        self.timeout = False
        self.error_run = None  # the run (from 1) that failed
        self.skipped = False   # not run: the same mode timed out at a smaller K

    @property
    def ok(self):
        return self.error is None and bool(self.samples)

    @property
    def first(self):
        return self.samples[0] if self.samples else None

    def median(self, field):
        return statistics.median(s[field] for s in self.samples) if self.ok else None

    def confirmed(self):
        return {k for k, v in self.first["verdicts"].items() if v[0] == "confirmed"} if self.samples else None


def md(text):
    return str(text).replace("|", "\\|")


def secs(v):
    if v is None:
        return "–"
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def race_text(rel, key):
    first, second, region = key
    return f"{rel}: {first} × {second} on {region!r}"


def verdict_text(v):
    verdict, reason, _ = v
    return f"{verdict} ({reason})" if reason else verdict


def runs_differ(rel, k, mode, samples):
    """Differences of yields or verdicts between the runs of one cell."""
    out = []
    base = samples[0]
    for i, s in enumerate(samples[1:], 2):
        for key in sorted(set(base["verdicts"]) | set(s["verdicts"])):
            a, b = base["verdicts"].get(key), s["verdicts"].get(key)
            if (a and a[0]) != (b and b[0]):
                out.append(f"{race_text(rel, key)} at K={k} under {mode}: run 1 {a and verdict_text(a)}, "
                           f"run {i} {b and verdict_text(b)}")
        for pair in sorted(set(base["pairs"]) | set(s["pairs"])):
            a, b = base["pairs"].get(pair), s["pairs"].get(pair)
            if (a and a[0]) != (b and b[0]):
                out.append(f"{rel}: pair {pair[0]} × {pair[1]} at K={k} under {mode}: "
                           f"{a and a[0]} yields in run 1, {b and b[0]} in run {i}")
    return out


def lockset_differences(drv):
    """The lockset verdicts (the same work in every mode and K) that differ
    from those of the first run."""
    runs = [(k, m, i, s) for (k, m), c in drv["cells"].items() for i, s in enumerate(c.samples, 1)]
    if not runs:
        return []
    k0, m0, _, base = runs[0]
    out = []
    for k, m, i, s in runs[1:]:
        for key in sorted(set(base["lockset"]) | set(s["lockset"])):
            a, b = base["lockset"].get(key), s["lockset"].get(key)
            if a != b:
                out.append(f"{race_text(drv['rel'], key)}: lockset verdict {a} at K={k0} under {m0} in run 1, "
                           f"{b} at K={k} under {m} in run {i}")
    return out[:10] + ([f"{drv['rel']}: … {len(out) - 10} more lockset differences"] if len(out) > 10 else [])


def compare_modes(drv, k):
    """Within one K: (failures, notes, modes not compared) over the precise
    verdicts of the three modes."""
    rel = drv["rel"]
    have = {m: drv["cells"][(k, m)] for m in MODES if drv["cells"][(k, m)].samples}
    missing = [m for m in MODES if m not in have]
    failures, notes = [], []
    if len(have) < 2:
        return failures, notes, missing
    keys = sorted(set().union(*(set(c.first["verdicts"]) for c in have.values())))
    for key in keys:
        vs = {m: c.first["verdicts"].get(key) for m, c in have.items()}
        kinds = {m: v[0] if v else "no precise verdict" for m, v in vs.items()}
        if len(set(kinds.values())) == 1:
            continue
        by_kind = {}
        for m in have:
            by_kind.setdefault(verdict_text(vs[m]) if vs[m] else "no precise verdict", []).append(m)
        text = "; ".join(f"{v} under {', '.join(ms)}" for v, ms in by_kind.items())
        line = f"{race_text(rel, key)} at K={k}: {text}"
        (failures if "confirmed" in kinds.values() else notes).append(line)
    return failures, notes, missing


def compare_ks(drv):
    """Per mode: the races K=2 confirms that K=3 does not."""
    out = []
    for m in MODES:
        c2, c3 = drv["cells"][(2, m)], drv["cells"][(3, m)]
        if not (c2.samples and c3.samples):
            continue
        for key in sorted(c2.confirmed() - c3.confirmed()):
            v = c3.first["verdicts"].get(key)
            out.append(f"{race_text(drv['rel'], key)} under {m}: confirmed at K=2, "
                       f"{verdict_text(v) if v else 'no precise verdict'} at K=3")
    return out


def time_bounds(drv, k, limit):
    """Per mode, the median precise time, or for a timed-out cell a lower
    bound (the limit minus the driver's non-precise time, which every mode
    shares): {mode: (seconds, is_lower_bound)} for the modes that have one."""
    overheads = [s["wall"] - s["time"] for c in drv["cells"].values() if c.ok for s in c.samples]
    out = {}
    for m in MODES:
        c = drv["cells"][(k, m)]
        if c.ok:
            out[m] = (c.median("time"), False)
        elif c.timeout and not c.skipped and overheads:
            out[m] = (max(limit - min(overheads), 0.0), True)
    return out


def ratio(times, a, b):
    """times[a] / times[b] as (value, is_lower_bound), or None when unknown."""
    if a not in times or b not in times or times[b][1] or not times[b][0]:
        return None
    return times[a][0] / times[b][0], times[a][1]


def ratio_text(r):
    return "–" if r is None else f"{'> ' if r[1] else ''}{r[0]:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per driver, K and mode (time medians)")
    ap.add_argument("--jobs", type=int, default=2, help="racewatch --jobs")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds per racewatch process before the run counts as timed out")
    ap.add_argument("--query-timeout", type=float,
                    help="racewatch --timeout (seconds per solver query; default: racewatch's own)")
    ap.add_argument("--drivers", help="comma-separated driver names (file names without .c, corpus or real) to run")
    ap.add_argument("--quick", action="store_true", help="one run per driver, K and mode")
    ap.add_argument("--no-setup", action="store_true", help="do not run scripts/setup.sh (which builds racewatch)")
    ap.add_argument("--binary", default=str(REPO / "target/release/racewatch"),
                    help="the racewatch binary to measure (copied first; default target/release/racewatch)")
    ap.add_argument("--output", default=str(REPO / "results/yields.md"))
    args = ap.parse_args()
    if args.quick:
        args.runs = 1
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    if not args.no_setup:
        subprocess.run([REPO / "scripts/setup.sh"], check=True)
    # A private copy: the binary in target/ may be rebuilt while this runs.
    built = Path(args.binary)
    if not built.exists():
        sys.exit(f"{built} not found: run cargo build --release (or drop --no-setup)")
    private = tempfile.TemporaryDirectory(prefix="bench-yields-")
    binary = Path(private.name) / "racewatch"
    shutil.copy2(built, binary)
    shown_binary = built.relative_to(REPO) if built.resolve().is_relative_to(REPO) else built
    built_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(built.stat().st_mtime))
    started = time.monotonic()
    load_start = os.getloadavg()[0]
    src = cache_dir() / "linux-source/current"

    drivers = []
    for d in CORPUS_DIRS:
        for p in sorted((REPO / d).glob("*.c")):
            rel = f"{d}/{p.name}"
            drivers.append({"rel": rel, "name": driver_name(rel), "kind": "corpus", "cwd": REPO})
    for line in open(REPO / "drivers/linux-6.12/drivers.txt"):
        rel = line.strip()
        if rel and not rel.startswith("#"):
            drivers.append({"rel": rel, "name": driver_name(rel), "kind": "real", "cwd": src})
    if args.drivers:
        wanted = set(args.drivers.split(","))
        unknown = wanted - {d["name"] for d in drivers}
        if unknown:
            sys.exit(f"unknown drivers: {', '.join(sorted(unknown))}")
        drivers = [d for d in drivers if d["name"] in wanted]

    failures, warnings, notes = [], [], []
    for drv in drivers:
        rel = drv["rel"]
        drv["cells"] = {(k, m): Cell() for k in KS for m in MODES}
        if drv["kind"] == "real" and not (src / rel).exists():
            drv["note"] = NOT_IN_TREE
            print(f"{rel}: {NOT_IN_TREE}", file=sys.stderr)
            continue
        for i in range(args.runs):
            for k in KS:
                for m in MODES:
                    cell = drv["cells"][(k, m)]
                    if cell.error or drv.get("note"):
                        continue
                    smaller = [c for (k2, m2), c in drv["cells"].items() if m2 == m and k2 < k and c.timeout]
                    if smaller:
                        # A larger K searches a superset; it is not run, and
                        # says so (not a verdict, not a time).
                        cell.error, cell.timeout, cell.skipped = "not run: timed out at a smaller K", True, True
                        cell.error_run = i + 1
                        continue
                    s = precise_once(binary, drv, k, m, args)
                    if "error" in s:
                        cell.error, cell.timeout = s["error"], s.get("timeout", False)
                        cell.error_run = i + 1
                        print(f"{rel} run {i + 1} K={k} {m}: {s['error']}", file=sys.stderr)
                        if s["error"].startswith("missing-header"):
                            why = WHY_NOT_PARSED.get(rel, "a header is missing")
                            drv["note"] = f"{NOT_PARSED}, {why} ({s['error']})"
                        continue
                    cell.samples.append(s)
                    if not s["unproven"] and s["pairs"]:
                        failures.append(f"{rel}: the precise phase searched pairs though the lockset phase "
                                        "proved every region")
                    if not s["unproven"]:
                        drv["note"] = NO_PRECISE_WORK
                        continue
                    c, nf, u = s["counts"]
                    print(f"{rel} run {i + 1} K={k} {m}: precise {s['time']:.3f} s, wall {s['wall']:.2f} s, "
                          f"{s['yields']} yields, {c} confirmed, {nf} not found, {u} unknown", file=sys.stderr)
        if drv.get("note"):
            if drv["note"] != NO_PRECISE_WORK:
                print(f"{rel}: {drv['note']}", file=sys.stderr)
            continue

        # Checks of this driver.
        for (k, m), cell in drv["cells"].items():
            if cell.error:
                if cell.timeout:
                    warnings.append(f"{rel} at K={k} under {m}: {cell.error} in run {cell.error_run}")
                else:
                    failures.append(f"{rel} at K={k} under {m}: run {cell.error_run}: {cell.error}")
            if not cell.samples:
                continue
            failures += runs_differ(rel, k, m, cell.samples)
            for s in cell.samples:
                b = s["bounds"]
                if b.get("k") != k or b.get("yields") != m:
                    failures.append(f"{rel} at K={k} under {m}: the JSON reports bounds k={b.get('k')}, "
                                    f"yields={b.get('yields')}")
                    break
        failures += lockset_differences(drv)
        for k in KS:
            diff, same_notes, missing = compare_modes(drv, k)
            failures += diff
            notes += same_notes
            if missing:
                warnings.append(f"{rel} at K={k}: the precise verdicts of {', '.join(missing)} are not compared "
                                f"(no completed run)")
        failures += compare_ks(drv)

    # The report.
    measured = [d for d in drivers if not d.get("note")]
    skipped = [d for d in drivers if d.get("note")]
    cmd = shlex.join(["scripts/bench-yields.py"] + sys.argv[1:])
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "kernel-models"],
                           capture_output=True, text=True).stdout.strip()
    rev = git_revision() + (" with uncommitted changes in src/ or kernel-models/" if dirty else "")
    bounds = next((s["bounds"] for d in measured for c in d["cells"].values() for s in c.samples), None)
    bounds_text = (f"unroll {bounds['unroll']}, inline depth {bounds['inline_depth']}, "
                   f"strict {str(bounds['strict']).lower()}" if bounds else "none reported (no driver measured)")
    query = f"{args.query_timeout:g} s (--timeout)" if args.query_timeout is not None else "racewatch's default"
    elapsed = time.monotonic() - started
    lines = [
        "# Yield placement in the precise phase: all, epp and mr",
        "",
        f"Made by `{cmd.strip()}` at commit `{rev}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        f"Machine: {machine()}; 1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        f"(other processes share the machine: times are upper bounds). Binary: {shown_binary} built {built_at}.",
        f"Each driver: {args.runs} run(s) of `racewatch check --precise --yields MODE --k K --format json -j {args.jobs} FILE`",
        f"for K in {', '.join(map(str, KS))} and MODE in {', '.join(MODES)}, interleaved within each run; corpus files from the",
        "root of the repository, real drivers from the root of the linux-source tree. Other bounds: racewatch's",
        f"defaults ({bounds_text}); solver query timeout: {query}. Per-run time limit: {args.timeout:.0f} s.",
        "*Precise time*: the sum of the pairs' `seconds` (the precise phase only: the lockset phase, the same in",
        "every mode, is excluded), median over the runs. *Yields*: the sum of the pairs' `yields` (yield points",
        "placed in the two threads of each pair, both orders when the second order is searched). *Unproven*: the",
        "(pair, region) verdicts the lockset phase left as race or unknown, each searched by the precise phase;",
        "*pairs*: the pairs searched. Confirmed, not found and unknown count (pair, region) verdicts; where the",
        "modes differ they are shown as all/epp/mr. Ratios are of precise times.",
        f"Total time of this benchmark: {elapsed / 60:.1f} min.",
        "",
    ]
    if failures or warnings:
        lines += ["## Problems", ""]
        lines += [f"- **FAIL**: {md(f)}" for f in failures]
        lines += [f"- warning: {md(w)}" for w in warnings]
        lines.append("")
    else:
        lines += ["No problems: at each K the same races are confirmed under all, epp and mr; K = 3 confirms "
                  "every race K = 2 confirms; yields and verdicts are identical across runs.", ""]

    # Medians and the goal.
    medians = {}
    for k in KS:
        for other in ("mr", "epp"):
            values, used, bounded, below = [], [], False, 0
            for d in measured:
                t = time_bounds(d, k, args.timeout)
                if "all" in t and t["all"][0] < RATIO_FLOOR:
                    below += 1
                if "all" not in t or t["all"][0] < RATIO_FLOOR:
                    continue
                r = ratio(t, "all", other)
                if r is None:
                    continue
                values.append(r[0])
                used.append(d)
                bounded |= r[1]
            medians[(k, other)] = (statistics.median(values) if values else None, len(values), bounded,
                                   sum(1 for d in used if d["kind"] == "real"), below)
    lines += ["## Goal", "",
              f"Median over the drivers whose `all` precise time is at least {RATIO_FLOOR} s (below that the",
              "ratio is noise) of the per-driver ratio of precise times; a driver whose `all` run timed out counts",
              "with a lower bound of its time (the limit minus its non-precise time), which makes the median a",
              "lower bound too (shown with ≥).", "",
              "| K | all / epp | all / mr | drivers (of which real) | below the floor |",
              "| ---: | ---: | ---: | ---: | ---: |"]

    def med_text(m):
        return "–" if m[0] is None else f"{'≥ ' if m[2] else ''}{m[0]:.2f}×"
    for k in KS:
        lines.append(f"| {k} | {med_text(medians[(k, 'epp')])} | {med_text(medians[(k, 'mr')])} | "
                     f"{medians[(k, 'mr')][1]} ({medians[(k, 'mr')][3]}) | {medians[(k, 'mr')][4]} |")
    lines.append("")
    (m2, _, b2, _, _), (m3, _, b3, _, _) = medians[(2, "mr")], medians[(3, "mr")]
    undetermined = "UNDETERMINED (a median that is only a lower bound)"
    if m2 is None:
        lines.append(f"- mr at least {GOAL:g}× faster than all in the median at K = 2: **not measured** "
                     f"(no driver with an `all` time of at least {RATIO_FLOOR} s).")
    else:
        verdict = "PASS" if m2 >= GOAL else undetermined if b2 else "FAIL"
        lines.append(f"- mr at least {GOAL:g}× faster than all in the median at K = 2: "
                     f"{med_text(medians[(2, 'mr')])}, **{verdict}**.")
    if m2 is None or m3 is None:
        lines.append("- more at K = 3 than at K = 2: **not measured**.")
    else:
        verdict = ("PASS" if not b2 else undetermined) if m3 > m2 else (undetermined if b3 else "FAIL")
        lines.append(f"- more at K = 3 than at K = 2: {med_text(medians[(3, 'mr')])} against "
                     f"{med_text(medians[(2, 'mr')])}, **{verdict}**.")
    lines.append("- (the original reported 1.5× to 20×.)")
    same_yields = all(d["cells"][(k, "epp")].first["pairs"] == d["cells"][(k, "all")].first["pairs"]
                      for d in measured for k in KS
                      if d["cells"][(k, "epp")].samples and d["cells"][(k, "all")].samples)
    if measured and same_yields:
        lines += ["", "epp places exactly the yields of all on every pair measured here: it only removes yields from",
                  "pairs the lockset phase proved race-free on every region, and the precise phase searches only",
                  "pairs with an unproven region."]
    lines.append("")

    # Per-K tables.
    for k in KS:
        lines += [f"## K = {k}", ""]
        for kind, title in (("corpus", "Corpus"), ("real", "Real drivers")):
            rows = [d for d in measured if d["kind"] == kind]
            if not rows:
                continue
            lines += [f"### {title}", "",
                      "| driver | unproven | pairs | time all (s) | time epp (s) | time mr (s) | all / epp | all / mr | "
                      "yields all | yields epp | yields mr | confirmed | not found | unknown |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
            for d in rows:
                cells = {m: d["cells"][(k, m)] for m in MODES}
                any_ok = next((c.first for c in cells.values() if c.samples), None)
                t = time_bounds(d, k, args.timeout)

                def tcell(m):
                    c = cells[m]
                    if c.ok:
                        return secs(c.median("time"))
                    if c.skipped:
                        return "not run (timed out at K = 2)"
                    if c.timeout:
                        return f"timeout (> {args.timeout:.0f} s wall)"
                    return f"**{md(c.error or 'not run')}**" if c.error else "–"

                def ycell(m):
                    return str(cells[m].first["yields"]) if cells[m].samples else "–"

                counts = []
                for i in range(3):
                    vals = [str(cells[m].first["counts"][i]) if cells[m].samples else "–" for m in MODES]
                    counts.append(vals[0] if len(set(vals)) == 1 else f"**{'/'.join(vals)}**")
                unproven = any_ok["unproven"] if any_ok else "–"
                npairs = len(any_ok["pairs"]) if any_ok else "–"
                lines.append(f"| {d['rel']} | {unproven} | {npairs} | {tcell('all')} | {tcell('epp')} | {tcell('mr')} | "
                             f"{ratio_text(ratio(t, 'all', 'epp'))} | {ratio_text(ratio(t, 'all', 'mr'))} | "
                             f"{ycell('all')} | {ycell('epp')} | {ycell('mr')} | "
                             f"{counts[0]} | {counts[1]} | {counts[2]} |")
            lines.append("")

    # Totals.
    lines += ["## Totals", "",
              "Over the drivers where all three modes completed at that K.", "",
              "| K | drivers | time all (s) | time epp (s) | time mr (s) | all / mr | yields all | yields epp | "
              "yields mr | confirmed (all/epp/mr) | not found | unknown | pairs at a bound (all/epp/mr) |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k in KS:
        full = [d for d in measured if all(d["cells"][(k, m)].ok for m in MODES)]
        tot = {m: sum(d["cells"][(k, m)].median("time") for d in full) for m in MODES}
        ys = {m: sum(d["cells"][(k, m)].first["yields"] for d in full) for m in MODES}
        cnt = [[sum(d["cells"][(k, m)].first["counts"][i] for d in full) for m in MODES] for i in range(3)]
        at_bound = [sum(1 for d in full for y in d["cells"][(k, m)].first["pairs"].values() if y[1]) for m in MODES]
        r = f"{tot['all'] / tot['mr']:.2f}" if tot["mr"] else "–"
        lines.append(f"| {k} | {len(full)} | {secs(tot['all'])} | {secs(tot['epp'])} | {secs(tot['mr'])} | {r} | "
                     f"{ys['all']} | {ys['epp']} | {ys['mr']} | " + " | ".join("/".join(map(str, c)) for c in cnt) +
                     f" | {'/'.join(map(str, at_bound))} |")
    lines += ["", "*Pairs at a bound*: pairs whose search reached the unrolling or inlining bound (their",
              "not-found verdicts say nothing beyond it).", ""]

    # Wall-clock times.
    lines += ["## Wall-clock times", "",
              "Median wall time of the whole process (front end, lowering, lockset and precise phases), in seconds.", "",
              "| driver | " + " | ".join(f"K={k} {m}" for k in KS for m in MODES) + " | peak memory (MiB) |",
              "| --- | " + " | ".join("---:" for _ in KS for _ in MODES) + " | ---: |"]
    for d in measured:
        walls = []
        for k in KS:
            for m in MODES:
                c = d["cells"][(k, m)]
                walls.append(secs(c.median("wall")) if c.ok else "not run" if c.skipped else f"> {args.timeout:.0f}" if c.timeout else "–")
        rss = max((s["rss"] for c in d["cells"].values() for s in c.samples), default=None)
        lines.append(f"| {d['rel']} | " + " | ".join(walls) + f" | {'–' if rss is None else f'{rss:.0f}'} |")
    lines.append("")

    timeouts = [f"{d['rel']} at K={k} under {m} (run {d['cells'][(k, m)].error_run})"
                for d in measured for k in KS for m in MODES
                if d["cells"][(k, m)].timeout and not d["cells"][(k, m)].skipped]
    not_run = [f"{d['rel']} at K={k} under {m}" for d in measured for k in KS for m in MODES
               if d["cells"][(k, m)].skipped]
    lines += ["## Timeouts", "",
              (f"Over {args.timeout:.0f} s: " + "; ".join(timeouts) + ".") if timeouts else "None.", ""]
    if not_run:
        lines += ["Not run, because the same mode timed out at K = 2: " + "; ".join(not_run) + ".", ""]

    if notes:
        lines += ["## Other verdict differences", "",
                  "Not-found against unknown between modes (no race is confirmed in any mode; not a failure):", ""]
        lines += [f"- {md(n)}" for n in notes]
        lines.append("")

    if skipped:
        lines += ["## Skipped", "", "| driver | why |", "| --- | --- |"]
        lines += [f"| {d['rel']} | {md(d['note'])} |" for d in skipped]
        lines.append("")

    write_atomically(Path(args.output), "\n".join(lines))
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    for f in failures:
        print(f"error: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)


main()
