#!/usr/bin/env python3
"""Runs the lockset phase over the real Linux 6.12 drivers of
drivers/linux-6.12/drivers.txt and writes results/lockset.md: per driver,
entry points, pairs (after kernel serialisation), regions, pairs proven,
potential races, unknowns, the libclang parse time, the lockset time
(Houdini + pair checks), their ratio, the total time and the peak memory;
the -j 1 / -j 2 comparison on r8169_main.c; and the classification of every
reported race against drivers/linux-6.12/races/<driver>.tsv.

Each driver is run RUNS times with `racewatch check -v --format json -j JOBS`
(from the root of the linux-source tree, so locations are relative paths).
racewatch itself times the parse (`front` line) and the lockset phases
(`phases` line: houdini and pairs, wall clock); the total is racewatch's own
`time` line; peak memory is the child's maximum resident set size (wait4).
Times and memory are medians. Entry points (`racewatch entry-points`) and
regions (`racewatch ivl --stats`) are counted once per driver.

Classification files (drivers/linux-6.12/races/<file name without .c>.tsv):
tab-separated, `#` starts a comment line; columns region, first, second,
class, reason. `first`/`second` are entry-point names or `*`; the pair is
unordered. class is real, benign or false-alarm; a false alarm's reason
starts with its cause in brackets (`[havoc] ...`). A race (pair, region) is
classified by the first line that matches it.

A run that exceeds --timeout seconds (default 120; 4x for the -j 1 runs) is killed and the driver
is recorded as timed out (no verdicts, so nothing to classify), with a
warning. Exit status: 1 when a reported race has no classification, when a
classification file is malformed, when the -j 1 and -j JOBS outputs (or two
runs) differ, or when a run fails; the results file is written in every
case. Lines of a classification file that match no reported race are warned
about. The performance bounds (lockset <= 10 x parse in the median, no
driver over 60 s, -j 2 >= 1.6 x faster) are reported, not enforced.

Usage: scripts/bench-lockset.py [--runs N] [--jobs N] [--timeout S]
           [--drivers NAME,...] [--quick] [--no-compare] [--no-setup] [--output FILE]
"""
import argparse
import collections
import json
import os
import re
import shutil
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

RACES_DIR = REPO / "drivers/linux-6.12/races"
CLASSES = ["real", "benign", "false-alarm"]
COMPARE_DRIVER = "r8169_main"
# Drivers of the list that cannot be checked.
def seconds(pattern, text):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else None


def check_once(binary, src, rel, jobs, timeout):
    """One `check` run: a dict of the measurements and the JSON text, or a
    dict with an `error` (timeout, refused file, failure)."""
    code, out, err, wall, rss = run_child([binary, "check", "-v", "--format", "json", "-j", jobs, rel], src, timeout)
    if code is None:
        return {"error": f"timeout (over {timeout:.0f} s)", "wall": wall, "rss": rss}
    # Exit codes (docs/cli.md): 0 proven, 1 races, 2 errors, 3 unknowns; a
    # refused file is an error entry of the JSON document.
    try:
        entry = json.loads(out)["files"][0]
    except (ValueError, KeyError, IndexError):
        last = (err.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {code}: {last}", "wall": wall, "rss": rss}
    if "error" in entry:
        return {"error": f"{entry['error']['class']}: {entry['error']['message']}", "wall": wall, "rss": rss}
    if code not in (0, 1, 3):
        last = (err.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {code}: {last}", "wall": wall, "rss": rss}
    esc = re.escape(rel)
    return {
        "json": out,
        "doc": entry,
        "parse": seconds(rf"^front {esc}: parse ([\d.]+) s", err),
        "houdini": seconds(rf"^phases {esc}: houdini ([\d.]+) s", err),
        "pairs_time": seconds(rf"^phases {esc}: .*; pairs ([\d.]+) s", err),
        "total": seconds(rf"^time {esc} ([\d.]+) s", err),
        "wall": wall,
        "rss": rss,
    }


def count_entry_points(binary, src, rel):
    code, out, _, _, _ = run_child([binary, "entry-points", rel], src, 300)
    m = re.search(r": (\d+) entry points", out)
    return int(m.group(1)) if m else None


def count_regions(binary, src, rel):
    code, out, _, _, _ = run_child([binary, "ivl", "--stats", rel], src, 300)
    m = re.search(r"^\s+regions\s+(\d+)$", out, re.M)
    return int(m.group(1)) if m else None


def races_of(doc):
    """Every race of a file's verdicts: (first, second, region, accesses)."""
    for p in doc["pairs"]:
        for r in p["regions"]:
            if r["verdict"] == "race":
                yield p["first"], p["second"], r["region"], r.get("accesses", [])


def unknown_regions(doc):
    return sum(1 for p in doc["pairs"] for r in p["regions"] if r["verdict"] == "unknown")


# Classification files.

class Rule:
    def __init__(self, path, line_no, region, first, second, cls, reason):
        self.path, self.line_no = path, line_no
        self.region, self.first, self.second, self.cls, self.reason = region, first, second, cls, reason
        m = re.match(r"\[([a-z0-9-]+)\]\s*", reason)
        self.cause = m.group(1) if m else None
        self.matched = []

    def matches(self, first, second, region):
        if region != self.region:
            return False

        def ok(pattern, name):
            return pattern == "*" or pattern == name
        return (ok(self.first, first) and ok(self.second, second)) or \
            (ok(self.first, second) and ok(self.second, first))

    def where(self):
        return f"{self.path.relative_to(REPO)}:{self.line_no}"


def read_rules(name):
    """The rules of a driver's classification file ([] if none) and the
    problems found in it."""
    path = RACES_DIR / f"{name}.tsv"
    rules, problems = [], []
    if not path.exists():
        return None, problems
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 5:
            problems.append(f"{path.relative_to(REPO)}:{n}: {len(cols)} columns, expected 5 "
                            "(region, first, second, class, reason)")
            continue
        region, first, second, cls, reason = (c.strip() for c in cols)
        if cls not in CLASSES:
            problems.append(f"{path.relative_to(REPO)}:{n}: class {cls!r} is not one of {', '.join(CLASSES)}")
            continue
        rule = Rule(path, n, region, first, second, cls, reason)
        if cls == "false-alarm" and not rule.cause:
            problems.append(f"{path.relative_to(REPO)}:{n}: a false alarm's reason must start with its cause "
                            "in brackets, e.g. [havoc]")
            continue
        rules.append(rule)
    return rules, problems


def classify(name, doc):
    """Matches every race of doc against the driver's rules: (rules,
    unclassified races, problems)."""
    rules, problems = read_rules(name)
    unclassified = []
    for first, second, region, accesses in races_of(doc):
        rule = next((r for r in rules or [] if r.matches(first, second, region)), None)
        if rule is None:
            unclassified.append((first, second, region, accesses))
        else:
            rule.matched.append((first, second, region, accesses))
    return rules, unclassified, problems


def access_text(a, rel=None):
    """function:line, or function (file:line) when the access is outside the driver's file; read or write; the
    locks held."""
    loc = a.get("location")
    if not loc:
        at = f"{a['function']}:?"
    elif rel is None or loc.get("file") == rel:
        at = f"{a['function']}:{loc['line']}"
    else:
        at = f"{a['function']} ({Path(loc['file']).name}:{loc['line']})"
    kind = ("atomic " if a.get("atomic") else "") + ("write" if a.get("write") else "read")
    locks = f" holding {', '.join(a['locks'])}" if a.get("locks") else ""
    return f"{at} {kind}{locks}"


def md(text):
    return str(text).replace("|", "\\|")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "–" if v is None else f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per driver (medians)")
    ap.add_argument("--jobs", type=int, default=2, help="racewatch --jobs for the main table")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run before a driver counts as timed out")
    ap.add_argument("--drivers", help="comma-separated driver names (file names without .c) to run")
    ap.add_argument("--quick", action="store_true", help="one run per driver, no -j 1 comparison")
    ap.add_argument("--no-compare", action="store_true", help="skip the -j 1 / -j 2 comparison")
    ap.add_argument("--no-setup", action="store_true", help="do not run scripts/setup.sh (which builds racewatch)")
    ap.add_argument("--output", default=str(REPO / "results/lockset.md"))
    args = ap.parse_args()
    if args.quick:
        args.runs, args.no_compare = 1, True
    if not args.no_setup:
        subprocess.run([REPO / "scripts/setup.sh"], check=True)
    # A private copy: the binary in target/ may be rebuilt while this runs.
    built = REPO / "target/release/racewatch"
    if not built.exists():
        sys.exit(f"{built} not found: run cargo build --release (or drop --no-setup)")
    private = tempfile.TemporaryDirectory(prefix="bench-lockset-")
    binary = Path(private.name) / "racewatch"
    shutil.copy2(built, binary)
    built_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(built.stat().st_mtime))
    load_start = os.getloadavg()[0]
    src = cache_dir() / "linux-source/current"
    drivers = [l.strip() for l in open(REPO / "drivers/linux-6.12/drivers.txt") if l.strip() and not l.startswith("#")]
    if args.drivers:
        wanted = set(args.drivers.split(","))
        unknown = wanted - {driver_name(d) for d in drivers}
        if unknown:
            sys.exit(f"unknown drivers: {', '.join(sorted(unknown))}")
        drivers = [d for d in drivers if driver_name(d) in wanted]

    failures, warnings = [], []
    rows = []  # one dict per driver
    samples_of = {}
    for rel in drivers:
        name = driver_name(rel)
        row = {"rel": rel, "name": name}
        rows.append(row)
        if not (src / rel).exists():
            row["note"] = NOT_IN_TREE
            print(f"{rel}: {NOT_IN_TREE}", file=sys.stderr)
            continue
        samples = []
        for i in range(args.runs):
            s = check_once(binary, src, rel, args.jobs, args.timeout)
            samples.append(s)
            if "error" in s:
                break
            print(f"{rel} run {i + 1}: lockset {s['houdini'] + s['pairs_time']:.2f} s, total {s['total']:.2f} s, "
                  f"{s['rss']:.0f} MiB", file=sys.stderr)
        if "error" in samples[-1]:
            err = samples[-1]["error"]
            if err.startswith("missing-header"):
                row["note"] = f"{NOT_PARSED}, {WHY_NOT_PARSED.get(rel, 'a header is missing')} ({err})"
            else:
                row["note"] = err
            row["wall"], row["rss"] = samples[-1]["wall"], samples[-1]["rss"]
            if err.startswith("timeout"):
                warnings.append(f"{rel}: {err}: no verdicts, so its races are not classified")
            elif not err.startswith("missing-header"):
                failures.append(f"{rel}: {err}")
            print(f"{rel}: {row['note']}", file=sys.stderr)
            continue
        samples_of[name] = samples
        first = samples[0]
        texts = {s["json"] for s in samples}
        if len(texts) > 1:
            failures.append(f"{rel}: the {args.runs} runs gave different JSON outputs")
        doc = first["doc"]
        row.update({
            "doc": doc,
            "entry_points": count_entry_points(binary, src, rel),
            "regions": count_regions(binary, src, rel),
            "region_checks": sum(len(p["regions"]) for p in doc["pairs"]),
            "unknown_regions": unknown_regions(doc),
            "parse": median(s["parse"] for s in samples),
            "lockset": median(s["houdini"] + s["pairs_time"] for s in samples),
            "houdini": median(s["houdini"] for s in samples),
            "pairs_time": median(s["pairs_time"] for s in samples),
            "total": median(s["total"] for s in samples),
            "rss": median(s["rss"] for s in samples),
        })
        row["ratio"] = row["lockset"] / row["parse"] if row["parse"] else None
        print(f"{rel}: {doc['totals']}; parse {row['parse']:.2f} s, lockset {row['lockset']:.2f} s "
              f"(ratio {row['ratio']:.1f}), total {row['total']:.2f} s, {row['rss']:.0f} MiB", file=sys.stderr)

    # -j 1 against -j JOBS on r8169_main.c, on identical output.
    compare = None
    if not args.no_compare and COMPARE_DRIVER in samples_of:
        rel = next(r["rel"] for r in rows if r["name"] == COMPARE_DRIVER)
        fast = samples_of[COMPARE_DRIVER]
        slow = []
        for i in range(args.runs):
            s = check_once(binary, src, rel, 1, args.timeout * 4)
            slow.append(s)
            if "error" in s:
                failures.append(f"{rel} -j 1: {s['error']}")
                break
            print(f"{rel} -j 1 run {i + 1}: lockset {s['houdini'] + s['pairs_time']:.2f} s, "
                  f"total {s['total']:.2f} s", file=sys.stderr)
        if all("error" not in s for s in slow):
            identical = {s["json"] for s in slow} == {s["json"] for s in fast}
            if not identical:
                failures.append(f"{rel}: -j 1 and -j {args.jobs} JSON outputs differ")
            compare = {
                "rel": rel,
                "j1_total": median(s["total"] for s in slow),
                "jn_total": median(s["total"] for s in fast),
                "j1_lockset": median(s["houdini"] + s["pairs_time"] for s in slow),
                "jn_lockset": median(s["houdini"] + s["pairs_time"] for s in fast),
                "j1_rss": median(s["rss"] for s in slow),
                "identical": identical,
            }

    # Classification.
    classified = {}
    unclassified_all, unused, problems_all = [], [], []
    for row in rows:
        if "doc" not in row:
            continue
        rules, unclassified, problems = classify(row["name"], row["doc"])
        classified[row["name"]] = (rules, unclassified)
        problems_all += problems
        for first, second, region, accesses in unclassified:
            unclassified_all.append(f"{row['rel']}: {first} × {second} on {region!r}: "
                                    + "; ".join(access_text(a, row["rel"]) for a in accesses))
        for rule in rules or []:
            if not rule.matched:
                unused.append(f"{rule.where()}: {rule.region!r} {rule.first} × {rule.second} matches no reported race")
        if rules is None and row["doc"]["totals"]["races"]:
            problems_all.append(f"{row['rel']}: no classification file {(RACES_DIR / (row['name'] + '.tsv')).relative_to(REPO)}")

    # The report.
    measured = [r for r in rows if "doc" in r]
    cmd = "scripts/bench-lockset.py " + " ".join(sys.argv[1:]) if sys.argv[1:] else "scripts/bench-lockset.py"
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "kernel-models"],
                           capture_output=True, text=True).stdout.strip()
    rev = git_revision() + (" with uncommitted changes in src/ or kernel-models/" if dirty else "")
    lines = [
        "# Lockset phase on the real drivers",
        "",
        f"Made by `{cmd.strip()}` at commit `{rev}`.",
        f"Machine: {machine()}; 1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        f"(other processes share the machine: times are upper bounds). Binary: target/release/racewatch built {built_at}.",
        f"Each driver: {args.runs} run(s) of `racewatch check -v --format json -j {args.jobs} FILE` from the root of",
        "the linux-source tree; times and memory are medians. Parse is libclang's parse of the file;",
        "lockset is Houdini plus the pair checks (wall clock, racewatch's own `phases` line); total is",
        "racewatch's `time` line (front end, lowering, lockset); memory is the child's peak resident set.",
        "Entry points come from `racewatch entry-points`, regions from `racewatch ivl --stats`; pairs are",
        "the pairs left after kernel serialisation, all checked; *proven* pairs are proven on every",
        "region; *races* are (pair, region) verdicts; *unknown* pairs have an unknown region and no race",
        f"(the unknown (pair, region) verdicts are in brackets). Per-run timeout: {args.timeout:.0f} s.",
        "",
        "| driver | entry points | pairs | regions | region checks | pairs proven | races | unknown | "
        "parse (s) | lockset (s) | lockset / parse | total (s) | peak memory (MiB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if "doc" not in r:
            mem = f"{r['rss']:.0f}" if "rss" in r and "timeout" in r.get("note", "") else "–"
            total = f"> {args.timeout:.0f}" if "timeout" in r.get("note", "") else "–"
            lines.append(f"| {r['rel']} | {md(r['note'])} | | | | | | | | | | {total} | {mem} |")
            continue
        t = r["doc"]["totals"]
        unk = f"{t['unknown']} ({r['unknown_regions']})"
        lines.append(f"| {r['rel']} | {r['entry_points']} | {t['pairs']} | {r['regions']} | {r['region_checks']} | "
                     f"{t['proven']} | {t['races']} | {unk} | {fmt(r['parse'])} | {fmt(r['lockset'])} | "
                     f"{fmt(r['ratio'], 1)} | {fmt(r['total'])} | {r['rss']:.0f} |")
    lines.append("")
    if measured:
        ratios = [r["ratio"] for r in measured if r["ratio"] is not None]
        slowest = max(measured, key=lambda r: r["lockset"])
        slowest_total = max(measured, key=lambda r: r["total"])
        timed_out = [r["rel"] for r in rows if "timeout" in r.get("note", "")]
        lines += [
            f"Median lockset / parse over {len(measured)} drivers: **{statistics.median(ratios):.1f}** (bound: 10).",
            f"Largest lockset time: **{slowest['lockset']:.1f} s** ({slowest['rel']}; bound: 60 s); "
            f"largest total: {slowest_total['total']:.1f} s ({slowest_total['rel']}).",
        ]
        if timed_out:
            lines.append(f"Timed out (over {args.timeout:.0f} s, not in the median): {', '.join(timed_out)}.")
        lines.append("")
    if compare:
        c = compare
        lines += [
            f"## -j 1 against -j {args.jobs} on {c['rel']}",
            "",
            f"| jobs | lockset (s) | total (s) |",
            "| ---: | ---: | ---: |",
            f"| 1 | {c['j1_lockset']:.2f} | {c['j1_total']:.2f} |",
            f"| {args.jobs} | {c['jn_lockset']:.2f} | {c['jn_total']:.2f} |",
            "",
            f"Speed-up: **{c['j1_lockset'] / c['jn_lockset']:.2f}×** on the lockset phase, "
            f"{c['j1_total'] / c['jn_total']:.2f}× in total (bound: 1.6×). JSON outputs of every run "
            f"{'**byte-identical**' if c['identical'] else '**DIFFERENT**'}.",
            "",
        ]
    elif not args.no_compare and any(r["name"] == COMPARE_DRIVER for r in rows):
        lines += [f"## -j 1 against -j {args.jobs}", "", f"Not measured: {COMPARE_DRIVER}.c did not complete.", ""]

    lines += [
        "## Classification of the reported races",
        "",
        "Every race is matched against drivers/linux-6.12/races/<driver>.tsv (first matching line).",
        "*real*: the interleaving can happen and does harm; *benign*: it can happen and is harmless;",
        "*false alarm*: it cannot happen, with the cause in brackets.",
        "",
        "| driver | races | real | benign | false alarm | false alarms by cause | unclassified |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    totals = collections.Counter()
    causes_all = collections.Counter()
    for r in measured:
        rules, unclassified = classified[r["name"]]
        counts = collections.Counter()
        causes = collections.Counter()
        for rule in rules or []:
            counts[rule.cls] += len(rule.matched)
            if rule.cls == "false-alarm":
                causes[rule.cause] += len(rule.matched)
        totals.update(counts)
        totals["races"] += r["doc"]["totals"]["races"]
        totals["unclassified"] += len(unclassified)
        causes_all.update(causes)
        cause_text = ", ".join(f"{k} {v}" for k, v in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])) if v)
        lines.append(f"| {r['rel']} | {r['doc']['totals']['races']} | {counts['real']} | {counts['benign']} | "
                     f"{counts['false-alarm']} | {cause_text or '–'} | {len(unclassified)} |")
    cause_text = ", ".join(f"{k} {v}" for k, v in sorted(causes_all.items(), key=lambda kv: (-kv[1], kv[0])) if v)
    for r in rows:
        if "doc" not in r and r.get("note") != NOT_IN_TREE and not r.get("note", "").startswith(NOT_PARSED):
            lines.append(f"| {r['rel']} | no verdicts ({md(r['note'])}) | | | | | |")
    lines += [f"| **all** | {totals['races']} | {totals['real']} | {totals['benign']} | {totals['false-alarm']} | "
              f"{cause_text or '–'} | {totals['unclassified']} |", ""]

    lines += ["## Classified race groups", "",
              "One row per classification line that matched: the region, the entry-point pattern, how many",
              "(pair, region) races it classifies, the accesses racewatch reported (function:line, over the",
              "matched races), the class and the reason.", ""]
    for r in measured:
        rules, unclassified = classified[r["name"]]
        used = [rule for rule in rules or [] if rule.matched]
        if not used and not unclassified:
            continue
        lines += [f"### {r['rel']}", "",
                  "| region | pair | races | accesses | class | reason |",
                  "| --- | --- | ---: | --- | --- | --- |"]
        for rule in used:
            sites = []
            for _, _, _, accesses in rule.matched:
                for a in accesses:
                    t = access_text(a, r["rel"])
                    if t not in sites:
                        sites.append(t)
            shown = "; ".join(sites[:6]) + (f"; … ({len(sites) - 6} more)" if len(sites) > 6 else "")
            lines.append(f"| {md(rule.region)} | {md(rule.first)} × {md(rule.second)} | {len(rule.matched)} | "
                         f"{md(shown)} | {rule.cls} | {md(rule.reason)} |")
        for first, second, region, accesses in unclassified:
            lines.append(f"| {md(region)} | {first} × {second} | 1 | "
                         f"{md('; '.join(access_text(a, r['rel']) for a in accesses))} | **unclassified** | |")
        lines.append("")

    write_atomically(Path(args.output), "\n".join(lines))
    for w in warnings + unused:
        print(f"warning: {w}", file=sys.stderr)
    for p in problems_all:
        print(f"error: {p}", file=sys.stderr)
    if unclassified_all:
        print(f"error: {len(unclassified_all)} reported race(s) without a classification:", file=sys.stderr)
        for u in unclassified_all:
            print(f"  {u}", file=sys.stderr)
    for f in failures:
        print(f"error: {f}", file=sys.stderr)
    if unclassified_all or failures or problems_all:
        sys.exit(1)


if __name__ == "__main__":
    main()
