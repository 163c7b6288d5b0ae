#!/usr/bin/env python3
"""Runs racewatch's batch over whole directories of Linux 6.12 and writes
results/linux-6.12.md and results/linux-6.12.png.

The directories are drivers/char and drivers/watchdog (the *main batch*,
the one issue 6's acceptance is about) and drivers/net/ethernet/realtek
(the *realtek batch*, run separately and shown in the table), from Debian's
linux-source-6.12 as scripts/setup.sh extracts it into the cache. Each
batch is one command,
`racewatch check --format json --progress none --jobs N --no-cache DIR...`
(or `--cache-dir DIR` instead of `--no-cache`), run from the root of the
linux-source tree so that paths are relative.

Measured on the main batch:
  * `--jobs 1 --no-cache` and `--jobs 2 --no-cache` (RUNS times each,
    wall-clock medians): the speed-up (acceptance: at least 1.6x), and the
    two reports must be identical apart from the `seconds`, `memory_bytes`
    and `cached` fields of each file: the script FAILS (exit 1) if not;
  * the first `--jobs 2` run uses a private, empty result cache instead of
    `--no-cache`: it analyses every file all the same and fills the cache
    (the warm run); then a cached run (`--jobs 2`, RUNS times): its
    speed-up over the uncached `--jobs 2` run (acceptance: at least 10x).
    The cache is private to this script (`--cache-dir` a temporary
    directory), so it starts empty and other runs do not touch it.
The per-file table comes from the first uncached `--jobs 2` report: entry
points, pairs, pairs proven, races, unknown, seconds, peak memory, status;
then totals, the counts of each status and error class per directory, and
every error with its reason. A file that crashed fails the script too
(acceptance: zero panics).

The plot has the time per file of the main batch, sorted, and the mix of
statuses and verdicts per directory. It needs matplotlib: when this Python
lacks it, the script installs Debian's python3-matplotlib with apt-get (as
root, or through sudo) and draws with /usr/bin/python3.

The speed-up needs both cores free: run it on a quiet machine. A full run
takes about half an hour (the -j 1 batch alone 8 to 10 minutes).

Usage: scripts/bench-linux.py [--runs N] [--quick] [--no-setup]
           [--file-timeout S] [--output FILE] [--plot FILE]
  --quick: drivers/watchdog only as the main batch, no realtek batch, one
  run each (for developing the script; the figures are not the benchmark).
"""
import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, git_revision, machine, run_child, write_atomically  # noqa: E402

MAIN_DIRS = ["drivers/char", "drivers/watchdog"]
QUICK_DIRS = ["drivers/watchdog"]
REALTEK_DIRS = ["drivers/net/ethernet/realtek"]
STATUSES = ["verified", "no-entry-points", "error", "timeout", "crash", "skipped"]
# Fields of a file's JSON entry that may differ between runs with identical
# results.
RUN_FIELDS = ("seconds", "memory_bytes", "cached")
JOBS_SPEEDUP_GOAL = 1.6
CACHE_SPEEDUP_GOAL = 10.0


def binary_path():
    target = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else REPO / "target"
    if not target.is_absolute():
        target = REPO / target
    return target / "release/racewatch"


def run_batch(binary, src, dirs, jobs, file_timeout, cache_dir=None, timeout=None):
    """One batch, uncached unless `cache_dir` is given: (report dict, wall
    seconds, peak RSS MiB of the parent racewatch process, exit code). Exits
    the script on a run that gives no report."""
    cmd = [binary, "check", "--format", "json", "--progress", "none", "--jobs", str(jobs)]
    cmd += ["--cache-dir", cache_dir] if cache_dir else ["--no-cache"]
    if file_timeout:
        cmd += ["--file-timeout", str(file_timeout)]
    cmd += dirs
    code, out, err, wall, rss = run_child(cmd, src, timeout)
    if code is None:
        sys.exit(f"error: `{shown(cmd)}` ran over {timeout:.0f} s and was killed")
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    if code not in (0, 1, 2, 3) or doc is None:
        last = "\n".join(err.strip().splitlines()[-5:]) or "no output"
        sys.exit(f"error: `{shown(cmd)}` exited {code} without a report:\n{last}")
    print(f"  -j {jobs}{' (cache)' if cache_dir else ' --no-cache'} {' '.join(dirs)}: {wall:.1f} s, exit {code}, "
          f"{len(doc['files'])} files", file=sys.stderr)
    return doc, wall, rss, code


def shown(cmd):
    return " ".join(str(c) for c in cmd)


def comparable(doc):
    """A report without what may change between identical runs."""
    files = [{k: v for k, v in f.items() if k not in RUN_FIELDS} for f in doc["files"]]
    return json.dumps({"files": files, "errors": doc.get("errors", [])}, sort_keys=True)


def first_difference(a, b):
    by_file = {f["file"]: f for f in b["files"]}
    for f in a["files"]:
        g = by_file.get(f["file"])
        strip = lambda x: {k: v for k, v in x.items() if k not in RUN_FIELDS}  # noqa: E731
        if g is None:
            return f"{f['file']} is missing from the second report"
        if strip(f) != strip(g):
            keys = sorted(k for k in set(strip(f)) | set(strip(g)) if strip(f).get(k) != strip(g).get(k))
            return f"{f['file']}: {', '.join(keys)} differ ({f.get('status')} / {g.get('status')})"
    return "the file lists or the top-level errors differ"


def directory_of(path, dirs):
    for d in sorted(dirs, key=len, reverse=True):
        if path == d or path.startswith(d + "/"):
            return d
    return str(Path(path).parent)


def md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def mib(entry):
    b = entry.get("memory_bytes")
    return "–" if b is None else f"{b / 2**20:.0f}"


def file_rows(doc, dirs, batch):
    rows = []
    for f in doc["files"]:
        t = f.get("totals") or {}
        rows.append({
            "file": f["file"], "dir": directory_of(f["file"], dirs), "batch": batch, "status": f["status"],
            "entry_points": f.get("entry_points", 0), "pairs": t.get("pairs", 0), "proven": t.get("proven", 0),
            "races": t.get("races", 0), "unknown": t.get("unknown", 0), "seconds": f.get("seconds") or 0.0,
            "memory": mib(f), "error": f.get("error"),
        })
    return rows


def status_table(rows, dirs):
    lines = ["| directory | files | " + " | ".join(STATUSES) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in STATUSES) + " |"]
    for d in dirs:
        mine = [r for r in rows if r["dir"] == d]
        counts = collections.Counter(r["status"] for r in mine)
        lines.append(f"| {d} | {len(mine)} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    counts = collections.Counter(r["status"] for r in rows)
    lines.append(f"| **all** | {len(rows)} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    return lines


def error_tables(rows, dirs):
    """Counts of error classes per directory, then every error's reason."""
    failed = [r for r in rows if r["error"]]
    classes = sorted({r["error"]["class"] for r in failed})
    if not classes:
        return ["No file ended in an error.", ""]
    lines = ["| directory | " + " | ".join(classes) + " |", "| --- | " + " | ".join("---:" for _ in classes) + " |"]
    for d in dirs:
        counts = collections.Counter(r["error"]["class"] for r in failed if r["dir"] == d)
        lines.append(f"| {d} | " + " | ".join(str(counts[c]) for c in classes) + " |")
    lines += ["", "| file | class | reason |", "| --- | --- | --- |"]
    for r in sorted(failed, key=lambda r: (r["error"]["class"], r["file"])):
        lines.append(f"| {r['file']} | {r['error']['class']} | {md(r['error']['message'])} |")
    return lines + [""]


def plot_data(rows, dirs):
    main = sorted((r for r in rows if r["batch"] == "main" and r["status"] != "error"),
                  key=lambda r: r["seconds"], reverse=True)
    mix = {}
    for d in dirs:
        mine = [r for r in rows if r["dir"] == d]
        c = collections.Counter()
        for r in mine:
            if r["status"] == "verified":
                if r["races"]:
                    c["races reported"] += 1
                elif r["unknown"]:
                    c["unknown, no race"] += 1
                else:
                    c["all pairs proven"] += 1
            else:
                c[r["status"]] += 1
        mix[d] = dict(c)
    return {"times": [[r["file"], r["seconds"], r["status"]] for r in main], "mix": mix}


PLOT_CODE = r'''
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
data = json.load(open(sys.argv[1]))
fig, (a, b) = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [3, 2]})
times = data["times"]
colours = {"verified": "tab:blue", "no-entry-points": "tab:gray", "timeout": "tab:red", "crash": "black",
           "skipped": "tab:orange"}
a.bar(range(len(times)), [t[1] for t in times], width=1.0, color=[colours.get(t[2], "tab:purple") for t in times])
a.set_yscale("log")
a.set_xlabel(f"files of the main batch, slowest first ({len(times)} analysed; files in error left out)")
a.set_ylabel("seconds (log scale)")
a.set_title("Time per file, --jobs 2, no cache")
for t in times[:5]:
    a.annotate(t[0].split("/")[-1], (times.index(t), t[1]), fontsize=7, rotation=30, xytext=(4, 2),
               textcoords="offset points")
from matplotlib.patches import Patch
a.legend(handles=[Patch(color=c, label=s) for s, c in colours.items() if any(t[2] == s for t in times)], fontsize=8)
order = ["all pairs proven", "races reported", "unknown, no race", "no-entry-points", "error", "timeout", "crash",
         "skipped"]
shades = ["tab:green", "tab:orange", "tab:olive", "tab:gray", "tab:brown", "tab:red", "black", "tab:pink"]
dirs = list(data["mix"])
bottom = [0] * len(dirs)
for kind, shade in zip(order, shades):
    values = [data["mix"][d].get(kind, 0) for d in dirs]
    if any(values):
        b.bar([d.replace("drivers/", "") for d in dirs], values, bottom=bottom, color=shade, label=kind)
        bottom = [x + y for x, y in zip(bottom, values)]
b.set_ylabel("files")
b.set_title("Outcome per directory")
b.legend(fontsize=8)
b.tick_params(axis="x", labelsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
'''


def draw(data, png):
    """Draws with this Python's matplotlib, else with Debian's
    python3-matplotlib (installed with apt-get when missing)."""
    with tempfile.TemporaryDirectory(prefix="bench-linux-plot-") as tmp:
        data_file = Path(tmp) / "plot.json"
        data_file.write_text(json.dumps(data))
        tmp_png = Path(str(png) + ".tmp.png")
        python = sys.executable
        if subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode != 0:
            python = "/usr/bin/python3"
            if subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode != 0:
                install_matplotlib()
        subprocess.run([python, "-c", PLOT_CODE, data_file, tmp_png], check=True)
        tmp_png.replace(png)
        print(f"wrote {png}")


def install_matplotlib():
    root = [] if os.geteuid() == 0 else ["sudo"]
    print("installing Debian's python3-matplotlib", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = root + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "python3-matplotlib"]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(root + ["apt-get", "update", "-qq"], env=env, check=True)
        subprocess.run(install, env=env, stdout=subprocess.DEVNULL, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1, help="runs of each measured batch (wall-clock medians)")
    ap.add_argument("--quick", action="store_true", help="drivers/watchdog only, no realtek batch, one run")
    ap.add_argument("--no-setup", action="store_true", help="do not run scripts/setup.sh (still builds racewatch)")
    ap.add_argument("--file-timeout", type=int, default=0, help="racewatch --file-timeout (0: its default)")
    ap.add_argument("--output", default=str(REPO / "results/linux-6.12.md"))
    ap.add_argument("--plot", default=None, help="the image (default: the output with .png)")
    args = ap.parse_args()
    if args.quick:
        args.runs = 1
    png = Path(args.plot) if args.plot else Path(args.output).with_suffix(".png")

    if not args.no_setup:
        subprocess.run([REPO / "scripts/setup.sh", "--no-build"], check=True)
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=REPO, check=True)
    # The commit the measured binary was built from, read now: commits may
    # land while the benchmark runs.
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "kernel-models"],
                           capture_output=True, text=True).stdout.strip()
    rev = git_revision() + (" with uncommitted changes in src/ or kernel-models/" if dirty else "")
    # A private copy: the binary may be rebuilt while the benchmark runs.
    built = binary_path()
    private = tempfile.TemporaryDirectory(prefix="bench-linux-bin-")
    binary = Path(private.name) / "racewatch"
    shutil.copy2(built, binary)
    built_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(built.stat().st_mtime))
    src = cache_dir() / "linux-source/current"
    kernel = cache_dir() / "kernel/current"
    main_dirs = QUICK_DIRS if args.quick else MAIN_DIRS
    for d in main_dirs + ([] if args.quick else REALTEK_DIRS):
        if not (src / d).is_dir():
            sys.exit(f"error: {src / d} is missing: run scripts/setup.sh (drivers/linux-6.12/extract-dirs.txt)")
    load_start = os.getloadavg()[0]
    failures = []
    # A generous guard on a whole batch; racewatch's own budgets come first.
    guard = 4 * 3600

    print("uncached, -j 1 and -j 2:", file=sys.stderr)
    j1, j2 = [], []
    # The first -j 2 run fills the private cache, which starts empty: it
    # analyses every file, as --no-cache would, and is the warm run too.
    cache_holder = tempfile.TemporaryDirectory(prefix="bench-linux-cache-")
    cache = cache_holder.name
    for i in range(args.runs):
        j1.append(run_batch(binary, src, main_dirs, 1, args.file_timeout, timeout=guard))
        j2.append(run_batch(binary, src, main_dirs, 2, args.file_timeout, cache if i == 0 else None, timeout=guard))
    reports = [r[0] for r in j1 + j2]
    texts = {comparable(r) for r in reports}
    identical = len(texts) == 1
    if not identical:
        other = next(r for r in reports if comparable(r) != comparable(reports[0]))
        failures.append("the -j 1 and -j 2 reports differ (beyond times, memory and cache fields): "
                        + first_difference(reports[0], other))

    print("cached, -j 2 (private cache):", file=sys.stderr)
    warm = j2[0]
    cached = [run_batch(binary, src, main_dirs, 2, args.file_timeout, cache, guard) for _ in range(args.runs)]
    cache_holder.cleanup()
    for c in cached:
        if comparable(c[0]) != comparable(j2[0][0]):
            failures.append("a cached run's report differs from the uncached one: " + first_difference(j2[0][0], c[0]))
            break
    not_cached = [f["file"] for f in cached[0][0]["files"] if not f.get("cached")
                  and f["status"] in ("verified", "no-entry-points")]

    realtek = None
    if not args.quick:
        print("realtek, -j 2, no cache:", file=sys.stderr)
        realtek = run_batch(binary, src, REALTEK_DIRS, 2, args.file_timeout, timeout=guard)

    # Figures.
    t1, t2 = median(r[1] for r in j1), median(r[1] for r in j2)
    tw, tc = warm[1], median(r[1] for r in cached)
    jobs_speedup, cache_speedup = t1 / t2, t2 / tc
    rows = file_rows(j2[0][0], main_dirs, "main")
    all_dirs = list(main_dirs)
    if realtek:
        rows += file_rows(realtek[0], REALTEK_DIRS, "realtek")
        all_dirs += REALTEK_DIRS
    crashed = [r["file"] for r in rows if r["status"] == "crash"]
    if crashed:
        failures.append(f"{len(crashed)} file(s) crashed: {', '.join(crashed)}")

    cmd = "scripts/bench-linux.py " + " ".join(sys.argv[1:]) if sys.argv[1:] else "scripts/bench-linux.py"
    main_name = " and ".join(main_dirs)
    lines = [
        "# Linux 6.12: whole driver directories",
        "",
        f"Made by `{cmd.strip()}` at commit `{rev}`{' (**--quick: not the benchmark**)' if args.quick else ''}.",
        f"Machine: {machine()}; 1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        f"(other processes share the machine: times are upper bounds). Binary: racewatch built {built_at}.",
        f"Sources: Debian's linux-source-6.12 ({src.resolve().parent.name}), flags composed from Debian's "
        f"kernel headers ({kernel.resolve().name}).",
        "",
        f"Each batch is one command, run from the root of the linux-source tree: "
        f"`racewatch check --format json --progress none --jobs N --no-cache DIR...`"
        f"{f' with --file-timeout {args.file_timeout}' if args.file_timeout else ''} "
        "(the cached runs: `--cache-dir` a private, initially empty directory instead of `--no-cache`). "
        f"The *main batch* is {main_name} ({len(j2[0][0]['files'])} files)"
        + (f"; the *realtek batch* is {REALTEK_DIRS[0]} ({len(realtek[0]['files'])} files), run once with -j 2 "
           "and no cache, for the table only." if realtek else "."),
        f"Times are wall-clock medians of {args.runs} run(s) of the whole batch; memory is each file's peak",
        "resident set (racewatch's `memory_bytes`).",
        "",
        "## Parallel and cached runs (main batch)",
        "",
        "| run | wall time (s) | ratio | goal |",
        "| --- | ---: | ---: | --- |",
        f"| `--jobs 1 --no-cache` | {t1:.1f} | 1.00 | |",
        f"| `--jobs 2 --no-cache` | {t2:.1f} | {jobs_speedup:.2f}× faster than -j 1 | ≥ {JOBS_SPEEDUP_GOAL}× "
        f"{'met' if jobs_speedup >= JOBS_SPEEDUP_GOAL else '**not met**'} |",
        f"| `--jobs 2`, empty cache (warm-up) | {tw:.1f} | | |",
        f"| `--jobs 2`, cached | {tc:.2f} | {cache_speedup:.1f}× faster than uncached -j 2 | ≥ {CACHE_SPEEDUP_GOAL:.0f}× "
        f"{'met' if cache_speedup >= CACHE_SPEEDUP_GOAL else '**not met**'} |",
        "",
        f"Reports of -j 1 and -j 2: {'**identical**' if identical else '**DIFFERENT**'} apart from each file's "
        f"{', '.join(RUN_FIELDS)}. Files analysed again on the cached run: "
        f"{len(not_cached)}{' (' + ', '.join(not_cached[:5]) + (', …' if len(not_cached) > 5 else '') + ')' if not_cached else ''}.",
        "",
        "## Outcomes",
        "",
        "Statuses: *verified* (every pair has its verdicts), *no-entry-points* (nothing in the file is called by",
        "the kernel), *error* (the file could not be analysed, with its class and reason below), *timeout*,",
        "*crash*, *skipped* (the run's budget was spent).",
        "",
    ]
    lines += status_table(rows, all_dirs) + [""]
    lines += ["### Errors by class", ""] + error_tables(rows, all_dirs)
    verified = [r for r in rows if r["status"] == "verified"]
    lines += [
        "## Per file",
        "",
        "From the first uncached -j 2 run of each batch. *Pairs* are the pairs left after kernel serialisation;",
        "*proven* pairs are proven race-free on every region; *races* are (pair, region) verdicts; *unknown*",
        "pairs have an unknown region and no race.",
        "",
        "| file | batch | entry points | pairs | proven | races | unknown | time (s) | memory (MiB) | status |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in sorted(rows, key=lambda r: r["file"]):
        status = r["status"] + (f" ({r['error']['class']})" if r["error"] else "")
        lines.append(f"| {r['file']} | {r['batch']} | {r['entry_points']} | {r['pairs']} | {r['proven']} | "
                     f"{r['races']} | {r['unknown']} | {r['seconds']:.2f} | {r['memory']} | {status} |")
    for batch in ["main", "realtek"]:
        mine = [r for r in rows if r["batch"] == batch]
        if mine:
            s = lambda k: sum(r[k] for r in mine)  # noqa: E731
            lines.append(f"| **total ({batch})** | | {s('entry_points')} | {s('pairs')} | {s('proven')} | "
                         f"{s('races')} | {s('unknown')} | {s('seconds'):.1f} | | {len(mine)} files |")
    lines.append("")
    if verified:
        slowest = sorted(verified, key=lambda r: r["seconds"], reverse=True)[:5]
        lines += ["Slowest files: " + ", ".join(f"{r['file']} ({r['seconds']:.1f} s)" for r in slowest) + ".",
                  f"Median time of a verified file: {statistics.median(r['seconds'] for r in verified):.2f} s.", ""]
    lines += [f"![time per file and outcome per directory]({png.name})", ""]

    write_atomically(Path(args.output), "\n".join(lines))
    draw(plot_data(rows, all_dirs), png)
    print(f"-j 1 {t1:.1f} s, -j 2 {t2:.1f} s ({jobs_speedup:.2f}x), cached {tc:.2f} s ({cache_speedup:.1f}x)",
          file=sys.stderr)
    for f in failures:
        print(f"error: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)


main()
