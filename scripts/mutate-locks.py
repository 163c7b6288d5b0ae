#!/usr/bin/env python3
"""The lock-removal mutation test on real Linux 6.12 drivers: for each
lock/unlock pair of each driver of drivers/linux-6.12/mutation-drivers.txt,
a mutant without that pair, checked by racewatch; writes
results/mutations.md.

Lock functions. The list is read from kernel-models/locks/*.xml, never
hard-coded: every `lock-function` (acquire, acquire-may-fail, try-acquire,
release) under its own name; a model of `_raw_X` (what the macros `X` and
`raw_X` of spinlock.h and rwlock.h expand to) also under the source names
`X` and `raw_X`; a model of `class_G_constructor` as `guard(G)(l)`,
`scoped_guard(G, l)` and `scoped_cond_guard(G, fail, l)`. Bit locks and
interrupt masking (`bit-lock-function`, `irq-function`) are not mutated:
their calls are general bit operations and interrupt flags, with no lock
expression to pair by.

Pairs. A C scanner (comments, strings and preprocessor lines blanked)
finds the function bodies and, in each, the calls of those functions. The
lock expression is the call's lock argument (`lock-arg`, whitespace
removed; a `global-lock` names itself). Within a function, each acquire
pairs with every release of the same lock expression and the same family
(model file, and read or write side) that follows it up to the next
acquire of that lock: `lock; if (e) { unlock; return; } ...; unlock` is one
pair with two releases, and `lock; ...; unlock; sleep; lock; ...; unlock`
is two pairs, each of which leaves the mutant balanced. An acquire without
a following release and a release without a preceding acquire (a function
entered or left with the lock held) are counted as unmatched and skipped.
A guard pairs with the end of its block, a scoped guard with its statement.

Mutants. Each mutant replaces the acquire by its success value (`((void)0)`
for an acquire, 0 or 1 by the model's `success` for a try or interruptible
acquire, `if (1)` for a scoped guard) and each matched release by
`((void)0)`, keeping every newline, so line numbers do not move. The
mutant is written into a scratch tree that mirrors the driver's path (with
the Makefiles of its directories, which racewatch reads for the
configuration) and is checked from the scratch root with
`racewatch check --format json --no-cache -j JOBS -I <the original directory>`,
so the driver's own headers still resolve. The unmutated file is checked
the same way (the baseline) and, once, from the real tree: a difference is
an error. A directory entry (a multi-file module such as drivers/block/aoe)
mirrors the directory's .c and .h files and checks the directory.

Verdicts. The removed section is the lines from the acquire to its last
release (for a guard, to the end of its block or statement) and the bodies
of the functions of the same file it calls by name, transitively (as
tests/mutations.rs does for the corpus), and any header (the inline kernel
helpers it calls, such as list_add_tail's __list_add). A mutant is
*reported* when the mutant's run reports a race access, on a line of the
section, that the baseline does not report (same pair, region, access
line and function), or a new access in the section's function or a
function it calls (racewatch names one access per entry point and region,
not necessarily the unprotected one), or a race of a pair and region the
baseline does not report at all (the section's lock was the only
difference, and racewatch named another access of the entry point, such as
one in a function of another file the section calls). Otherwise it is *already-reported* when the baseline itself reports
a race with an access in the section (the lock was not credited, so its
removal cannot add a report: not a test of the analysis), else *missed*. A
missed mutant is looked up in the reviewed judgement file
drivers/linux-6.12/mutation-judgements.tsv (tab-separated: file, acquire
line, function, lock expression, judgement, reason; judgement
`protected-nothing` with the reason read from the source,
`already-reported` when the section's accesses belong to an entry point
whose race on the same region and partners the baseline already reports
through another of its accesses (named in the reason), or `missed`, a
real soundness gap, with its cause in brackets first).

Exit status: 1 when a missed mutant has no judgement, when a run fails or
the scratch baseline differs from the tree's, or (without
--allow-judged-gaps) when a mutant is judged `missed`. A previously reported
mutant that stops being reported has no judgement, so it fails. Judgements
that match no missed mutant are warned about.

The outcomes are saved as JSON (--raw, default the output with .json)
after every driver; --resume keeps the drivers already there,
--report-only re-applies the judgements without running anything.
--unit file checks a directory entry's mutants on the mutated file alone
(the same verdicts while racewatch analyses each file of a directory on its
own, several times faster).

Usage: scripts/mutate-locks.py [--drivers NAME,...] [--list FILE]
           [--jobs N] [--timeout S] [--allow-judged-gaps] [--output FILE]
           [--binary PATH] [--source DIR] [--raw FILE] [--resume]
           [--report-only] [--unit module|file]
"""
import argparse
import collections
import json
import os
import re
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import cache_dir, git_revision, machine, run_child, write_atomically  # noqa: E402

LIST = REPO / "drivers/linux-6.12/mutation-drivers.txt"
JUDGEMENTS = REPO / "drivers/linux-6.12/mutation-judgements.tsv"
JUDGED = ["protected-nothing", "already-reported", "missed"]
NOOP = "((void)0)"


# Lock functions from the models.

class LockFn:
    def __init__(self, name, op, arg, global_lock, success, family):
        self.name, self.op, self.arg, self.global_lock = name, op, arg, global_lock
        self.success, self.family = success, family

    def success_text(self):
        if self.op == "release":
            return NOOP
        if self.op == "acquire":
            return NOOP
        return "1" if self.success == "nonzero" else "0"


def side(name):
    return "read" if "read" in name else "write" if "write" in name else "plain"


def lock_functions(models):
    """Source-level lock functions (name -> LockFn) and guard classes
    (class name -> LockFn of the constructor), from the lock models."""
    calls, guards = {}, {}
    for path in sorted((models / "locks").glob("*.xml")):
        for el in ET.parse(path).getroot().iter("lock-function"):
            name, op = el.get("name"), el.get("op")
            if op not in ("acquire", "acquire-may-fail", "try-acquire", "release"):
                continue
            arg = int(el.get("lock-arg")) if el.get("lock-arg") is not None else None
            fam = (path.stem, side(name))
            m = re.fullmatch(r"class_(\w+)_(constructor|destructor)", name)
            if m:
                if m.group(2) == "constructor":
                    guards[m.group(1)] = LockFn(name, op, arg, el.get("global-lock"), el.get("success"), fam)
                continue
            names = [name]
            if name.startswith("_raw_"):
                names += [name[len("_raw_"):], name[1:]]
            for n in names:
                calls.setdefault(n, LockFn(n, op, arg, el.get("global-lock"), el.get("success"), fam))
    return calls, guards


# A small C scanner.

def blank(text):
    """The text with comments, string and character literals and
    preprocessor lines replaced by spaces (newlines kept): same offsets."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):
                    k = text.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                    continue
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def match_close(code, i):
    """Offset just past the bracket closing the one at i."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    for j in range(i, len(code)):
        c = code[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")}]":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return j + 1
    return None


def match_open(code, j):
    """Offset of the bracket opening the one closing at j."""
    pairs = {")": "(", "}": "{", "]": "["}
    depth = 0
    want = code[j]
    for i in range(j, -1, -1):
        if code[i] == want:
            depth += 1
        elif code[i] == pairs[want]:
            depth -= 1
            if depth == 0:
                return i
    return None


def functions(code):
    """(name, body start, body end) of every function definition."""
    out = []
    i, n = 0, len(code)
    while i < n:
        if code[i] != "{":
            i += 1
            continue
        end = match_close(code, i) or n
        j = i - 1
        name = None
        while True:
            while j >= 0 and code[j].isspace():
                j -= 1
            if j < 0 or code[j] != ")":
                break
            o = match_open(code, j)
            if o is None:
                break
            k = o - 1
            while k >= 0 and code[k].isspace():
                k -= 1
            m = re.search(r"(\w+)$", code[max(0, k - 80):k + 1])
            if not m:
                break
            name = m.group(1)
            j = k - len(name)
        if name and name not in ("if", "for", "while", "switch"):
            out.append((name, i, end))
        i = end
    return out


def split_args(s):
    args, depth, cur = [], 0, ""
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
    args.append(cur)
    return ["".join(a.split()) for a in args]


def statement_end(code, i):
    """End of the statement starting at i (a block or up to `;`)."""
    while i < len(code) and code[i].isspace():
        i += 1
    if i < len(code) and code[i] == "{":
        return match_close(code, i) or len(code)
    depth = 0
    for j in range(i, len(code)):
        if code[j] in "([{":
            depth += 1
        elif code[j] in ")]}":
            depth -= 1
        elif code[j] == ";" and depth == 0:
            return j + 1
    return len(code)


def block_end(code, i, limit):
    depth = 0
    for j in range(i, limit):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth < 0:
                return j + 1
    return limit


class Mutant:
    def __init__(self, rel, function, lock, edits, first_line, last_line, what):
        self.rel, self.function, self.lock, self.edits = rel, function, lock, edits
        self.first_line, self.last_line, self.what = first_line, last_line, what
        self.outcome, self.detail, self.judgement = None, "", None
        # The driver functions the section calls, transitively: [(file, first line, last line, name)].
        self.callees = []

    def covers(self, file, line):
        if file == self.rel and self.first_line <= line <= self.last_line:
            return True
        return any(file == c[0] and c[1] <= line <= c[2] for c in self.callees)

    def key(self):
        return (self.rel, self.first_line, self.function, self.lock)

    def functions(self):
        """The section's function and the functions it calls."""
        return {self.function} | {c[3] for c in self.callees if len(c) > 3}


def callees(code, text, rel, funcs, start, end):
    """The (file, first line, last line) of the bodies of the functions of
    funcs called by name from code[start:end], and of those they call,
    transitively."""
    by_name = {f[0]: f for f in funcs}
    seen, todo, out = set(), [(start, end)], []
    while todo:
        s, e = todo.pop()
        for m in re.finditer(r"\b(\w+)\s*\(", code[s:e]):
            f = by_name.get(m.group(1))
            if f and f[0] not in seen:
                seen.add(f[0])
                out.append((rel, line_of(text, f[1]), line_of(text, f[2] - 1), f[0]))
                todo.append((f[1], f[2]))
    return out

    def key(self):
        return (self.rel, self.first_line, self.function, self.lock)


def line_of(text, off):
    return text.count("\n", 0, off) + 1


def find_mutants(rel, text, calls, guards):
    """The mutants of one file and the counts of skipped lock operations."""
    code = blank(text)
    names = sorted(calls, key=len, reverse=True)
    call_re = re.compile(r"(?<![\w.>])(" + "|".join(map(re.escape, names)) + r")\s*\(")
    guard_re = re.compile(r"(?<![\w.>])(guard|scoped_guard|scoped_cond_guard)\s*\(\s*(\w+)\s*([,)])")
    mutants, skipped = [], collections.Counter()
    funcs = functions(code)
    for fname, start, end in funcs:
        events = []
        for m in call_re.finditer(code, start, end):
            fn = calls[m.group(1)]
            close = match_close(code, m.end() - 1)
            if close is None:
                continue
            args = split_args(code[m.end():close - 1])
            if fn.global_lock:
                expr = fn.global_lock
            elif fn.arg is not None and fn.arg < len(args):
                expr = args[fn.arg]
            else:
                skipped["no lock argument"] += 1
                continue
            events.append((m.start(), close, fn, expr))
        for m in guard_re.finditer(code, start, end):
            fn = guards.get(m.group(2))
            if fn is None:
                skipped[f"guard class without model ({m.group(2)})"] += 1
                continue
            if m.group(1) == "guard":
                if m.group(3) != ")":
                    continue
                k = m.end()
                while k < end and code[k].isspace():
                    k += 1
                if k >= end or code[k] != "(":
                    continue
                close = match_close(code, k)
                args = split_args(code[k + 1:close - 1])
                sec_end = block_end(code, close, end)
                repl = NOOP
            else:
                close = match_close(code, m.start() + len(m.group(1)) + code[m.start() + len(m.group(1)):].index("("))
                args = split_args(code[m.end():close - 1])
                if m.group(1) == "scoped_cond_guard":
                    args = args[1:]
                sec_end = statement_end(code, close)
                repl = "if (1)"
            expr = args[0] if args else ""
            edits = [(m.start(), close, repl)]
            mut = Mutant(rel, fname, expr, edits, line_of(text, m.start()), line_of(text, sec_end - 1),
                         f"{m.group(1)}({m.group(2)})")
            mut.callees = callees(code, text, rel, funcs, close, sec_end)
            mutants.append(mut)
        events.sort(key=lambda e: e[0])
        by_lock = collections.defaultdict(list)
        for e in events:
            by_lock[(e[2].family, e[3])].append(e)
        for (_, expr), evs in by_lock.items():
            groups = []
            for pos, close, fn, _ in evs:
                if fn.op != "release":
                    groups.append({"acq": (pos, close, fn), "releases": []})
                elif not groups:
                    skipped["release without an acquire in its function"] += 1
                else:
                    groups[-1]["releases"].append((pos, close, fn))
            for g in groups:
                if not g["releases"]:
                    skipped["acquire without a release in its function"] += 1
                    continue
                apos, aclose, afn = g["acq"]
                edits = [(apos, aclose, afn.success_text())] + [(p, c, NOOP) for p, c, _ in g["releases"]]
                last = g["releases"][-1][1]
                mut = Mutant(rel, fname, expr, edits, line_of(text, apos), line_of(text, last - 1),
                             f"{afn.name}/{'+'.join(sorted({r[2].name for r in g['releases']}))}")
                mut.callees = callees(code, text, rel, funcs, aclose, g["releases"][-1][0])
                mutants.append(mut)
    mutants.sort(key=lambda m: (m.first_line, m.what))
    return mutants, skipped


def apply(text, edits):
    out, last = [], 0
    for s, e, repl in sorted(edits):
        out.append(text[last:s])
        out.append(repl + "\n" * text.count("\n", s, e))
        last = e
    out.append(text[last:])
    return "".join(out)


# Running racewatch.

def race_accesses(doc_files):
    """{(pair, region, file, line, function)} of every race access."""
    out = set()
    for f in doc_files:
        for p in f.get("pairs", []):
            for r in p["regions"]:
                if r["verdict"] != "race":
                    continue
                for a in r.get("accesses", []):
                    loc = a.get("location") or {}
                    pair = tuple(sorted((p["first"], p["second"])))
                    out.add((pair, r["region"], loc.get("file"), loc.get("line"), a.get("function")))
    return out


def check(binary, cwd, target, include, jobs, timeout):
    cmd = [binary, "check", "--format", "json", "--no-cache", "-j", jobs]
    if include:
        cmd += ["-I", include]
    cmd.append(target)
    code, out, err, wall, _ = run_child(cmd, cwd, timeout)
    if code is None:
        return None, f"timeout (over {timeout:.0f} s)", wall
    try:
        doc = json.loads(out)
    except ValueError:
        return None, f"exit {code}: {(err.strip().splitlines() or ['no output'])[-1]}", wall
    errors = [f"{f['file']}: {f['error']['class']}: {f['error']['message']}" for f in doc["files"] if "error" in f]
    errors += [str(e) for e in doc.get("errors", [])]
    if code not in (0, 1, 3) or errors:
        return None, f"exit {code}: {'; '.join(errors)[:300]}", wall
    return doc["files"], None, wall


def scratch_tree(src, rel, scratch):
    """Mirrors rel (a file or a directory of src) with its directories'
    Makefiles into scratch; returns the directory whose headers the
    mutant includes."""
    path = src / rel
    d = path if path.is_dir() else path.parent
    parts = Path(rel).parts if path.is_dir() else Path(rel).parts[:-1]
    for i in range(1, len(parts) + 1):
        sub = Path(*parts[:i])
        (scratch / sub).mkdir(parents=True, exist_ok=True)
        if (src / sub / "Makefile").exists():
            shutil.copy(src / sub / "Makefile", scratch / sub / "Makefile")
    if (src / "Makefile").exists():
        shutil.copy(src / "Makefile", scratch / "Makefile")
    if path.is_dir():
        for f in path.iterdir():
            if f.suffix in (".c", ".h") and f.is_file():
                shutil.copy(f, scratch / rel / f.name)
    else:
        shutil.copy(path, scratch / rel)
    return str(d)


def read_list(path):
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def read_judgements(path):
    judgements, problems = {}, []
    if not path.exists():
        return judgements, problems
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 6 or not cols[1].isdigit() or cols[4] not in JUDGED or not cols[5].strip():
            problems.append(f"{path.name}:{n}: want file, line, function, lock, {'|'.join(JUDGED)}, reason")
            continue
        judgements[(cols[0], int(cols[1]), cols[2], cols[3])] = [cols[4], cols[5], n, False]
    return judgements, problems


def md(s):
    return str(s).replace("|", "\\|")


def row_json(r):
    return {"rel": r["rel"], "note": r["note"], "time": r["time"], "skipped": dict(r["skipped"]),
            "mutants": [vars(m) | {"edits": None} for m in r["mutants"]]}


def run(args, entries, src, calls, guards, previous):
    """Checks the baseline and every mutant of each entry; the outcomes,
    without judgements, as a JSON-ready dict, saved to --raw after every
    driver. With --resume, the drivers of `previous` that ran without a
    failure are kept and not run again."""
    load_start = os.getloadavg()[0]
    started = time.time()
    done = {r["rel"]: r for r in (previous or {}).get("rows", []) if not r["note"]}
    kept_failures = [f for f in (previous or {}).get("failures", []) if f.split(":")[0] in done]
    rows, failures = [], []
    data = {}

    def save():
        data.update({
            "command": "scripts/mutate-locks.py" + "".join(f" {a}" for a in sys.argv[1:]),
            "commit": git_revision(), "machine": machine(), "jobs": args.jobs, "unit": args.unit,
            "load": [load_start, os.getloadavg()[0]],
            "seconds": time.time() - started + (previous or {}).get("seconds", 0) * bool(done),
            "failures": kept_failures + failures,
            "rows": [r if "json" in r else row_json(r) for r in rows],
        })
        write_atomically(Path(args.raw), json.dumps(data, indent=1))

    for rel in entries:
        if rel in done:
            rows.append(done[rel] | {"json": True})
            continue
        row = {"rel": rel, "mutants": [], "skipped": collections.Counter(), "time": 0.0, "note": None}
        rows.append(row)
        run_entry(args, src, rel, row, failures, calls, guards)
        save()
    save()
    for r in data["rows"]:
        r.pop("json", None)
    return data


def where(access, rel):
    """An access's place as the results print it."""
    file, line, function = access[2], access[3], access[4]
    return f":{line}" if file == rel else f"{Path(str(file)).name}:{line} (in {function})"


def decide(m, after, before, frel):
    """The mutant's outcome from the race accesses of its run and of the
    baseline. A new access counts when it lies in the section (or a
    same-file function it calls), in a header (an inline kernel helper such
    as __list_add: no driver line, and the mutant differs from the baseline
    only by the removed pair), or in the section's function or a function it
    calls: racewatch names one access per entry point and region, not
    necessarily the unprotected one (the entry point's lockset is the
    intersection over its accesses)."""
    names = m.functions()
    new = sorted(a for a in after - before
                 if m.covers(a[2], a[3] or 0) or str(a[2]).endswith(".h") or a[4] in names)
    old = [a for a in before if m.covers(a[2], a[3] or 0)]
    m.new_accesses = [list(a[:1][0]) + list(a[1:]) for a in sorted(after - before)][:50]
    # A race of a pair and region the baseline does not report: only the
    # removed pair changed, so the lock kept it out.
    fresh_races = {(a[0], a[1]) for a in after} - {(a[0], a[1]) for a in before}
    fresh = sorted(a for a in after - before if (a[0], a[1]) in fresh_races)
    if new:
        m.outcome = "reported"
        m.detail = "; ".join(sorted({f"{a[1]} ({' × '.join(a[0])}) {where(a, frel)}" for a in new}))
    elif fresh:
        m.outcome = "reported"
        m.detail = "new race: " + "; ".join(sorted({f"{a[1]} ({' × '.join(a[0])}) {where(a, frel)}" for a in fresh}))
    elif old:
        m.outcome = "already-reported"
        m.detail = "; ".join(sorted({f"{a[1]} {where(a, frel)}" for a in old}))
    else:
        m.outcome = "missed"
        elsewhere = after - before
        m.detail = f"{len(elsewhere)} new race accesses outside the section" if elsewhere else ""


def recheck(args, data, src, calls, guards):
    """Runs again the mutants of data judged missed (--recheck), with the
    current decision rule; the other outcomes are kept."""
    for row in data["rows"]:
        missed = {(d["rel"], d["first_line"], d["function"], d["lock"], d["what"]): d
                  for d in row["mutants"] if d["outcome"] == "missed"}
        if not missed:
            continue
        rel = row["rel"]
        path = src / rel
        files = sorted(f for f in path.iterdir() if f.suffix == ".c") if path.is_dir() else [path]
        with tempfile.TemporaryDirectory(prefix="racewatch-mut-") as tmp:
            scratch = Path(tmp)
            include = scratch_tree(src, rel, scratch)
            base, err, _ = check(args.binary, scratch, rel, include, args.jobs, args.timeout)
            if err:
                data["failures"].append(f"{rel}: recheck baseline failed: {err}")
                continue
            before = race_accesses(base)
            for f in files:
                frel = str(Path(rel) / f.name) if path.is_dir() else rel
                target_arg = frel if args.unit == "file" else rel
                text = f.read_text(errors="replace")
                for m in find_mutants(frel, text, calls, guards)[0]:
                    d = missed.get((m.rel, m.first_line, m.function, m.lock, m.what))
                    if d is None:
                        continue
                    (scratch / frel).write_text(apply(text, m.edits))
                    docs, merr, wall = check(args.binary, scratch, target_arg, include, args.jobs, args.timeout)
                    if merr:
                        m.outcome, m.detail = "error", merr
                        data["failures"].append(f"{frel}:{m.first_line} {m.function} {m.lock}: {merr}")
                    else:
                        decide(m, race_accesses(docs), before, frel)
                    print(f"recheck {frel}:{m.first_line} {m.function} {m.lock}: {m.outcome} [{wall:.1f} s]", flush=True)
                    d.update(vars(m) | {"edits": None})
                (scratch / frel).write_text(text)
        write_atomically(Path(args.raw), json.dumps(data, indent=1))
    return data


def run_entry(args, src, rel, row, failures, calls, guards):
    """The baseline and the mutants of one entry of the list, into row."""
    path = src / rel
    if not path.exists():
        row["note"] = "not in linux 6.12"
        failures.append(f"{rel}: not in the source tree")
        return
    files = sorted(f for f in path.iterdir() if f.suffix == ".c") if path.is_dir() else [path]
    t0 = time.monotonic()
    code, err, _ = check(args.binary, src, rel, None, args.jobs, args.timeout)
    with tempfile.TemporaryDirectory(prefix="racewatch-mut-") as tmp:
        scratch = Path(tmp)
        include = scratch_tree(src, rel, scratch)
        base, err2, _ = check(args.binary, scratch, rel, include, args.jobs, args.timeout)
        if err or err2:
            row["note"] = f"baseline failed: {err or err2}"
            failures.append(f"{rel}: {row['note']}")
            row["time"] = time.monotonic() - t0
            return
        if race_accesses(code) != race_accesses(base):
            row["note"] = "the scratch baseline differs from the tree's"
            failures.append(f"{rel}: {row['note']}")
            row["time"] = time.monotonic() - t0
            return
        before = race_accesses(base)
        for f in files:
            frel = str(Path(rel) / f.name) if path.is_dir() else rel
            # --unit file checks a module's mutated file alone: the same
            # verdicts as long as racewatch analyses each file of a
            # directory on its own.
            target_arg = frel if args.unit == "file" else rel
            text = f.read_text(errors="replace")
            mutants, skipped = find_mutants(frel, text, calls, guards)
            row["skipped"].update(skipped)
            target = scratch / frel
            for m in mutants:
                target.write_text(apply(text, m.edits))
                docs, merr, wall = check(args.binary, scratch, target_arg, include, args.jobs, args.timeout)
                if merr:
                    m.outcome, m.detail = "error", merr
                    failures.append(f"{frel}:{m.first_line} {m.function} {m.lock}: {merr}")
                else:
                    decide(m, race_accesses(docs), before, frel)
                print(f"{frel}:{m.first_line}-{m.last_line} {m.function} {m.what} {m.lock}: {m.outcome}"
                      f" [{wall:.1f} s]", flush=True)
                row["mutants"].append(m)
            target.write_text(text)
    row["time"] = time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", default=str(LIST))
    ap.add_argument("--drivers", help="comma-separated names (file name without .c, or directory name)")
    ap.add_argument("--judgements", default=str(JUDGEMENTS))
    ap.add_argument("--jobs", default="1")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--allow-judged-gaps", action="store_true")
    ap.add_argument("--output", default=str(REPO / "results/mutations.md"))
    ap.add_argument("--binary", default=str(REPO / "target/release/racewatch"))
    ap.add_argument("--source", default=str(cache_dir() / "linux-source/current"))
    ap.add_argument("--raw", default=None, help="the outcomes as JSON (default: the output with .json)")
    ap.add_argument("--report-only", action="store_true", help="re-apply the judgements to --raw without running")
    ap.add_argument("--resume", action="store_true", help="keep the drivers --raw already has")
    ap.add_argument("--recheck", action="store_true", help="run again the missed mutants of --raw with the current rule")
    ap.add_argument("--unit", choices=["module", "file"], default="module",
                    help="check a multi-file module's mutants as the directory (default) or the mutated file alone")
    args = ap.parse_args()
    if args.raw is None:
        args.raw = str(Path(args.output).with_suffix(".json"))
    src = Path(args.source)
    if not src.is_dir():
        sys.exit(f"error: {src} is missing: run scripts/setup.sh")
    calls, guards = lock_functions(REPO / "kernel-models")
    entries = read_list(Path(args.list))
    if args.drivers:
        wanted = set(args.drivers.split(","))
        entries = [e for e in entries if Path(e).name.removesuffix(".c") in wanted]
        missing = wanted - {Path(e).name.removesuffix(".c") for e in entries}
        if missing:
            sys.exit(f"error: not in {args.list}: {', '.join(sorted(missing))}")
    if args.report_only:
        data = json.loads(Path(args.raw).read_text())
    elif args.recheck:
        data = recheck(args, json.loads(Path(args.raw).read_text()), src, calls, guards)
        data["command"] += " && scripts/mutate-locks.py" + "".join(f" {a}" for a in sys.argv[1:])
        # The outcomes are now those of this commit's binary.
        data["commit"] = git_revision()
        write_atomically(Path(args.raw), json.dumps(data, indent=1))
    else:
        previous = json.loads(Path(args.raw).read_text()) if args.resume and Path(args.raw).exists() else None
        data = run(args, entries, src, calls, guards, previous)
    report(args, data)


def report(args, data):
    """Applies the judgements to the outcomes and writes the results file;
    exits 1 on what the doc comment lists."""
    judgements, problems = read_judgements(Path(args.judgements))
    failures = data["failures"]
    rows = data["rows"]
    all_mutants = []
    for r in rows:
        ms = []
        for d in r["mutants"]:
            m = Mutant(d["rel"], d["function"], d["lock"], None, d["first_line"], d["last_line"], d["what"])
            m.outcome, m.detail = d["outcome"], d["detail"]
            if m.outcome == "missed":
                j = judgements.get(m.key())
                if j:
                    j[3] = True
                    m.judgement = (j[0], j[1])
            ms.append(m)
        r["mutants"] = ms
        r["skipped"] = collections.Counter(r["skipped"])
        all_mutants += ms
    load_start, load_end = data["load"]
    unjudged = [m for m in all_mutants if m.outcome == "missed" and not m.judgement]
    gaps = [m for m in all_mutants if m.judgement and m.judgement[0] == "missed"]
    unused = [f"{Path(args.judgements).name}:{j[2]}: matches no missed mutant" for k, j in judgements.items()
              if not j[3] and any(k[0].startswith(r["rel"]) for r in rows)]
    cmd = data["command"]
    lines = [
        "# Lock-removal mutants of real Linux 6.12 drivers",
        "",
        f"Made by `{cmd}` at commit `{data['commit']}`.",
        f"Machine: {data['machine']}; 1-minute load average {load_start:.1f} at the start, {load_end:.1f} at the end",
        f"(other processes share the machine). Total {data['seconds']:.0f} s.",
        "Each mutant removes one lock/unlock pair (the lock functions of kernel-models/locks/*.xml) and is",
        f"checked with `racewatch check --format json --no-cache -j {data['jobs']} -I <driver dir>` in a scratch tree.",
        "*reported*: a new race access on a line of the removed section, or a new race (pair and region);",
        "*already reported*: the unmutated driver already reports a race on the section, or (judged) on its",
        "entry point, region and partners through another access (not a test); *protected nothing*,",
        "*missed*: no new report, judged in drivers/linux-6.12/mutation-judgements.tsv (a *missed*",
        "mutant is a soundness gap); *unjudged*: no new report and no judgement; *skipped*: lock",
        "operations that pair with nothing in their function. The method is in the script's doc comment.",
        "",
        "| driver | mutants | reported | already reported | protected nothing | missed | unjudged | errors | skipped | time (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    total = collections.Counter()
    for r in rows:
        c = collections.Counter()
        for m in r["mutants"]:
            c["mutants"] += 1
            if m.outcome == "missed":
                c[m.judgement[0] if m.judgement else "unjudged"] += 1
            else:
                c[m.outcome] += 1
        c["skipped"] = sum(r["skipped"].values())
        total.update(c)
        note = f" ({md(r['note'])})" if r["note"] else ""
        lines.append(f"| {r['rel']}{note} | {c['mutants']} | {c['reported']} | {c['already-reported']} | "
                     f"{c['protected-nothing']} | {c['missed']} | {c['unjudged']} | {c['error']} | {c['skipped']} | "
                     f"{r['time']:.0f} |")
    lines += [f"| **all** ({len(rows)} drivers) | {total['mutants']} | {total['reported']} | "
              f"{total['already-reported']} | {total['protected-nothing']} | {total['missed']} | {total['unjudged']} | "
              f"{total['error']} | {total['skipped']} | |", ""]
    skipped_all = collections.Counter()
    for r in rows:
        skipped_all.update(r["skipped"])
    if skipped_all:
        lines += ["Skipped lock operations: " + ", ".join(f"{k} {v}" for k, v in sorted(skipped_all.items())) + ".", ""]
    if gaps or unjudged:
        lines += ["## Missed mutants (soundness gaps)", "", "| mutant | function | lock | judgement |", "| --- | --- | --- | --- |"]
        for m in gaps + unjudged:
            lines.append(f"| {m.rel}:{m.first_line}-{m.last_line} | {m.function} | `{md(m.lock)}` | "
                         f"{md(m.judgement[1]) if m.judgement else '**unjudged**'} |")
        lines.append("")
    lines += ["## Every mutant", "", "| mutant | function | removed | lock | outcome | detail |", "| --- | --- | --- | --- | --- | --- |"]
    for m in all_mutants:
        outcome = m.judgement[0] if m.judgement else ("unjudged" if m.outcome == "missed" else m.outcome)
        detail = m.judgement[1] if m.judgement else m.detail
        if len(detail) > 300:
            detail = detail[:300] + " …"
        lines.append(f"| {m.rel}:{m.first_line}-{m.last_line} | {m.function} | {md(m.what)} | `{md(m.lock)}` | "
                     f"{outcome} | {md(detail)} |")
    lines.append("")
    write_atomically(Path(args.output), "\n".join(lines))
    for u in unused:
        print(f"warning: {u}", file=sys.stderr)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    for f in failures:
        print(f"error: {f}", file=sys.stderr)
    for m in unjudged:
        print(f"error: missed without a judgement: {m.rel}\t{m.first_line}\t{m.function}\t{m.lock}", file=sys.stderr)
    for m in gaps:
        print(f"{'warning' if args.allow_judged_gaps else 'error'}: judged missed (a soundness gap): "
              f"{m.rel}:{m.first_line} {m.function} {m.lock}: {m.judgement[1]}", file=sys.stderr)
    if problems or failures or unjudged or (gaps and not args.allow_judged_gaps):
        sys.exit(1)


if __name__ == "__main__":
    main()
