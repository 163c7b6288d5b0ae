#!/usr/bin/env python3
"""Runs `racewatch check` on a fixed random sample of 1000 .c files of the
whole Linux 6.12 drivers/ tree and writes results/tree-coverage.md: the
command, the machine, the load, how many files ended each way (verified with
and without potential races, no entry points, not a unit of compilation, not
built by Debian's x86-64 configuration with its reason, error with its cause,
crash, timeout), and every file the configuration builds that does not parse,
with its cause.

The sample is fixed: every .c file under drivers/ of Debian's
linux-source-6.12 (set-up's `--tree` extract), sorted by path, then
random.Random(SEED).sample(files, SAMPLE). `--slice N` runs only the first N
files of the sample (in sample order), to find failure classes quickly.

Two passes, two files at a time, from the tree's root (paths read
`drivers/…`):

1. parse: `racewatch entry-points -j 1 FILE` on every file of the sample
   (the front end alone: flags, parse, entry points; a few seconds a file),
   which decides the acceptance "every file the configuration builds
   parses".
2. check: `racewatch check --format json -j 1 FILE` (default budgets) on the
   files of the sample in sample order, which counts verdicts, crashes and
   timeouts. A whole check takes from a second to the 600 s file budget, so
   this pass is resumable (`--resume` keeps the outcomes logged in the
   cache) and the table says how many files it covered.

The table is rewritten every few files, so an interrupted run leaves a
partial table that says how far it got.

Usage: scripts/tree-coverage.py [--slice N] [--no-setup] [--resume]
                                [--skip-check] [--output FILE]
"""
import argparse
import concurrent.futures
import json
import os
import platform
import random
import re
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, git_revision, machine, run_child, write_atomically  # noqa: E402

SEED = 20261126
SAMPLE = 1000
PARALLEL = 2
# A file's analysis is stopped by racewatch's own --file-timeout (600 s by
# default); this is only the script's guard against a hung process.
GUARD_SECONDS = 900

# Phrases of racewatch's error messages (src/frontend/flags.rs `explain`)
# saying that Debian's x86-64 configuration does not build the file.
NOT_BUILT = "the kernel's configuration does not build this file"


def sample_files(tree):
    files = sorted(str(p.relative_to(tree)) for p in (tree / "drivers").rglob("*.c") if p.is_file())
    return random.Random(SEED).sample(files, SAMPLE)


def parse_outcome(code, out, err, wall):
    """One file's front-end outcome: (outcome, detail)."""
    if code is None:
        return "timeout", f"the script's guard stopped it after {wall:.0f} s"
    lines = err.strip().splitlines()
    note = [l for l in lines if "[not-a-unit]" in l]
    if note:
        return NOT_A_UNIT, note[0]
    errors = [l for l in lines if ": error: " in l]
    if code == 0 and not errors:
        return PARSES, ""
    if not errors:
        return "crash", f"exit {code}: {(lines[-1:] or ['no output'])[0][:300]}"
    message = errors[0]
    if NOT_BUILT in message:
        return UNBUILT, message
    return BROKEN, message


def check_outcome(code, out, err, wall):
    """One file's `check` outcome: (outcome, detail)."""
    if code is None:
        return "timeout", f"the script's guard stopped it after {wall:.0f} s"
    try:
        f = json.loads(out)["files"][0]
    except (ValueError, KeyError, IndexError):
        tail = err.strip().splitlines()[-1:] or ["no output"]
        return "crash", f"exit {code}: {tail[0][:300]}"
    status = f["status"]
    if status == "verified":
        t = f["totals"]
        if t["races"] > 0:
            return "verified, potential races", f"{t['races']} races, {t['unknown']} unknown, {t['pairs']} pairs"
        return "verified, no potential race", f"{t['proven']} of {t['pairs']} pairs proven, {t['unknown']} unknown"
    if status == "no-entry-points":
        return "no entry points", ""
    if status == "not-a-unit":
        return NOT_A_UNIT, f["note"]["message"]
    message = f.get("error", {}).get("message", "")
    if status in ("timeout", "crash", "skipped"):
        return status, message
    if NOT_BUILT in message:
        return UNBUILT, message
    return BROKEN, f"[{f.get('error', {}).get('class', '?')}] {message}"


PARSES = "parses"
NOT_A_UNIT = "not a unit (included by another file)"
UNBUILT = "not built by the x86-64 configuration"
BROKEN = "error, not shown unbuilt"


def cause(detail):
    """A short failure class of an error message, for grouping."""
    m = re.search(r"'([^']+)' file not found", detail)
    if m:
        return f"header not found: {m.group(1)}"
    m = re.search(r"\[([a-z-]+)\]\s*$", detail)
    return m.group(1) if m else "other"


def reason(detail):
    """Why a file is not built, from its message."""
    m = re.search(re.escape(NOT_BUILT) + r" \(([^)]*)\)", detail)
    why = m.group(1) if m else "other"
    if "the driver is for another architecture" in detail:
        return "another architecture's header"
    if why.endswith("not set"):
        return "a CONFIG option on the way is not set"
    return why


# Why the remaining failure classes cannot be fixed in the front end, by a
# phrase of the error message.
KNOWN_CAUSES = [
    (".xml.h' file not found", "a header generated at build time (msm's register headers, made by "
                               "drivers/gpu/drm/msm/registers/gen_header.py from XML): not in any source tree"),
    ("'generated/", "a header generated at build time (xe's generated/xe_wa_oob.h, made by the host program "
                    "xe_gen_wa_oob): not in any source tree"),
    ("'stdlib.h' file not found", "a host program (the Makefile's `hostprogs`), compiled for the build machine "
                                  "with the C library, not kernel code"),
]


def known_cause(detail):
    return next((why for phrase, why in KNOWN_CAUSES if phrase in detail), "")


def esc(text, n):
    return text.replace("|", "\\|").replace("\n", " ")[:n]


def counts_table(rows, order):
    counts = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    lines = ["| outcome | files |", "|---|---:|"]
    for o in order + sorted(set(counts) - set(order)):
        lines.append(f"| {o} | {counts.get(o, 0)} |")
    lines.append(f"| total | {len(rows)} |")
    return lines


def render(state, total, args_shown, started, load_start, rev):
    parse_rows, check_rows = state["parse"], state["check"]
    lines = ["# racewatch over a fixed random sample of Linux 6.12's drivers/", ""]
    lines.append(f"Generated by `scripts/tree-coverage.py{' ' + ' '.join(args_shown) if args_shown else ''}` at revision {rev}.")
    lines.append("")
    lines += [
        f"- Sample: every .c file under drivers/ of Debian's linux-source-6.12 (set-up's `--tree` extract), sorted by path, "
        f"then `random.Random({SEED}).sample(files, {SAMPLE})`; {total} files in this run.",
        f"- Flags: racewatch's default (Debian's 6.12 amd64 headers and their include/config/auto.conf; each directory "
        f"Makefile's ccflags), nothing per file.",
        f"- Machine: {machine()}; Python {platform.python_version()}; shared with other jobs.",
        f"- Load average (1 min) at the start: {load_start:.2f}; when written: {os.getloadavg()[0]:.2f}.",
        f"- Started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}; written "
        f"{time.strftime('%H:%M UTC', time.gmtime())}.",
        "",
        f"## 1. Front end: `{PARSE_COMMAND} FILE`, {PARALLEL} files at a time",
        "",
    ]
    if len(parse_rows) < total:
        lines += [f"**Partial: {len(parse_rows)} of {total} files.**", ""]
    if state.get("retried"):
        lines += [f"The {state['retried']} files that failed in an earlier pass (logged in the cache) were run again "
                  f"after the front end's fixes (`--resume --retry`); the other files' outcomes are that pass's.", ""]
    lines += counts_table(parse_rows, [PARSES, NOT_A_UNIT, UNBUILT, BROKEN, "crash", "timeout"])
    lines.append("")
    unbuilt = [r for r in parse_rows if r["outcome"] == UNBUILT]
    if unbuilt:
        reasons = {}
        for r in unbuilt:
            k = reason(r["detail"])
            reasons[k] = reasons.get(k, 0) + 1
        lines += ["Files that do not parse and that the configuration does not build, by reason (each file's "
                  "options are in the list below):", "", "| reason | files |", "|---|---:|"]
        for k, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {esc(k, 200)} | {n} |")
        lines += ["", "<details><summary>Each file not built, with the reason its message gives</summary>", "",
                  "| file | reason |", "|---|---|"]
        for r in sorted(unbuilt, key=lambda r: r["file"]):
            m = re.search(re.escape(NOT_BUILT) + r" \(([^)]*)\)", r["detail"])
            arch = "another architecture's header; " if "the driver is for another architecture" in r["detail"] else ""
            lines.append(f"| {r['file']} | {arch}{esc(m.group(1) if m else 'see its message', 200)} |")
        lines += ["", "</details>", ""]
    failing = [r for r in parse_rows if r["outcome"] in (BROKEN, "crash", "timeout")]
    lines += ["### Every file that does not parse and is not shown unbuilt, with its cause", ""]
    if not failing:
        lines.append("None.")
    else:
        lines += ["| file | why it cannot be fixed in the front end | message |", "|---|---|---|"]
        for r in sorted(failing, key=lambda r: r["file"]):
            lines.append(f"| {r['file']} | {known_cause(r['detail']) or 'not classified'} | {esc(r['detail'], 400)} |")
    lines.append("")
    notunits = [r for r in parse_rows if r["outcome"] == NOT_A_UNIT]
    if notunits:
        lines += ["### Files that are not units of compilation", "", "| file | note |", "|---|---|"]
        for r in sorted(notunits, key=lambda r: r["file"]):
            lines.append(f"| {r['file']} | {esc(r['detail'], 300)} |")
        lines.append("")
    if check_rows is not None:
        lines += [f"## 2. Whole check: `{CHECK_COMMAND} FILE` (default budgets), {PARALLEL} files at a time", ""]
        if len(check_rows) < total:
            lines += [f"**Partial: {len(check_rows)} of {total} files, the first of the sample in sample order "
                      f"(a random subset); a whole check takes from a second to the 600 s file budget.**", ""]
        lines += counts_table(check_rows, ["verified, no potential race", "verified, potential races", "no entry points",
                                           NOT_A_UNIT, UNBUILT, BROKEN, "crash", "timeout", "skipped"])
        secs = sorted(r["seconds"] for r in check_rows)
        if secs and secs[-1] == 0:
            lines += ["", "Wall times were not kept for these files."]
        elif secs:
            lines += ["", f"Wall time per file: median {secs[len(secs) // 2]:.1f} s, longest {secs[-1]:.1f} s, "
                          f"sum {sum(secs) / 60:.0f} minutes."]
        lines += ["", "| file | outcome | seconds | detail |", "|---|---|---:|---|"]
        for r in sorted(check_rows, key=lambda r: r["file"]):
            lines.append(f"| {r['file']} | {r['outcome']} | {r['seconds']:.1f} | {esc(r['detail'], 200)} |")
        lines.append("")
    lines += ["## Every file of the front-end pass", "", "| file | outcome |", "|---|---|"]
    for r in sorted(parse_rows, key=lambda r: r["file"]):
        lines.append(f"| {r['file']} | {r['outcome']} |")
    return "\n".join(lines) + "\n"


PARSE_COMMAND = "racewatch entry-points -j 1"
CHECK_COMMAND = "racewatch check --format json -j 1"


def run_pass(name, files, argv, judge, tree, log, keep, on_row):
    """Runs argv + [file] on every file not in keep, PARALLEL at a time, in
    order; logs each row to log and calls on_row(rows) after each."""
    rows = [keep[f] for f in files if f in keep]
    todo = [f for f in files if f not in keep]
    lock = threading.Lock()

    def one(rel):
        code, out, err, wall, _ = run_child(argv + [rel], tree, GUARD_SECONDS)
        outcome, detail = judge(code, out, err, wall)
        return {"file": rel, "outcome": outcome, "detail": detail, "seconds": wall}

    with open(log, "a") as raw, concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        for row in pool.map(one, todo):
            with lock:
                rows.append(row)
                raw.write(json.dumps(row) + "\n")
                raw.flush()
                print(f"{name} [{len(rows)}/{len(files)}] {row['file']}: {row['outcome']} {row['detail'][:150]}", flush=True)
                on_row(rows)
    return rows


def load_log(log, binary):
    """The rows of an earlier run's log, when --resume."""
    keep = {}
    if log.exists():
        for line in log.read_text().splitlines():
            try:
                row = json.loads(line)
                keep[row["file"]] = row
            except (ValueError, KeyError):
                continue
    return keep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slice", type=int, default=SAMPLE, help="run only the first N files of the sample")
    ap.add_argument("--no-setup", action="store_true", help="do not run scripts/setup.sh --tree first")
    ap.add_argument("--resume", action="store_true", help="keep the outcomes an earlier run logged in the cache")
    ap.add_argument("--skip-check", action="store_true", help="run the front-end pass only")
    ap.add_argument("--retry", action="store_true",
                    help="with --resume: run the front end again on the files logged as failing (after a fix)")
    ap.add_argument("--output", default=str(REPO / "results/tree-coverage.md"))
    ap.add_argument("--retried", type=int, default=0, help="with --render-only: how many files --retry ran again")
    ap.add_argument("--render-only", action="store_true", help="write the table from the logged outcomes, run nothing")
    args = ap.parse_args()
    if not args.no_setup:
        run_child([REPO / "scripts/setup.sh", "--no-build", "--tree"], REPO, None)
    tree = (cache_dir() / "linux-source/tree").resolve()
    if not (tree / "drivers").is_dir():
        sys.exit(f"no drivers/ tree at {tree}: run scripts/setup.sh --tree")
    binary = str(REPO / "target/release/racewatch")
    files = sample_files(tree)[: args.slice]
    shown = [a for a in sys.argv[1:] if a not in ("--no-setup", "--resume", "--render-only") and not a.startswith("--retried")]
    rev = git_revision()
    started = time.time()
    load_start = os.getloadavg()[0]
    output = Path(args.output)
    parse_log = cache_dir() / "tree-coverage-parse.jsonl"
    check_log = cache_dir() / "tree-coverage-check.jsonl"
    if not args.resume and not args.render_only:
        for log in (parse_log, check_log):
            log.unlink(missing_ok=True)
    state = {"parse": [], "check": None, "retried": 0}

    def write(rows, which):
        state[which] = rows
        if len(rows) % 10 == 0 or len(rows) == len(files):
            output.write_text(render(state, len(files), shown, started, load_start, rev))

    if args.render_only:
        parsed, checked = load_log(parse_log, binary), load_log(check_log, binary)
        state["parse"] = [parsed[f] for f in files if f in parsed]
        state["check"] = [checked[f] for f in files if f in checked]
        state["retried"] = args.retried
        write_atomically(output, render(state, len(files), shown, started, load_start, rev))
        return
    keep = load_log(parse_log, binary) if args.resume else {}
    if args.retry:
        retried = [f for f, r in keep.items() if r["outcome"] not in (PARSES, NOT_A_UNIT)]
        state["retried"] = len(retried)
        for f in retried:
            del keep[f]
    run_pass("parse", files, [binary, "entry-points", "-j", "1"], parse_outcome, tree, parse_log,
             keep, lambda rows: write(rows, "parse"))
    if not args.skip_check:
        state["check"] = []
        run_pass("check", files, [binary, "check", "--format", "json", "-j", "1"], check_outcome, tree, check_log,
                 load_log(check_log, binary) if args.resume else {}, lambda rows: write(rows, "check"))
    write_atomically(output, render(state, len(files), shown, started, load_start, rev))


if __name__ == "__main__":
    main()
