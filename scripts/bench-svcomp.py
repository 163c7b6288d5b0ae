#!/usr/bin/env python3
"""Runs `racewatch svcomp` on every SV-COMP NoDataRace task of a directory,
scores the answers the SV-COMP way and writes results/svcomp.md.

Usage: scripts/bench-svcomp.py [DIR] [--jobs N] [--time-limit S] [--filter RE]
       [--output FILE] [--limit N]

DIR (default ../shared/svcomp, relative to the checkout) holds tasks/*.yml,
README.md (the field's table) and peers-svcomp2025.tsv. Each task runs with
a wall-clock limit (default 60 s); a task that does not finish, crashes or
prints no verdict counts as `unknown`. Scoring (SV-COMP): +2 correct true,
+1 correct false, -32 wrong true, -16 wrong false, 0 unknown. The family of
a task is its name up to the first `_` (the sv-benchmarks folder's own
prefix, e.g. `28-race` of goblint-regression, `safe018` of pthread-wmm).
The exit code is 1 when any answer is wrong.
"""

import argparse
import concurrent.futures as cf
import os
import platform
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCORES = {("true", "true"): 2, ("false", "false"): 1, ("true", "false"): -32, ("false", "true"): -16}


def expected_verdict(yml: Path):
    """The expected verdict of the no-data-race property, or None."""
    prop = None
    for line in yml.read_text().splitlines():
        s = line.strip().lstrip("- ").strip()
        if s.startswith("property_file:"):
            prop = s.split(":", 1)[1].strip()
        elif s.startswith("expected_verdict:") and prop and prop.endswith("no-data-race.prp"):
            return s.split(":", 1)[1].strip()
    return None


def run_task(binary: Path, yml: Path, limit: float):
    start = time.monotonic()
    try:
        p = subprocess.run([str(binary), "svcomp", "--time-limit", str(max(1, int(limit * 0.8))), str(yml)],
                           capture_output=True, text=True, timeout=limit)
        out = p.stdout.strip().splitlines()
        verdict = out[0].strip() if out else "unknown"
        if verdict not in ("true", "false", "unknown"):
            verdict = "unknown"
        reason = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        if p.returncode != 0:
            verdict, reason = "unknown", f"exit code {p.returncode}: {reason}"
    except subprocess.TimeoutExpired:
        verdict, reason = "unknown", f"time limit ({limit:.0f} s)"
    return verdict, reason, time.monotonic() - start


def family(name: str) -> str:
    return name.split("_", 1)[0]


def field_table(readme: Path) -> str:
    if not readme.exists():
        return "(the directory has no README.md)\n"
    lines = readme.read_text().splitlines()
    out, inside = [], False
    for line in lines:
        if line.startswith("## The field"):
            inside = True
            out.append(line.replace("## ", "### "))
            continue
        if inside and line.startswith("## "):
            break
        if inside:
            out.append(line)
    return "\n".join(out).strip() + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=str(ROOT.parent / "shared" / "svcomp"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--filter", default=None, help="only tasks whose name matches this regular expression")
    ap.add_argument("--limit", type=int, default=None, help="only the first N tasks (in name order)")
    ap.add_argument("--output", default=str(ROOT / "results" / "svcomp.md"))
    ap.add_argument("--binary", default=str(ROOT / "target" / "release" / "racewatch"))
    args = ap.parse_args()

    tasks_dir = Path(args.dir) / "tasks"
    if not tasks_dir.is_dir():
        print(f"error: {tasks_dir} does not exist", file=sys.stderr)
        return 2
    tasks = sorted(tasks_dir.glob("*.yml"))
    if args.filter:
        tasks = [t for t in tasks if re.search(args.filter, t.name)]
    if args.limit:
        tasks = tasks[: args.limit]
    tasks = [(t, expected_verdict(t)) for t in tasks]
    tasks = [(t, e) for t, e in tasks if e in ("true", "false")]
    load_before = os.getloadavg()
    start = time.monotonic()
    results = {}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_task, Path(args.binary), t, args.time_limit): (t, e) for t, e in tasks}
        for i, f in enumerate(cf.as_completed(futures), 1):
            t, e = futures[f]
            verdict, reason, secs = f.result()
            results[t.name] = (e, verdict, reason, secs)
            mark = "WRONG" if (verdict, e) in (("true", "false"), ("false", "true")) else ""
            print(f"[{i}/{len(tasks)}] {t.name}: {verdict} (expected {e}, {secs:.1f} s) {mark}", file=sys.stderr)
    wall = time.monotonic() - start
    load_after = os.getloadavg()

    score = 0
    per_family = defaultdict(lambda: defaultdict(int))
    wrong = []
    for name, (e, v, reason, secs) in sorted(results.items()):
        s = SCORES.get((v, e), 0)
        score += s
        fam = per_family[family(name)]
        fam["tasks"] += 1
        fam["expected " + e] += 1
        if v == "unknown":
            fam["unknown"] += 1
        elif v == e:
            fam["correct " + v] += 1
        else:
            fam["wrong " + v] += 1
            wrong.append((name, e, v, reason))
        fam["score"] += s
        fam["max"] += 2 if e == "true" else 1
        fam["time"] += secs
    maximum = sum(2 if e == "true" else 1 for e, *_ in results.values())
    total = defaultdict(int)
    for fam in per_family.values():
        for k, v in fam.items():
            total[k] += v

    cmd = "scripts/bench-svcomp.py " + " ".join(sys.argv[1:])
    lines = [
        "# racewatch on SV-COMP NoDataRace tasks",
        "",
        f"Command: `{cmd.strip()}` (per-task limit {args.time_limit:.0f} s, {args.jobs} jobs).",
        f"Machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.platform()}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after.",
        f"Tasks: {len(results)} from `{args.dir}`; wall time {wall:.0f} s.",
        "",
        f"**Score: {score} of {maximum}** ({100.0 * score / maximum if maximum else 0:.1f}%): "
        f"correct true {total['correct true']}, correct false {total['correct false']}, "
        f"wrong true {total['wrong true']}, wrong false {total['wrong false']}, unknown {total['unknown']}.",
        "",
        "racewatch answers `true` only when the lockset phase proves every pair and no unsound assumption",
        "was made, and `false` only with a race the precise phase confirmed on a program faithful to the",
        "pthread program, whose witness replays (docs/svcomp.md).",
        "",
        "## Per family",
        "",
        "| family | tasks | expected true/false | correct true | correct false | wrong | unknown | score | max | time (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, fam in sorted(per_family.items()):
        lines.append(
            f"| {name} | {fam['tasks']} | {fam['expected true']}/{fam['expected false']} | {fam['correct true']} | "
            f"{fam['correct false']} | {fam['wrong true'] + fam['wrong false']} | {fam['unknown']} | {fam['score']} | "
            f"{fam['max']} | {fam['time']:.0f} |"
        )
    lines += ["", "## Wrong answers", ""]
    if wrong:
        for name, e, v, reason in wrong:
            lines.append(f"- {name}: answered {v}, expected {e}. {reason}")
    else:
        lines.append("None.")
    lines += ["", "## Unknown answers by reason", ""]
    reasons = defaultdict(int)
    for name, (e, v, reason, secs) in results.items():
        if v == "unknown":
            key = re.sub(r"\d+", "N", reason.split(":")[1].strip() if ":" in reason else reason)[:80]
            reasons[key] += 1
    lines += ["| reason | tasks |", "|---|---:|"]
    for r, n in sorted(reasons.items(), key=lambda x: -x[1]):
        lines.append(f"| {r.replace('|', '/')} | {n} |")
    lines += ["", "## The field (from the directory's README.md)", "", field_table(Path(args.dir) / "README.md")]
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(lines) + "\n")
    print(f"score {score} of {maximum}; wrong {len(wrong)}; unknown {total['unknown']}; written to {args.output}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
